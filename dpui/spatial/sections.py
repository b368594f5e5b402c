"""The parts of the Spatial data page below its heatmaps, one at a time
(:func:`dpui.kit.page.sections`): the rectangle over one level of the tree, every rule's
exact error, the error against the rectangle's size and against the fan-out, and a
simulation set against the exact errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.spatial import error as spatial_error
from dpcore.spatial import regions
from dpui.kit import downloads, present, references, state
from dpui.kit.page import Estimate, Section
from dpui.kit.params import ChoiceParam, IntParam
from dpui.spatial import figures, studies
from dpui.spatial import view as sv

LEVEL = IntParam("sp_level", 2, 0, 24)
"""The tree level drawn over the map (0: the root), kept inside the tree's height."""
COLOURS = {
    "coverage": "coverage probability p_x",
    "budget": "budget ε_x",
    "noise": "noise std √2/ε_x",
    "weight": "BLUE weight c_x",
}
SHORT = {"coverage": "p_x", "budget": "ε_x", "noise": "std", "weight": "c_x"}
"""The colour bar's title of each colouring."""
COLOUR = ChoiceParam("sp_colour", "coverage", tuple(COLOURS))
RELEASES = IntParam("sp_releases", 200, 20, 5000)
MOST_OUTLINES = 1024
"""Most node boundaries drawn over the map (a deeper level is drawn without them)."""


def _key(d: sv.Detail) -> tuple[object, ...]:
    """What identifies the release's tree and budgets (for the caches of the studies)."""
    return (d.grid.name, d.grid.shape, d.fanout, d.rule, d.eps)


def map_controls(d: sv.Detail) -> None:
    deepest = d.release.tree.height - 1
    if int(state.get(LEVEL)) > deepest:  # a link's, or a deeper tree's before
        state.assign(LEVEL.name, deepest)
    c = st.columns(2)
    c[0].slider("Tree level", 0, deepest, key=LEVEL.name, help="0: the root.")
    c[1].selectbox("Colour by", tuple(COLOURS), format_func=COLOURS.__getitem__, key=COLOUR.name)


def the_rectangle(d: sv.Detail) -> None:
    """One level of the tree over the map, the rectangle's decomposition on it, and its
    answers and exact errors."""
    rel = d.release
    depth = min(int(state.get(LEVEL)), rel.tree.height - 1)
    colour = str(state.get(COLOUR))
    if colour == "weight" and d.answers is None:
        colour = "coverage"  # no rectangle, no weights: say so below the map
        st.caption("No rectangle to weigh (see below): coloured by coverage instead.")
    values = _node_values(d, colour)
    cells = regions.level_of_cells(rel.tree, depth)
    shown = np.unique(cells)
    outlines = (rel.tree.lo[shown], rel.tree.hi[shown]) if shown.size <= MOST_OUTLINES else None
    decomposition = None
    if d.answers is not None:
        x0, x1, y0, y1 = d.box
        nodes = regions.canonical_decomposition(rel.tree, (x0, y0), (x1, y1))
        decomposition = (rel.tree.lo[nodes], rel.tree.hi[nodes])
    label = COLOURS[colour]
    present.show_chart(
        figures.tree_map(
            values[cells],
            title=f"Level {depth} of the {d.fanout}×{d.fanout} tree: {label}",
            colour_title=SHORT[colour],
            nodes=outlines,
            decomposition=decomposition,
        ),
        {"data": d.grid.name, "tree": f"{d.fanout}x{d.fanout}", "budgets": d.rule, "ε": d.eps},
        key="sp_tree_map",
        alt=(
            f"Level {depth} of the tree ({shown.size:,} nodes) over the {d.grid.shape[0]} by "
            f"{d.grid.shape[1]} grid, each node coloured by its {label}"
            + ("; the rectangle's canonical decomposition outlined." if decomposition else ".")
        ),
    )
    st.caption(
        "White lines: the level's nodes"
        + (f" (not drawn: {shown.size:,} of them)" if outlines is None else "")
        + ". Orange: the rectangle's canonical decomposition (its nodes may be at any level). "
        "Coverage p_x: the chance a DPBench random rectangle's decomposition uses the node. "
        "BLUE weight c_x: how much the node's noisy measurement counts in the rectangle's "
        "answer after BLUE (the answer is the sum of c_x times each measurement; nodes "
        "outside the rectangle count too, and can weigh less than 0)."
    )
    if d.problem is not None or d.answers is None:
        st.error(f"{d.problem} Nothing is answered for it; change it in Settings.")
        return
    _answers(d)


def _node_values(d: sv.Detail, colour: str) -> np.ndarray:
    """Every node's value for ``colour`` (NaN for the noise of an unmeasured node)."""
    rel = d.release
    if colour == "coverage":
        return rel.coverage
    if colour == "budget":
        return rel.budgets
    if colour == "noise":
        return np.where(rel.budgets > 0, np.sqrt(2.0) / np.maximum(rel.budgets, 1e-300), np.nan)
    x0, x1, y0, y1 = d.box
    return spatial_error.blue_rectangle_weights(rel.tree, rel.budgets, (x0, y0), (x1, y1))


def _answers(d: sv.Detail) -> None:
    got = d.answers
    assert got is not None
    x0, x1, y0, y1 = d.box
    m = st.columns(4)
    m[0].metric("True answer", f"{got.true:,.0f}")
    m[1].metric("Raw tree", f"{got.raw:,.1f}", help="The noisy sum of its decomposition's nodes.")
    m[2].metric("After BLUE", f"{got.blue:,.1f}")
    m[3].metric(
        "Nodes in its canonical decomposition",
        f"{got.nodes:,}",
        help="The largest tree nodes inside the rectangle whose parent is not (outlined in "
        "orange on the map).",
    )
    unmeasured = (
        f" {got.unmeasured:,} of them are not measured and are answered by their children."
        if got.unmeasured
        else ""
    )
    table = pd.DataFrame(
        {
            "answer": ["raw tree", "after BLUE"],
            "error of this release": [got.raw - got.true, got.blue - got.true],
            "exact expected squared error": [got.raw_error, got.blue_error],
        }
    )
    present.table(table)
    st.caption(
        f"Rows {x0}..{x1}, columns {y0}..{y1}: {(x1 - x0 + 1) * (y1 - y0 + 1):,} cells."
        f"{unmeasured} The answers come from one simulated release (noise seed in Settings); "
        "the expected squared errors are exact: raw, the noise variances of the decomposition's "
        "nodes summed; after BLUE, the Gauss-Markov variance of this rectangle."
    )


def every_rule(d: sv.Detail) -> None:
    table_col, text_col = present.columns([3, 2])
    present.table(d.errors, where=table_col)
    text_col.latex(r"\text{raw: } E[\mathrm{err}^2] = \sum_x p_x \frac{2}{\varepsilon_x^2}")
    text_col.latex(r"\text{BLUE: } E[\mathrm{err}^2] = \mathrm{tr}(G\,\Sigma)")
    text_col.latex(r"\text{Identity: } \frac{2\,E[\mathrm{area}]}{\varepsilon^2}")
    text_col.markdown(
        "$p_x$: the chance that a random rectangle's decomposition uses node $x$; $G = G_1 "
        "\\otimes G_2$ the rectangles' Gram matrix, $\\Sigma$ the covariance of the cells "
        "after BLUE."
    )
    st.caption(
        "Expected squared error of one rectangle, in counts squared (Identity has no tree: "
        "its one value is in both columns). "
        f"Exact, not simulated: {d.fanout}×{d.fanout} tree over {d.grid.shape[0]} "
        f"x {d.grid.shape[1]} cells ({d.nodes:,} nodes), ε = {d.eps:g}, one "
        "rectangle drawn as DPBench draws them (a width per axis uniform, then a position "
        f"uniform) {references.cite('hay-2016')}. Noise only: the errors do not depend on the "
        "data. Per-node and per-level budgets minimise the raw error; BLUE lowers every rule's."
    )
    downloads.csv_button(
        "Download the expected errors (CSV)", d.errors, "spatial_expected_errors.csv"
    )


def size_estimate(d: sv.Detail) -> Estimate:
    return Estimate(
        f"exact errors of {studies.PER_SIZE} rectangles at each of "
        f"{len(studies.sizes(d.grid.shape))} sizes",
        studies.size_cost(d.grid.shape, d.nodes),
        smaller="a coarser grid",
        library="dpcore.spatial.error.blue_expected_error",
    )


def by_size(d: sv.Detail) -> None:
    frame = studies.errors_by_size(d.release, _key(d), d.eps)
    present.show_chart(
        figures.error_lines(
            frame,
            x="area",
            x_title="cells in the rectangle",
            title="Small rectangles favour Identity, large the tree",
            log_x=True,
            mark="crossover",
        ),
        {"data": d.grid.name, "tree": f"{d.fanout}x{d.fanout}", "budgets": d.rule, "ε": d.eps},
        key="sp_by_size",
        alt=_crossover_words(frame),
    )
    st.caption(
        f"{_crossover_words(frame)} Each point: the mean exact squared error of up to "
        f"{studies.PER_SIZE} rectangles of that size placed on a lattice over the grid (each "
        "side the same fraction of the grid's side); Identity's is 2·area/ε² for every "
        "rectangle. The tree's budgets are the page's; noise only."
    )
    downloads.csv_button("Download (CSV)", frame, "spatial_error_by_size.csv")


def _crossover_words(frame: pd.DataFrame) -> str:
    crossing = frame[frame["crossover"]]
    if crossing.empty:
        wins = bool((frame["after BLUE"] < frame["Identity"]).all())
        return (
            "The tree after BLUE beats Identity at every size."
            if wins
            else "Identity beats the tree after BLUE at every size here."
        )
    first = crossing.iloc[0]
    return (
        f"The tree after BLUE beats Identity from {first['rows x columns']} cells "
        f"({int(first['area']):,} cells) up; below that, Identity's few noisy cells win."
    )


def fanout_estimate(d: sv.Detail) -> Estimate:
    return Estimate(
        f"exact errors of {len(studies.FANOUTS)} trees, raw and after BLUE",
        studies.fanout_cost(sv.page_cost(d.grid.shape).seconds),
        smaller="a coarser grid",
        library="dpcore.spatial.expected_error",
    )


def by_fanout(d: sv.Detail) -> None:
    frame = studies.errors_by_fanout(d.grid.shape, d.rule, d.eps)
    best = frame[frame["best"]].iloc[0]
    words = (
        f"After BLUE the {int(best['fan-out b'])}×{int(best['fan-out b'])} tree is best under "
        f"{sv.RULES[d.rule]} budgets ({best['after BLUE']:,.0f}, Identity "
        f"{best['Identity']:,.0f})."
    )
    present.show_chart(
        figures.error_lines(
            frame,
            x="fan-out b",
            x_title="fan-out b (b × b)",
            title="Expected error of a random rectangle vs fan-out",
            log_x=False,
            mark="best",
        ),
        {"data": d.grid.name, "budgets": d.rule, "ε": d.eps},
        key="sp_by_fanout",
        alt=words,
    )
    st.caption(
        f"{words} Exact, DPBench's random rectangles over {d.grid.shape[0]} x "
        f"{d.grid.shape[1]} cells; noise only."
    )
    downloads.csv_button("Download (CSV)", frame, "spatial_error_by_fanout.csv")


def simulation_controls(d: sv.Detail) -> None:
    st.number_input("Releases simulated", RELEASES.lo, RELEASES.hi, key=RELEASES.name)


def simulation_estimate(d: sv.Detail) -> Estimate:
    releases = int(state.get(RELEASES))
    return Estimate(
        f"{releases:,} releases of a {d.nodes:,}-node tree on {studies.SIMULATED_RECTANGLES} "
        "rectangles",
        studies.simulation_cost(d.nodes, releases),
        smaller="fewer releases or a coarser grid",
        library="dpcore.spatial.simulate.simulate_rectangle_errors",
    )


def closed_form_vs_simulation(d: sv.Detail) -> None:
    releases = int(state.get(RELEASES))
    bar = st.progress(0.0, text="Simulating releases…")

    def progress(fraction: float) -> None:
        bar.progress(fraction, text=f"Simulating releases… {fraction:.0%}")

    table = studies.simulated(d.release, _key(d), d.grid.counts, releases, d.seed, progress)
    bar.empty()
    present.show_chart(
        figures.simulated_against_exact(
            table, title=f"{releases:,} simulated releases against the exact error"
        ),
        {"data": d.grid.name, "tree": f"{d.fanout}x{d.fanout}", "budgets": d.rule, "ε": d.eps},
        key="sp_simulated",
        alt=" ".join(
            f"{r['answer']}: exact {r['exact']:,.1f}, simulated {r['simulated']:,.1f} ± "
            f"{r['half-width']:,.1f}."
            for r in table.to_dict("records")
        ),
    )
    present.table(table)
    st.caption(
        f"{studies.SIMULATED_RECTANGLES} rectangles drawn as DPBench draws them (seed "
        f"{d.seed}), answered in each of {releases:,} seeded releases of this tree and its "
        "budgets; the simulated value is the mean squared error over rectangles and releases "
        "with its 95 % Student-t interval (the releases' means as the samples); the exact "
        "value is the same rectangles' expected squared error. numpy's generator: not a "
        "hardened noise source."
    )


SECTIONS: dict[str, Section[sv.Detail]] = {
    "rectangle": Section("The rectangle on the tree", the_rectangle, controls=map_controls),
    "rules": Section("Every rule's exact error", every_rule),
    "size": Section("Error vs rectangle size", by_size, cost=size_estimate),
    "fanout": Section("Error vs fan-out", by_fanout, cost=fanout_estimate),
    "simulation": Section(
        "Closed form vs simulation",
        closed_form_vs_simulation,
        cost=simulation_estimate,
        controls=simulation_controls,
    ),
}
SECTION = ChoiceParam("sp_show", "rectangle", tuple(SECTIONS))
PARAMS = (SECTION, LEVEL, COLOUR, RELEASES)
