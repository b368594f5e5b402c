"""Figure factories of the tree page, tested as plain functions."""

import numpy as np

from dpcore.hist import tree
from dpui.tree import figures as tree_figures


def test_visible_nodes_fit_the_cap_and_are_closed_under_ancestors():
    t = tree.kary_tree(5000, 2)
    nodes = tree_figures.visible_nodes(t, 0, 4999, max_nodes=1500)
    assert 0 < nodes.size <= 1500
    chosen = set(nodes.tolist())
    assert all(int(t.parent[x]) in chosen for x in nodes if t.parent[x] >= 0)
    # whole levels: every node at a drawn depth is drawn
    deepest = int(t.depth[nodes].max())
    assert nodes.size == int(t.level_ptr[deepest + 1])


def test_zooming_reaches_the_leaves():
    t = tree.kary_tree(2**16, 2)
    nodes = tree_figures.visible_nodes(t, 1000, 1063)
    assert t.depth[nodes].max() == t.height - 1
    leaves = nodes[t.is_leaf[nodes]]
    assert set(t.lo[leaves].tolist()) >= set(range(1000, 1064))


def test_icicle_widths_are_consistent_with_branchvalues_total():
    t = tree.kary_tree(100, 3)
    nodes = tree_figures.visible_nodes(t, 10, 60)
    values = np.arange(t.size, dtype=float)
    fig = tree_figures.tree_icicle(t, nodes, 10, 60, values, "v", {"v": values})
    trace = fig.data[0]
    width = dict(zip(trace.ids, trace.values, strict=True))
    for node_id, parent_id in zip(trace.ids, trace.parents, strict=True):
        if parent_id:
            assert width[node_id] <= width[parent_id]
    assert width["0"] == 51  # bins 10..60 inside the root


def test_histogram_comparison_sums_blocks_beyond_the_point_limit():
    counts = np.arange(5000, dtype=float)
    fig = tree_figures.histogram_comparison({"true": counts}, None)
    y = np.asarray(fig.data[0].y)
    assert y.size <= tree_figures.MAX_DRAWN_POINTS
    assert y.sum() == counts.sum()


def test_allocation_errors_outlines_the_chosen_allocation():
    fig = tree_figures.allocation_errors(
        {"raw": {"a": 2.0, "b": 1.0}, "BLUE": {"a": 1.0, "b": 0.5}}, "b"
    )
    assert [list(bar.marker.line.width) for bar in fig.data] == [[0, 3], [0, 3]]


def test_allocation_errors_reads_at_any_width():
    """Issue 22 (3): the chart was ~60 px high with rotated labels over its stamp. Rows are
    horizontal bars with their full names (wrapped, never rotated or cut), told apart by
    pattern as well as colour, and the figure grows with the rows."""
    names = {f"allocation number {i} with a long descriptive name": float(i + 1) for i in range(5)}
    fig = tree_figures.allocation_errors({"raw": names, "BLUE": names}, next(iter(names)))
    assert all(bar.orientation == "h" for bar in fig.data)
    labels = [label.replace("<br>", " ").removeprefix("▶ ") for label in fig.data[0].y]
    assert labels == list(names)
    assert max(len(part) for label in fig.data[0].y for part in label.split("<br>")) <= 28
    assert fig.layout.height >= 56 * len(names) + 130
    assert {bar.marker.pattern.shape for bar in fig.data} == {"", "/"}
    assert fig.layout.xaxis.tickangle is None and fig.layout.yaxis.tickangle is None
