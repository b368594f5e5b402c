"""Figure factories of the "Spatial data" page: pure functions from grids to figures."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray
from plotly.subplots import make_subplots

FloatArray = NDArray[np.float64]


def grid_heatmaps(
    grids: Sequence[tuple[str, FloatArray]],
    *,
    title: str,
    box: tuple[int, int, int, int] | None = None,
) -> go.Figure:
    """Heatmaps of grids side by side on one colour scale (the smallest and the largest value
    of them all), rows down and columns across, 0-based cell indices.

    Parameters
    ----------
    grids : sequence of (str, ndarray of float64, shape (n_rows, n_cols))
        Each panel's title and values (NaN: not shown).
    title : str
        The figure's title.
    box : (x0, x1, y0, y1), optional
        A rectangle (rows ``x0..x1``, columns ``y0..y1``, inclusive) outlined on every panel.

    Returns
    -------
    plotly.graph_objects.Figure
        One heatmap trace per grid, sharing one colour axis.
    """
    fig = make_subplots(
        rows=1,
        cols=len(grids),
        subplot_titles=[name for name, _ in grids],
        horizontal_spacing=0.04,
    )
    finite = [g[np.isfinite(g)] for _, g in grids]
    low = min((float(v.min()) for v in finite if v.size), default=0.0)
    high = max((float(v.max()) for v in finite if v.size), default=1.0)
    for k, (name, values) in enumerate(grids, start=1):
        rows, cols = values.shape
        fig.add_trace(
            go.Heatmap(
                z=values,
                x=np.arange(cols),
                y=np.arange(rows),
                coloraxis="coloraxis",
                name=name,
                hovertemplate=f"{name}<br>row %{{y}}, column %{{x}}: %{{z:,.1f}}<extra></extra>",
            ),
            row=1,
            col=k,
        )
        if box is not None:
            x0, x1, y0, y1 = box
            fig.add_shape(
                type="rect",
                x0=y0 - 0.5,
                x1=y1 + 0.5,
                y0=x0 - 0.5,
                y1=x1 + 0.5,
                line={"color": "black", "width": 2, "dash": "dash"},
                row=1,
                col=k,
            )
        # square cells: on a narrow screen the panels shrink, their ranges stay the grid's;
        # the panels keep to the top, under their titles
        fig.update_yaxes(
            autorange="reversed",
            scaleanchor=f"x{k if k > 1 else ''}",
            constrain="domain",
            constraintoward="top",
            showticklabels=k == 1,
            row=1,
            col=k,
        )
        # one axis title (the chart's stamp goes under it and may run on under the others)
        fig.update_xaxes(title_text="column" if k == 1 else "", constrain="domain", row=1, col=k)
    fig.update_yaxes(title_text="row", row=1, col=1)
    fig.update_layout(
        title={"text": title},
        coloraxis={
            "colorscale": "Viridis",
            "cmin": low,
            "cmax": high,
            # thin, so that a phone's width goes to the grids
            "colorbar": {"title": {"text": "count"}, "thickness": 12},
        },
        margin={"l": 10, "r": 10, "t": 80, "b": 10},
    )
    return fig


COLOURS = {"Identity": "#009E73", "raw tree": "#0072B2", "after BLUE": "#D55E00"}
"""Okabe and Ito's colour-blind-safe colours, one per way of answering."""


def _outlines(lo: NDArray[np.int64], hi: NDArray[np.int64]) -> tuple[list[float | None], ...]:
    """Boxes (rows ``lo[:, 0]..hi[:, 0]``, columns ``lo[:, 1]..hi[:, 1]``) as one closed
    polyline each, separated by gaps: x runs along the columns, y down the rows."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    for (r0, c0), (r1, c1) in zip(lo.tolist(), hi.tolist(), strict=True):
        left, right, top, bottom = c0 - 0.5, c1 + 0.5, r0 - 0.5, r1 + 0.5
        xs += [left, right, right, left, left, None]
        ys += [top, top, bottom, bottom, top, None]
    return xs, ys


def tree_map(
    values: FloatArray,
    *,
    title: str,
    colour_title: str,
    nodes: tuple[NDArray[np.int64], NDArray[np.int64]] | None,
    decomposition: tuple[NDArray[np.int64], NDArray[np.int64]] | None,
) -> go.Figure:
    """One level of a region tree over the map: each cell coloured by its node's value, the
    level's node boundaries (white) and a rectangle's canonical decomposition (orange); no
    legend (the page says what the outlines are).

    Parameters
    ----------
    values : ndarray of float64, shape (n_rows, n_cols)
        The value of each cell's node at the level (NaN: not measured).
    title, colour_title : str
        The figure's and the colour bar's titles.
    nodes : (lo, hi) of ndarray of int64, shape (m, 2), optional
        The level's node boxes (None: too many to draw).
    decomposition : (lo, hi) of ndarray of int64, shape (k, 2), optional
        The boxes of a rectangle's canonical decomposition.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    rows, cols = values.shape
    fig = go.Figure(
        go.Heatmap(
            z=values,
            x=np.arange(cols),
            y=np.arange(rows),
            colorscale="Viridis",
            colorbar={"title": {"text": colour_title}, "thickness": 12},
            name=colour_title,
            hovertemplate=f"row %{{y}}, column %{{x}}: {colour_title} %{{z:.4g}}<extra></extra>",
        )
    )
    for boxes, name, line in (
        (nodes, "nodes of this level", {"color": "rgba(255,255,255,0.75)", "width": 1}),
        (decomposition, "the rectangle's decomposition", {"color": "#D55E00", "width": 3}),
    ):
        if boxes is None:
            continue
        xs, ys = _outlines(*boxes)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line=line,
                name=name,
                hoverinfo="skip",
                showlegend=False,
            )
        )
    fig.update_yaxes(
        title_text="row", autorange="reversed", scaleanchor="x", constrain="domain",
        constraintoward="top",
    )  # fmt: skip
    fig.update_xaxes(title_text="column", constrain="domain", range=[-0.5, cols - 0.5])
    fig.update_layout(
        title={"text": title},
        margin={"l": 10, "r": 10, "t": 60, "b": 10},
    )
    return fig


def error_lines(
    frame: pd.DataFrame, *, x: str, x_title: str, title: str, log_x: bool, mark: str = ""
) -> go.Figure:
    """Expected squared error against ``x``, one line per way of answering (columns named
    as :data:`COLOURS`), on a log y axis; ``mark`` names a column of booleans whose rows are
    ringed on the "after BLUE" line (the best fan-out, the crossover).

    Parameters
    ----------
    frame : pandas.DataFrame
        Column ``x`` and one column per way of answering present in :data:`COLOURS`.
    x, x_title, title : str
        The x column, its axis title, and the figure's title.
    log_x : bool
        A log x axis.
    mark : str, optional
        A boolean column: its true rows get a ring on every line.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    for name, colour in COLOURS.items():
        if name not in frame:
            continue
        fig.add_trace(
            go.Scatter(
                x=frame[x],
                y=frame[name],
                mode="lines+markers",
                name=name,
                line={"color": colour, "dash": "dot" if name == "Identity" else "solid"},
                hovertemplate=f"{name}<br>{x_title} %{{x}}: %{{y:,.4g}}<extra></extra>",
            )
        )
        if mark and frame[mark].any() and name == "after BLUE":
            marked = frame[frame[mark]]
            fig.add_trace(
                go.Scatter(
                    x=marked[x],
                    y=marked[name],
                    mode="markers",
                    marker={"size": 16, "symbol": "circle-open", "color": colour},
                    showlegend=False,
                    hoverinfo="skip",
                )
            )
    fig.update_xaxes(title_text=x_title, type="log" if log_x else "linear")
    # the y title short enough for a projected plot's height (it ran up into the title); the
    # legend left to :mod:`dpui.kit.legend_rows`, which puts its rows between the title and
    # the plot (under the plot, a phone wrapped them over the x-axis title)
    fig.update_yaxes(title_text="expected squared error", type="log")
    fig.update_layout(title={"text": title})
    return fig


def simulated_against_exact(table: pd.DataFrame, *, title: str) -> go.Figure:
    """The simulated mean squared error (with its interval) beside the exact value, for the
    raw tree and after BLUE.

    Parameters
    ----------
    table : pandas.DataFrame
        Rows "raw tree" and "after BLUE" (column ``answer``) with columns ``exact``,
        ``simulated`` and ``half-width``.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = go.Figure()
    fig.add_trace(
        go.Bar(
            x=table["answer"],
            y=table["exact"],
            name="exact",
            marker={"color": "#BBBBBB"},
            hovertemplate="%{x}: exact %{y:,.4g}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=table["answer"],
            y=table["simulated"],
            mode="markers",
            name="simulated (95% interval)",
            marker={"color": [COLOURS[a] for a in table["answer"]], "size": 12},
            error_y={"type": "data", "array": table["half-width"], "thickness": 2},
            hovertemplate="%{x}: simulated %{y:,.4g}<extra></extra>",
        )
    )
    fig.update_yaxes(title_text="mean squared error of a rectangle")
    # the legend left to :mod:`dpui.kit.legend_rows` (under the plot, a phone's rows ran
    # over the x-axis title)
    fig.update_layout(title={"text": title})
    return fig
