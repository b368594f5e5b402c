"""Figure factories of the "Range queries under local DP" page: pure functions returning
``go.Figure`` (no Streamlit, no numerics beyond picking what to draw)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from dpui.kit.chart_style import DASHES, OKABE_ITO, SYMBOLS

COLOURS = dict(zip(("flat", "raw", "blue", "haar", "ahead"), OKABE_ITO, strict=False))
Y_VARIANCE = "variance of the estimated fraction"
Y_SQUARED = "squared error of the fraction"
"""The length chart's axis: exact variances (lines) and simulated mean squared errors
(markers), equal for the unbiased methods; AHEAD and Norm-Sub are biased, so only the
mean squared error describes them."""
EXACTLY_KNOWN = 1e-12
"""A variance below this share of the chart's largest is rounding of an exact 0 (the full
range from a tree or HaarHRR, whose root is known): not drawn on the log axis."""


def _drawable(values: pd.Series, top: float) -> NDArray[np.float64]:
    out = values.to_numpy(dtype=np.float64, copy=True)
    out[~(out > top * EXACTLY_KNOWN)] = np.nan
    return out


def error_vs_length(table: pd.DataFrame, names: Mapping[str, str], *, domain: int) -> go.Figure:
    """One line per method: the exact variance of a range's estimated fraction (mean over
    the ranges of each length evaluated) vs the range length, log-log; the simulated mean
    squared error as markers with 95% bars when ``table`` has it. A method without a closed
    form (all NaN: AHEAD) has markers only, named in the legend."""
    fig = go.Figure()
    simulated = "simulated" in table.columns
    top = float(table["closed"].max())
    for i, (method, name) in enumerate(names.items()):
        rows = table[table["method"] == method].sort_values("length")
        colour = COLOURS[method]
        exact = bool(rows["closed"].notna().any())
        if exact:
            fig.add_trace(
                go.Scatter(
                    x=rows["length"],
                    y=_drawable(rows["closed"], top),
                    mode="lines",
                    name=name,
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
                    name=f"{name} (simulated)" if exact else name,
                    legendgroup=method,
                    marker={"color": colour, "symbol": SYMBOLS[i % len(SYMBOLS)], "size": 7},
                    error_y={"type": "data", "array": upper, "arrayminus": lower},
                    showlegend=not exact,
                )
            )
    fig.update_layout(
        title="Error vs length: lines exact, markers simulated",
        xaxis_title=f"range length r (bins of {domain:,})",
        yaxis_title=Y_SQUARED,
        legend_title="",
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
                name=f"{column} (best B = {int(table['B'].iloc[best])})",
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
                showlegend=False,
                marker={"color": colour, "symbol": "star", "size": 14},
            )
        )
    fig.update_layout(
        title=f"Error vs fan-out, {domain:,} bins: local and central DP",
        xaxis_title="fan-out B (stars: each curve's best)",
        yaxis_title="average variance ÷ its minimum",
        legend_title="",
    )
    fig.update_yaxes(type="log")
    return fig


MEETS = {"blue": "HaarHRR = tree + BLUE", "raw": "HaarHRR = raw tree"}


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
    grid = table["eps"].to_numpy()
    low, high = math.log10(grid.min()) - 0.03, math.log10(grid.max()) + 0.03
    for row, (tree, at) in enumerate(crossings.items()):
        if at is None:
            continue
        fig.add_vline(x=at, line={"dash": "dot", "color": COLOURS[tree]})
        # each label on the wider side of its line (a phone cut a label run past the plot's
        # edge), the first at the plot's top and the second at its bottom: stacked a fixed
        # share apart they printed over each other at a projector's font size
        right_half = math.log10(at) > (low + high) / 2
        # on a log axis Plotly places annotations at log10 of x (its shapes take x itself)
        fig.add_annotation(
            x=math.log10(at),
            y=1.0 if row % 2 == 0 else 0.0,
            yref="paper",
            yanchor="top" if row % 2 == 0 else "bottom",
            text=f"{MEETS[tree]}<br>at ε* = {at:.3g}",
            showarrow=False,
            align="right" if right_half else "left",
            xanchor="right" if right_half else "left",
            xshift=-4 if right_half else 4,
            font={"color": COLOURS[tree]},
            bgcolor="rgba(255,255,255,0.85)",
        )
    fig.add_vline(x=eps, line={"color": "#555555", "width": 1})
    fig.update_layout(
        title="Average over all ranges vs ε (noise only)",
        xaxis_title=f"ε (the grey line: this page's); {domain:,} bins",
        yaxis_title=Y_VARIANCE,
        legend_title="",
    )
    ticks = [t for t in (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10) if grid.min() <= t <= grid.max()]
    fig.update_xaxes(
        type="log",
        range=[low, high],
        tickvals=ticks,
        ticktext=[f"{t:g}" for t in ticks],
    )
    fig.update_yaxes(type="log")
    return fig


def release(frame: pd.DataFrame, names: Mapping[str, str], *, width: int) -> go.Figure:
    """The population's fraction in each range of ``width`` bins as bars, and one simulated
    answer of each method as markers joined by lines."""
    x = frame["first bin"]
    label = "bins" if width == 1 else f"ranges of {width} bins"
    fig = go.Figure(
        [go.Bar(x=x, y=frame["true"], name="true (all N users)", marker_color="#BBBBBB")]
    )
    for i, (method, name) in enumerate(names.items()):
        fig.add_trace(
            go.Scatter(
                x=x,
                y=frame[name],
                mode="lines+markers",
                name=name,
                line={"color": COLOURS[method], "dash": DASHES[i % len(DASHES)], "width": 1.5},
                marker={"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 6},
            )
        )
    fig.update_layout(
        title=f"One collection vs the truth, {label}",
        xaxis_title="first bin of each range" if width > 1 else "bin",
        yaxis_title="fraction of users",
        legend_title="",
        bargap=0.1,
    )
    return fig
