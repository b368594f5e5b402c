"""The Error analysis page, declared: its settings, its view (:mod:`dpui.errors.view`) and the
body below it (the offers to add the optimised strategy and to run an over-limit simulation,
the chart, the formulas, the table)."""

from __future__ import annotations

import streamlit as st

from dpui.errors import optimised, settings
from dpui.errors import view as ea
from dpui.errors.settings import (
    ALGORITHM_FLAGS,
    FIXED_N,
    FIXED_RANGES,
    INDEX_M,
    MAX_M,
    QUERIES,
    RELEASES,
    SEED,
    SIMULATE,
    VIEW,
)
from dpui.kit import downloads, limits, present, references, state
from dpui.kit.page import Page, View


def controls() -> None:
    st.markdown("**Algorithms**")
    cols = st.columns(4)
    for i, (key, flag) in enumerate(ALGORITHM_FLAGS.items()):
        cols[i % 4].checkbox(settings.label(key), key=flag.name, wrap=True)
    c1, c2, c3, c4, c5 = st.columns([2.2, 1, 1, 1, 1])
    c1.selectbox(
        "Plot", tuple(settings.VIEWS), format_func=settings.VIEWS.__getitem__, key=VIEW.name
    )
    c2.checkbox("Simulate", key=SIMULATE.name, help="Off: closed forms only (instant).")
    c3.number_input("Releases T", RELEASES.lo, RELEASES.hi, key=RELEASES.name)
    c4.number_input(
        "Ranges per point",
        QUERIES.lo,
        QUERIES.hi,
        key=QUERIES.name,
        help="Random ranges per length in (1); fresh random ranges per release in (3)/(4).",
    )
    c5.number_input("Seed", SEED.lo, SEED.hi, key=SEED.name)
    choice = state.get(VIEW)
    if choice == "fixed":
        d1, d2, _ = st.columns([1, 1, 3])
        d1.number_input("Bins N", FIXED_N.lo, FIXED_N.hi, key=FIXED_N.name)
        d2.number_input("Fixed ranges", FIXED_RANGES.lo, FIXED_RANGES.hi, key=FIXED_RANGES.name)
    elif choice == "size":
        st.number_input("Largest m (N = 2^m)", MAX_M.lo, MAX_M.hi, key=MAX_M.name)
    elif choice == "index":
        st.number_input("Largest m for trees", INDEX_M.lo, INDEX_M.hi, key=INDEX_M.name)


def offer_optimised_strategy(s: settings.Settings, hist_n: int) -> None:
    """The button adding the optimised strategy to views drawn for one n (once computed, the
    page reruns so that its view includes it), or why it is not offered."""
    reference_n = optimised.pidentity_n(s.view, hist_n, s.fixed_n)
    if reference_n is None or optimised.pidentity_strategy(reference_n) is not None:
        return
    if reference_n > optimised.PIDENTITY_MAX_BINS:
        st.caption(
            f"The optimised strategy (HDMM p-Identity) is computed up to "
            f"{optimised.PIDENTITY_MAX_BINS:,} bins (here n = {reference_n:,})."
        )
    elif (
        st.button(
            f"Add the optimised strategy (HDMM p-Identity) for n = {reference_n:,}",
            icon=":material/insights:",
            help=optimised.PIDENTITY_HELP,
        )
        and optimised.optimise_pidentity(reference_n) is not None
    ):
        st.rerun()  # kept: the views draw it from now on


def body(view: View | None) -> None:
    """Below the view: the offers, the chart, the formulas, the table and the explanation."""
    assert view is not None
    detail: ea.Detail = view.detail
    s, result = detail.settings, detail.result
    with present.aside("optimised"):  # hidden while presenting: the figure fits
        offer_optimised_strategy(s, detail.hist.n_bins)
    if detail.problem is not None:
        st.warning(detail.problem, icon=":material/data_alert:")
    if s.view == "index" and s.index_m < detail.wanted_index_m:
        limits.scaled_down(
            f"trees up to m = {s.index_m} (N = 2^{s.index_m}) instead of "
            f"m = {detail.wanted_index_m}",
            library="dpcore.hist.accuracy_index.coefficient_curve",
        )
    if detail.offer is not None and not s.simulate:
        # over the limit the closed forms show at once and the simulation waits for a click
        n, asked = detail.offer
        limits.allow_or_offer(
            ea.simulation_what(asked),
            ea.settings_cost(asked, n, releases=asked.releases),
            key=detail.offer,
            smaller=ea.SIMULATION_SMALLER,
            library=ea.SIMULATION_LIBRARY,
        )
    present.show_chart(result.figure, view.stamp, key="ea_chart")
    for formula in settings.FORMULAS[s.view].split(r",\quad "):  # one per line: fits a phone
        st.latex(formula)
    st.caption(
        result.note + " Assumes the uniform workload (all ranges equally likely) for budgets "
        "and averages."
    )
    st.dataframe(result.table, hide_index=True)
    downloads.csv_button("Download results (CSV)", result.table, f"error_analysis_{s.view}.csv")
    with st.expander("What is compared, and how", expanded=False):
        st.markdown(references.prose("error_analysis.md"))


PAGE = Page(
    key="error_analysis",
    title="Error analysis",
    icon=":material/query_stats:",
    group="Central DP: histograms",
    blurb=(
        "Exact closed-form errors of every algorithm (Dwork, trees raw and BLUE, Privelet) "
        "beside simulations with confidence intervals, and the O(lb³N) accuracy index."
    ),
    notice=(
        "The closed-form lines run through the simulated 95% intervals, so every algorithm's "
        "[MSE](glossary#mse) is known exactly without simulating; compare how fast each one "
        "grows with the range length, N and 1/ε²."
    ),
    caption=(
        "Exact mean squared errors of range queries (lines) beside simulations of the real "
        "release pipelines (points with 95% intervals). Teaching and exploration tool: numpy's "
        "generator is not a hardened noise source."
    ),
    params=settings.PARAMS,
    pinned=settings.PINNED,
    controls=controls,
    cost=ea.cost,
    view=ea.view,
    body=body,
)
