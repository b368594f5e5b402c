"""The Paper experiments page: the papers' tables and figures that need a sweep, reproduced
exactly (one experiment at a time, chosen in the settings)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dpui.kit import downloads, present, references, sidebar, state
from dpui.kit.page import Estimate, Inputs, Page, View
from dpui.papers import custom_tree
from dpui.papers import view as px
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

PARAMS = (*px.PARAMS, *custom_tree.PARAMS)
PINNED = (*PARAMS, sidebar.EPSILON)
"""A pinned view keeps the experiment and all its settings, the custom tree and ε."""


def controls() -> None:
    top, seed_col = st.columns([4, 1])
    top.selectbox(
        "Experiment",
        tuple(px.EXPERIMENTS),
        format_func=px.EXPERIMENTS.__getitem__,
        key=EXPERIMENT.name,
    )
    seed_col.number_input("Seed", SEED.lo, SEED.hi, key=SEED.name)
    choice = state.get(EXPERIMENT)
    if choice == "custom":
        custom_tree.controls()
        return
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


ESTIMATES: dict[str, Callable[[Inputs], Estimate]] = {
    "table2": lambda inputs: px.table2_estimate(inputs.values),
    "lengths": lambda inputs: px.lengths_estimate(inputs.values),
    "fanout": lambda inputs: px.fanout_estimate(inputs.values),
}


def cost(inputs: Inputs) -> Estimate | None:
    """The chosen experiment's work (None for the custom tree: at most
    :data:`dpcore.hist.custom_tree.MAX_NODES` nodes scored in O(nodes), and its numerical
    optimum after BLUE runs by itself only up to :data:`custom_tree.AUTO_BLUE_NODES` nodes)."""
    estimate = ESTIMATES.get(str(inputs[EXPERIMENT]))
    return None if estimate is None else estimate(inputs)


VIEWS: dict[str, Callable[[Inputs], View]] = {
    "table2": px.table2_view,
    "lengths": px.lengths_view,
    "fanout": px.fanout_view,
    "custom": custom_tree.view,
}


def view(inputs: Inputs) -> View:
    """The chosen experiment's main chart and key numbers."""
    return VIEWS[str(inputs[EXPERIMENT])](inputs)


def table2_body(shown: View) -> None:
    s: px.Shown = shown.detail
    table, eps = s.table, s.eps
    releases = int(s.values[T2_RELEASES.name])
    simulated = int(table.loc[table["simulated"].notna(), "m"].max())
    st.header("Privelet: Table 2 of Wu et al. (2018)")
    chart, side = present.columns([3, 2])
    present.show_chart(shown.figure, shown.stamp, key="px_table2_chart", where=chart)
    side.latex(r"\mathrm{MSE} = \frac{2(m+1)^2}{\varepsilon^2}\,\bar c")
    side.latex(
        r"\begin{aligned}\text{eq. 16: } \bar c &= \frac{m}{6} \\"
        r"&+ \frac{N^3+37N^2+26N+8}{36N^2(N+1)}\end{aligned}"
    )
    side.latex(r"\text{eq. 17: } \bar c = \frac{m}{6} + \frac{1}{36}")
    side.caption(
        f"ε = {eps:g}. Simulated: {releases} releases of N zero bins for m ≤ {simulated}, "
        "every range of every release scored (in O(N) per release by the prefix-sum "
        "identity); the interval is a 95% Student-t interval over releases."
    )
    present.prose(px.prose("table2"))
    st.dataframe(table, hide_index=True)
    downloads.csv_button("Download Table 2 (CSV)", table, "privelet_table2.csv")


def lengths_body(shown: View) -> None:
    s: px.Shown = shown.detail
    table, eps = s.table, s.eps
    n, releases = int(s.values[LEN_N.name]), int(s.values[LEN_RELEASES.name])
    per_length = int(s.values[LEN_QUERIES.name])
    st.header("LUE-DPTree figs. 3.11/3.12: raw trees vs Dwork across range lengths")
    chart, side = present.columns([3, 2])
    present.show_chart(shown.figure, shown.stamp, key="px_lengths_chart", where=chart)
    side.latex(r"\mathrm{MSE}_{\mathrm{Dwork}}(L) = \frac{2L}{\varepsilon^2}")
    side.latex(
        r"\mathrm{MSE}_{\mathrm{tree}}[a,b] = "
        r"\sum_{x \in \mathrm{dec}[a,b]} \frac{2}{\varepsilon_x^2}"
    )
    side.caption(
        f"ε = {eps:g}; {per_length} random ranges per length 2^0, 2^1, …; {releases} "
        "releases. Lines: the exact mean over the same ranges as the points; the table also "
        "gives the exact mean over all ranges of each length."
    )
    present.prose(px.prose("lengths"))
    st.dataframe(table, hide_index=True)
    downloads.csv_button("Download (CSV)", table, f"range_lengths_n{n}.csv")


def fanout_body(shown: View) -> None:
    s: px.Shown = shown.detail
    table, eps, n = s.table, s.eps, int(s.values[FAN_N.name])
    st.header("Error vs fan-out: raw and after BLUE, three budget rules")
    chart, side = present.columns([3, 2])
    present.show_chart(shown.figure, shown.stamp, key="px_fanout_chart", where=chart)
    side.latex(r"E[\mathrm{Err}_{raw}] = \sum_x p_x \frac{2}{\varepsilon_x^2}")
    side.latex(r"E[\mathrm{Err}_{BLUE}] = \overline{w^\top (A^\top W A)^{-1} w}")
    side.caption(f"n = {n:,}, ε = {eps:g}, uniform workload (all ranges equally likely).")
    side.dataframe(px.fanout_minima(table), hide_index=True)
    present.prose(px.prose("fanout"))
    st.dataframe(table, hide_index=True)
    downloads.csv_button("Download (CSV)", table, f"fanout_sweep_n{n}.csv")


def custom_body(shown: View) -> None:
    custom_tree.body(shown, references.prose("paper/custom.md"))


BODIES: dict[str, Callable[[View], None]] = {
    "table2": table2_body,
    "lengths": lengths_body,
    "fanout": fanout_body,
    "custom": custom_body,
}


def body(shown: View | None) -> None:
    """Below the comparison: the chosen experiment's chart, formulas, prose and table."""
    assert shown is not None
    BODIES[shown.kind](shown)


PAGE = Page(
    key="paper_experiments",
    title="Paper experiments",
    icon=":material/science:",
    group="Central DP: histograms",
    blurb=(
        "The papers' sweeps reproduced exactly: Privelet's Table 2 (eq. 16 vs eq. 17 vs "
        "simulation), LUE-DPTree's error vs range length, and error vs fan-out for three budget"
        " rules."
    ),
    notice=(
        "The papers' own sweeps, recomputed: the exact closed forms (lines) run through the "
        "simulations (points), so each published table can be checked number by number."
    ),
    caption=(
        "Tables and figures of the papers behind this tool, reproduced with exact closed forms "
        "(lines) beside simulations (points with 95% intervals). The errors of these linear, "
        "unbiased mechanisms do not depend on the data, so simulations release all-zero "
        "histograms. Teaching and exploration tool: numpy's generator is not a hardened noise "
        "source."
    ),
    data=(
        "none: the sidebar's histogram is not used. The errors of these linear, unbiased "
        "mechanisms do not depend on the data, so the exact errors need only the histogram's "
        "size and the simulations release all-zero histograms of the chosen size."
    ),
    params=PARAMS,
    pinned=PINNED,
    controls=controls,
    cost=cost,
    view=view,
    body=body,
)
