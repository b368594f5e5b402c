"""Error analysis: exact closed-form errors beside simulations, for every histogram algorithm."""

import streamlit as st

from dpui.errors import view as view
from dpui.errors.analysis_page import PAGE
from dpui.errors.view import (
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
from dpui.kit import downloads, pin, present, references, sidebar, state

toolbar = present.header(PAGE)
sidebar.shared_controls()
hist = sidebar.current_histogram()
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

reference_n = view.pidentity_n(choice, hist.n_bins, int(st.session_state[FIXED_N.name]))
if reference_n is not None and view.pidentity_strategy(reference_n) is None:
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
        view.optimise_pidentity(reference_n)  # kept: the views below draw it from now on

b = view.checked(view.Settings.of(pin.current(view.PINNED)), hist.n_bins)
if b is None:
    st.stop()
result = view.run(b, hist, digest)

pinned = pin.controls("errors", view.PINNED, where=toolbar)
if pinned is not None:
    view.show_comparison(pinned, b, result, hist, digest)
else:
    present.show_chart(result.figure, view.chart_settings(b, hist), key="ea_chart")
for formula in view.FORMULAS[choice].split(r",\quad "):  # one per line: fits a phone
    st.latex(formula)
st.caption(
    result.note + " Assumes the uniform workload (all ranges equally likely) for budgets "
    "and averages."
)
st.dataframe(result.table, hide_index=True)
downloads.csv_button("Download results (CSV)", result.table, f"error_analysis_{choice}.csv")
with st.expander("What is compared, and how", expanded=False):
    st.markdown(references.prose("error_analysis.md"))
