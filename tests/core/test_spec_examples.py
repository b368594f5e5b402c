"""The worked examples of spec 01 (LUE-DPTree chapter), bins 1-based in the comments."""

import numpy as np
import pytest

from dpcore.hist import budget, coverage, tree


def node(t: tree.Tree, first: int, last: int) -> int:
    """Index of the node covering 1-based bins [first, last]."""
    return int(np.flatnonzero((t.lo == first - 1) & (t.hi == last - 1))[0])


def root_and_leaves(n: int) -> tree.Tree:
    return tree.kary_tree(n, n)


def test_example_1_binary_tree_over_5_bins():
    t = tree.kary_tree(5, 2)
    p = coverage.coverage_probabilities(t)
    assert p[0] == pytest.approx(1 / 15)
    assert p[node(t, 3, 3)] == pytest.approx(0.4)
    assert tree.subtree_coverage_sum(5, 2, 4, 0, 4, 2) == pytest.approx(0.9333, abs=5e-5)
    assert tree.subtree_coverage_sum(5, 2, 4, 0, 4, 3) == pytest.approx(1.0, abs=5e-5)


def test_example_2_flat_vs_binary_over_3_bins():
    flat = root_and_leaves(3)
    assert flat.height == 2
    p = coverage.coverage_probabilities(flat)
    np.testing.assert_allclose(p, [1 / 6, 1 / 3, 1 / 2, 1 / 3])
    error = budget.raw_expected_error(p, budget.uniform_budgets(flat, 1.0))
    assert error == pytest.approx(2 * 2**2 * (1 / 6 + 1 / 3 + 1 / 2 + 1 / 3))
    assert error == pytest.approx(10.67, abs=0.005)
    binary = tree.kary_tree(3, 2)
    assert binary.height == 3
    p2 = coverage.coverage_probabilities(binary)
    assert budget.raw_expected_error(p2, budget.uniform_budgets(binary, 1.0)) == pytest.approx(
        21.0, abs=0.005
    )


def test_example_3_ternary_over_6_bins():
    t = tree.kary_tree(6, 3)
    assert coverage.coverage_probabilities(t)[node(t, 3, 4)] == pytest.approx(8 / 21)


def test_example_4_optimal_budgets_root_and_3_leaves():
    t = root_and_leaves(3)
    p = coverage.coverage_probabilities(t)
    eps = budget.optimal_budgets(t, 1.0, p)
    assert eps[0] == pytest.approx(0.33, abs=0.015)
    np.testing.assert_allclose(eps[1:], eps[1])
    assert eps[1] == pytest.approx(0.67, abs=0.015)
    assert budget.raw_expected_error(p, eps) == pytest.approx(8.25, abs=0.02)
    assert budget.raw_expected_error(p, budget.uniform_budgets(t, 1.0)) == pytest.approx(
        10.67, abs=0.005
    )


def test_example_5_complete_binary_over_4_bins():
    t = tree.kary_tree(4, 2)
    p = coverage.coverage_probabilities(t)
    assert budget.raw_expected_error(p, budget.uniform_budgets(t, 1.0)) == pytest.approx(23.4)
    np.testing.assert_allclose(sorted(p), sorted([0.1] * 3 + [0.2] * 2 + [0.3] * 2))
