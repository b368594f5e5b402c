"""Figure factories for "Audit a mechanism": pure functions from audits to figures."""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Okabe-Ito colours; every series also has its own dash or symbol
BOUND = "#0072B2"
BAND = "rgba(0, 114, 178, 0.15)"
ESTIMATE = "#D55E00"
CLAIM = "#000000"
TRUE = "#009E73"
HEADROOM = 1.15  # the y axis reaches this far above the highest finite value drawn
INFINITY_AT = 1.08  # infinite values are drawn this far above it, under the axis's top


def bound_vs_runs(
    runs: FloatArray,
    lower: FloatArray,
    estimate: FloatArray,
    upper: FloatArray,
    *,
    claimed: float,
    true_epsilon: float | None,
    exact: bool,
    confidence: float,
    title: str,
) -> go.Figure:
    """The lower bound on ε at each run count (log x axis), the band up to the upper end of
    the event's interval, the point estimates, and the claimed and true ε as lines.

    Parameters
    ----------
    runs : array
        Runs per input of each audit, increasing.
    lower, estimate, upper : array
        Each audit's bound, its point estimate (may be infinite or NaN) and the upper end of
        the event's interval (may be infinite); infinite values, and upper ends above
        everything else, are drawn near the top of the axis (the hover text has them).
    claimed : float
        The claimed ε.
    true_epsilon : float or None
        The true ε (``inf`` when unbounded, None when unknown).
    exact : bool
        Whether the true ε is exact from the mechanism's output distribution.
    confidence : float
        The audits' confidence.
    title : str
        The chart's title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    finite_true = true_epsilon is not None and math.isfinite(true_epsilon)
    finite = estimate[np.isfinite(estimate)]
    shown = [claimed, *lower, *finite]  # the band's upper end is cut where it goes higher
    if finite_true:
        shown.append(float(true_epsilon))  # type: ignore[arg-type]
    high = max(max(shown), 0.05)
    cap = high * INFINITY_AT  # where infinite values are drawn
    top = high * HEADROOM
    lowest = float(np.min(finite, initial=0.0))
    bottom = lowest - 0.05 * top if lowest < 0 else 0.0
    pct = f"{100 * confidence:.4g} %"
    ends = (float(runs[0]) / 1.5, float(runs[-1]) * 1.5)
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=runs,
            y=lower,
            mode="lines+markers",
            name=f"lower bound on ε ({pct})",
            line={"color": BOUND, "width": 3, "dash": "solid"},
            marker={"color": BOUND, "size": 8, "symbol": "circle"},
            hovertemplate="%{x:,} runs: ε ≥ %{y:.3f}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=runs,
            y=np.minimum(upper, cap),
            mode="lines",
            name=f"the event's loss, {pct} interval",
            fill="tonexty",
            fillcolor=BAND,
            line={"color": BOUND, "width": 1, "dash": "dot"},
            customdata=[_shown(u) for u in upper],
            hovertemplate="%{x:,} runs: the event's loss ≤ %{customdata}<extra></extra>",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=runs,
            y=np.where(
                np.isposinf(estimate), cap, np.where(np.isfinite(estimate), estimate, np.nan)
            ),
            mode="markers",
            name="point estimate (not a bound)",
            marker={"color": ESTIMATE, "size": 9, "symbol": "x"},
            customdata=[_shown(e) for e in estimate],
            hovertemplate="%{x:,} runs: estimate %{customdata}<extra></extra>",
        )
    )
    kind = "exact" if exact else "true"
    if finite_true:
        truth = f"{kind} ε = {true_epsilon:.4g}"
    else:
        truth = f"{kind} ε = ∞ (off the chart)" if true_epsilon is not None else "true ε unknown"
    fig.add_trace(
        go.Scatter(  # no points when the true ε cannot be drawn: its legend entry says why
            x=ends if finite_true else ends[:1],
            y=(true_epsilon, true_epsilon) if finite_true else [None],
            mode="lines",
            name=truth,
            line={"color": TRUE, "width": 3, "dash": "dashdot"},
            hoverinfo="skip",
        )
    )
    fig.add_trace(
        go.Scatter(  # last: drawn over the true ε when they are equal
            x=ends,
            y=(claimed, claimed),
            mode="lines",
            name=f"claimed ε = {claimed:g}",
            line={"color": CLAIM, "width": 2, "dash": "dash"},
            hoverinfo="skip",
        )
    )
    fig.update_layout(title={"text": title}, hovermode="closest")
    fig.update_xaxes(
        type="log",
        title_text="runs on each input (D and D′)",
        range=[math.log10(ends[0]), math.log10(ends[1])],
    )
    fig.update_yaxes(title_text="ε", range=[bottom, top], rangemode="normal")
    return fig


def _shown(value: float) -> str:
    if math.isnan(value):
        return "undefined (no run in the event)"
    return "∞" if math.isinf(value) else f"{value:.3f}"
