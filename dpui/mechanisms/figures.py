"""Figure factories for the mechanism pages: pure functions from arrays/tables to Plotly figures."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray
from plotly.subplots import make_subplots

from dpui.kit import chart_style, untrusted

FloatArray = NDArray[np.float64]

MAX_BARS = 400  # above this many entries, bars become a line (one point per entry)
MAX_POINTS = 20_000  # above this many entries, only the first MAX_POINTS are drawn
LABEL_CHARS = 14  # an entry's name under the bars, at most (a longer one is cut with …)

# Okabe-Ito, colour-blind safe (tests/kit/test_colours.py)
TRUE_COLOUR, NOISY_COLOUR, BOUND_COLOUR, EXACT_COLOUR, SIMULATED_COLOUR, MEAN_COLOUR = (
    chart_style.OKABE_ITO[:6]
)


def _layout(
    fig: go.Figure,
    *,
    title: str,
    x: str,
    y: str,
    hovermode: str = "x unified",
    subtitle: str = "",
) -> go.Figure:
    """Titles, axes and margins; a long title goes as a short ``title`` and a ``subtitle``
    in smaller type (Plotly does not wrap titles: one long line is cut on a phone)."""
    fig.update_layout(
        title={"text": title, "subtitle": {"text": subtitle}} if subtitle else title,
        xaxis_title=x,
        yaxis_title=y,
        margin={"l": 10, "r": 10, "t": 72 if subtitle else 40, "b": 10},
        hovermode=hovermode,
    )
    return fig


def true_vs_noisy(labels: Sequence[str], true: FloatArray, noisy: FloatArray) -> go.Figure:
    """True and noisy values side by side, and below them the noise itself (noisy - true),
    which stays visible when it is tiny next to the values. Bars up to ``MAX_BARS`` entries,
    lines beyond, and only the first ``MAX_POINTS`` entries of very long vectors (the title
    says so)."""
    k = len(labels)
    shown = min(k, MAX_POINTS)
    # names cut to LABEL_CHARS: written upright under 40 bars, a 24-character country took
    # 230 px of a 505-px projected chart, and left the noise panel 45 px
    names = untrusted.plot_labels(labels[:shown], LABEL_CHARS)
    true, noisy = true[:shown], noisy[:shown]
    # a gap that holds half a tick label of each panel: at 0.04, a projector printed the value
    # panel's '0' 10 px into the noise panel's '5'
    fig = make_subplots(
        rows=2, cols=1, shared_xaxes=True, row_heights=[0.6, 0.4], vertical_spacing=0.1
    )
    if shown <= MAX_BARS:
        fig.add_bar(x=names, y=true, name="true", marker_color=TRUE_COLOUR, row=1, col=1)
        fig.add_bar(
            x=names,
            y=noisy,
            name="noisy",
            marker_color=NOISY_COLOUR,
            customdata=noisy - true,
            hovertemplate="%{y:,.2f} (noise %{customdata:+,.2f})",
            row=1,
            col=1,
        )
        fig.add_bar(x=names, y=noisy - true, name="noise", marker_color=MEAN_COLOUR, row=2, col=1)
        fig.update_layout(barmode="group")
    else:
        for y, name, colour, row in (
            (true, "true", TRUE_COLOUR, 1),
            (noisy, "noisy", NOISY_COLOUR, 1),
            (noisy - true, "noise", MEAN_COLOUR, 2),
        ):
            fig.add_scattergl(
                x=names, y=y, name=name, mode="lines", line_color=colour, row=row, col=1
            )
    title = "True vs noisy values, and the noise"
    if shown < k:
        title += f" (first {shown:,} of {k:,} entries)"
    _layout(fig, title=title, x="", y="value")
    fig.update_yaxes(title_text="noise", row=2, col=1)  # noisy − true (the panel is low)
    # the legend goes in rows between the title and the plot (dpui.kit.legend_rows): never
    # over the (rotated) entry names, nor over the title on a phone
    fig.update_layout(height=520)
    return fig


def noise_distribution(
    noise: FloatArray, *, scale: float, bound: float, exact: float, delta: float
) -> go.Figure:
    """This draw's noise values as a density histogram, the Laplace density, and the widths."""
    reach = max(bound, float(np.abs(noise).max())) * 1.1
    grid = np.linspace(-reach, reach, 401)
    density, edges = np.histogram(
        noise, bins=min(80, max(10, noise.size // 4)), range=(-reach, reach), density=True
    )
    fig = go.Figure()
    fig.add_bar(
        x=(edges[:-1] + edges[1:]) / 2,
        y=density,
        width=float(edges[1] - edges[0]),
        name=f"this draw's {noise.size:,} noise values",
        marker_color=NOISY_COLOUR,
        opacity=0.6,
    )
    fig.add_scatter(
        x=grid,
        y=np.exp(-np.abs(grid) / scale) / (2 * scale),
        name="Laplace density",
        mode="lines",
        line_color=TRUE_COLOUR,
    )
    for value, label, colour, dash in (
        (bound, "bound ln(k/δ)·b", BOUND_COLOUR, "dash"),
        (exact, "exact width t*·b", EXACT_COLOUR, "dot"),
    ):
        for sign in (-1, 1):
            fig.add_vline(x=sign * value, line_color=colour, line_dash=dash)
        fig.add_scatter(
            x=[None], y=[None], mode="lines", name=label, line={"color": colour, "dash": dash}
        )
    return _layout(
        fig,
        title="This draw's noise values",
        subtitle=f"all k fall inside the lines with probability ≥ 1 − δ = {1 - delta:g}",
        x="noise Y_i",
        y="density",
        hovermode="closest",
    )


def max_error_curves(
    table: pd.DataFrame, *, x: str, log_x: bool, marks: Sequence[float]
) -> go.Figure:
    """Bound, exact, simulated quantile (and mean, if present) of the max error against ``x``."""
    fig = go.Figure()
    styles = {
        "bound ln(k/δ)·b": (BOUND_COLOUR, "dash", "lines"),
        "exact t*·b": (EXACT_COLOUR, "solid", "lines"),
        "simulated (1-δ)-quantile": (SIMULATED_COLOUR, "solid", "markers"),
        "mean max error b·H_k": (MEAN_COLOUR, "dot", "lines"),
    }
    for column, (colour, dash, mode) in styles.items():
        if column in table:
            fig.add_scatter(
                x=table[x],
                y=table[column],
                name=column,
                mode=mode,
                line={"color": colour, "dash": dash},
                marker={"color": colour, "size": 8},
            )
    for value in marks:
        fig.add_vline(x=value, line_color="grey", line_dash="dot")
    if log_x:
        fig.update_xaxes(type="log")
    return _layout(
        fig,
        title=f"Max error over all k entries against {x}",
        x=x,
        y="max_i |noise|",
    )


def log_weights(names: Sequence[str], values: FloatArray) -> go.Figure:
    """ln-weights of the exponential mechanism relative to the best, ``ε (u - OPT) / (2Δu)``."""
    # the best candidate's bar has height 0: a label says so instead of an apparent gap
    labels = ["0 (best)" if v == 0 else f"{v:.3g}" for v in values]
    fig = go.Figure(
        go.Bar(
            x=untrusted.plot_labels(names),
            y=values,
            marker_color=TRUE_COLOUR,
            name="ln weight",
            text=labels,
            textposition="outside",
            cliponaxis=False,
        )
    )
    return _layout(
        fig,
        title="ln-weights relative to the best",
        subtitle="ε·(u − OPT)/(2Δu)",
        x="candidate",
        y="ln weight",
    )


def output_probabilities(names: Sequence[str], probabilities: FloatArray) -> go.Figure:
    """Exact output probabilities ``Pr[M(x) = r]`` as one bar per candidate."""
    fig = go.Figure()
    fig.add_bar(
        x=untrusted.plot_labels(names),
        y=probabilities,
        name="exact probability",
        marker_color=TRUE_COLOUR,
    )
    fig.update_yaxes(rangemode="tozero")
    return _layout(fig, title="Output probabilities Pr[M(x) = r]", x="candidate", y="probability")


def probabilities_vs_frequencies(
    names: Sequence[str],
    probabilities: FloatArray,
    counts: NDArray[np.int64],
    drawn: int,
) -> go.Figure:
    """Exact output probabilities as bars, empirical frequencies of ``drawn`` runs as markers."""
    fig = output_probabilities(names, probabilities)
    names = untrusted.plot_labels(names)
    if drawn > 0:
        fig.add_scatter(
            x=names,
            y=counts / drawn,
            customdata=counts,
            mode="markers",
            name=f"frequency in {drawn:,} runs",
            marker={"color": NOISY_COLOUR, "size": 11, "symbol": "diamond"},
            hovertemplate="%{y:.4f} (%{customdata:,} times)",
        )
    # short title, the rest as a subtitle: Plotly does not wrap a title (a projector cut it)
    return fig.update_layout(
        title={
            "text": "Output probabilities Pr[M(x) = r]",
            "subtitle": {"text": "and the observed frequencies of the runs"},
        },
        margin_t=72,  # the title and its subtitle above the plot's top label (60: 4 px over)
    )


def accuracy_curves(
    values: FloatArray,
    cumulative: FloatArray,
    grid: FloatArray,
    bound: FloatArray,
    *,
    best: float,
) -> go.Figure:
    """``Pr[u(M(x)) <= c]``: the exact step function and the textbook bound, on a log axis.

    ``values``/``cumulative`` are the distinct scores and the exact probability
    of scoring at most each; ``grid``/``bound`` the bound evaluated on a grid of c.
    """
    shown = np.concatenate([cumulative[cumulative > 0], bound[bound > 0]])
    floor = max(1e-16, float(shown.min()) / 2) if shown.size else 1e-16
    top = max(2.0, float(np.nanmax(np.minimum(bound, 1e300))) * 2)
    fig = go.Figure()
    fig.add_scatter(
        x=values,
        y=np.maximum(cumulative, floor),
        name="exact Pr[u(M) ≤ c]",
        mode="lines+markers",
        line={"color": EXACT_COLOUR, "shape": "hv"},
    )
    fig.add_scatter(
        x=grid,
        y=bound,
        name="bound (|R|/|R_OPT|)·exp(ε(c-OPT)/2Δu)",
        mode="lines",
        line={"color": BOUND_COLOUR, "dash": "dash"},
    )
    fig.add_hline(y=1.0, line_color="grey", line_dash="dot", annotation_text="1: useless above")
    fig.add_vline(  # its label left of the line, at the bottom: right of it a phone cut it,
        # at the top it ran into the legend's last row
        x=best,
        line_color="grey",
        line_dash="dot",
        annotation_text="OPT",
        annotation_position="bottom left",
    )
    fig.update_yaxes(type="log", exponentformat="power", range=[np.log10(floor), np.log10(top)])
    low, high = float(grid[0]), float(grid[-1])
    pad = 0.03 * (high - low) if high > low else 1.0
    fig.update_xaxes(range=[low - pad, high + pad])
    return _layout(
        fig,
        title="Accuracy of the output",
        subtitle="the probability that it scores at most c",
        x="c",
        y="probability",
    )
