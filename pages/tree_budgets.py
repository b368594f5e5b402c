"""Tree & budgets: an interval tree over the histogram, its coverage, budgets, noise and BLUE."""

import streamlit as st

from dpui import downloads, glossary, present, sidebar, state, tree_figures, tree_view
from dpui.tree_view import ALLOCATION, COLOUR, LENGTH, SEED, TREE, WORKLOAD, ZOOM

present.header(
    "pages/tree_budgets.py",
    "Tree & budgets",
    "Hierarchical (interval-tree) release of a histogram under ε-DP, with heteroscedastic "
    "budgets on any tree and BLUE consistency (LUE-DPTree). Teaching and exploration tool.",
)

sidebar.shared_controls()
hist = sidebar.current_histogram()
eps = sidebar.current_epsilon()
n = hist.n_bins
state.load(tree_view.PARAMS)
st.session_state[ZOOM.name] = tree_view.clamp_zoom(st.session_state[ZOOM.name], n)


def new_noise() -> None:
    st.session_state[SEED.name] = (st.session_state[SEED.name] + 1) % (SEED.hi + 1)


with present.settings_panel():
    c1, c2, c3 = st.columns([1.2, 1.4, 1])
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
    s1, s2, s3 = st.columns([1.2, 1.4, 1], vertical_alignment="bottom")
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
first, last = st.session_state[ZOOM.name]
settings = {
    "dataset": hist.name,
    "n": n,
    "ε": eps,
    "tree": tree_view.tree_label(choice),
    "allocation": tree_view.ALLOCATIONS[alloc],
    "workload": tree_view.workload_text(workload),
    "seed": st.session_state[SEED.name],
    "bins": f"{first:,}-{last:,}" if (first, last) != (1, n) else None,
}
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
present.show_chart(
    tree_figures.tree_icicle(
        t,
        nodes,
        first - 1,
        last - 1,
        colour,
        tree_view.COLOURS[st.session_state[COLOUR.name]],
        hover,
    ),
    settings,
    key="tree_chart",
)
st.caption(
    "Each bar is a node covering a block of bins; the root is on top. Its **coverage "
    "probability p_x** is the chance that a random range of the workload uses node x in its "
    "canonical decomposition (the fewest nodes that tile the range); **ε_x** is the node's "
    "budget and **√2/ε_x** its Laplace noise standard deviation. See the "
    f"{glossary.link('coverage', 'Glossary')}."
)
drawn_depth = int(t.depth[nodes].max()) + 1
if drawn_depth < t.height:
    st.caption(
        f"Showing depths 0–{drawn_depth - 1} of {t.height} ({nodes.size:,} nodes); deeper "
        "levels are computed but not drawn. Narrow the bins shown to see deeper levels."
    )

st.subheader("True vs noisy vs consistent histogram")
window = slice(first - 1, last)
present.show_chart(
    tree_figures.histogram_comparison(
        {
            "true": hist.counts[window],
            "noisy leaves": rel.noisy_leaves[window],
            "consistent (BLUE)": rel.consistent_leaves[window],
        },
        hist.labels[window] if hist.labels else None,
        first=first,
    ),
    settings,
    key="hist_chart",
)

st.subheader("Expected error of a random range")
left, right = present.columns([1, 1])
names = {k: tree_view.ALLOCATIONS[k] for k in analysis.allocations}
present.show_chart(
    tree_figures.allocation_errors(
        {
            "raw tree": {names[k]: a.expected_error for k, a in analysis.allocations.items()},
            "after BLUE": {names[k]: a.consistent_error for k, a in analysis.allocations.items()},
        },
        names[alloc],
    ),
    settings | {"seed": None, "bins": None},
    key="error_chart",
    where=left,
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
present.table(tree_view.allocation_table(analysis), where=right)

st.subheader("Nodes")
table = tree_view.node_table(t, analysis.coverage, chosen.budgets, rel, tree_view.TABLE_LIMIT)
if t.size > tree_view.TABLE_LIMIT:
    st.caption(f"The first {tree_view.TABLE_LIMIT:,} of {t.size:,} nodes (breadth-first).")
st.dataframe(table, hide_index=True, height=300)
downloads.csv_button("Download nodes (CSV)", table, "tree_nodes.csv")
