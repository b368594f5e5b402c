"""A chart's text alternative (WCAG 2.1 SC 1.1.1), computed from the figure that is drawn.

Every chart is drawn by :func:`dpui.kit.present.show_chart`, which passes the figure here:
:func:`summary` says in a sentence or two what the chart shows (its title, axes and series)
and its key finding (each series' largest value and where), and :func:`html_table` gives the
chart's data as an HTML ``<table>`` with a caption and column headers, which screen readers
navigate cell by cell (Streamlit's ``st.dataframe`` is a canvas grid). A page that knows a
better finding passes it in words (``alt``), put before the computed sentence. The same text
is written into every downloaded slide (``dpui/kit/slide_alt.js``). Pure functions of the
figure: tested without Streamlit.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

MAX_ROWS = 200
"""Rows a chart's table lists at most (the first ones); the table says when it is cut."""
MAX_NAMED = 4
"""Series whose largest value the summary names; the rest are counted."""

_TAG = re.compile(r"<[^>]+>")


def plain(text: Any) -> str:
    """``text`` of a Plotly title without its HTML markup (a ``<br>`` ends it: what follows
    in an axis title is the settings stamp, said elsewhere)."""
    first = re.split(r"<br\s*/?>", str(text or ""), maxsplit=1)[0]
    return " ".join(_TAG.sub("", first).split())


def _number(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return "—" if not np.isfinite(value) else f"{float(value):,.4g}"
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    return str(value)


def _values(data: Any) -> np.ndarray:
    return np.asarray([] if data is None else data, dtype=object).ravel()


def _numeric(values: np.ndarray) -> np.ndarray:
    out = np.full(values.shape, np.nan)
    for i, v in enumerate(values):
        if isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool):
            out[i] = float(v)
    return out


def series(fig: go.Figure) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The x-y series of ``fig`` (scatter, bar and box traces) as ``(name, positions, values)``:
    the values on the value axis (y, or x for horizontal bars) and where they are (the other
    axis, or the point's index when the trace has none)."""
    out = []
    for i, trace in enumerate(fig.data):
        if trace.type not in ("scatter", "scattergl", "bar", "box"):
            continue
        horizontal = getattr(trace, "orientation", None) == "h"
        value, where = (trace.x, trace.y) if horizontal else (trace.y, trace.x)
        values = _values(value)
        positions = _values(where) if where is not None else np.arange(1, values.size + 1)
        if positions.size != values.size:
            positions = np.arange(1, values.size + 1)
        out.append((plain(trace.name) or f"series {i + 1}", positions, values))
    return out


def _axis_title(fig: go.Figure, letter: str) -> str:
    return plain(fig.layout[f"{letter}axis"].title.text)


def summary(fig: go.Figure) -> str:
    """One or two sentences on ``fig``: what it plots and each series' largest value.

    >>> fig = go.Figure(go.Bar(x=["a", "b"], y=[3, 5], name="votes"))
    >>> _ = fig.update_layout(title="Votes", xaxis_title="option", yaxis_title="count")
    >>> summary(fig)
    'Chart: Votes. count against option, one series (votes, 2 points). Largest: votes 5 at b.'
    """
    title = plain(fig.layout.title.text)
    head = f"Chart: {title}." if title else "Chart."
    kinds = {t.type for t in fig.data}
    if "icicle" in kinds:
        trace = next(t for t in fig.data if t.type == "icicle")
        labels = _values(trace.labels if trace.labels is not None else trace.ids)
        return f"{head} An icicle (tree) of {labels.size:,} nodes, the root at the top."
    if "heatmap" in kinds:
        trace = next(t for t in fig.data if t.type == "heatmap")
        z = np.asarray(trace.z, dtype=float)
        if z.size == 0 or not np.isfinite(z).any():
            return f"{head} An empty heatmap."
        r, c = np.unravel_index(int(np.nanargmax(z)), z.shape)
        xs, ys = _values(trace.x), _values(trace.y)
        at = f"{ys[r] if ys.size > r else r + 1}, {xs[c] if xs.size > c else c + 1}"
        return (
            f"{head} A heatmap of {z.shape[0]:,} by {z.shape[1]:,} values from "
            f"{_number(float(np.nanmin(z)))} to {_number(float(np.nanmax(z)))}; the largest "
            f"at row, column {at}."
        )
    found = series(fig)
    if not found:
        return f"{head} It has no data series."
    x, y = _axis_title(fig, "x"), _axis_title(fig, "y")
    axes = f"{y or 'values'} against {x or 'position'}, "
    listed = ", ".join(f"{name}, {values.size:,} points" for name, _, values in found[:MAX_NAMED])
    count = "one series" if len(found) == 1 else f"{len(found)} series"
    more = f" and {len(found) - MAX_NAMED} more" if len(found) > MAX_NAMED else ""
    largest = []
    for name, positions, values in found[:MAX_NAMED]:
        numbers = _numeric(values)
        if np.isfinite(numbers).any():
            k = int(np.nanargmax(numbers))
            largest.append(f"{name} {_number(numbers[k])} at {_number(positions[k])}")
    finding = f" Largest: {'; '.join(largest)}." if largest else ""
    return f"{head} {axes}{count} ({listed}{more}).{finding}"


def table(fig: go.Figure) -> tuple[list[str], list[list[str]], int]:
    """``fig``'s data as (column headers, rows as text, number of rows in all): one row per
    position with a column per series when the series share their positions, else one row per
    point (series, position, value); at most :data:`MAX_ROWS` rows."""
    kinds = {t.type for t in fig.data}
    if "icicle" in kinds:
        trace = next(t for t in fig.data if t.type == "icicle")
        labels = _values(trace.labels if trace.labels is not None else trace.ids)
        parents, values = _values(trace.parents), _values(trace.values)
        rows = [
            [str(labels[i]), str(parents[i]) if parents.size > i else "", _number(values[i])]
            if values.size > i
            else [str(labels[i]), str(parents[i]) if parents.size > i else "", ""]
            for i in range(labels.size)
        ]
        return ["node", "parent", "value"], rows[:MAX_ROWS], len(rows)
    if "heatmap" in kinds:
        trace = next(t for t in fig.data if t.type == "heatmap")
        z = np.asarray(trace.z, dtype=float)
        xs, ys = _values(trace.x), _values(trace.y)
        heads = ["row", *(str(xs[c]) if xs.size > c else str(c + 1) for c in range(z.shape[1]))]
        rows = [
            [str(ys[r]) if ys.size > r else str(r + 1), *(_number(v) for v in z[r])]
            for r in range(z.shape[0])
        ]
        return heads, rows[:MAX_ROWS], len(rows)
    found = series(fig)
    x = _axis_title(fig, "x") or "position"
    if found and all(_same(found[0][1], pos) for _, pos, _ in found[1:]):
        positions = found[0][1]
        heads = [x, *(name for name, _, _ in found)]
        rows = [
            [_number(positions[i]), *(_number(values[i]) for _, _, values in found)]
            for i in range(min(positions.size, MAX_ROWS))
        ]
        return heads, rows, int(positions.size)
    rows = [
        [name, _number(p), _number(v)]
        for name, positions, values in found
        for p, v in zip(positions, values, strict=True)
    ]
    return ["series", x, _axis_title(fig, "y") or "value"], rows[:MAX_ROWS], len(rows)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.size == b.size and all(str(p) == str(q) for p, q in zip(a, b, strict=True))


def html_table(fig: go.Figure, caption: str) -> str:
    """:func:`table` as an HTML ``<table>`` (every cell escaped: labels can come from an
    upload), with ``caption`` and a note when rows were left out."""
    heads, rows, total = table(fig)
    cut = f" (the first {len(rows):,} of {total:,} rows)" if total > len(rows) else ""
    return "".join(
        [
            '<table class="dp-chart-table">',
            f"<caption>{html.escape(caption)}{cut}</caption>",
            "<thead><tr>",
            *(f'<th scope="col">{html.escape(h)}</th>' for h in heads),
            "</tr></thead><tbody>",
            *(_row(row) for row in rows),
            "</tbody></table>",
        ]
    )


def _row(cells: Sequence[str]) -> str:
    first, *rest = cells
    return (
        f'<tr><th scope="row">{html.escape(first)}</th>'
        + "".join(f"<td>{html.escape(c)}</td>" for c in rest)
        + "</tr>"
    )
