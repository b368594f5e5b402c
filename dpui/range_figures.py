"""Figure factories for the range-query explorer: pure functions from results to figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

if TYPE_CHECKING:  # the explorer imports these factories
    from dpui.range_explorer import ErrorSpread

COLOURS = {"raw tree": "#0072B2", "after BLUE": "#D55E00"}  # Okabe-Ito: colour-blind safe
METHOD_COLOURS = {"this range": "#009E73", "workload average": "#999999"}


SPREAD_PX, METHOD_ROW_PX, GAP_PX, BINS = 300, 46, 130, 60
"""Pixel heights of the spread panel, of one method's row and of the gap between the panels
(the first panel's axis title and the second panel's two-line title); bins of the spread."""


def _coloured(name: str, colour: str) -> str:
    return f'<span style="color:{colour}">■ {name}</span>'


def range_panels(
    spreads: Mapping[str, ErrorSpread], table: pd.DataFrame, current: str
) -> go.Figure:
    """One figure, two panels (one chart for the browser to redraw, not two): above, each
    way of answering's simulated error as a density histogram (binned here: 60 bars, not
    thousands of draws) under its exact density; below, this range's exact MSE per method
    beside the workload average, the ``current`` method's label bold. The panel titles name
    the colours, so no legend covers a panel."""
    releases = next(iter(spreads.values())).draws.size if spreads else 0
    ways = ", ".join(_coloured(name, COLOURS[name]) for name in spreads)
    titles = (
        f"<b>This range's error over {releases:,} seeded releases</b><br>"
        f"bars: simulated, lines: exact density<br>{ways}",
        "<b>This range vs the average, per method</b><br>exact MSE: "
        + "   ".join(_coloured(c, colour) for c, colour in METHOD_COLOURS.items()),
    )
    methods_px = max(200, METHOD_ROW_PX * len(table))
    fig = make_subplots(
        rows=2,
        cols=1,
        row_heights=[SPREAD_PX, methods_px],
        vertical_spacing=GAP_PX / (SPREAD_PX + GAP_PX + methods_px),
        subplot_titles=titles,
    )
    fig.update_annotations(font_size=13, align="left", x=0, xanchor="left")  # the titles
    for name, s in spreads.items():
        colour = COLOURS[name]
        density, edges = np.histogram(s.draws, bins=BINS, density=True)
        fig.add_bar(
            x=(edges[:-1] + edges[1:]) / 2,
            y=density,
            width=np.diff(edges),
            name=f"{name}: simulated",
            marker={"color": colour, "line": {"width": 0}},
            opacity=0.45,
            hovertemplate="error %{x:,.3g}: density %{y:.3g}",
            row=1,
            col=1,
        )
        keep = s.density > s.density.max() * 1e-4
        fig.add_scatter(
            x=s.x[keep],
            y=s.density[keep],
            mode="lines",
            name=f"{name}: exact density",
            line={"color": colour, "width": 2.5},
            row=1,
            col=1,
        )
    if not spreads:
        fig.add_annotation(
            text="No finite error under these budgets (an unmeasured node).",
            xref="x domain",
            yref="y domain",
            x=0.5,
            y=0.5,
            showarrow=False,
        )
    # methods on a numeric axis, one per METHOD_ROW_PX: the name written above its two bars
    # (as tick labels the long names would take a phone's whole width from both panels)
    methods = list(table["method"])
    row = np.arange(len(methods), dtype=float)
    for (column, colour), shift in zip(METHOD_COLOURS.items(), (0.08, 0.34), strict=True):
        values = table[column].to_numpy(dtype=float)
        fig.add_bar(
            y=row + shift,
            x=values,
            orientation="h",
            width=0.24,
            name=column,
            marker_color=colour,
            customdata=methods,
            hovertemplate="%{customdata}: %{x:,.4g}",
            text=[f"{v:,.4g}" if np.isfinite(v) else "∞" for v in values],
            textposition="outside",
            textfont_size=11,
            constraintext="none",
            cliponaxis=False,
            row=2,
            col=1,
        )
    for i, method in enumerate(methods):
        fig.add_annotation(
            text=f"<b>{method}</b>" if method == current else method,
            x=0,
            xref="x2 domain",
            xanchor="left",
            y=i - 0.2,
            yref="y2",
            showarrow=False,
            font_size=11,
        )
    fig.update_layout(
        barmode="overlay",
        showlegend=False,
        height=90 + SPREAD_PX + GAP_PX + methods_px + 60,
        margin={"t": 90, "l": 10, "r": 60, "b": 10},
    )
    fig.update_xaxes(title_text="error of the range's answer (noisy − true)", row=1, col=1)
    fig.update_yaxes(title_text="density", row=1, col=1)
    fig.update_xaxes(title_text="expected squared error (exact)", row=2, col=1)
    fig.update_yaxes(
        range=[len(methods) - 0.45, -0.45], showticklabels=False, showgrid=False, row=2, col=1
    )
    return fig
