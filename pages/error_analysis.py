"""Error analysis: exact closed-form errors beside simulations, for every histogram algorithm."""

import streamlit as st

from dpui import downloads, present, references, sidebar, state
from dpui import errors_figures as figures
from dpui import errors_view as view
from dpui.errors_view import (
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

present.header(
    "pages/error_analysis.py",
    "Error analysis",
    "Exact mean squared errors of range queries (lines) beside simulations of the real release "
    "pipelines (points with 95% intervals). Teaching and exploration tool: numpy's generator is "
    "not a hardened noise source.",
)
sidebar.shared_controls()
hist = sidebar.current_histogram()
eps = sidebar.current_epsilon()
digest = sidebar.histogram_digest(hist)
state.load(view.PARAMS)

with present.settings_panel():
    st.markdown("**Algorithms**")
    cols = st.columns(4)
    for i, (key, flag) in enumerate(ALGORITHM_FLAGS.items()):
        cols[i % 4].checkbox(view.label(key), key=flag.name, wrap=True)
    c1, c2, c3, c4, c5 = st.columns([2.2, 1, 1, 1, 1])
    c1.selectbox("Plot", tuple(view.VIEWS), format_func=view.VIEWS.__getitem__, key=VIEW.name)
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
    choice = st.session_state[VIEW.name]
    if choice == "fixed":
        d1, d2, _ = st.columns([1, 1, 3])
        d1.number_input("Bins N", FIXED_N.lo, FIXED_N.hi, key=FIXED_N.name)
        d2.number_input("Fixed ranges", FIXED_RANGES.lo, FIXED_RANGES.hi, key=FIXED_RANGES.name)
    elif choice == "size":
        st.number_input("Largest m (N = 2^m)", MAX_M.lo, MAX_M.hi, key=MAX_M.name)
    elif choice == "index":
        st.number_input("Largest m for trees", INDEX_M.lo, INDEX_M.hi, key=INDEX_M.name)
state.save(view.PARAMS)

fixed_n = int(st.session_state[FIXED_N.name])
reference_n = view.pidentity_n(choice, hist.n_bins, fixed_n)
strategy = None if reference_n is None else view.pidentity_strategy(reference_n)
if reference_n is not None and strategy is None:
    if reference_n > view.PIDENTITY_MAX_BINS:
        st.caption(
            f"The optimised strategy (HDMM p-Identity) is computed up to "
            f"{view.PIDENTITY_MAX_BINS:,} bins (here n = {reference_n:,})."
        )
    elif st.button(
        f"Add the optimised strategy (HDMM p-Identity) for n = {reference_n:,}",
        icon=":material/insights:",
        help="The best known linear strategy for all ranges, optimised numerically "
        "(McKenna, Miklau, Hay and Machanavajjhala, VLDB 2018): a reference line showing how "
        "far each tree is from it. Seconds up to n = 1,024, about a minute at 4,096; "
        "limit 8,192 bins.",
    ):
        strategy = view.optimise_pidentity(reference_n)

keys = tuple(key for key, flag in ALGORITHM_FLAGS.items() if st.session_state[flag.name])
if not keys:
    st.warning("Choose at least one algorithm above.")
    st.stop()
simulate = bool(st.session_state[SIMULATE.name])
releases = int(st.session_state[RELEASES.name])
queries = int(st.session_state[QUERIES.name])
seed = int(st.session_state[SEED.name])

index_m = int(st.session_state[INDEX_M.name])
if choice == "index":
    index_m = view.index_levels(keys, index_m)
sizes = {
    "n": hist.n_bins,
    "queries": queries,
    "fixed_n": int(st.session_state[FIXED_N.name]),
    "fixed_ranges": int(st.session_state[FIXED_RANGES.name]),
    "max_m": int(st.session_state[MAX_M.name]),
    "index_m": index_m,
}
if not view.allowed(choice, keys, releases=0, **sizes):  # the closed forms alone
    st.stop()
request = (digest, choice, keys, eps, releases, seed, tuple(sizes.values()))
if simulate and choice != "index":
    # over the limit, the closed forms show at once and the simulation waits for a click
    simulate = view.simulation_allowed(choice, keys, request, releases=releases, **sizes)

bar = st.progress(0.0, text="Computing…") if simulate or choice == "index" else None


def report(fraction: float) -> None:
    if bar is not None:
        bar.progress(min(fraction, 1.0), text=f"Simulating… {fraction:.0%}")


workload_note = "uniform workload (all ranges equally likely) for budgets and averages"
if choice == "length":
    table = view.length_curve(
        digest, hist.counts, keys, eps, queries, releases, seed, simulate, progress=report
    )
    table = view.with_pidentity(table, choice, strategy, eps, queries, 0, seed)
    fig = figures.exact_vs_empirical(
        table, x="range length", title="MSE vs range length", x_title="range length L"
    )
    note = (
        f"{hist.name}, n = {hist.n_bins:,}, ε = {eps:g}; {queries} random ranges per length. "
        "Lines: exact mean over the same ranges as the points."
    )
elif choice == "fixed":
    n_fixed = fixed_n
    table = view.fixed_ranges(
        digest,
        hist.counts,
        keys,
        n_fixed,
        eps,
        int(st.session_state[FIXED_RANGES.name]),
        releases,
        seed,
        simulate,
        progress=report,
    )
    count = int(st.session_state[FIXED_RANGES.name])
    table = view.with_pidentity(table, choice, strategy, eps, 0, count, seed)
    fig = figures.exact_vs_empirical(
        table,
        x="range #",
        title=f"MSE per fixed random range (N = {n_fixed:,})",
        x_title="range (sorted by start)",
        log_x=False,
    )
    note = (
        f"N = {n_fixed:,} bins ({hist.name} repeated or cut to N: the errors do not depend on "
        f"the data), ε = {eps:g}; table 1 of Wu et al. (2018) is N = 1024, 50 ranges, "
        "100 releases."
    )
elif choice == "size":
    max_m = int(st.session_state[MAX_M.name])
    table = view.size_curve(keys, eps, max_m, releases, queries, seed, simulate, progress=report)
    fig = figures.exact_vs_empirical(
        table, x="N", title="Average MSE over all ranges vs N", x_title="N = 2^m"
    )
    note = (
        f"All-zero histogram of N bins, ε = {eps:g}; simulated up to N = "
        f"2^{view.SIMULATED_MAX_M} (every range while there are ≤ {view.ALL_RANGES_LIMIT:,}, "
        f"else {queries} fresh random ranges per release); larger N exact only."
    )
elif choice == "epsilon":
    table = view.epsilon_curve(
        digest, hist.counts, keys, releases, queries, seed, simulate, progress=report
    )
    table = view.with_pidentity(table, choice, strategy, eps, 0, 0, seed)
    fig = figures.exact_vs_empirical(
        table, x="epsilon", title="Average MSE over all ranges vs ε", x_title="ε"
    )
    note = (
        f"{hist.name}, n = {hist.n_bins:,}; simulated with {queries} fresh random ranges per "
        "release. Every algorithm's MSE scales exactly as 1/ε²."
    )
else:
    curves = view.index_curves(keys, index_m, progress=report)
    table = view.index_table(curves)
    fig = figures.index_convergence(
        view.curves_by_algorithm(curves), view.index_estimates(curves), view.paper_indices(keys)
    )
    note = (
        "Exact values at ε = 1, uniform workload. A limit is extrapolated only where the "
        "algorithm's f(2^m) is known to be a cubic in m, and shown only when fits on different "
        "m windows agree within 2%; the column 'how' says why for each algorithm."
    )
if bar is not None:
    bar.empty()

settings = {"dataset": hist.name, "n": hist.n_bins, "ε": eps, "workload": "all ranges"}
if simulate:
    settings |= {"releases": releases, "seed": seed}
present.show_chart(fig, settings, key="ea_chart")
for formula in view.FORMULAS[choice].split(r",\quad "):  # one per line: fits a phone
    st.latex(formula)
st.caption(note + f" Assumes the {workload_note}.")
st.dataframe(table, hide_index=True)
downloads.csv_button("Download results (CSV)", table, f"error_analysis_{choice}.csv")
with st.expander("What is compared, and how", expanded=False):
    st.markdown(references.prose("error_analysis.md"))
