"""Figure factories of the "Key-value LDP" page: pure functions returning ``go.Figure``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

METRIC_LABELS = {
    "mse_freq": "MSE of frequencies",
    "mse_mean": "MSE of means",
    "re_freq": "relative error of frequencies",
    "re_mean": "relative error of means",
}


def _error_bars(frame: pd.DataFrame, metric: str) -> dict[str, object]:
    """Confidence bars for a log axis: a lower end at or below 0 cannot be drawn, so it is
    cut at a tenth of the mean (the page says so)."""
    upper = (frame[f"{metric}_hi"] - frame[metric]).to_numpy()
    lower = (frame[metric] - frame[f"{metric}_lo"]).to_numpy()
    lower = np.minimum(lower, 0.9 * frame[metric].to_numpy())
    if np.all(np.isnan(upper)):
        return {"visible": False}
    return {"type": "data", "array": upper, "arrayminus": lower, "visible": True}


def _lines_per_mechanism(rows: pd.DataFrame, x: str, metric: str) -> go.Figure:
    """One line (with 95% bars) per mechanism of ``metric`` against column ``x``."""
    fig = go.Figure()
    for name, frame in rows.groupby("mechanism", sort=False):
        frame = frame.sort_values(x)
        fig.add_trace(
            go.Scatter(
                x=frame[x],
                y=frame[metric],
                mode="lines+markers",
                name=str(name),
                error_y=_error_bars(frame, metric),
            )
        )
    return fig


CENTRAL = "central DP (Laplace)"
"""The name of the central-DP baseline's line."""


def error_vs_eps(
    summary: pd.DataFrame, metric: str, t: int, *, central: Mapping[float, float] | None = None
) -> go.Figure:
    """One line per mechanism: mean ``metric`` over the top-``t`` keys vs eps, log axes,
    95% confidence bars over the repetitions; the ε axis is ticked at the grid's values.
    ``central`` (ε -> the same error under central DP, exact) adds the dashed baseline."""
    rows = summary[(summary["t"] == t) & summary[metric].notna()]
    fig = _lines_per_mechanism(rows, "eps", metric)
    if central:
        x = sorted(central)
        fig.add_trace(
            go.Scatter(
                x=x,
                y=[central[e] for e in x],
                mode="lines",
                name=CENTRAL,
                line={"dash": "dash", "color": "#222222"},
            )
        )
    grid = sorted(set(rows["eps"].astype(float)))
    fig.update_layout(
        title=f"{METRIC_LABELS[metric]}, top-{t} keys",
        xaxis_title="ε",
        yaxis_title=METRIC_LABELS[metric],
        legend_title="mechanism",
    )
    fig.update_xaxes(type="log", tickvals=grid, ticktext=[f"{e:g}" for e in grid])
    fig.update_yaxes(type="log")
    return fig


def error_vs_t(summary: pd.DataFrame, metric: str, eps: float) -> go.Figure:
    """One line per mechanism: ``metric`` vs ``t`` (top-t keys) at one eps."""
    rows = summary[np.isclose(summary["eps"], eps) & summary[metric].notna()]
    fig = _lines_per_mechanism(rows, "t", metric)
    fig.update_layout(
        title=f"{METRIC_LABELS[metric]} at ε = {eps:g}",
        xaxis_title="t (top-t most frequent keys)",
        yaxis_title=METRIC_LABELS[metric],
        legend_title="mechanism",
    )
    fig.update_yaxes(type="log")
    return fig


def length_distribution(
    lengths: NDArray[np.int64], estimated: NDArray[np.float64], chosen: int, quantile: float = 0.9
) -> go.Figure:
    """True share of users per set length (capped at the OETL range) vs OETL's estimate,
    with the estimated ``L`` and the true 90th percentile."""
    l_max = estimated.size
    clipped = np.clip(lengths, 1, l_max)
    true_share = np.bincount(clipped, minlength=l_max + 1)[1:] / max(lengths.size, 1)
    x = np.arange(1, l_max + 1)
    true_l = int(np.searchsorted(np.cumsum(true_share), quantile - 1e-12) + 1)
    fig = go.Figure(
        [
            go.Bar(x=x, y=true_share, name="true share", opacity=0.6),
            go.Scatter(x=x, y=estimated, name="OETL estimate (private)", mode="lines+markers"),
        ]
    )
    fig.add_vline(x=chosen, line_dash="dash", annotation_text=f"estimated L = {chosen}")
    fig.add_vline(
        x=true_l, line_dash="dot", annotation_text=f"true 90th pct = {true_l}",
        annotation_position="bottom right",
    )  # fmt: skip
    fig.update_layout(
        title=f"Set lengths (capped at {l_max}) and truncation L",
        xaxis_title="set length l",
        yaxis_title="share of users",
        barmode="overlay",
    )
    return fig


def truncation_tradeoff(table: pd.DataFrame, chosen: int) -> go.Figure:
    """Exact squared bias, variance and MSE of HISKV frequencies vs ``L`` (log y)."""
    fig = go.Figure()
    for column, label in (
        ("bias2", "bias² (truncation)"),
        ("variance", "variance (noise)"),
        ("mse", "MSE"),
    ):
        values = table[column].where(table[column] > 0)
        fig.add_trace(go.Scatter(x=table["length"], y=values, name=label, mode="lines"))
    fig.add_vline(x=chosen, line_dash="dash", annotation_text=f"OETL L = {chosen}")
    fig.update_layout(
        title="Truncation trade-off (exact, top-t keys)",
        xaxis_title="truncation length L",
        yaxis_title="mean over top-t keys",
    )
    fig.update_yaxes(type="log")
    return fig


def truncation_bias(
    truth: NDArray[np.float64], expected: NDArray[np.float64], keys: Sequence[int], length: int
) -> go.Figure:
    """Per key: true frequency vs what the estimator targets after truncation at ``L``."""
    labels = [str(k) for k in keys]
    fig = go.Figure(
        [
            go.Bar(x=labels, y=np.asarray(truth)[list(keys)], name="true f_k"),
            go.Bar(x=labels, y=np.asarray(expected)[list(keys)], name=f"E f̂_k at L = {length}"),
        ]
    )
    fig.update_layout(
        title="Bias from truncation, top keys",
        xaxis_title="key (most frequent first)",
        yaxis_title="frequency",
        barmode="group",
    )
    return fig


def share_tradeoff(sweep: pd.DataFrame, current: float) -> go.Figure:
    """HISKV's frequency and mean MSE vs the value budget share ``eps_v / eps*``."""
    means = sweep.groupby("share", as_index=False).mean(numeric_only=True)
    fig = go.Figure(
        [
            go.Scatter(
                x=means["share"], y=means["mse_freq"], name="MSE of frequencies (simulated)",
                mode="markers",
            ),
            go.Scatter(
                x=means["share"], y=means["mse_freq_exact"], name="MSE of frequencies (exact)",
                mode="lines",
            ),
            go.Scatter(
                x=means["share"], y=means["mse_mean"], name="MSE of means (simulated)",
                mode="lines+markers",
            ),
        ]
    )  # fmt: skip
    fig.add_vline(x=current, line_dash="dash", annotation_text=f"slider: {current:g}")
    fig.update_layout(
        title="Value / key budget split (HISKV)",
        xaxis_title="value budget share ε_v / ε*",
        yaxis_title="MSE over top-t keys",
    )
    fig.update_yaxes(type="log")
    return fig


def placeholder(text: str) -> go.Figure:
    """An empty chart saying why it is empty (a view without results beside one with)."""
    fig = go.Figure()
    fig.add_annotation(text=text, x=0.5, y=0.5, xref="paper", yref="paper", showarrow=False)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig
