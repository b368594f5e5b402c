"""Figure factories of the "Range queries under local DP" page: pure functions returning
``go.Figure`` (no Streamlit, no numerics beyond picking what to draw)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from dpui.kit.chart_style import DASHES, OKABE_ITO, SYMBOLS

COLOURS = dict(zip(("flat", "raw", "blue", "haar"), OKABE_ITO, strict=False))
Y_VARIANCE = "variance of the estimated fraction"
EXACTLY_KNOWN = 1e-12
"""A variance below this share of the chart's largest is rounding of an exact 0 (the full
range from a tree or HaarHRR, whose root is known): not drawn on the log axis."""


def _drawable(values: pd.Series, top: float) -> NDArray[np.float64]:
    out = values.to_numpy(dtype=np.float64, copy=True)
    out[~(out > top * EXACTLY_KNOWN)] = np.nan
    return out


def error_vs_length(
    table: pd.DataFrame, names: Mapping[str, str], *, domain: int, users: int
) -> go.Figure:
    """One line per method: the exact variance of a range's estimated fraction (mean over
    the ranges of each length evaluated) vs the range length, log-log; the simulated mean
    squared error as markers with 95% bars when ``table`` has it."""
    fig = go.Figure()
    simulated = "simulated" in table.columns
    top = float(table["closed"].max())
    for i, (method, name) in enumerate(names.items()):
        rows = table[table["method"] == method].sort_values("length")
        colour = COLOURS[method]
        fig.add_trace(
            go.Scatter(
                x=rows["length"],
                y=_drawable(rows["closed"], top),
                mode="lines",
                name=f"{name} (exact)",
                legendgroup=method,
                line={"color": colour, "dash": DASHES[i % len(DASHES)]},
            )
        )
        if simulated:
            shown = _drawable(rows["simulated"], top)
            upper = rows["hi"].to_numpy() - shown
            lower = np.minimum(shown - rows["lo"].to_numpy(), 0.9 * shown)
            fig.add_trace(
                go.Scatter(
                    x=rows["length"],
                    y=shown,
                    mode="markers",
                    name=f"{name} (simulated)",
                    legendgroup=method,
                    marker={"color": colour, "symbol": SYMBOLS[i % len(SYMBOLS)], "size": 7},
                    error_y={"type": "data", "array": upper, "arrayminus": lower},
                    showlegend=True,
                )
            )
    fig.update_layout(
        title=f"Error vs range length, {domain:,} bins, N = {users:,}",
        xaxis_title="range length r (bins)",
        yaxis_title=Y_VARIANCE,
        legend_title="method",
    )
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def error_vs_fanout(table: pd.DataFrame, *, domain: int) -> go.Figure:
    """Each curve's average variance over all ranges divided by its own minimum, vs the
    fan-out; the optimum of each marked with a star."""
    fig = go.Figure()
    styles = {
        "LDP + BLUE": (OKABE_ITO[0], "solid"),
        "LDP raw": (OKABE_ITO[0], "dot"),
        "central + BLUE": (OKABE_ITO[1], "dash"),
        "central raw": (OKABE_ITO[1], "dashdot"),
    }
    for column, (colour, dash) in styles.items():
        values = table[column].to_numpy()
        relative = values / values.min()
        best = int(np.argmin(values))
        fig.add_trace(
            go.Scatter(
                x=table["B"],
                y=relative,
                mode="lines",
                name=column,
                legendgroup=column,
                line={"color": colour, "dash": dash},
            )
        )
        fig.add_trace(
            go.Scatter(
                x=[int(table["B"].iloc[best])],
                y=[1.0],
                mode="markers",
                name=f"{column}: best B = {int(table['B'].iloc[best])}",
                legendgroup=column,
                marker={"color": colour, "symbol": "star", "size": 14},
            )
        )
    fig.update_layout(
        title=f"Error vs fan-out, {domain:,} bins: local and central DP",
        xaxis_title="fan-out B",
        yaxis_title="average variance ÷ its minimum",
        legend_title="model",
    )
    fig.update_yaxes(type="log")
    return fig


def crossover(
    table: pd.DataFrame,
    names: Mapping[str, str],
    crossings: Mapping[str, float | None],
    *,
    eps: float,
    domain: int,
) -> go.Figure:
    """Every method's average variance over all ranges vs ε (log-log), the ε where HaarHRR
    meets the tree marked, and the page's ε."""
    fig = go.Figure()
    for i, (method, name) in enumerate(names.items()):
        fig.add_trace(
            go.Scatter(
                x=table["eps"],
                y=table[method],
                mode="lines",
                name=name,
                line={"color": COLOURS[method], "dash": DASHES[i % len(DASHES)]},
            )
        )
    for tree, at in crossings.items():
        if at is None:
            continue
        fig.add_vline(
            x=at,
            line={"dash": "dot", "color": COLOURS[tree]},
            annotation_text=f"ε* = {at:.3g}",
            annotation_position="top left" if tree == "blue" else "bottom left",
        )
    fig.add_vline(x=eps, line={"color": "#555555", "width": 1})
    fig.update_layout(
        title=f"Average over all ranges vs ε, {domain:,} bins (noise only)",
        xaxis_title="ε (the grey line: this page's)",
        yaxis_title=Y_VARIANCE,
        legend_title="method",
    )
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig


def release(frame: pd.DataFrame, names: Mapping[str, str], *, width: int) -> go.Figure:
    """The population's fraction per bin (or per group of ``width`` bins) as bars, and one
    simulated estimate of each method as lines."""
    x = frame["first bin"]
    fig = go.Figure(
        [go.Bar(x=x, y=frame["true"], name="true (all N users)", marker_color="#BBBBBB")]
    )
    for i, (method, name) in enumerate(names.items()):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=frame[name],
                mode="lines",
                name=name,
                line={"color": COLOURS[method], "dash": DASHES[i % len(DASHES)], "width": 1.5},
            )
        )
    per = "bin" if width == 1 else f"group of {width} bins"
    fig.update_layout(
        title=f"One collection vs the truth (fraction per {per})",
        xaxis_title="first bin of each group" if width > 1 else "bin",
        yaxis_title="fraction of users",
        legend_title="estimate",
        bargap=0,
    )
    return fig
