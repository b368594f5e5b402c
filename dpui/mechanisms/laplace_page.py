"""The Laplace mechanism page: true vs noisy counts, the noise, and the max-error bound vs the
truth."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import NDArray
from streamlit.delta_generator import DeltaGenerator

from dpui.kit import byte_cache, downloads, present, state, styled_once
from dpui.kit.page import Estimate, Page, Section, View, sections
from dpui.mechanisms import figures
from dpui.mechanisms import laplace as lap
from dpui.mechanisms.laplace import (
    DELTA,
    K2,
    POP_MAX,
    SCALE,
    SCALE_MODE,
    SEED,
    SENSITIVITY,
    SOURCE,
    TRIALS,
    YEAR,
)


def new_noise() -> None:
    st.session_state[SEED.name] = (int(state.get(SEED)) + 1) % (SEED.hi + 1)


def controls() -> None:
    c1, c2, c3, c4 = (*st.columns([1.7, 1]), *st.columns([1, 1]))
    c1.selectbox("Data", list(lap.SOURCES), format_func=lap.SOURCES.__getitem__, key=SOURCE.name)
    if state.get(SOURCE) == "gapminder":
        y1, y2 = c1.columns(2)
        y1.selectbox("Year", lap.GAPMINDER_YEARS, key=YEAR.name)
        y2.number_input(
            "Population below (millions)",
            POP_MAX.lo,
            POP_MAX.hi,
            step=1.0,
            key=POP_MAX.name,
            help="Keep only countries under this population (as Wang and Kang did).",
        )
    c2.radio(
        "Noise set by",
        list(lap.SCALE_MODES),
        format_func=lap.SCALE_MODES.__getitem__,
        key=SCALE_MODE.name,
    )
    if state.get(SCALE_MODE) == "scale":
        c2.number_input("Noise scale b", SCALE.lo, SCALE.hi, format="%g", key=SCALE.name)
    c3.number_input(
        "L1 sensitivity Δf",
        SENSITIVITY.lo,
        SENSITIVITY.hi,
        format="%g",
        key=SENSITIVITY.name,
        help="1 for counts of disjoint groups: adding or removing one person moves one count by 1.",
    )
    c3.number_input("δ (failure probability)", DELTA.lo, DELTA.hi, format="%g", key=DELTA.name)
    c4.number_input("Noise seed", SEED.lo, SEED.hi, key=SEED.name)
    c4.button("New noise", on_click=new_noise, help="Draw a fresh release (seed + 1).")


def body(view: View | None) -> None:
    """The release's chart, formulas, key numbers and download, then one section."""
    assert view is not None
    q: lap.Query = view.detail
    rel, k, eps, sensitivity, delta = q.rel, q.counts.size, q.eps, q.sensitivity, q.delta
    labels, counts, settings = q.labels, q.counts, view.stamp
    st.markdown(f"Query: **{q.described}**.")

    if not present.presenting():  # the chart's own title says it on a projector
        st.header("True vs noisy")
    left, right = present.columns([2, 1])
    present.show_chart(view.figure, settings, key="lap_bars", where=left)  # true vs noisy
    with right:
        st.latex(r"M(x) = f(x) + (Y_1,\dots,Y_k)")
        st.latex(r"Y_i \sim \mathrm{Lap}(b),\quad b = \frac{\Delta f}{\varepsilon}")
        st.latex(r"\Delta f = \max_{x \sim y}\lVert f(x)-f(y)\rVert_1")
        st.markdown(lap.sensitivity_text(sensitivity, gapminder=q.gapminder))
    m = st.columns(5)
    m[0].metric("Entries k", f"{k:,}")
    m[1].metric(
        "ε", f"{eps:.4g}", help="Set in the sidebar, or Δf/b when the scale is set directly."
    )
    m[2].metric("Noise scale b = Δf/ε", f"{rel.scale:.4g}")
    m[3].metric("Bound ln(k/δ)·b", f"{rel.bound:.4g}")
    m[4].metric(
        "Exact width t*·b",
        f"{rel.exact:.4g}",
        delta=f"{rel.exact / rel.bound - 1:+.2%} vs bound" if rel.bound > 0 else None,
        delta_color="off",
    )
    downloads.csv_button(  # the table is made when the button is clicked, not at every run
        "Download release with (1-δ) intervals (CSV)",
        partial(
            lap.release_table, labels, counts, rel, eps=eps, sensitivity=sensitivity, delta=delta
        ),
        "laplace_release.csv",
    )
    key = (q.data, k, eps, sensitivity, delta, q.seed)
    sections("Below the release", lap.SECTION, SECTIONS, Below(key, q))
    present.prose(lap.prose())


@dataclass(frozen=True)
class Below:
    """What the sections below the release draw from: the query, told apart by its data,
    size, ε, Δf, δ and seed (its arrays are not hashable)."""

    key: tuple[str, int, float, float, float, int]
    q: lap.Query = field(compare=False)


def simulation_controls(where: DeltaGenerator) -> None:
    """The second query size and the trials, used by both simulated sections."""
    where.number_input("Second k", K2.lo, K2.hi, key=K2.name)
    where.number_input(
        "Simulation trials",
        TRIALS.lo,
        TRIALS.hi,
        step=100,
        key=TRIALS.name,
        help="Releases simulated per k.",
    )


@byte_cache.cache_by_bytes(max_entries=16)
def _noise_figure(
    noise: NDArray[np.float64], scale: float, bound: float, exact: float, delta: float
) -> go.Figure:
    """The release's noise against its distribution: one figure for every session drawing
    the same release (marked shared, it is styled on copies: never changed)."""
    made = figures.noise_distribution(noise, scale=scale, bound=bound, exact=exact, delta=delta)
    return styled_once.shared(made)


def the_noise(below: Below) -> None:
    q = below.q
    rel, delta, settings = q.rel, q.delta, q.settings()
    left, right = present.columns([2, 1])
    present.show_chart(
        _noise_figure(rel.noise, rel.scale, rel.bound, rel.exact, delta),
        settings,
        key="lap_noise",
        where=left,
    )
    with right:
        st.latex(r"p(y) = \frac{1}{2b} e^{-|y|/b}")
        st.latex(r"\Pr[|Y| \ge t\,b] = e^{-t}")
        st.latex(r"\Pr\big[\max_i |Y_i| \ge \ln\tfrac{k}{\delta}\, b\big] \le \delta")
        st.latex(r"\Pr\big[\max_i |Y_i| \ge t\,b\big]")
        st.latex(r"= 1 - (1 - e^{-t})^k")
        st.markdown(
            f"Largest |noise| in this draw: **{abs(rel.noise).max():.4g}**; the bound is an "
            "upper bound on the (1-δ)-quantile of the largest |noise| (the exact quantile is "
            "t*·b, above), so a single draw usually stays well inside it."
        )


def simulation_cost(below: Below) -> Estimate | None:
    """The simulation of the section chosen, at the trials and second k set now."""
    shown = str(state.get(lap.SECTION))
    return lap.section_cost(below.q.counts.size, shown, int(state.get(TRIALS)), int(state.get(K2)))


def in_a_row(below: Below) -> None:
    """The simulation's settings, above the section's estimate and its charts."""
    simulation_controls(st.container(horizontal=True))


def bound_vs_simulated(below: Below) -> None:
    q = below.q
    rel, delta, k, seed = q.rel, q.delta, q.counts.size, q.seed
    trials = int(state.get(TRIALS))
    k2 = int(state.get(K2))
    with st.spinner("Simulating max errors…"):
        by_k = lap.max_error_vs_k(lap.sweep_ks(k, k2), delta, rel.scale, trials, seed)
        by_delta = lap.max_error_vs_delta(k, rel.scale, trials, seed)
    left, right = present.columns([1, 1])
    sweep = {"b": rel.scale, "trials": trials, "seed": seed}
    present.show_chart(
        figures.max_error_curves(by_k, x="k", log_x=True, marks=(k, k2)),
        sweep | {"δ": delta},
        key="lap_by_k",
        where=left,
    )
    present.show_chart(
        figures.max_error_curves(by_delta, x="δ", log_x=True, marks=(delta,)),
        sweep | {"k": k},
        key="lap_by_delta",
        where=right,
    )
    f1, f2 = st.columns(2)
    f1.latex(r"t^* = -\ln\!\big(1-(1-\delta)^{1/k}\big) \;\le\; \ln(k/\delta)")
    f2.latex(r"\ln(k/\delta) - t^* \;\xrightarrow[k\to\infty]{}\; \ln\frac{-\ln(1-\delta)}{\delta}")
    st.caption(
        "Simulated: the (1-δ)-quantile of max |Y_i| over independent releases (real Laplace "
        f"draws; {trials:,} trials, fewer for large k so that each point draws at most "
        f"{lap.MAX_SIMULATED_DRAWS:,} values, but never fewer than {lap.MIN_TRIALS}; see the "
        "table). Dotted lines: this query's k and the "
        f"comparison k₂; the chosen δ. A quantile is shown only when δ × trials ≥ "
        f"{lap.MIN_EXPECTED_BEYOND} (otherwise it would just be the largest trial)."
    )
    with st.expander("Sweep over k (table)"):
        st.dataframe(by_k, hide_index=True)
        downloads.csv_button("Download sweep (CSV)", by_k, "laplace_max_error_by_k.csv")


def two_query_sizes(below: Below) -> None:
    q = below.q
    rel, delta, k, seed = q.rel, q.delta, q.counts.size, q.seed
    trials = int(state.get(TRIALS))
    k2 = int(state.get(K2))
    present.table(lap.two_k_comparison((k, k2), delta, rel.scale, trials, seed))


SECTIONS = {
    "noise": Section(lap.SECTIONS["noise"], the_noise),
    "bound": Section(lap.SECTIONS["bound"], bound_vs_simulated, simulation_cost, in_a_row),
    "two_k": Section(lap.SECTIONS["two_k"], two_query_sizes, simulation_cost, in_a_row),
}
"""The parts below the release, one at a time, each through the work gate
(:func:`dpui.kit.page.sections`): the simulated ones are estimated from the trials and the
second k, drawn above them so that an estimate over the limit can be brought down."""

PAGE = Page(
    key="laplace",
    title="Laplace mechanism",
    icon=":material/bar_chart:",
    group="Central DP: mechanisms",
    blurb=(
        "Add Laplace noise to a real histogram (gapminder populations); compare the textbook "
        "max-error bound ln(k/δ)·Δf/ε with the exact width and a simulation."
    ),
    notice=(
        "For small δ the textbook bound ln(k/δ)·Δf/ε is almost the exact width, so noise that "
        "stays inside it in one release is what the bound predicts, not a sign that it is "
        "loose."
    ),
    caption=(
        "Add Lap(Δf/ε) noise to every entry of a vector query, and compare the textbook "
        "accuracy bound with the exact probability and a simulation. Teaching and exploration "
        "tool: numpy's generator is not a hardened noise source."
    ),
    data=(
        "country populations (gapminder), as in Wang and Kang's example, unless Settings → Data "
        "chooses the sidebar's histogram."
    ),
    params=(*lap.PARAMS, lap.SECTION),
    pinned=lap.PINNED,
    controls=controls,
    cost=lap.cost,
    view=lap.view,
    shared_view=True,
    body=body,
)
