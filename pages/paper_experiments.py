"""Paper experiments: the papers' tables and figures that need a sweep, reproduced exactly."""

import streamlit as st

from dpui.errors import figures as error_figures
from dpui.kit import downloads, present, references, sidebar, state
from dpui.papers import custom_tree as custom_tree_view
from dpui.papers import figures as figures
from dpui.papers import view as view
from dpui.papers.page import PAGE
from dpui.papers.view import (
    EXPERIMENT,
    FAN_K,
    FAN_N,
    LEN_N,
    LEN_QUERIES,
    LEN_RELEASES,
    SEED,
    T2_MAX_M,
    T2_RELEASES,
    T2_SIM_M,
)

present.header(PAGE)
sidebar.shared_controls()
eps = sidebar.current_epsilon()
state.load(view.PARAMS)

with present.settings_panel():
    top, seed_col = st.columns([4, 1])
    top.selectbox(
        "Experiment",
        tuple(view.EXPERIMENTS),
        format_func=view.EXPERIMENTS.__getitem__,
        key=EXPERIMENT.name,
    )
    seed_col.number_input("Seed", SEED.lo, SEED.hi, key=SEED.name)
    choice = st.session_state[EXPERIMENT.name]
    c1, c2, c3 = st.columns(3)
    if choice == "table2":
        c1.number_input("Largest m (N = 2^m)", T2_MAX_M.lo, T2_MAX_M.hi, key=T2_MAX_M.name)
        c2.number_input("Simulate up to m", T2_SIM_M.lo, T2_SIM_M.hi, key=T2_SIM_M.name)
        c3.number_input("Releases", T2_RELEASES.lo, T2_RELEASES.hi, key=T2_RELEASES.name)
    elif choice == "lengths":
        c1.number_input(
            "Bins n",
            LEN_N.lo,
            LEN_N.hi,
            key=LEN_N.name,
            help="The chapter uses 2,010 (Amazon, fig. 3.12) and 48,130 (AOL, fig. 3.11).",
        )
        c2.number_input("Releases", LEN_RELEASES.lo, LEN_RELEASES.hi, key=LEN_RELEASES.name)
        c3.number_input(
            "Random ranges per length", LEN_QUERIES.lo, LEN_QUERIES.hi, key=LEN_QUERIES.name
        )
    elif choice == "fanout":
        c1.number_input("Bins n", FAN_N.lo, FAN_N.hi, key=FAN_N.name)
        c2.number_input("Largest fan-out k", FAN_K.lo, FAN_K.hi, key=FAN_K.name)
state.save(view.PARAMS)
seed = int(st.session_state[SEED.name])

if choice == "custom":
    custom_tree_view.render(eps, references.prose("paper/custom.md"))
elif choice == "table2":
    st.subheader("Privelet: Table 2 of Wu et al. (2018)")
    max_m = int(st.session_state[T2_MAX_M.name])
    releases = int(st.session_state[T2_RELEASES.name])
    sim = view.table2_simulation_limit(max_m, int(st.session_state[T2_SIM_M.name]), releases)
    if sim.message:
        st.info(sim.message, icon=":material/speed:")
    with st.spinner("Simulating releases…"):
        table = view.table2(max_m, sim.value, eps, releases, seed)
    chart, side = present.columns([3, 2])
    present.show_chart(
        figures.table2(table),
        {"ε": eps, "releases": releases, "seed": seed},
        key="px_table2_chart",
        where=chart,
    )
    side.latex(r"\mathrm{MSE} = \frac{2(m+1)^2}{\varepsilon^2}\,\bar c")
    side.latex(
        r"\begin{aligned}\text{eq. 16: } \bar c &= \frac{m}{6} \\"
        r"&+ \frac{N^3+37N^2+26N+8}{36N^2(N+1)}\end{aligned}"
    )
    side.latex(r"\text{eq. 17: } \bar c = \frac{m}{6} + \frac{1}{36}")
    side.caption(
        f"ε = {eps:g}. Simulated: {releases} releases of N zero bins for m ≤ {sim.value}, every "
        "range of every release scored (in O(N) per release by the prefix-sum identity); the "
        "interval is a 95% Student-t interval over releases."
    )
    present.prose(view.prose("table2"))
    st.dataframe(table, hide_index=True)
    downloads.csv_button("Download Table 2 (CSV)", table, "privelet_table2.csv")
elif choice == "lengths":
    st.subheader("LUE-DPTree figs. 3.11/3.12: raw trees vs Dwork across range lengths")
    n = int(st.session_state[LEN_N.name])
    releases = int(st.session_state[LEN_RELEASES.name])
    queries = view.length_queries_limit(n, releases, int(st.session_state[LEN_QUERIES.name]))
    if queries.message:
        st.info(queries.message, icon=":material/speed:")
    bar = st.progress(0.0, text="Simulating…")
    table = view.lengths(
        n,
        eps,
        queries.value,
        releases,
        seed,
        lambda f: bar.progress(min(f, 1.0), text=f"Simulating… {f:.0%}"),
    )
    bar.empty()
    chart, side = present.columns([3, 2])
    present.show_chart(
        error_figures.exact_vs_empirical(
            table,
            x="range length",
            title=f"MSE vs range length, n = {n:,}",
            x_title="range length L",
        ),
        {"n": n, "ε": eps, "releases": releases, "seed": seed},
        key="px_lengths_chart",
        where=chart,
    )
    side.latex(r"\mathrm{MSE}_{\mathrm{Dwork}}(L) = \frac{2L}{\varepsilon^2}")
    side.latex(
        r"\mathrm{MSE}_{\mathrm{tree}}[a,b] = "
        r"\sum_{x \in \mathrm{dec}[a,b]} \frac{2}{\varepsilon_x^2}"
    )
    side.caption(
        f"ε = {eps:g}; {queries.value} random ranges per length 2^0, 2^1, …; {releases} "
        "releases. Lines: the exact mean over the same ranges as the points; the table also "
        "gives the exact mean over all ranges of each length."
    )
    present.prose(view.prose("lengths"))
    st.dataframe(table, hide_index=True)
    downloads.csv_button("Download (CSV)", table, f"range_lengths_n{n}.csv")
else:
    st.subheader("Error vs fan-out: raw and after BLUE, three budget rules")
    n = int(st.session_state[FAN_N.name])
    k_max = int(st.session_state[FAN_K.name])
    if problem := view.fanout_check(n, k_max):
        st.error(problem, icon=":material/block:")
        st.stop()
    table = view.fanout(n, eps, k_max)
    k_star = view.best_fanout(n)
    chart, side = present.columns([3, 2])
    present.show_chart(
        figures.fanout(table, k_star),
        {"n": n, "ε": eps, "workload": "all ranges"},
        key="px_fanout_chart",
        where=chart,
    )
    side.latex(r"E[\mathrm{Err}_{raw}] = \sum_x p_x \frac{2}{\varepsilon_x^2}")
    side.latex(r"E[\mathrm{Err}_{BLUE}] = \overline{w^\top (A^\top W A)^{-1} w}")
    side.caption(f"n = {n:,}, ε = {eps:g}, uniform workload (all ranges equally likely).")
    side.dataframe(view.fanout_minima(table), hide_index=True)
    present.prose(view.prose("fanout"))
    st.dataframe(table, hide_index=True)
    downloads.csv_button("Download (CSV)", table, f"fanout_sweep_n{n}.csv")
