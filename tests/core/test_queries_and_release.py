"""Range answering against brute force, and the raw tree's closed-form error against simulation."""

import numpy as np
import pytest

from dpcore.hist import budget, consistency, coverage, queries, release, tree
from tests.oracles import canonical_nodes, random_tree, workload_ranges


def test_node_sums_and_shape_check():
    t = tree.kary_tree(7, 3)
    counts = np.arange(7, dtype=float)
    sums = release.node_sums(t, counts)
    for i in range(t.size):
        assert sums[i] == counts[t.lo[i] : t.hi[i] + 1].sum()
    with pytest.raises(ValueError, match="counts must be 7 values"):
        release.node_sums(t, np.ones(6))


def test_answer_raw_equals_canonical_decomposition():
    rng = np.random.default_rng(12)
    for n in (1, 2, 6, 19, 40):
        for t in (tree.kary_tree(n, 2), tree.struct_construct(n), random_tree(n, rng)):
            noisy = rng.normal(0, 5, t.size)
            ranges = np.array(workload_ranges(n, "uniform"))
            got = queries.answer_raw(t, noisy, ranges[:, 0], ranges[:, 1])
            want = [noisy[canonical_nodes(t, a, b)].sum() for a, b in ranges]
            np.testing.assert_allclose(got, want, atol=1e-9)


def test_answer_from_leaves_and_consistent_agreement():
    rng = np.random.default_rng(13)
    t = random_tree(30, rng)
    b = rng.uniform(0.2, 1.0, t.size)
    values = consistency.blue(t, rng.normal(0, 3, t.size), b)
    ranges = np.array(workload_ranges(30, "uniform"))
    leaves = queries.answer_from_leaves(t, values, ranges[:, 0], ranges[:, 1])
    # on consistent values the canonical decomposition gives the same answers
    np.testing.assert_allclose(
        queries.answer_raw(t, values, ranges[:, 0], ranges[:, 1]), leaves, atol=1e-9
    )
    direct = [queries.leaf_values(t, values)[a : b + 1].sum() for a, b in ranges]
    np.testing.assert_allclose(leaves, direct, atol=1e-9)


def test_unmeasured_nodes_are_answered_from_their_children():
    t = tree.kary_tree(8, 2)
    b = budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t, "prefix"))
    noisy = release.laplace_release(t, np.ones(8), b, np.random.default_rng(1))
    assert np.isnan(noisy).any()
    answers = queries.answer_raw(t, noisy, np.array([0, 4]), np.array([7, 7]))
    assert np.isfinite(answers).all()


@pytest.mark.parametrize("bad", [(-1, 2), (3, 2), (0, 8)])
def test_bad_ranges_raise(bad):
    t = tree.kary_tree(8, 2)
    with pytest.raises(ValueError, match="ranges must satisfy"):
        queries.answer_raw(t, np.zeros(t.size), np.array([bad[0]]), np.array([bad[1]]))


def test_release_rejects_bad_budgets():
    t = tree.kary_tree(4, 2)
    with pytest.raises(ValueError, match="budgets"):
        release.laplace_release(t, np.ones(4), -np.ones(t.size), np.random.default_rng(0))


@pytest.mark.slow
@pytest.mark.parametrize(
    "workload,alloc",
    [("uniform", "node"), ("uniform", "uniform"), ("prefix", "node"), ("length:5", "level")],
)
def test_raw_tree_empirical_mse_matches_closed_form(workload, alloc):
    """T = 4000 seeded releases, 20 workload ranges each; the per-release mean squared errors
    are i.i.d., so the closed form must lie within 4 standard errors of their mean."""
    rng = np.random.default_rng(2026)
    n = 48
    t = tree.struct_construct(n) if alloc == "node" else tree.kary_tree(n, 3)
    p = coverage.coverage_probabilities(t, workload)
    b = {"node": budget.optimal_budgets, "level": budget.per_level_budgets}.get(alloc)
    budgets = b(t, 0.5, p) if b else budget.uniform_budgets(t, 0.5)
    closed = budget.raw_expected_error(p, budgets)
    counts = rng.integers(0, 50, n).astype(float)
    ranges = np.array(workload_ranges(n, workload))
    truth_prefix = np.concatenate(([0.0], np.cumsum(counts)))
    per_release = []
    for _ in range(4000):
        noisy = release.laplace_release(t, counts, budgets, rng)
        pick = ranges[rng.integers(0, len(ranges), 20)]
        answers = queries.answer_raw(t, noisy, pick[:, 0], pick[:, 1])
        truth = truth_prefix[pick[:, 1] + 1] - truth_prefix[pick[:, 0]]
        per_release.append(np.mean((answers - truth) ** 2))
    mean = np.mean(per_release)
    se = np.std(per_release, ddof=1) / np.sqrt(len(per_release))
    assert abs(mean - closed) < 4 * se, (mean, closed, se)
