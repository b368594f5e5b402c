"""Figure factories for "Which algorithm for my data?": pure functions of computed tables."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from dpui.kit import untrusted

FloatArray = NDArray[np.float64]

# Okabe-Ito colours (colour-blind safe); the two families also differ by bar pattern and
# line dash, so colour is never needed to tell them apart
DEPENDENT = {"color": "#D55E00", "pattern": "/", "dash": "solid", "symbol": "circle"}
INDEPENDENT = {"color": "#0072B2", "pattern": "", "dash": "dash", "symbol": "square"}
CLOSED_FORM = "#000000"
TRUTH, ESTIMATE, BUCKET = "#999999", "#D55E00", "rgba(0, 114, 178, 0.10)"
MARKS = ("#000000", "#009E73")
"""Colours of the scales marked on error vs scale: the data's own N, then a what-if."""


def _family(dependent: bool) -> dict[str, str]:
    return DEPENDENT if dependent else INDEPENDENT


def ranking(table: pd.DataFrame) -> go.Figure:
    """Error per algorithm, best on top, on a log axis: a dot at the mean of the trials with
    its 95% interval (marker by family), a black diamond at an exact expected error, a hollow
    diamond at an approximate closed form (the workload is in the settings stamped under it).

    An interval reaching 0 or below, which a log axis cannot show, is drawn to the axis's
    left end (:func:`left_end`) and its hover says so."""
    ordered = table.iloc[::-1]  # Plotly draws the first category at the bottom
    left = left_end(table)
    trial = ordered["how"] != "exact"
    fig = go.Figure()
    for dependent, label in ((True, "data-dependent"), (False, "data-independent")):
        part = ordered[trial & (ordered["data-dependent"] == dependent)]
        if part.empty:
            continue
        style = _family(dependent)
        half = part["half width"].fillna(0.0)
        low = part["mean"] - half
        fig.add_trace(
            go.Scatter(
                x=part["mean"],
                y=part.index,
                mode="markers",
                name=f"{label}: mean of trials, 95% interval",
                marker={"color": style["color"], "symbol": style["symbol"], "size": 10},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": half,
                    "arrayminus": np.minimum(half, part["mean"] - left),
                    "color": style["color"],
                    "thickness": 2,
                },
                customdata=np.where(low > 0, "", " (the interval reaches 0)"),
                hovertemplate="%{y}: %{x:.3g} ± %{error_x.array:.2g}%{customdata}<extra></extra>",
            )
        )
    approximate = ordered[trial & ordered["closed form"].notna()]
    for rows, name, symbol in (
        (ordered[~trial], "exact expected error", "diamond"),
        (approximate, "closed form (approximate)", "diamond-open"),
    ):
        if rows.empty:
            continue
        fig.add_trace(
            go.Scatter(
                x=rows["closed form"],
                y=rows.index,
                mode="markers",
                name=name,
                marker={"symbol": symbol, "size": 11, "color": CLOSED_FORM},
                hovertemplate=f"%{{y}}: {name} %{{x:.3g}}<extra></extra>",
            )
        )
    fig.update_layout(
        title="Error per algorithm, best on top",
        xaxis={"type": "log", "title": {"text": "scaled per-query L1 error (log scale)"}},
        yaxis={
            "categoryorder": "array",
            "categoryarray": list(ordered.index),
            "tickmode": "array",
            "tickvals": list(ordered.index),  # every name, never every other one
        },
        height=max(320, 34 * len(table) + 140),
    )
    return fig


def left_end(table: pd.DataFrame) -> float:
    """Where the ranking's log axis may start: half the smallest positive interval end or
    mean (an interval reaching 0 or below ends there).

    >>> left_end(pd.DataFrame({"mean": [1.0, 2.0], "half width": [2.0, 0.5]}))
    0.5
    """
    low = table["mean"] - table["half width"].fillna(0.0)
    values = pd.concat([low, table["mean"]])
    return float(values[values > 0].min()) / 2


def by_scale(
    table: pd.DataFrame, dependent: dict[str, bool], marks: Mapping[str, int] | None = None
) -> go.Figure:
    """Mean error vs scale per algorithm (log-log), dash and marker by family, so the scale
    where data-independent algorithms take over is visible; each of ``marks`` (label ->
    scale, e.g. the data's own number of records) a vertical line across the curves, named in
    the legend."""
    fig = go.Figure()
    low, high = table["mean"].min(), table["mean"].max()
    for i, (label, scale) in enumerate((marks or {}).items()):
        fig.add_trace(
            go.Scatter(
                x=[scale, scale],
                y=[low, high],
                mode="lines",
                name=label,
                line={"color": MARKS[i % len(MARKS)], "dash": "dot", "width": 2},
                hovertemplate=f"{label}<extra></extra>",
            )
        )
    for name, rows in table.groupby("algorithm", sort=False):
        style = _family(dependent[str(name)])
        fig.add_trace(
            go.Scatter(
                x=rows["scale"],
                y=rows["mean"],
                mode="lines+markers",
                name=untrusted.plot_label(name),  # a stored sweep's names are anyone's text
                line={"dash": style["dash"], "width": 2},
                marker={"symbol": style["symbol"], "size": 7},
                hovertemplate="%{fullData.name}: %{y:.3g} at %{x:,} records<extra></extra>",
            )
        )
    fig.update_layout(
        title="Error vs number of records (solid: data-dependent, dashed: data-independent)",
        xaxis={"type": "log", "title": {"text": "scale (records)"}},
        yaxis={"type": "log", "title": {"text": "mean scaled L1 error"}},
        height=460,
    )
    return fig


def release(
    truth: FloatArray, guess: FloatArray, buckets: NDArray[np.int64] | None, *, name: str
) -> go.Figure:
    """One release against the sampled input, with the algorithm's buckets shaded."""
    bins = np.arange(truth.size)
    fig = go.Figure()
    fig.add_trace(
        go.Bar(x=bins, y=truth, name="sampled input", marker={"color": TRUTH}, opacity=0.7)
    )
    fig.add_trace(
        go.Scatter(
            x=bins,
            y=guess,
            mode="lines",
            name=f"{name}'s estimate",
            line={"color": ESTIMATE, "width": 1.5, "shape": "hvh"},
        )
    )
    count = "" if buckets is None else f", {buckets.size:,} buckets (every other one shaded)"
    fig.update_layout(
        title=f"One release of {name}{count}",
        xaxis={"title": {"text": "bin"}},
        yaxis={"title": {"text": "count"}},
        bargap=0,
        height=420,
    )
    if buckets is not None and buckets.size > 1:
        # one shape for all the buckets: a shape per bucket (``add_vrect``) copies the list
        # of shapes at every call, quadratic in the buckets (8.2 s for DAWA's at 120,000
        # records), and the browser draws one SVG path faster than thousands of rectangles
        fig.layout.shapes = (
            {
                "type": "path",
                "path": bucket_path(buckets, truth.size),
                "xref": "x",
                "yref": "paper",
                "fillcolor": BUCKET,
                "line": {"width": 0},
                "layer": "below",
            },
        )
    return fig


def bucket_path(starts: NDArray[np.int64], bins: int) -> str:
    """An SVG path of every other bucket (the first, third, …) as a rectangle over its bins,
    from the bottom of the plot (0) to its top (1), for a shape on ``xref="x"``,
    ``yref="paper"``.

    Parameters
    ----------
    starts : ndarray of int64
        The first bin of each bucket, increasing, the first 0.
    bins : int
        Number of bins (the last bucket ends there).

    Returns
    -------
    str
        ``M a,0 H b V 1 H a Z`` per shaded bucket, from ``a`` = its first bin − ½ to ``b`` =
        its last bin + ½.
    """
    ends = np.append(starts[1:], bins)
    return "".join(
        f"M{lo - 0.5},0H{hi - 0.5}V1H{lo - 0.5}Z"
        for lo, hi in zip(starts[::2].tolist(), ends[::2].tolist(), strict=True)
    )


def regret_heat_map(table: pd.DataFrame) -> go.Figure:
    """Regret per algorithm (rows) and dataset (columns) on a log colour scale, each cell's
    value written in it (so colour is never the only cue)."""
    values = table.to_numpy(dtype=float)
    fig = go.Figure(
        go.Heatmap(
            z=np.log10(values),
            x=untrusted.plot_labels(list(table.columns)),  # file names: Plotly renders HTML
            y=untrusted.plot_labels(list(table.index)),
            text=[[f"{v:.3g}" for v in row] for row in values],
            texttemplate="%{text}",
            colorscale="Cividis",
            colorbar={"title": {"text": "regret (log10)"}},
            hovertemplate="%{y} on %{x}: regret %{text}<extra></extra>",
        )
    )
    fig.update_layout(
        title="Regret per algorithm and dataset (1 = the best there)",
        yaxis={"autorange": "reversed"},
        height=max(320, 30 * len(table) + 160),
    )
    return fig
