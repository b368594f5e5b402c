"""BLUE consistency equals dense weighted least squares; consistent input is a fixed point."""

import numpy as np
import pytest

from dpcore.hist import budget, consistency, coverage, release, tree
from tests.oracles import dense_blue, random_tree


def cases():
    rng = np.random.default_rng(8)
    for n in (1, 2, 3, 5, 11, 24, 40):
        for t in (
            tree.kary_tree(n, 2),
            tree.kary_tree(n, 3),
            tree.struct_construct(n),
            random_tree(n, rng),
            random_tree(n, rng),
        ):
            yield t, rng


def test_blue_equals_dense_weighted_least_squares():
    for t, rng in cases():
        budgets = rng.uniform(0.05, 3.0, t.size)
        noisy = rng.normal(0, 50, t.size)
        got = consistency.blue(t, noisy, budgets)
        want = dense_blue(t, noisy, budgets)
        scale = np.max(np.abs(want)) + 1.0
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * scale)


def test_blue_output_is_consistent():
    for t, rng in cases():
        budgets = rng.uniform(0.05, 3.0, t.size)
        out = consistency.blue(t, rng.normal(0, 10, t.size), budgets)
        children = np.bincount(t.parent[1:], weights=out[1:], minlength=t.size)
        inner = ~t.is_leaf
        np.testing.assert_allclose(out[inner], children[inner], atol=1e-9 * (1 + np.abs(out).max()))


def test_consistent_input_is_returned_unchanged():
    for t, rng in cases():
        truth = release.node_sums(t, rng.integers(0, 100, t.n_bins).astype(float))
        out = consistency.blue(t, truth, rng.uniform(0.1, 2.0, t.size))
        np.testing.assert_allclose(out, truth, rtol=1e-12, atol=1e-9)


def test_blue_with_unmeasured_nodes_equals_least_squares_on_the_measured_ones():
    """Prefix-workload optimal budgets leave some internal nodes unmeasured (eps = 0)."""
    rng = np.random.default_rng(9)
    t = tree.kary_tree(23, 2)
    b = budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t, "prefix"))
    assert (b == 0).any()
    noisy = release.laplace_release(t, rng.integers(0, 9, 23).astype(float), b, rng)
    measured = b > 0
    a = (np.arange(23) >= t.lo[:, None]) & (np.arange(23) <= t.hi[:, None])
    a = a.astype(float)
    w = b[measured] ** 2
    bins = np.linalg.solve(
        a[measured].T @ (w[:, None] * a[measured]), a[measured].T @ (w * noisy[measured])
    )
    np.testing.assert_allclose(consistency.blue(t, noisy, b), a @ bins, rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("n", [1, 4096])
def test_blue_runs_at_edges(n):
    t = tree.kary_tree(n, 16)
    b = budget.uniform_budgets(t, 1.0)
    out = consistency.blue(
        t, release.laplace_release(t, np.ones(n), b, np.random.default_rng(0)), b
    )
    assert out.shape == (t.size,) and np.isfinite(out).all()
