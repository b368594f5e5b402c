"""Budget allocations: privacy accounting, optimality against brute force, stationarity."""

import numpy as np
import pytest

from dpcore.hist import budget, coverage, tree
from tests.oracles import random_tree

WORKLOADS = ["uniform", "prefix", "length:2"]


def trees_for_budgets():
    rng = np.random.default_rng(11)
    for n in (1, 2, 3, 7, 16, 29, 40):
        yield tree.kary_tree(n, 2)
        yield tree.kary_tree(n, 4)
        yield tree.struct_construct(n)
        for _ in range(3):
            yield random_tree(n, rng)


def random_feasible(t: tree.Tree, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Random shares at internal nodes, leaves take what is left: every path sums to eps."""
    share = rng.uniform(0.02, 0.98, size=t.size)
    remaining = np.empty(t.size)
    remaining[0] = eps
    for level in t.levels()[1:]:
        par = t.parent[level]
        remaining[level] = remaining[par] * (1 - share[par])
    return np.where(t.is_leaf, remaining, remaining * share)


@pytest.mark.parametrize("workload", WORKLOADS)
@pytest.mark.parametrize("eps", [0.01, 1.0, 7.5])
def test_every_allocation_spends_exactly_eps(workload, eps):
    for t in trees_for_budgets():
        if workload == "length:2" and t.n_bins < 2:
            continue
        p = coverage.coverage_probabilities(t, workload)
        for b in (
            budget.uniform_budgets(t, eps),
            budget.per_level_budgets(t, eps, p),
            budget.optimal_budgets(t, eps, p),
        ):
            assert np.all(b >= 0)
            assert budget.release_epsilon(t, b) == pytest.approx(eps, rel=1e-12)


def test_release_epsilon_is_the_max_path_sum_by_brute_force():
    rng = np.random.default_rng(5)
    t = random_tree(25, rng)
    b = rng.uniform(0, 1, t.size)
    best = 0.0
    for leaf in np.flatnonzero(t.is_leaf):
        total, x = 0.0, int(leaf)
        while x >= 0:
            total += b[x]
            x = int(t.parent[x])
        best = max(best, total)
    assert budget.release_epsilon(t, b) == pytest.approx(best)


def test_optimal_beats_random_feasible_allocations():
    rng = np.random.default_rng(2)
    for t in trees_for_budgets():
        p = coverage.coverage_probabilities(t)
        best = budget.raw_expected_error(p, budget.optimal_budgets(t, 1.0, p))
        for _ in range(50):
            trial = random_feasible(t, 1.0, rng)
            assert budget.release_epsilon(t, trial) == pytest.approx(1.0)
            assert best <= budget.raw_expected_error(p, trial) * (1 + 1e-12)
        assert best <= budget.raw_expected_error(p, budget.uniform_budgets(t, 1.0)) * (1 + 1e-12)
        assert best <= budget.raw_expected_error(p, budget.per_level_budgets(t, 1.0, p)) * (
            1 + 1e-12
        )


def test_optimal_budgets_satisfy_stationarity():
    """KKT: 2 p_x / eps_x^3 equals the sum of the same over x's children (all p > 0)."""
    for t in trees_for_budgets():
        p = coverage.coverage_probabilities(t)
        b = budget.optimal_budgets(t, 1.0, p)
        marginal = p / b**3
        children_sum = np.bincount(t.parent[1:], weights=marginal[1:], minlength=t.size)
        inner = ~t.is_leaf
        np.testing.assert_allclose(marginal[inner], children_sum[inner], rtol=1e-9)


def test_per_level_is_optimal_among_per_level_allocations():
    rng = np.random.default_rng(4)
    t = tree.kary_tree(37, 3)
    p = coverage.coverage_probabilities(t)
    best = budget.raw_expected_error(p, budget.per_level_budgets(t, 1.0, p))
    for _ in range(200):
        levels = rng.dirichlet(np.ones(t.height))
        assert best <= budget.raw_expected_error(p, levels[t.depth]) * (1 + 1e-12)


def test_unused_nodes_get_no_budget_under_prefix_workload():
    t = tree.kary_tree(16, 2)
    p = coverage.coverage_probabilities(t, "prefix")
    b = budget.optimal_budgets(t, 1.0, p)
    internal_unused = (p == 0) & ~t.is_leaf
    assert internal_unused.any() and np.all(b[internal_unused] == 0)
    assert np.all(b[t.is_leaf] > 0)
    assert np.isfinite(budget.raw_expected_error(p, b))


def test_dead_subtrees_are_split_evenly():
    t = tree.kary_tree(8, 2)
    p = coverage.coverage_probabilities(t, "length:8")  # only the root is ever used
    b = budget.optimal_budgets(t, 1.0, p)
    assert b[0] == pytest.approx(1.0) and budget.release_epsilon(t, b) == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon_rejected(bad):
    t = tree.kary_tree(4, 2)
    with pytest.raises(ValueError, match="epsilon"):
        budget.uniform_budgets(t, bad)
