"""Region trees simulated against their exact errors, and the small geometric helpers the
Spatial data page draws with (lattices of rectangles, the nodes of a level over the map)."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.hist import consistency
from dpcore.spatial import error, rectangles, regions, simulate
from dpcore.spatial.rules import tree_budgets


def _brute_box_sum(counts: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    return float(counts[lo[0] : hi[0] + 1, lo[1] : hi[1] + 1].sum())


@pytest.mark.parametrize(
    ("shape", "fanout"), [((8, 8), (2, 2)), ((9, 6), (3, 3)), ((5, 7), (2, 2))]
)
def test_the_decomposition_matrix_sums_exactly_the_rectangles_cells(shape, fanout):
    tree = regions.quadtree(shape, fanout)
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 9, shape).astype(float)
    lo, hi = rectangles.sample_rectangles(shape, 60, rng)
    select = simulate.decomposition_matrix(tree, lo, hi)
    answers = select @ regions.node_sums(tree, counts)
    expected = [_brute_box_sum(counts, a, b) for a, b in zip(lo, hi, strict=True)]
    np.testing.assert_allclose(answers, expected)
    assert set(np.unique(select.data)) == {1.0}


@pytest.mark.parametrize("rule", ["per-node", "uniform"])
def test_simulated_errors_match_the_exact_ones_raw_and_after_blue(rule):
    """400 seeded releases of a 16 x 16 quadtree on 200 DPBench rectangles: the mean squared
    error over rectangles and releases within 4 standard errors of the exact mean (its
    per-release means are the i.i.d. samples; the 95 % interval is 1.97 standard errors)."""
    shape = (16, 16)
    tree = regions.quadtree(shape)
    budgets = tree_budgets(
        tree, rule, 1.0, rectangles.coverage_probabilities(tree, "random rectangles")
    )
    rng = np.random.default_rng(11)
    lo, hi = rectangles.sample_rectangles(shape, 200, rng)
    listed = np.stack([lo, hi], axis=1)
    counts = rng.integers(0, 30, shape).astype(float)
    raw, blue = simulate.simulate_rectangle_errors(
        tree, budgets, counts, listed, releases=400, rng=np.random.default_rng(5)
    )
    for got, exact in (
        (raw, error.raw_expected_error(tree, budgets, listed)),
        (blue, error.blue_expected_error(tree, budgets, listed)),
    ):
        mean, half = got.overall()
        assert abs(mean - exact) <= 4 * half / 1.97, (mean, half, exact)
    assert blue.overall()[0] < raw.overall()[0]  # BLUE helps every rule here
    np.testing.assert_array_equal(raw.b + 1, np.prod(hi - lo + 1, axis=1))  # b: area - 1


def test_simulation_refuses_bad_arguments():
    tree = regions.quadtree((4, 4))
    budgets = np.full(tree.size, 0.5)
    one = np.array([[[0, 0], [1, 1]]])
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="every leaf measured"):
        simulate.simulate_rectangle_errors(
            tree, np.zeros(tree.size), np.ones((4, 4)), one, releases=2, rng=rng
        )
    with pytest.raises(ValueError, match="confidence"):
        simulate.simulate_rectangle_errors(
            tree, budgets, np.ones((4, 4)), one, releases=2, rng=rng, confidence=1.0
        )
    with pytest.raises(ValueError, match="is not inside the grid"):
        simulate.simulate_rectangle_errors(
            tree, budgets, np.ones((4, 4)), [[[0, 0], [4, 4]]], releases=2, rng=rng
        )


@pytest.mark.parametrize(
    ("shape", "size", "most"),
    [((64, 64), (1, 1), 400), ((30, 17), (4, 9), 50), ((5, 5), (5, 5), 10)],
)
def test_a_lattice_holds_rectangles_of_the_size_inside_the_grid_spread_to_both_ends(
    shape, size, most
):
    got = rectangles.lattice_rectangles(shape, size, most)
    lo, hi = got[:, 0], got[:, 1]
    assert 1 <= len(got) <= most
    assert np.all(hi - lo + 1 == np.asarray(size)) and np.all(lo >= 0)
    assert np.all(hi < np.asarray(shape))
    fits = np.asarray(shape) - np.asarray(size)
    assert lo.min(axis=0).tolist() == [0, 0] and lo.max(axis=0).tolist() == fits.tolist()
    assert len({tuple(r.ravel()) for r in got}) == len(got)  # no rectangle twice
    with pytest.raises(ValueError, match="size must have"):
        rectangles.lattice_rectangles(shape, (shape[0] + 1, 1))


@pytest.mark.parametrize(
    ("shape", "fanout"), [((8, 8), (2, 2)), ((7, 5), (2, 2)), ((9, 9), (3, 3))]
)
def test_the_node_of_a_level_over_each_cell_is_the_one_whose_box_holds_it(shape, fanout):
    tree = regions.quadtree(shape, fanout)
    for depth in range(tree.height):
        got = regions.level_of_cells(tree, depth)
        for (r, c), node in np.ndenumerate(got):
            assert tree.lo[node, 0] <= r <= tree.hi[node, 0]
            assert tree.lo[node, 1] <= c <= tree.hi[node, 1]
            # at the depth asked, or a leaf above it
            assert tree.depth[node] == depth or (tree.is_leaf[node] and tree.depth[node] < depth)
    with pytest.raises(ValueError, match="depth must be"):
        regions.level_of_cells(tree, tree.height)


@pytest.mark.parametrize(
    ("shape", "fanout", "box"),
    [((8, 8), (2, 2), ((1, 2), (5, 6))), ((9, 7), (3, 3), ((0, 0), (8, 3)))],
)
def test_blue_weights_give_the_consistent_answer_and_its_exact_error(shape, fanout, box):
    tree = regions.quadtree(shape, fanout)
    rng = np.random.default_rng(7)
    budgets = rng.uniform(0.3, 1.5, tree.size)
    weights = error.blue_rectangle_weights(tree, budgets, *box)
    (r0, c0), (r1, c1) = box
    for _ in range(3):  # linear: the weights applied to any measurements give BLUE's answer
        noisy = rng.normal(0, 10, tree.size)
        consistent = consistency.blue(tree, noisy, budgets)
        cells = regions.level_of_cells(tree, tree.height - 1)[r0 : r1 + 1, c0 : c1 + 1]
        assert weights @ noisy == pytest.approx(consistent[cells].sum(), rel=1e-10)
    # and the variance of that answer is the exact error after BLUE of the listed rectangle
    variance = np.sum(weights**2 * 2 / budgets**2)
    listed = np.array([[box[0], box[1]]])
    assert variance == pytest.approx(error.blue_expected_error(tree, budgets, listed), rel=1e-9)
