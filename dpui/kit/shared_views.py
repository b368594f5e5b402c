"""A page's view computed once for every session asking for the same inputs.

A class following the lecturer opens one step together: 120 sessions compute the same view
(the figures and numbers of :class:`dpui.kit.page.View`) from the same settings and dataset,
and building a figure with Plotly is most of what a step costs the server. A page whose view
reads nothing but its inputs and draws nothing (``Page.shared_view``) has its result kept,
shared by every session, under its page, its parameter values and a digest of the dataset.
A kept view is never changed afterwards: its figure is marked shared
(:func:`dpui.kit.styled_once.shared`), so a comparison and
:func:`dpui.kit.present.show_chart` draw copies of it.

Inputs that no link carries (``Inputs.extra``: an edited table) are this session's own: a
view computed from them is not kept.
"""

from __future__ import annotations

import hashlib
import weakref
from collections.abc import Callable
from typing import TypeVar

from dpcore.histogram import Histogram
from dpui.kit import byte_cache

ENTRIES = 32
"""Views kept (a lesson of ten steps opens about a dozen, a step with a pinned baseline two)."""

V = TypeVar("V")


def dataset_digest(hist: Histogram) -> str:
    """A digest of everything of ``hist`` a view may show: its counts and their text (made
    once per histogram: 0.4 s for 2^22 labelled bins)."""
    found = _DIGESTS.get(hist)
    if found is None:
        h = hashlib.blake2b(hist.counts.tobytes(), digest_size=16)
        text = (hist.name, hist.labels, hist.notes, hist.header_note, hist.unit)
        h.update(repr(text).encode())  # strings' repr is exact (quotes escaped)
        found = _DIGESTS[hist] = h.hexdigest()
    return found


_DIGESTS: weakref.WeakKeyDictionary[Histogram, str] = weakref.WeakKeyDictionary()
"""Digests of the histograms in use (a histogram is never changed once made)."""


def view(
    page: str,
    values: dict[str, object],
    hist: Histogram,
    compute: Callable[[], V],
) -> V:
    """``compute()``, the view of page ``page`` for parameter ``values`` on ``hist``, or
    what it returned for the same page, values and dataset in any session (shared: not to
    be changed). A view that raises is not kept."""
    settings = repr(sorted((str(k), repr(v)) for k, v in values.items()))
    return _kept(page, settings, dataset_digest(hist), _compute=compute)


@byte_cache.cache_by_bytes(max_entries=ENTRIES)
def _kept(page: str, settings: str, dataset: str, *, _compute: Callable[[], V]) -> V:
    return _compute()
