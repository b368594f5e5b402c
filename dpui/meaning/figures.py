"""Figure factories for "What ε means": pure functions from exact curves and draws to figures."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray
from plotly.subplots import make_subplots

from dpcore.meaning.attacks import Attack

FloatArray = NDArray[np.float64]

# Okabe-Ito colours (colour-blind safe), and a dash per series so colour is never needed
D_STYLE = {"color": "#0072B2", "dash": "solid", "symbol": "circle"}
NEIGHBOUR_STYLE = {"color": "#D55E00", "dash": "dash", "symbol": "diamond"}
BOUND_COLOUR = "#555555"
EXCESS_COLOUR = "rgba(213, 94, 0, 0.15)"


def neighbours(
    outputs: FloatArray,
    density: FloatArray,
    neighbour_density: FloatArray,
    loss: FloatArray,
    *,
    eps: float,
    discrete: bool,
    simulated: tuple[FloatArray, FloatArray, FloatArray, FloatArray] | None,
    threshold: float,
) -> go.Figure:
    """Two panels over the outputs o: above, p(o | D) and p(o | D') (and, when ``simulated``
    is given as ``(centres, share, lower, upper)`` of draws under D, their histogram with a 95%
    band); below, the privacy loss ln p(o|D)/p(o|D') with the lines ±ε, the outputs where it
    exceeds ε (from ``threshold`` on) shaded."""
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.1, row_heights=[0.6, 0.4]
    )
    mode = "markers" if discrete else "lines"
    for y, name, style in (
        (density, "D: the bin as it is", D_STYLE),
        (neighbour_density, "D′: without Alice", NEIGHBOUR_STYLE),
    ):
        fig.add_trace(
            go.Scatter(
                x=outputs,
                y=y,
                mode=mode,
                name=name,
                line={"color": style["color"], "dash": style["dash"], "width": 2.5},
                marker={
                    "color": style["color"],
                    "size": 5,
                    "symbol": "circle" if style is D_STYLE else "diamond",
                },
            ),
            row=1,
            col=1,
        )
    if simulated is not None:
        centres, share, lower, upper = simulated
        fig.add_trace(
            go.Scatter(
                x=centres,
                y=share,
                mode="markers",
                name="simulated releases of D (95% band)",
                marker={"color": "#009E73", "symbol": "x", "size": 7},
                error_y={"type": "data", "array": upper - share, "arrayminus": share - lower},
            ),
            row=1,
            col=1,
        )
    fig.add_trace(
        go.Scatter(
            x=outputs,
            y=loss,
            mode=mode,
            name="privacy loss L(o)",
            line={"color": "#000000", "width": 2.5},
            marker={"color": "#000000", "size": 4},
        ),
        row=2,
        col=1,
    )
    for level, text in ((eps, "+ε"), (-eps, "−ε")):
        fig.add_hline(
            y=level,
            line={"color": BOUND_COLOUR, "dash": "dot", "width": 1.5},
            annotation_text=text,
            annotation_position="top right",
            row=2,
            col=1,
        )
    if np.isfinite(threshold) and threshold < outputs[-1]:
        fig.add_vrect(
            x0=max(threshold, float(outputs[0])),
            x1=float(outputs[-1]),
            fillcolor=EXCESS_COLOUR,
            line_width=0,
            annotation_text="L > ε",
            annotation_position="top left",
            row=2,
            col=1,
        )
    fig.update_layout(
        title={"text": "One bin released on D and on D′"},
        hovermode="x unified",
    )
    fig.update_yaxes(title_text="probability" if discrete else "density", row=1, col=1)
    fig.update_yaxes(title_text="ln p(o|D)/p(o|D′)", row=2, col=1)
    fig.update_xaxes(title_text="released count o", row=2, col=1)
    return fig


def roc(
    fpr: FloatArray, tpr: FloatArray, bound: FloatArray, attack: Attack, *, eps: float
) -> go.Figure:
    """The optimal test's ROC (exact), the ε-DP bound region shaded, and the simulated attack
    with 95% intervals on both rates."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=fpr,
            y=bound,
            mode="lines",
            name=f"ε-DP bound: TPR ≤ e^ε·FPR, 1−FPR ≥ e^ε(1−TPR) (ε = {eps:g})",
            line={"color": BOUND_COLOUR, "dash": "dot", "width": 2},
            fill="tozeroy",
            fillcolor="rgba(85, 85, 85, 0.10)",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=fpr,
            y=tpr,
            mode="lines",
            name="optimal test on one Laplace release (exact)",
            line={"color": D_STYLE["color"], "width": 2.5},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="guessing",
            line={"color": "#999999", "dash": "dash", "width": 1},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=attack.fpr,
            y=attack.tpr,
            mode="markers",
            name=f"simulated attack, {attack.trials:,} releases per world (95% intervals)",
            marker={"color": "#009E73", "symbol": "x", "size": 9},
            error_x={
                "type": "data",
                "array": attack.fpr_hi - attack.fpr,
                "arrayminus": attack.fpr - attack.fpr_lo,
            },
            error_y={
                "type": "data",
                "array": attack.tpr_hi - attack.tpr,
                "arrayminus": attack.tpr - attack.tpr_lo,
            },
        )
    )
    # short title, the rest as a subtitle: Plotly does not wrap a title, and a phone cut it
    fig.update_layout(
        title={
            "text": "Is Alice in the data?",
            "subtitle": {"text": "every test's ROC under the bound"},
        }
    )
    fig.update_xaxes(title_text="false-positive rate (says 'in' when she is out)", range=[0, 1])
    fig.update_yaxes(title_text="true-positive rate", range=[0, 1.02])
    return fig


def posterior(
    priors: FloatArray,
    lower: FloatArray,
    upper: FloatArray,
    *,
    prior: float,
    draws: FloatArray,
) -> go.Figure:
    """The posterior band ``e^{±ε}`` in odds against the prior, and the spread of simulated
    posteriors at the chosen prior (their 5%, 25%, 50%, 75%, 95% quantiles and extremes)."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=priors,
            y=upper,
            mode="lines",
            name="highest posterior (odds × e^ε)",
            line={"color": NEIGHBOUR_STYLE["color"], "width": 2},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=priors,
            y=lower,
            mode="lines",
            name="lowest posterior (odds × e^−ε)",
            line={"color": D_STYLE["color"], "width": 2, "dash": "dash"},
            fill="tonexty",
            fillcolor="rgba(0, 114, 178, 0.10)",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            name="no release (posterior = prior)",
            line={"color": "#999999", "dash": "dot", "width": 1},
        )
    )
    fig.add_trace(
        go.Box(
            x=np.full(draws.size, prior),
            y=draws,
            name=f"simulated posteriors at prior {prior:g}",
            marker={"color": "#009E73"},
            boxpoints=False,
            width=0.04,
        )
    )
    fig.update_layout(title={"text": "The attacker's belief after one release"})
    fig.update_xaxes(title_text="prior: P[Alice is in] before the release", range=[0, 1])
    fig.update_yaxes(title_text="posterior after the release", range=[0, 1])
    return fig


def composition(
    count: float,
    averages: FloatArray,
    sd: FloatArray,
    ks: FloatArray,
    basic: FloatArray,
    zcdp: FloatArray,
    exact: FloatArray,
    *,
    eps: float,
    delta: float,
) -> go.Figure:
    """Left: the running average of j answers with its ±1.96 sd band, converging to the true
    count. Right: the total ε against k by basic composition, by zCDP and exactly (Gaussian).
    Each panel is named by its y-axis title: panel titles above the plots printed over the
    legend's rows and ran past a phone's chart."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.2)
    j = np.arange(1, averages.size + 1)
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([j, j[::-1]]),
            y=np.concatenate([count + 1.96 * sd, (count - 1.96 * sd)[::-1]]),
            fill="toself",
            fillcolor="rgba(0, 114, 178, 0.12)",
            line={"width": 0},
            name="true count ± 1.96 sd of the average",
            hoverinfo="skip",
        ),
        row=1,
        col=1,
    )
    fig.add_trace(
        go.Scatter(
            x=j,
            y=averages,
            mode="lines+markers" if averages.size <= 60 else "lines",
            name="average of the first j answers (seeded)",
            line={"color": D_STYLE["color"], "width": 2},
            marker={"size": 4},
        ),
        row=1,
        col=1,
    )
    fig.add_hline(
        y=count,
        line={"color": BOUND_COLOUR, "dash": "dot", "width": 1.5},
        annotation_text="true count",
        annotation_position="top left",  # away from the right panel's y-axis title
        row=1,
        col=1,
    )
    for y, name, colour, dash in (
        (basic, "basic composition: kε (Laplace or Gaussian)", NEIGHBOUR_STYLE["color"], "solid"),
        (zcdp, f"Gaussian via zCDP: ρ + 2√(ρ ln 1/δ), δ = {delta:g}", "#009E73", "dash"),
        (exact, "Gaussian, exact (σ/√k)", "#000000", "dot"),
    ):
        fig.add_trace(
            go.Scatter(
                x=ks,
                y=y,
                mode="lines",
                name=name,
                line={"color": colour, "dash": dash, "width": 2.5},
            ),
            row=1,
            col=2,
        )
    fig.update_layout(title={"text": f"The same count asked again and again, ε = {eps:g} each"})
    fig.update_xaxes(title_text="answers j", row=1, col=1)
    fig.update_yaxes(title_text="average of j answers", row=1, col=1)
    fig.update_xaxes(title_text="answers k", type="log", row=1, col=2)
    fig.update_yaxes(title_text="the ledger: total ε", type="log", row=1, col=2)
    return fig


def reconstruction(
    scales: FloatArray,
    rates: FloatArray,
    *,
    n: int,
    m: int,
    eps: float,
    dp: tuple[float, float],
) -> go.Figure:
    """The fraction of bits least squares recovers against the noise scale (log axis), with
    √n, chance (½) and the ε-DP answers marked."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=scales,
            y=rates,
            mode="lines+markers",
            name=f"least squares, rounded ({m:,} random subset sums)",
            line={"color": D_STYLE["color"], "width": 2.5},
            marker={"size": 7},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[dp[0]],
            y=[dp[1]],
            mode="markers",
            name=f"answers ε-DP in total (ε = {eps:g}, Lap(m/ε) each)",
            marker={"color": NEIGHBOUR_STYLE["color"], "symbol": "diamond", "size": 14},
        )
    )
    fig.add_vline(
        x=float(np.sqrt(n)),
        line={"color": BOUND_COLOUR, "dash": "dot", "width": 1.5},
    )
    fig.add_annotation(  # in log10 units on a log axis
        x=float(np.log10(np.sqrt(n))),
        y=1.0,
        text=f"√n = {np.sqrt(n):.3g}",
        showarrow=False,
        xanchor="left",
        yanchor="bottom",
    )
    fig.add_hline(
        y=0.5,
        line={"color": "#999999", "dash": "dash", "width": 1},
        annotation_text="chance",
        annotation_position="bottom right",
    )
    fig.update_layout(title={"text": f"Reconstructing {n:,} secret bits from noisy answers"})
    # the range from the data: Plotly places a log axis's annotations in log10 units, so the
    # √n label at x = 11.3 would otherwise stretch the axis to 10^11
    shown = np.log10([float(np.min(scales)), float(max(np.max(scales), dp[0]))])
    fig.update_xaxes(
        title_text="noise scale b of each answer (mean |error|)",
        type="log",
        range=[shown[0] - 0.1, shown[1] + 0.1],
    )
    fig.update_yaxes(title_text="fraction of bits recovered", range=[0.3, 1.02])
    return fig
