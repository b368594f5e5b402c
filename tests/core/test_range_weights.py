"""One range's canonical decomposition and BLUE weights against brute force (dense LS)."""

import numpy as np
import pytest

from dpcore.hist import (
    blue_error,
    budget,
    consistency,
    coverage,
    queries,
    release,
    tree,
)
from tests.oracles import canonical_nodes, random_tree, strategy_matrix


def small_trees():
    rng = np.random.default_rng(31)
    for n in (1, 2, 5, 12, 23):
        yield from (tree.kary_tree(n, 2), tree.kary_tree(n, 3), tree.struct_construct(n))
        yield random_tree(n, rng)


def all_ranges(n):
    return [(a, b) for a in range(n) for b in range(a, n)]


def dense_weights(t, budgets, ranges):
    """``c^T = w^T (A^T W A)^{-1} A^T W`` on the measured nodes, dense; a row per range."""
    measured = budgets > 0
    m = strategy_matrix(t)[measured]
    w = budgets[measured] ** 2
    bins = np.arange(t.n_bins)
    queries = np.array([(bins >= a) & (bins <= b) for a, b in ranges], dtype=float)
    c = np.zeros((len(ranges), t.size))
    c[:, measured] = np.linalg.solve(m.T @ (w[:, None] * m), queries.T).T @ (w[:, None] * m).T
    return c


def test_decomposition_is_the_set_of_maximal_nodes_inside_the_range():
    for t in small_trees():
        for a, b in all_ranges(t.n_bins):
            got = queries.canonical_decomposition(t, a, b)
            assert sorted(got.tolist()) == canonical_nodes(t, a, b)
            # the nodes tile the range exactly
            covered = np.concatenate([np.arange(t.lo[x], t.hi[x] + 1) for x in got])
            assert sorted(covered.tolist()) == list(range(a, b + 1))


def test_decomposition_with_unmeasured_nodes_sums_to_the_raw_answer():
    """Prefix-optimal budgets leave inner nodes unmeasured; the raw answer uses their children."""
    rng = np.random.default_rng(32)
    t = tree.kary_tree(23, 2)
    b = budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t, "prefix"))
    assert (b[~t.is_leaf] == 0).any()
    noisy = release.laplace_release(t, rng.integers(0, 9, 23).astype(float), b, rng)
    ranges = np.array(all_ranges(23))
    raw = queries.answer_raw(t, noisy, ranges[:, 0], ranges[:, 1])
    for (a, c), want in zip(ranges, raw, strict=True):
        nodes = queries.canonical_decomposition(t, int(a), int(c), b)
        assert np.all(t.is_leaf[nodes[b[nodes] == 0]])  # unmeasured inner nodes were expanded
        np.testing.assert_allclose(noisy[nodes].sum(), want, rtol=1e-12, atol=1e-9)


def test_decomposition_rejects_bad_ranges():
    t = tree.kary_tree(8, 2)
    for a, b in ((-1, 3), (4, 3), (0, 8)):
        with pytest.raises(ValueError, match="0 <= a <= b < n = 8"):
            queries.canonical_decomposition(t, a, b)


def test_blue_weights_equal_dense_least_squares():
    rng = np.random.default_rng(33)
    for t in small_trees():
        budgets = rng.uniform(0.05, 3.0, t.size)
        ranges = all_ranges(t.n_bins)
        got = [consistency.blue_range_weights(t, budgets, a, b) for a, b in ranges]
        np.testing.assert_allclose(got, dense_weights(t, budgets, ranges), atol=1e-9)


def test_blue_weights_with_unmeasured_nodes_equal_least_squares_on_the_measured_ones():
    t = tree.kary_tree(23, 2)
    b = budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t, "prefix"))
    ranges = all_ranges(23)
    got = np.array([consistency.blue_range_weights(t, b, lo, hi) for lo, hi in ranges])
    np.testing.assert_allclose(got, dense_weights(t, b, ranges), atol=1e-9)
    assert np.all(got[:, b == 0] == 0)


def test_blue_weights_reproduce_the_consistent_answer_and_the_exact_error():
    rng = np.random.default_rng(34)
    t = tree.struct_construct(40)
    b = budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t, "uniform"))
    noisy = release.laplace_release(t, rng.integers(0, 50, 40).astype(float), b, rng)
    consistent = consistency.blue(t, noisy, b)
    for lo, hi in ((0, 39), (3, 17), (20, 20), (11, 38)):
        c = consistency.blue_range_weights(t, b, lo, hi)
        answer = queries.answer_from_leaves(t, consistent, np.array([lo]), np.array([hi]))[0]
        np.testing.assert_allclose(c @ noisy, answer, rtol=1e-10)
        var = np.sum(c**2 * release.laplace_variance(np.where(b > 0, b, 1.0)))
        np.testing.assert_allclose(var, blue_error.blue_range_errors(t, b, lo, hi), rtol=1e-9)


def test_blue_weights_reject_bad_ranges():
    t = tree.kary_tree(8, 2)
    with pytest.raises(ValueError, match="0 <= a <= b < n = 8"):
        consistency.blue_range_weights(t, np.ones(t.size), 5, 2)
