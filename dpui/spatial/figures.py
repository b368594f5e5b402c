"""Figure factories of the "Spatial data" page: pure functions from grids to figures."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
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
        fig.update_xaxes(title_text="column", constrain="domain", row=1, col=k)
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
