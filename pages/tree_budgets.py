"""Tree & budgets: an interval tree over the histogram, its coverage, budgets, noise and BLUE."""

import streamlit as st

from dpui import (
    downloads,
    glossary,
    registry,
    sc_explain,
    sidebar,
    state,
    tree_figures,
    tree_view,
)
from dpui.tree_view import ALLOCATION, COLOUR, LENGTH, SEED, TREE, WORKLOAD

st.title("Tree & budgets")
st.markdown(registry.what_to_notice("pages/tree_budgets.py"))
st.caption(
    "Hierarchical (interval-tree) release of a histogram under ε-DP, with heteroscedastic "
    "budgets on any tree and BLUE consistency (LUE-DPTree). Teaching and exploration tool."
)

sidebar.shared_controls()
hist = sidebar.current_histogram()
eps = sidebar.current_epsilon()
n = hist.n_bins
state.load(tree_view.PARAMS)


def new_noise() -> None:
    st.session_state[SEED.name] = (st.session_state[SEED.name] + 1) % (SEED.hi + 1)


with st.container(border=True):
    c1, c2, c3, c4 = st.columns([1.2, 1.4, 1.2, 1])
    c1.selectbox(
        "Tree",
        tree_view.TREE_CHOICES,
        key=TREE.name,
        format_func=tree_view.tree_label,
        help="Fan-out k (every node splits into k near-equal parts) or Struct-Construct, "
        "which picks k* and then each node's fan-out to minimise coverage.",
    )
    c2.selectbox(
        "Budget allocation",
        tuple(tree_view.ALLOCATIONS),
        key=ALLOCATION.name,
        format_func=tree_view.ALLOCATIONS.__getitem__,
    )
    c3.selectbox(
        "Workload",
        tuple(tree_view.WORKLOADS),
        key=WORKLOAD.name,
        format_func=tree_view.WORKLOADS.__getitem__,
        help="Which range queries are assumed equally likely; coverage, optimal "
        "budgets and expected errors all depend on it.",
    )
    if st.session_state[WORKLOAD.name] == "length":
        c3.number_input("Range length", LENGTH.lo, LENGTH.hi, key=LENGTH.name)
    c4.selectbox(
        "Colour nodes by",
        tuple(tree_view.COLOURS),
        key=COLOUR.name,
        format_func=tree_view.COLOURS.__getitem__,
    )
    s1, s2, _ = st.columns([1, 1, 3], vertical_alignment="bottom")
    s1.number_input("Noise seed", SEED.lo, SEED.hi, key=SEED.name)
    s2.button(
        "New noise",
        icon=":material/casino:",
        on_click=new_noise,
        help="Draw a fresh release (seed + 1).",
    )
state.save(tree_view.PARAMS)

choice = st.session_state[TREE.name]
alloc = st.session_state[ALLOCATION.name]
length = st.session_state[LENGTH.name]
if st.session_state[WORKLOAD.name] == "length" and length > n:
    st.info(f"Range length {length} is longer than the histogram; using {n}.")
workload = tree_view.workload_spec(st.session_state[WORKLOAD.name], length, n)

t = tree_view.build_tree(n, choice)
analysis = tree_view.analyse(n, choice, eps, workload)
chosen = analysis.allocations[alloc]
rel = tree_view.make_release(
    sidebar.histogram_digest(hist), hist, choice, eps, workload, alloc, st.session_state[SEED.name]
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
for note in hist.notes:
    st.info(note)

st.subheader("The tree")
st.caption(
    "Each bar is a node covering a block of bins; the root is on top. Its **coverage "
    "probability p_x** is the chance that a random range of the workload uses node x in its "
    "canonical decomposition (the fewest nodes that tile the range); **ε_x** is the node's "
    "budget and **√2/ε_x** its Laplace noise standard deviation. See the "
    f"{glossary.link('coverage', 'Glossary')}."
)
first, last = st.slider("Bins shown (zoom)", 1, n, (1, n), disabled=n == 1) if n > 1 else (1, 1)
nodes = tree_figures.visible_nodes(t, first - 1, last - 1)
colour = {
    "coverage": analysis.coverage,
    "budget": chosen.budgets,
    "noise": tree_view.noise_std(chosen.budgets),
}[st.session_state[COLOUR.name]]
hover = {
    "p_x": analysis.coverage,
    "eps_x": chosen.budgets,
    "true": rel.true,
    "noisy": rel.noisy,
    "consistent": rel.consistent,
}
st.plotly_chart(
    tree_figures.tree_icicle(
        t,
        nodes,
        first - 1,
        last - 1,
        colour,
        tree_view.COLOURS[st.session_state[COLOUR.name]],
        hover,
    ),
    key="tree_chart",
)
drawn_depth = int(t.depth[nodes].max()) + 1
if drawn_depth < t.height:
    st.caption(
        f"Showing depths 0–{drawn_depth - 1} of {t.height} ({nodes.size:,} nodes); deeper "
        "levels are computed but not drawn. Narrow the bins shown to see deeper levels."
    )

st.subheader("True vs noisy vs consistent histogram")
st.plotly_chart(
    tree_figures.histogram_comparison(
        {
            "true": hist.counts,
            "noisy leaves": rel.noisy_leaves,
            "consistent (BLUE)": rel.consistent_leaves,
        },
        hist.labels,
    ),
    key="hist_chart",
)

st.subheader("Expected error of a random range")
left, right = st.columns([1, 1])
names = {k: tree_view.ALLOCATIONS[k] for k in analysis.allocations}
left.plotly_chart(
    tree_figures.allocation_errors(
        {
            "raw tree": {names[k]: a.expected_error for k, a in analysis.allocations.items()},
            "after BLUE": {names[k]: a.consistent_error for k, a in analysis.allocations.items()},
        },
        names[alloc],
    ),
    key="error_chart",
)
right.latex(r"E[\mathrm{Err}_{raw}] = \sum_x p_x \cdot \frac{2}{\varepsilon_x^2}")
right.markdown(
    f"Workload: **{tree_view.workload_text(workload)}**. Answering from the raw noisy nodes, "
    "each node a query uses adds its Laplace variance 2/ε_x²; p_x is the probability that a "
    "random range of the workload uses node x in its canonical decomposition. "
    "**After BLUE**, answers come from the consistent leaves; that error is exact too "
    "(computed in O(n · height) from the tree's Gaussian-Markov structure; see Error analysis). "
    "The outlined bars are the allocation of this release."
)
right.dataframe(tree_view.allocation_table(analysis), hide_index=True)

st.subheader("Nodes")
table = tree_view.node_table(t, analysis.coverage, chosen.budgets, rel, tree_view.TABLE_LIMIT)
if t.size > tree_view.TABLE_LIMIT:
    st.caption(f"The first {tree_view.TABLE_LIMIT:,} of {t.size:,} nodes (breadth-first).")
st.dataframe(table, hide_index=True, height=300)
st.caption(
    "a_x, b_x: the coefficients of the per-node optimum for this workload (LUE-DPTree, "
    "CNP/NPBD): a leaf has a = b = 1; an internal node a_x = (p_x / Σ_children p_y b_y³/a_y³)^⅓, "
    "b_x = a_x + 1; the optimum gives node x the share a_x/b_x of what its path has left."
)
downloads.csv_button("Download nodes (CSV)", table, "tree_nodes.csv")
sc_explain.render()
