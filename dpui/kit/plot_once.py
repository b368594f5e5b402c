"""Figures that Plotly draws once, though Streamlit hands them over twice.

Streamlit draws a new chart, then passes Plotly the same figure again (a copy, re-created
from JSON). ``Plotly.react`` redraws everything unless it can tell nothing changed, and it
cannot while the figure has a ``template`` (compared by identity) or data as binary arrays
(plotly.py's encoding of numpy arrays, decoded afresh each time). Without a template
(:mod:`dpui.kit.chart_style` sets the look in the figure itself), with plain JSON lists and a
``datarevision`` naming the data, the second pass costs a few milliseconds instead of a
second full draw (the range explorer's chart: 52 ms; its histogram: 25 ms).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go


def _arrays(props: Mapping[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Paths of a trace's array-like properties: numpy arrays, lists and tuples."""
    for key, value in props.items():
        if isinstance(value, np.ndarray | list | tuple):
            yield (*path, key)
        elif isinstance(value, Mapping):
            yield from _arrays(value, (*path, key))


def _numeric(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


RECOMPUTED = {"icicle", "sunburst", "treemap"}
"""Traces Plotly recomputes on every hand-over whatever they hold (measured for the icicle):
their arrays stay binary, which is cheaper to build and to send."""

MAX_LISTED = 50_000
"""Numbers a figure may hold as lists (each costs plotly.py's validation, about a
microsecond); a bigger figure keeps its binary arrays and is drawn twice."""


def prepare(fig: go.Figure) -> go.Figure:
    """``fig`` (changed in place) with its numeric arrays as lists and a ``datarevision``
    digest of every array (text too), so that Plotly recomputes a chart only when its data
    change."""
    found = [(trace, {p: trace[p] for p in _arrays(trace.to_plotly_json())}) for trace in fig.data]
    numbers = sum(v.size for _, values in found for v in values.values() if _numeric(v))
    if numbers > MAX_LISTED:
        return fig
    digest = hashlib.blake2b(digest_size=8)
    for i, (trace, values) in enumerate(found):
        for path, value in values.items():
            digest.update(f"{i}.{'.'.join(path)}:".encode())
            if not _numeric(value):  # text and nested lists: JSON lists already
                plain = value.tolist() if isinstance(value, np.ndarray) else value
                digest.update(json.dumps(plain, default=str).encode())
                continue
            digest.update(f"{value.dtype}{value.shape}".encode())
            digest.update(np.ascontiguousarray(value).tobytes())
            if trace.type in RECOMPUTED:
                continue
            trace[path] = None  # plotly.py keeps an equal value as it was (binary)
            trace[path] = value.tolist()
    fig.layout.datarevision = digest.hexdigest()
    return fig
