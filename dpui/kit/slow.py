"""Slow, deterministic computations run once on request, with a progress bar, then cached.

``st.cache_*`` functions may not update a progress bar created outside them
(Streamlit replays a cached function's element calls), so a slow result is
computed outside the cache with its progress shown, and kept in a cached
:class:`Slot` keyed by its inputs. Only deterministic results of public
parameters (never user data) go here, so sharing them between sessions is
what ``st.cache_resource`` does anyway; the slots are bounded like any cache.

Single flight: a second session asking for a result that another session is computing
waits for it (a spinner says so) instead of computing it again; if the first computation
stops (its session reran or closed), the waiting session computes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

Progress = Callable[[float], object]


@dataclass
class Slot:
    """Holds one result once it has been computed (``None`` before); ``lock`` is held while
    a session computes it."""

    value: Any = None
    lock: threading.Lock = field(default_factory=threading.Lock)


@st.cache_resource(max_entries=32, show_spinner=False)
def _slot(kind: str, key: Hashable) -> Slot:
    return Slot()


def done(kind: str, key: Hashable) -> Any:
    """The result computed for ``(kind, key)``, or ``None`` if not computed yet."""
    return _slot(kind, key).value


def run(kind: str, key: Hashable, compute: Callable[[Progress], Any], text: str) -> Any:
    """The result for ``(kind, key)``; computed now, with a progress bar, if it is not yet."""
    slot = _slot(kind, key)
    if slot.value is not None:
        return slot.value
    if not slot.lock.acquire(blocking=False):
        note = st.empty()
        while not slot.lock.acquire(timeout=0.5):  # each pass lets a rerun stop this session
            note.caption(f"{text} Another session is computing the same result; waiting for it…")
        note.empty()
    try:
        if slot.value is None:
            bar = st.progress(0.0, text=text)
            slot.value = compute(
                lambda f: bar.progress(min(max(f, 0.0), 1.0), text=f"{text} {f:.0%}")
            )
            bar.empty()
    finally:
        slot.lock.release()
    return slot.value


def clear() -> None:
    """Forget every result (a test starts from a fresh server with it)."""
    _slot.clear()
