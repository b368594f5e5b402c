"""Slow, deterministic computations run once on request, with a progress bar, then cached.

``st.cache_*`` functions may not update a progress bar created outside them
(Streamlit replays a cached function's element calls), so a slow result is
computed outside the cache with its progress shown, and kept in a cached
:class:`Slot` keyed by its inputs. Only deterministic results of public
parameters (never user data) go here, so sharing them between sessions is
what ``st.cache_resource`` does anyway; the slots are bounded like any cache.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import streamlit as st

Progress = Callable[[float], object]


@dataclass
class Slot:
    """Holds one result once it has been computed (``None`` before)."""

    value: Any = None


@st.cache_resource(max_entries=32, show_spinner=False)
def _slot(kind: str, key: Hashable) -> Slot:
    return Slot()


def done(kind: str, key: Hashable) -> Any:
    """The result computed for ``(kind, key)``, or ``None`` if not computed yet."""
    return _slot(kind, key).value


def run(kind: str, key: Hashable, compute: Callable[[Progress], Any], text: str) -> Any:
    """The result for ``(kind, key)``; computed now, with a progress bar, if it is not yet."""
    slot = _slot(kind, key)
    if slot.value is None:
        bar = st.progress(0.0, text=text)
        slot.value = compute(lambda f: bar.progress(min(max(f, 0.0), 1.0), text=f"{text} {f:.0%}"))
        bar.empty()
    return slot.value
