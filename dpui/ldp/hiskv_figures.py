"""Figure of the HISKV analysis section: the frequency / mean frontier over the value share."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go


def share_frontier(sweep: pd.DataFrame, current: float) -> go.Figure:
    """Frequency MSE (exact) vs mean MSE (simulated), one point per value share ``eps_v/eps*``,
    coloured by its share (a colour bar, and the share on hover): the points crowd near share
    1, where their printed labels ran over each other, the star and the legend.

    The share 1 point is GRR over the pairs, PCKV-GRR's channel: the family's endpoint.
    """
    means = sweep.groupby("share", as_index=False).mean(numeric_only=True)
    end = means["share"] >= 1.0 - 1e-9
    fig = go.Figure(
        [
            go.Scatter(
                x=means["mse_freq_exact"],
                y=means["mse_mean"],
                mode="lines+markers",
                customdata=means["share"],
                hovertemplate="share ε_v/ε* = %{customdata:.2g}<br>"
                "frequencies %{x:.3g}, means %{y:.3g}<extra></extra>",
                marker={
                    "size": 9,
                    "color": means["share"],
                    "colorscale": "Viridis",
                    "cmin": 0.0,
                    "cmax": 1.0,
                    "showscale": True,
                    "colorbar": {"title": {"text": "ε_v/ε*", "side": "top"}, "thickness": 12},
                },
                name="HISKV (reconstructed), colour = ε_v/ε*",
            ),
            go.Scatter(
                x=means.loc[end, "mse_freq_exact"],
                y=means.loc[end, "mse_mean"],
                mode="markers",
                marker={"size": 16, "symbol": "star"},
                name="share 1 = PCKV-GRR's channel (endpoint)",
            ),
        ]
    )
    near = means.iloc[(means["share"] - current).abs().argsort()[:1]]
    fig.add_trace(
        go.Scatter(
            x=near["mse_freq_exact"],
            y=near["mse_mean"],
            mode="markers",
            marker={"size": 14, "symbol": "circle-open", "line": {"width": 2}},
            name=f"nearest to the slider's share {current:g}",
        )
    )
    fig.update_layout(
        title={
            "text": "Frequency vs mean accuracy",
            "subtitle": {"text": "over the value share; both MSEs over the top-t keys"},
        },
        # axis titles short enough for a projected plot's height (the y title ran up into
        # the legend's rows)
        xaxis_title="MSE of frequencies (exact)",
        yaxis_title="MSE of means (simulated)",
    )
    fig.update_xaxes(type="log")
    fig.update_yaxes(type="log")
    return fig
