"""Figure factories of the "Paper experiments" page: pure functions from tables to figures.

Convention as on the Error analysis page: closed forms are lines, simulations
are points with 95% confidence-interval bars.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpui.errors.figures import PALETTE


def _frame(fig: go.Figure, *, title: str, x: str, y: str, subtitle: str = "") -> go.Figure:
    """Titles, axes, margins and height; a long title goes as a short ``title`` and a
    ``subtitle`` in smaller type (Plotly does not wrap titles: one long line is cut on a
    phone)."""
    fig.update_layout(
        title={"text": title, "subtitle": {"text": subtitle}} if subtitle else title,
        xaxis_title=x,
        yaxis_title=y,
        margin={"l": 10, "r": 10, "t": 72 if subtitle else 50, "b": 10},
        height=520,
    )
    return fig


def table2(table: pd.DataFrame) -> go.Figure:
    """Privelet's average MSE vs ``N = 2^m``: eq. 16, eq. 17 (dashed) and simulation (points)."""
    fig = go.Figure()
    fig.add_scatter(
        x=table["m"],
        y=table["eq. 16 (exact)"],
        mode="lines+markers",
        name="eq. 16 (exact)",
        line={"color": PALETTE[0]},
    )
    fig.add_scatter(
        x=table["m"],
        y=table["eq. 17 (paper's theory)"],
        mode="lines+markers",
        name="eq. 17 (the paper's theory column: asymptote)",
        line={"color": PALETTE[1], "dash": "dash"},
        marker={"symbol": "x"},
    )
    seen = table[table["simulated"].notna()]
    if len(seen):
        fig.add_scatter(
            x=seen["m"],
            y=seen["simulated"],
            mode="markers",
            name="simulated (every range, 95% CI)",
            marker={"color": PALETTE[2], "size": 8},
            error_y={"type": "data", "array": seen["ci"], "visible": True},
        )
    fig.update_yaxes(type="log")
    return _frame(fig, title="Privelet: average MSE over all ranges", x="m (N = 2^m)", y="MSE")


def fanout(table: pd.DataFrame, k_star: int) -> go.Figure:
    """Exact expected MSE vs fan-out: colour = budget rule, solid = raw, dotted = after BLUE."""
    fig = go.Figure()
    for i, (rule, rows) in enumerate(table.groupby("budgets", sort=False)):
        for answered, part in rows.groupby("answered", sort=False):
            best = part.iloc[int(np.argmin(part["expected MSE"].to_numpy()))]
            name = f"{rule}, {answered}"
            fig.add_scatter(
                x=part["k"],
                y=part["expected MSE"],
                mode="lines",
                name=name,
                legendgroup=name,
                line={"color": PALETTE[i], "dash": "solid" if answered == "raw" else "dot"},
                customdata=part["height Δ"],
                hovertemplate="k = %{x}, Δ = %{customdata}: %{y:.4g}<extra>" + name + "</extra>",
            )
            fig.add_scatter(
                x=[best["k"]],
                y=[best["expected MSE"]],
                mode="markers",
                marker={"color": PALETTE[i], "size": 9, "symbol": "star"},
                name=f"{name}: best k = {int(best['k'])}",
                legendgroup=name,
                showlegend=False,
                hovertemplate=f"best k for {name}: {int(best['k'])}<extra></extra>",
            )
    values = table["expected MSE"].to_numpy()
    fig.add_scatter(
        x=[k_star, k_star],
        y=[values.min() / 1.2, values.max() * 1.2],
        mode="lines+text",
        line={"color": "black", "dash": "dash", "width": 1},
        text=["", f" k* = {k_star}"],
        textposition="middle right",
        name=f"k* = {k_star}: Struct-Construct's choice (uniform, raw, k ≤ 20)",
    )
    fig.update_xaxes(type="log", tickvals=[2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64])
    fig.update_yaxes(type="log")
    return _frame(
        fig,
        title="Expected range MSE vs fan-out k",
        subtitle="stars: the best k of each curve",
        x="fan-out k",
        y="expected MSE (uniform workload)",
    )


def custom_scores(scores: pd.DataFrame) -> go.Figure:
    """Raw error and error after BLUE per set of budgets (an unmeasured node's infinite error
    is left out)."""
    fig = go.Figure()
    for i, column in enumerate(("raw error", "error after BLUE")):
        values = scores[column].to_numpy(dtype=float)
        shown = np.where(np.isfinite(values), values, np.nan)
        fig.add_bar(
            x=scores["budgets"],
            y=shown,
            name=column,
            marker={"color": PALETTE[i]},
            text=[f"{v:.4g}" if np.isfinite(v) else "∞" for v in values],
            textposition="outside",
        )
    fig.update_layout(barmode="group")
    return _frame(
        fig,
        title="Expected range MSE of each set of budgets",
        x="budgets",
        y="expected MSE (uniform workload)",
    )
