"""The Tree & budgets page: an interval tree over the histogram, its coverage, budgets, noise
and BLUE, and one range explored on it."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import streamlit as st
from numpy.typing import NDArray
from streamlit.delta_generator import DeltaGenerator

from dpcore.hist import tree
from dpcore.histogram import Histogram
from dpui.kit import downloads, pin, present, references, sidebar, state, untrusted
from dpui.kit.page import Estimate, Inputs, Page, View
from dpui.reference import glossary
from dpui.tree import figures as tree_figures
from dpui.tree import range_explorer, sc_explain, typed_ranges
from dpui.tree import view as tree_view
from dpui.tree.view import (
    ALLOCATION,
    COLOUR,
    LENGTH,
    RANGES,
    ROOT,
    SECTION,
    SEED,
    TREE,
    WORKLOAD,
    ZOOM,
)

PINNED = (TREE, ALLOCATION, ROOT, WORKLOAD, LENGTH, RANGES, sidebar.EPSILON, *range_explorer.PARAMS)
"""What a pinned view keeps: the tree, the allocation, the workload, ε and the explored range
(the dataset stays the current one)."""


def new_noise() -> None:
    st.session_state[SEED.name] = (int(state.get(SEED)) + 1) % (SEED.hi + 1)


def controls() -> None:
    n = sidebar.current_histogram().n_bins
    range_explorer.clamp_state(n)
    st.session_state[ZOOM.name] = tree_view.clamp_zoom(state.get(ZOOM), n)
    c1, c2, c3 = st.columns([1, 2, 1])  # the allocation column holds its longest name
    c1.selectbox(
        "Tree",
        tree_view.TREE_CHOICES,
        key=TREE.name,
        format_func=tree_view.tree_label,
        help="Fan-out k (every node splits into k near-equal parts), Struct-Construct, "
        "which picks k* and then each node's fan-out to minimise coverage, or the fan-out b "
        "of Qardaji, Yang and Li's H_b rule " + references.cite("qardaji-2013") + ".",
    )
    c2.selectbox(
        "Budget allocation",
        tuple(tree_view.ALLOCATIONS),
        key=ALLOCATION.name,
        format_func=tree_view.ALLOCATIONS.__getitem__,
        help="Each rule says which error it is optimal for: the raw tree's (answers summed "
        "from the noisy nodes, LUE-DPTree's rules) or the error after BLUE consistency "
        "(found by a numeric search on the exact error). H_b "
        + references.cite("qardaji-2013")
        + " does not measure the root and splits ε evenly over the other levels.",
    )
    c2.checkbox(
        "Measure the root",
        key=ROOT.name,
        disabled=state.get(ALLOCATION) != "uniform",
        help="For the uniform allocation. Off: the root's total is not released and the other "
        "levels share ε (the H_b rule).",
    )
    c3.selectbox(
        "Workload",
        tuple(tree_view.WORKLOADS),
        key=WORKLOAD.name,
        format_func=tree_view.WORKLOADS.__getitem__,
        help="Which range queries are assumed equally likely; coverage, the budgets optimal "
        "for either error, and expected errors all depend on it.",
    )
    if state.get(WORKLOAD) == "length":
        c3.number_input("Range length", LENGTH.lo, LENGTH.hi, key=LENGTH.name)
    if state.get(WORKLOAD) == "ranges":
        c3.text_area(
            "Ranges (first-last bin)",
            key=RANGES.name,
            max_chars=typed_ranges.MAX_CHARS,
            placeholder="1-100, 50-60, 200-300",
            help=f"Bins counted from 1, both ends included, separated by commas; a single "
            f"number is one bin. Up to {typed_ranges.MAX_TYPED_RANGES} ranges (they are kept "
            "in the link). Each listed range is equally likely.",
        )
    s1, s2, s3 = st.columns([1, 2, 1], vertical_alignment="bottom")
    s1.selectbox(
        "Colour nodes by",
        tuple(tree_view.COLOURS),
        key=COLOUR.name,
        format_func=tree_view.COLOURS.__getitem__,
    )
    s2.number_input("Noise seed", SEED.lo, SEED.hi, key=SEED.name)
    s3.button(
        "New noise",
        icon=":material/casino:",
        on_click=new_noise,
        help="Draw a fresh release (seed + 1).",
    )
    if n > 1:
        st.slider("Bins shown (zoom: the tree and the histogram)", 1, n, key=ZOOM.name)


def cost(inputs: Inputs) -> Estimate:
    """Building the tree and its three budget allocations."""
    n, choice = inputs.hist.n_bins, str(inputs[TREE])
    return Estimate(
        f"the tree '{tree_view.tree_label(choice)}' over {n:,} bins with three budget allocations",
        tree_view.page_cost(n, choice),
        smaller="use a histogram with fewer bins, or a k-ary tree instead of Struct-Construct",
        library="dpcore.hist.tree / dpcore.hist.budget",
    )


@dataclass(frozen=True)
class Setup:
    """One view's tree and allocations, and what the page says about its inputs."""

    n: int
    choice: str
    eps: float
    root: bool
    workload: str
    alloc: str
    """The allocation shown: the chosen one, or the per-node optimum for the raw tree while
    the chosen search after BLUE is unavailable or not run yet."""
    wanted: str
    typed_problem: str | None
    unavailable: str | None
    t: tree.Tree
    allocations: dict[str, tree_view.Allocation]


def setup(inputs: Inputs) -> Setup:
    n, choice = inputs.hist.n_bins, str(inputs[TREE])
    eps, root = float(inputs[sidebar.EPSILON]), bool(inputs[ROOT])
    workload, typed_problem = tree_view.workload_spec(
        str(inputs[WORKLOAD]), int(inputs[LENGTH]), str(inputs[RANGES]), n
    )
    wanted = str(inputs[ALLOCATION])
    unavailable = tree_view.consistent_unavailable(n, choice, workload)
    allocations = tree_view.all_allocations(n, choice, eps, workload, root)
    alloc = wanted if wanted in allocations else "node"
    t = tree_view.build_tree(n, choice)
    return Setup(
        n, choice, eps, root, workload, alloc, wanted, typed_problem, unavailable, t, allocations
    )


def view(inputs: Inputs) -> View:
    """The main view: the expected error of every allocation, and the key numbers."""
    s = setup(inputs)
    first, last = range_explorer.clamp(
        int(inputs[range_explorer.FIRST]), int(inputs[range_explorer.LAST]), s.n
    )
    numbers = tree_view.key_numbers(s.n, s.choice, s.allocations, s.alloc, first, last)
    return View(
        f"{tree_view.tree_label(s.choice)}, ε = {s.eps:g}, {tree_view.WORKLOADS[inputs[WORKLOAD]]}",
        tree_figures.allocation_errors(
            tree_view.error_bars(s.allocations), tree_view.ALLOCATIONS[s.alloc]
        ),
        {"n": s.n, "ε": s.eps, "tree": tree_view.tree_label(s.choice)},
        numbers,
        detail=s,
        share="x",  # horizontal bars: A and B compare their errors on one x axis
    )


def body(view: View | None) -> None:
    """The tree, the release and the chosen range's part of the page."""
    assert view is not None
    s: Setup = view.detail
    hist = sidebar.current_histogram()
    n, choice, eps, root, workload, alloc = s.n, s.choice, s.eps, s.root, s.workload, s.alloc
    t, allocations, unavailable = s.t, s.allocations, s.unavailable
    if state.get(WORKLOAD) == "length" and int(state.get(LENGTH)) > n:
        st.info(f"Range length {state.get(LENGTH)} is longer than the histogram; using {n}.")
    if s.typed_problem is not None:
        st.warning(
            f"Custom ranges: {untrusted.markdown(s.typed_problem, 600)}. Showing all ranges "
            "until the list is fixed.",
            icon=":material/edit_note:",
        )
    if s.wanted in tree_view.SLOW_ALLOCATIONS and s.wanted not in allocations:
        if unavailable:
            st.warning(unavailable + " Showing the per-node allocation optimal for the raw tree.")
        else:
            tree_view.search(n, choice, eps, workload, s.wanted)
            st.rerun()
    analysis = tree_view.analyse(n, choice, eps, workload, root)
    chosen = allocations[alloc]
    seed = int(state.get(SEED))
    try:
        rel = tree_view.make_release(
            sidebar.histogram_digest(hist), hist, choice, eps, workload, alloc, root, seed
        )
    except ValueError as err:  # counts float64 cannot perturb at this epsilon
        st.error(f"No release at ε = {eps:g}: {err}", icon=":material/error:")
        return
    for note in hist.notes:
        st.info(note)

    first, last = state.get(ZOOM)
    settings = {
        "dataset": hist.name,
        "n": n,
        "ε": eps,
        "tree": tree_view.tree_label(choice),
        "allocation": tree_view.ALLOCATIONS[alloc],
        "workload": tree_view.workload_text(workload),
        "seed": seed,
        "bins": f"{first:,}-{last:,}" if (first, last) != (1, n) else None,
    }
    nodes = tree_figures.visible_nodes(t, first - 1, last - 1)
    # drawn with the explored range (its decomposition outlined). A container, not st.empty:
    # an empty slot is sent empty first, so the browser often drew the icicle anew (Plotly's
    # full draw, 8,000 DOM changes), and filled from the nested range fragment inside the
    # runner's fragment, the page's charts vanished after a rerun
    icicle_slot = st.container()
    st.caption(
        "Each bar is a node covering a block of bins; the root is on top. Its **coverage "
        "probability p_x** is the chance that a random range of the workload uses node x in its "
        "canonical decomposition (the fewest nodes that tile the range); **ε_x** is the node's "
        "budget and **√2/ε_x** its Laplace noise standard deviation. See the "
        f"{glossary.link('coverage', 'Glossary')}."
    )
    m = st.columns(5)
    m[0].metric("Bins n", f"{n:,}")
    m[1].metric("Nodes", f"{t.size:,}")
    m[2].metric("Height Δ", t.height, help="Nodes on the longest root-to-leaf path.")
    m[3].metric("Requested ε", f"{eps:g}")
    m[4].metric(
        "Release ε (max path sum)",
        f"{chosen.release_epsilon:.6g}",
        help="Computed from the budgets: the largest sum of ε_x along a root-to-leaf path.",
    )
    drawn_depth = int(t.depth[nodes].max()) + 1
    if drawn_depth < t.height:
        st.caption(
            f"Showing depths 0–{drawn_depth - 1} of {t.height} ({nodes.size:,} nodes); deeper "
            "levels are computed but not drawn. Narrow the bins shown to see deeper levels."
        )
    names = {k: tree_view.ALLOCATIONS[k] for k in allocations}
    d = Drawn(
        s, hist, analysis, chosen, rel, settings, first, last, nodes, icicle_slot, names, seed
    )
    # a pinned comparison shows the range's numbers too: then the whole page follows the range
    (range_part if pin.pinned(PAGE.key) else st.fragment(range_part))(d)


@dataclass(frozen=True)
class Drawn:
    """What the sections below the tree draw from: one view's setup, its release and the
    window of bins shown."""

    s: Setup
    hist: Histogram
    analysis: tree_view.Analysis
    chosen: tree_view.Allocation
    rel: tree_view.Release
    settings: dict[str, Any]
    first: int
    last: int
    nodes: NDArray[np.int64]
    icicle_slot: DeltaGenerator
    names: dict[str, str]
    seed: int


def nodes_section(d: Drawn) -> None:
    analysis, chosen, rel, t = d.analysis, d.chosen, d.rel, d.s.t
    st.header("Nodes")
    all_nodes = partial(tree_view.node_table, t, analysis.coverage, chosen.budgets, rel)
    st.dataframe(all_nodes(tree_view.TABLE_LIMIT), hide_index=True, height=300)
    if t.size > tree_view.TABLE_LIMIT:
        st.caption(
            f"The first {tree_view.TABLE_LIMIT:,} of {t.size:,} nodes (breadth-first); the "
            "download below has them all."
        )
    st.caption(
        "a_x, b_x: the coefficients of the per-node optimum for this workload (LUE-DPTree, "
        "CNP/NPBD): a leaf has a = b = 1; an internal node "
        "a_x = (p_x / Σ_children p_y b_y³/a_y³)^⅓, b_x = a_x + 1; the optimum gives node x "
        "the share a_x/b_x of what its path has left."
    )
    downloads.csv_button("Download every node (CSV)", partial(all_nodes, t.size), "tree_nodes.csv")


def errors_section(d: Drawn) -> None:
    """The expected error of a random range per allocation, and the fan-out after BLUE."""
    settings, n, choice, eps = d.settings, d.s.n, d.s.choice, d.s.eps
    workload, alloc, root = d.s.workload, d.s.alloc, d.s.root
    allocations, unavailable, names = d.s.allocations, d.s.unavailable, d.names
    st.header("Expected error of a random range")
    present.show_chart(
        tree_figures.allocation_errors(tree_view.error_bars(allocations), names[alloc]),
        settings | {"seed": None, "bins": None},
        key="error_chart",
    )
    left, right = present.columns([1, 1])
    left.latex(r"E[\mathrm{Err}_{raw}] = \sum_x p_x \cdot \frac{2}{\varepsilon_x^2}")
    left.markdown(
        f"Workload: **{tree_view.workload_text(workload)}**. Answering from the raw noisy nodes, "
        "each node a query uses adds its Laplace variance 2/ε_x²; p_x is the probability that a "
        "random range of the workload uses node x in its canonical decomposition. "
        "**After BLUE**, answers come from the consistent leaves; that error is exact too "
        "(computed in O(n · height) from the tree's Gaussian-Markov structure; see Error "
        "analysis). "
        "The outlined bars (▶) are the allocation of this release. The rules of LUE-DPTree are "
        "optimal for the raw tree; after BLUE the budgets optimal after consistency (a numeric "
        "search on the exact error, started from the best of uniform, H_b, the raw optimum and "
        "measuring only every 2nd, 3rd or 4th level) "
        "are never worse than any of them, and usually better."
    )
    present.table(tree_view.allocation_table(allocations), where=right)
    missing = [a for a in tree_view.SLOW_ALLOCATIONS if a not in allocations]
    if missing and unavailable:
        right.caption(unavailable)
    elif missing and right.button(
        "Search the budgets optimal after BLUE",
        icon=":material/tune:",
        help="A numeric search on the exact error after BLUE ("
        + " and ".join(tree_view.ALLOCATIONS[a] for a in missing)
        + "); seconds on large trees, then cached.",
    ):
        for slow_alloc in missing:
            tree_view.search(n, choice, eps, workload, slow_alloc)
        st.rerun()

    st.markdown(
        "**Which fan-out?** Struct-Construct's k* minimises the *raw* tree's error with uniform "
        "budgets; after BLUE another fan-out can be better."
    )
    f1, f2, f3 = st.columns([1, 1, 2], vertical_alignment="bottom")
    f1.metric("k* (raw tree, uniform budgets)", tree_view.k_star(n))
    rule = tree_view.fanout_rule(alloc, root)
    rule_text = tree_view.rule_text(rule)
    best_k = tree_view.fanout_after_consistency(n, eps, workload, rule)
    no_scan = tree_view.fanout_unavailable(n, workload, rule)
    if best_k is None and no_scan:
        f3.caption(no_scan)
    elif (
        best_k is None
        and n >= 2
        and f3.button(
            "Find the fan-out after BLUE",
            icon=":material/account_tree:",
            help="Scores the k-ary trees k = 2–20 by their exact error after BLUE under "
            f"{rule_text}.",
        )
    ):
        best_k = tree_view.find_fanout(n, eps, workload, rule)
    f2.metric(
        "Fan-out after BLUE",
        "—" if best_k is None else best_k,
        help=f"The k-ary tree with the least error after BLUE under {rule_text}.",
    )


def range_part(d: Drawn) -> None:
    """Everything that depends on the explored range: the icicle (in its slot above), the
    histogram (drag to choose a range) and the section chosen below it. Without a pin it
    runs as a fragment, so choosing a range or a section reruns only this part; the
    range's numbers are drawn first, the charts after them. Only the chosen section is
    computed and drawn (each chart or table costs the browser tenths of a second)."""
    analysis, chosen, rel, settings = d.analysis, d.chosen, d.rel, d.settings
    hist, n, choice, eps = d.hist, d.s.n, d.s.choice, d.s.eps
    workload, alloc, t, allocations = d.s.workload, d.s.alloc, d.s.t, d.s.allocations
    names, first, last, nodes = d.names, d.first, d.last, d.nodes
    seed, icicle_slot = d.seed, d.icicle_slot
    state.save(range_explorer.PARAMS)
    span = range_explorer.study(
        t,
        chosen.budgets,
        hist.counts,
        rel.noisy,
        rel.consistent_leaves,
        int(state.get(range_explorer.FIRST)),
        int(state.get(range_explorer.LAST)),
    )
    histogram_box = st.container()
    section = present.section_choice("Below the histogram", SECTION, tree_view.SECTIONS)
    if section == "range":
        st.header("Explore one range")
        range_explorer.numbers(n, span)
    colour = {
        "coverage": analysis.coverage,
        "budget": chosen.budgets,
        "noise": tree_view.noise_std(chosen.budgets),
        "weight": np.abs(span.weights),
    }[state.get(COLOUR)]
    # nothing drawn on the tree depends on the noise seed: a new release redraws the
    # histogram, not the tree (each redrawn chart costs the browser tenths of a second);
    # the release's noisy and consistent node values are in the node table
    hover = {
        "p_x": analysis.coverage,
        "eps_x": chosen.budgets,
        "noise std √2/ε_x": tree_view.noise_std(chosen.budgets),
        "true count": rel.true,
    }
    present.show_chart(
        tree_figures.tree_icicle(
            t,
            nodes,
            first - 1,
            last - 1,
            colour,
            tree_view.COLOURS[state.get(COLOUR)],
            hover,
            outline=span.decomposition,
        ),
        settings | {"seed": None},
        key="tree_chart",
        where=icicle_slot,
    )
    histogram_box.header("True vs noisy vs consistent histogram")
    window = slice(first - 1, last)
    present.show_chart(
        tree_figures.histogram_comparison(
            {
                "true": hist.counts[window],
                "noisy leaves": rel.noisy_leaves[window],
                "consistent (BLUE)": rel.consistent_leaves[window],
            },
            hist.labels[window] if hist.labels else None,
            (span.first, span.last),
            first=first,
        ),
        settings,
        key="hist_chart",
        where=histogram_box,
        alt=_finding(hist.counts[window], rel.noisy_leaves[window], rel.consistent_leaves[window]),
        on_select=partial(
            range_explorer.select_from_chart,
            "hist_chart",
            n,
            tree_figures.block_size(last - first + 1),
            first,
        ),
        selection_mode=("box", "points"),
    )
    if section == "range":
        range_explorer.details(
            t,
            chosen.budgets,
            span,
            eps,
            workload,
            seed,
            tree_view.range_errors_by_allocation(n, choice, allocations, span.first, span.last),
            names[alloc],
            settings,
        )
    elif section == "errors":
        errors_section(d)
    elif section == "nodes":
        nodes_section(d)
    else:
        sc_explain.render()


# a pinned comparison shows the range's numbers too: then the whole page follows the range


PAGE = Page(
    key="tree_budgets",
    title="Tree & budgets",
    icon=":material/account_tree:",
    group="Central DP: histograms",
    blurb=(
        "Build an interval tree over a histogram; see each node's coverage probability, privacy"
        " budget and noise, and the BLUE-consistent release."
    ),
    notice=(
        "Nodes that many range queries use (a high [coverage probability](glossary#coverage) "
        "p_x) get more of the [budget ε](glossary#epsilon) under the per-node allocation, which"
        " lowers the expected error of the raw tree; [BLUE consistency](glossary#blue) then "
        "lowers every allocation's error further, and after BLUE other budgets are best (the "
        "allocations optimal after consistency)."
    ),
    caption=(
        "Hierarchical (interval-tree) release of a histogram under ε-DP, with heteroscedastic "
        "budgets on any tree and BLUE consistency (LUE-DPTree). Teaching and exploration tool."
    ),
    params=(*tree_view.PARAMS, *range_explorer.PARAMS, SECTION),
    pinned=PINNED,
    controls=controls,
    cost=cost,
    view=view,
    body=body,
)


def _finding(true: np.ndarray, noisy: np.ndarray, consistent: np.ndarray) -> str:
    """The histogram's key finding in words (its text alternative): the largest error of the
    noisy leaves and of the consistent (BLUE) counts over the bins shown."""
    worst_noisy, worst_blue = np.abs(noisy - true).max(), np.abs(consistent - true).max()
    which = "lowers" if worst_blue < worst_noisy else "does not lower"
    return (
        f"Consistency (BLUE) {which} the largest error of a bin shown: "
        f"{worst_blue:,.1f} after BLUE against {worst_noisy:,.1f} for the noisy leaves."
    )
