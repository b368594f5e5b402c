"""Figure factories for the range-query explorer: pure functions from results to figures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import plotly.graph_objects as go

if TYPE_CHECKING:  # the explorer imports these factories
    from dpui.range_explorer import ErrorSpread

COLOURS = {"raw tree": "#0072B2", "after BLUE": "#D55E00"}  # Okabe-Ito: colour-blind safe


def error_spread(spreads: Mapping[str, ErrorSpread]) -> go.Figure:
    """Histogram of each simulated error (bars) under its exact density (line)."""
    fig = go.Figure()
    for name, s in spreads.items():
        colour = COLOURS.get(name)
        fig.add_histogram(
            x=s.draws,
            histnorm="probability density",
            name=f"{name}: {s.draws.size:,} releases",
            marker_color=colour,
            opacity=0.45,
            nbinsx=60,
            legendgroup=name,
        )
        keep = s.density > s.density.max() * 1e-4
        fig.add_scatter(
            x=s.x[keep],
            y=s.density[keep],
            mode="lines",
            name=f"{name}: exact density",
            line={"color": colour, "width": 2.5},
            legendgroup=name,
        )
    fig.update_layout(
        barmode="overlay",
        height=400,
        margin={"t": 70, "l": 10, "r": 10, "b": 10},
        xaxis_title="error of the range's answer (noisy − true)",
        yaxis_title="density",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )
    return fig


def method_errors(table: pd.DataFrame, current: str) -> go.Figure:
    """Horizontal bars: this range's exact MSE per method, beside the workload average;
    the ``current`` method's label is bold."""
    fig = go.Figure()
    labels = [f"<b>{m}</b>" if m == current else m for m in table["method"]]
    for column, colour in (("this range", "#009E73"), ("workload average", "#999999")):
        values = table[column].to_numpy(dtype=float)
        fig.add_bar(
            y=labels,
            x=values,
            orientation="h",
            name=column,
            marker_color=colour,
            text=[f"{v:,.4g}" if np.isfinite(v) else "∞" for v in values],
            textposition="outside",
            cliponaxis=False,
        )
    fig.update_layout(
        barmode="group",
        height=max(300, 46 * len(table)),
        margin={"t": 40, "l": 10, "r": 60, "b": 10},
        xaxis_title="expected squared error (exact)",
        yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 0},
    )
    return fig
