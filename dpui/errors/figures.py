"""Figure factories for the error-analysis pages: pure functions from arrays/tables to figures.

Convention: closed forms are lines, simulations are points with confidence-interval bars.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from dpcore.hist.accuracy_index import IndexEstimate
from dpui.kit import chart_style

FloatArray = NDArray[np.float64]

PALETTE = chart_style.OKABE_ITO  # colour-blind safe (tests/kit/test_colours.py)


def _layout(fig: go.Figure, *, title: str, x: str, y: str, subtitle: str = "") -> go.Figure:
    fig.update_layout(
        title={"text": title, "subtitle": {"text": subtitle}},
        xaxis_title=x,
        yaxis_title=y,
        margin={"l": 10, "r": 10, "t": 70 if subtitle else 50, "b": 10},
    )
    return fig


def legend_name(name: object) -> str:
    """An algorithm's label on two lines at its parenthesis: 'Boost<br>(binary, BLUE)'."""
    head, sep, tail = str(name).partition(" (")
    return f"{head}<br>({tail}" if sep else head


def half_width(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` for half the page's width: legend entries keep their first words
    ('Boost', 'extrapolated limit'), and a title or x-axis title breaks before its
    parenthesis, so that the plot keeps most of the width and no title is cut."""
    out = go.Figure(fig)
    out.for_each_trace(
        lambda t: t.update(name=t.name.split("<br>")[0].partition(" (")[0]) if t.name else None
    )
    title = out.layout.title.text or ""
    if " (" in title:
        out.update_layout(title_text=title.replace(" (", "<br>(", 1))
        out.update_layout(margin_t=(out.layout.margin.t or 50) + 20)
    x_title = out.layout.xaxis.title.text or ""
    out.layout.xaxis.title.text = x_title.replace(" (", "<br>(", 1)
    return out


def matrix_heatmap(
    matrix: FloatArray,
    *,
    title: str,
    outline: tuple[int, int] | None = None,
    symmetric_scale: bool = True,
) -> go.Figure:
    """A matrix as a heatmap with 1-based row/column labels.

    ``outline=(l, r)`` (1-based, inclusive) draws the box of the sub-matrix
    ``[l..r, l..r]`` whose sum is a range's error coefficient.
    """
    m = np.asarray(matrix, dtype=np.float64)
    rows, cols = m.shape
    bound = float(np.abs(m).max()) or 1.0
    fig = go.Figure(
        go.Heatmap(
            z=m,
            x=np.arange(1, cols + 1),
            y=np.arange(1, rows + 1),
            colorscale="RdBu",
            reversescale=True,
            zmid=0.0 if symmetric_scale else None,
            zmin=-bound if symmetric_scale else None,
            zmax=bound if symmetric_scale else None,
            hovertemplate="row %{y}, column %{x}: %{z:.6g}<extra></extra>",
        )
    )
    if outline is not None:
        lo, hi = outline
        fig.add_shape(
            type="rect",
            x0=lo - 0.5,
            x1=hi + 0.5,
            y0=lo - 0.5,
            y1=hi + 0.5,
            line={"color": "black", "width": 3, "dash": "dash"},
        )
    fig.update_yaxes(autorange="reversed", scaleanchor="x", constrain="domain")
    fig.update_xaxes(constrain="domain")
    return _layout(fig, title=title, x="column", y="row")


def exact_vs_empirical(
    table: pd.DataFrame,
    *,
    x: str,
    title: str,
    x_title: str,
    y_title: str = "mean squared error",
    log_x: bool = True,
    log_y: bool = True,
    categorical_x: bool = False,
) -> go.Figure:
    """One colour per algorithm: the closed form as a line, the simulation as points ± CI.

    ``table`` has columns ``algorithm``, ``x``, ``exact`` and optionally
    ``empirical`` and ``ci`` (half-width); missing empirical values are skipped. The
    legend has one entry per algorithm (its line and its points toggle together); the
    subtitle says once what lines and points mean.
    """
    fig = go.Figure()
    for i, (name, rows) in enumerate(table.groupby("algorithm", sort=False)):
        colour = PALETTE[i % len(PALETTE)]
        rows = rows.sort_values(x)
        fig.add_scatter(
            x=rows[x],
            y=rows["exact"],
            mode="lines" if not categorical_x else "lines+markers",
            name=legend_name(name),
            line={"color": colour},
            marker={"symbol": "line-ew-open", "size": 12} if categorical_x else None,
            legendgroup=str(name),
        )
        if "empirical" in rows and rows["empirical"].notna().any():
            seen = rows[rows["empirical"].notna()]
            fig.add_scatter(
                x=seen[x],
                y=seen["empirical"],
                mode="markers",
                name=f"{name} (simulated)",
                showlegend=False,
                marker={"color": colour, "size": 7},
                error_y={"type": "data", "array": seen["ci"], "visible": True},
                legendgroup=str(name),
            )
    fig.update_xaxes(type="log" if log_x else ("category" if categorical_x else "linear"))
    fig.update_yaxes(type="log" if log_y else "linear")
    simulated = "empirical" in table and table["empirical"].notna().any()
    subtitle = "lines: exact closed form" + (
        "; points with bars: simulated, 95% interval" if simulated else ""
    )
    return _layout(fig, title=title, x=x_title, y=y_title, subtitle=subtitle)


def index_convergence(
    curves: Mapping[str, pd.DataFrame],
    limits: Mapping[str, IndexEstimate],
    paper_index: Mapping[str, float],
) -> go.Figure:
    """Finite-N ratios ``lb^3 N / f(N)`` against ``1/m``, so that ``m -> ∞`` is a visible edge.

    The x axis is ``1/m`` (reversed, labelled in ``m``, from ``m = 4``): a curve that converges
    runs into the right edge at its limit. Reliable extrapolations are drawn
    there as a point with the window-fit spread as its bar, with the fitted
    cubic's ratio curve dashed from the fit window to the edge; a limit of 0 is
    a point at 0; the paper's indices are open diamonds.
    """
    fig = go.Figure()
    for i, (name, rows) in enumerate(curves.items()):
        colour = PALETTE[i % len(PALETTE)]
        m = rows["m"].to_numpy(dtype=np.float64)
        fig.add_scatter(
            x=1.0 / m,
            y=rows["ratio"],
            mode="lines+markers",
            name=legend_name(name),
            line={"color": colour},
            legendgroup=name,
            customdata=m,
            hovertemplate="m = %{customdata:.0f}: %{y:.4f}<extra>" + name + "</extra>",
        )
        est = limits.get(name)
        if est is not None and est.reliable and est.fit is not None:
            u = np.linspace(0.0, 1.0 / (m.max() - 5), 60)
            c3, c2, c1, c0 = est.fit
            fig.add_scatter(
                x=u,
                y=1.0 / (c3 + c2 * u + c1 * u**2 + c0 * u**3),
                mode="lines",
                line={"color": colour, "dash": "dot"},
                name=f"{name}: fitted cubic",
                legendgroup=name,
                showlegend=False,
                hoverinfo="skip",
            )
        if est is not None and est.reliable:
            bar = (
                {
                    "type": "data",
                    "array": [est.high - est.limit],
                    "arrayminus": [est.limit - est.low],
                }
                if np.isfinite(est.low)
                else None
            )
            fig.add_scatter(
                x=[0.0],
                y=[est.limit],
                mode="markers",
                marker={"color": colour, "size": 11, "symbol": "circle"},
                error_y=bar,
                name=f"{name}: limit {est.limit:.3g}",
                legendgroup=name,
                showlegend=False,
            )
        if name in paper_index:
            fig.add_scatter(
                x=[0.0],
                y=[paper_index[name]],
                mode="markers",
                marker={
                    "color": colour,
                    "size": 13,
                    "symbol": "diamond-open",
                    "line": {"width": 2},
                },
                name=f"{name}: paper's index {paper_index[name]:g}",
                legendgroup=name,
                showlegend=False,
            )
    for symbol, text in (
        ("circle", "extrapolated limit (bar: fits on other m windows)"),
        ("diamond-open", "the paper's index"),
    ):
        fig.add_scatter(
            x=[None],
            y=[None],
            mode="markers",
            name=text,
            marker={"symbol": symbol, "color": "grey"},
        )
    shown = [4, 5, 6, 8, 12, 20]
    fig.update_xaxes(
        range=[1 / 3.8, -0.01],
        tickvals=[1 / m for m in shown] + [0.0],
        ticktext=[str(m) for m in shown] + ["∞"],
    )
    _layout(
        fig,
        title="Convergence of the accuracy ratio",
        subtitle="m → ∞ at the right edge",
        x="m = lb N (axis linear in 1/m; m = 1..3 off the left edge)",
        y="lb³N / f(N)",
    )
    fig.update_layout(height=520)
    return fig
