"""Figure factories for the range-query explorer: pure functions from results to figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpui.kit.present import KEEP_HEIGHT
from dpui.tree.error_spread import ErrorSpread

COLOURS = {"raw tree": "#0072B2", "after BLUE": "#D55E00"}  # Okabe-Ito: colour-blind safe
METHOD_COLOURS = {"this range": "#009E73", "workload average": "#999999"}


SPREAD_PX, METHOD_ROW_PX, GAP_PX, BINS = 300, 56, 130, 60
"""Pixel heights of the spread panel, of one method's row and of the gap between the panels
(the first panel's axis title and the second panel's two-line title); bins of the spread.
A row holds the method's name and two bars with their values beside them, each line of
11-px text about 15 px high: at 46 px the two values of close bars printed over each other
(and over the name above), on a phone and on a projector."""
CURVE_POINTS = 400  # points drawn of each exact density (about two pixels apart)


def _coloured(name: str, colour: str) -> str:
    return f'<span style="color:{colour}">■ {name}</span>'


def _left_text(text: str, xref: str, y: float, yref: str, size: int) -> dict[str, Any]:
    """An annotation starting at the left edge of ``xref`` at height ``y`` of ``yref``."""
    return {
        "text": text,
        "x": 0,
        "xref": xref,
        "xanchor": "left",
        "y": y,
        "yref": yref,
        "font": {"size": size},
        "showarrow": False,
    }


def range_panels(
    spreads: Mapping[str, ErrorSpread], table: pd.DataFrame, current: str
) -> go.Figure:
    """One figure, two panels (one chart for the browser to redraw, not two): above, each
    way of answering's simulated error as a density histogram (binned here: 60 bars, not
    thousands of draws) under its exact density; below, this range's exact MSE per method
    beside the workload average, the ``current`` method's label bold. The panel titles name
    the colours, so no legend covers a panel."""
    if spreads:
        releases = next(iter(spreads.values())).draws.size
        ways = ", ".join(_coloured(name, COLOURS[name]) for name in spreads)
        spread_title = (
            f"<b>This range's error over {releases:,} seeded releases</b><br>"
            f"bars: simulated, lines: exact density<br>{ways}"
        )
    else:
        spread_title = "<b>This range's error over seeded releases</b>"
    titles = (
        spread_title,
        "<b>This range vs the average, per method</b><br>exact MSE: "
        + "   ".join(_coloured(c, colour) for c, colour in METHOD_COLOURS.items()),
    )
    methods_px = max(200, METHOD_ROW_PX * len(table))
    # built as one dict, validated once: make_subplots and a dozen add_* calls took 67 ms
    # of every rerun of the range's part of the page
    plot_px = SPREAD_PX + GAP_PX + methods_px
    upper = (1 - SPREAD_PX / plot_px, 1.0)
    lower = (0.0, methods_px / plot_px)
    annotations = [
        _left_text(title, "paper", top, "paper", 13) | {"yanchor": "bottom", "align": "left"}
        for title, top in zip(titles, (upper[1], lower[1]), strict=True)
    ]
    data: list[dict[str, Any]] = []
    for name, s in spreads.items():
        colour = COLOURS[name]
        density, edges = np.histogram(s.draws, bins=BINS, density=True)
        keep = np.flatnonzero(s.density > s.density.max() * 1e-4)
        keep = keep[:: max(1, -(-keep.size // CURVE_POINTS))]
        data += [
            {
                "type": "bar",
                "x": (edges[:-1] + edges[1:]) / 2,
                "y": density,
                "width": np.diff(edges),
                "name": f"{name}: simulated",
                "marker": {"color": colour, "line": {"width": 0}},
                "opacity": 0.45,
                "hovertemplate": "error %{x:,.3g}: density %{y:.3g}",
            },
            {
                "type": "scatter",
                "x": s.x[keep],
                "y": s.density[keep],
                "mode": "lines",
                "name": f"{name}: exact density",
                "line": {"color": colour, "width": 2.5},
            },
        ]
    if not spreads:
        annotations.append(
            {
                "text": "No finite error under these budgets (an unmeasured node).",
                "xref": "x domain",
                "yref": "y domain",
                "x": 0.5,
                "y": 0.5,
                "showarrow": False,
            }
        )
    # methods on a numeric axis, one per METHOD_ROW_PX: the name written above its two bars
    # (as tick labels the long names would take a phone's whole width from both panels)
    methods = list(table["method"])
    row = np.arange(len(methods), dtype=float)
    # in rows: the name centred 0.28 above the row's mark, the bars' centres 0.30 apart
    for (column, colour), shift in zip(METHOD_COLOURS.items(), (0.08, 0.38), strict=True):
        values = table[column].to_numpy(dtype=float)
        data.append(
            {
                "type": "bar",
                "xaxis": "x2",
                "yaxis": "y2",
                "y": row + shift,
                "x": values,
                "orientation": "h",
                "width": 0.24,
                "name": column,
                "marker": {"color": colour},
                "customdata": methods,
                "hovertemplate": "%{customdata}: %{x:,.4g}",
                "text": [f"{v:,.4g}" if np.isfinite(v) else "∞" for v in values],
                "textposition": "outside",
                "textfont": {"size": 11},
                "constraintext": "none",
                "cliponaxis": False,
            }
        )
    annotations += [
        _left_text(f"<b>{m}</b>" if m == current else m, "x2 domain", i - 0.28, "y2", 11)
        for i, m in enumerate(methods)
    ]
    layout = {
        "barmode": "overlay",
        "showlegend": False,
        "height": 90 + plot_px + 60,
        "meta": KEEP_HEIGHT,  # its rows need their pixels, on a projector too
        "margin": {"t": 90, "l": 10, "r": 60, "b": 10},
        "annotations": annotations,
        "xaxis": {"anchor": "y", "title": {"text": "error of the range's answer (noisy − true)"}},
        "yaxis": {"anchor": "x", "domain": upper, "title": {"text": "density"}},
        "xaxis2": {"anchor": "y2", "title": {"text": "expected squared error (exact)"}},
        "yaxis2": {
            "anchor": "x2",
            "domain": lower,
            "range": [len(methods) - 0.45, -0.45],
            "showticklabels": False,
            "showgrid": False,
            "zeroline": False,
        },
    }
    return go.Figure(data=data, layout=layout)
