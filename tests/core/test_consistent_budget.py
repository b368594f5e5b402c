"""Budgets optimal after BLUE: exact gradient, dense oracles, privacy, never worse than rules."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from dpcore.hist import allocation_rules, blue_error, blue_gradient, budget, coverage, hb
from dpcore.hist import consistent_budget as cb
from dpcore.hist.tree import kary_tree, struct_construct
from tests.oracles import central_differences, random_tree, strategy_matrix, workload_ranges

WORKLOADS = ("uniform", "prefix", "length:3")


def _dense_error_and_influence(tree, budgets, workload):
    """Dense least squares: tr(G M^-1)/m and ||W M^-1 a_x||^2 / m from the enumerated ranges."""
    n = tree.n_bins
    a = strategy_matrix(tree)
    ranges = workload_ranges(n, workload)
    w = np.zeros((len(ranges), n))
    for q, (lo, hi) in enumerate(ranges):
        w[q, lo : hi + 1] = 1.0
    sigma = np.linalg.inv(a.T @ (a * (budgets**2 / 2.0)[:, None]))
    answers = w @ sigma @ a.T  # column x: W M^-1 a_x
    m = len(ranges)
    return float(np.trace(w @ sigma @ w.T) / m), np.sum(answers**2, axis=0) / m


def _trees(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for i in range(count):
        n = int(rng.integers(3, 24))
        yield (random_tree(n, rng) if i % 2 else kary_tree(n, int(rng.integers(2, 5)))), rng


@pytest.mark.parametrize("workload", WORKLOADS)
def test_gradient_matches_dense_least_squares(workload):
    for t, rng in _trees(3, 8):
        eps = rng.uniform(0.05, 1.0, t.size)
        eps[rng.random(t.size) < 0.2] = 0.0  # some internal nodes unmeasured
        eps[t.is_leaf] = rng.uniform(0.05, 1.0, int(t.is_leaf.sum()))
        result = blue_gradient.blue_error_gradient(t, eps, workload)
        error, influence = _dense_error_and_influence(t, eps, workload)
        assert result.error == pytest.approx(error, rel=1e-10)
        np.testing.assert_allclose(-result.d_precision, influence, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(result.d_budget, eps * result.d_precision)


@pytest.mark.parametrize("workload", WORKLOADS)
def test_gradient_matches_finite_differences_of_the_exact_error(workload):
    for t, rng in _trees(5, 4):
        eps = rng.uniform(0.2, 1.0, t.size)
        grad = blue_gradient.blue_error_gradient(t, eps, workload).d_budget
        nodes = rng.choice(t.size, size=min(6, t.size), replace=False)
        error = partial(blue_error.blue_expected_error, t, workload=workload)
        for x, fd in central_differences(error, eps, nodes).items():
            assert grad[x] == pytest.approx(fd, rel=1e-5, abs=1e-7)


def test_gradient_refuses_unmeasured_leaves_and_large_dense_cases():
    t = kary_tree(8, 2)
    eps = budget.uniform_budgets(t, 1.0)
    eps[t.leaf_of_bin[3]] = 0.0
    with pytest.raises(ValueError, match="every leaf"):
        blue_gradient.blue_error_gradient(t, eps, "uniform")
    big = kary_tree(blue_gradient.DENSE_GRADIENT_LIMIT + 1, 16)
    with pytest.raises(ValueError, match="one length"):
        blue_gradient.blue_error_gradient(big, budget.uniform_budgets(big, 1.0), "length:4")


def test_root_dropped_uniform_is_the_hb_rule():
    t = kary_tree(64, 4)  # 4 levels
    b = budget.uniform_budgets(t, 2.0, measure_root=False)
    assert b[0] == 0.0
    np.testing.assert_allclose(b[1:], 2.0 / 3)
    assert budget.release_epsilon(t, b) == pytest.approx(2.0)
    single = kary_tree(1, 2)
    assert budget.uniform_budgets(single, 1.0, measure_root=False).tolist() == [1.0]


def test_hb_fanout_follows_qardaji_et_al():
    # V(b) = (b-1) h^3 - 2 (b+1) h^2 / 3 by hand: n = 4096 -> b = 16 (h = 3, V = 303)
    n = 4096
    by_hand = {}
    for b in range(2, 21):
        h = int(np.ceil(np.log(n) / np.log(b) - 1e-12))
        by_hand[b] = (b - 1) * h**3 - 2 * (b + 1) * h**2 / 3
    assert hb.hb_fanout(n) == min(by_hand, key=by_hand.__getitem__) == 16
    assert hb.hb_tree(n).n_children[0] == 16


@pytest.mark.parametrize("granularity", ["level", "node"])
def test_optimum_error_matches_dense_and_release_epsilon_is_exact(granularity):
    for t, rng in _trees(11, 3):
        eps = float(rng.choice([0.1, 0.7, 1.0, 3.0]))
        for workload in ("uniform", "prefix"):
            b = cb.consistent_optimal_budgets(t, eps, workload, granularity=granularity)
            assert budget.release_epsilon(t, b) == eps
            assert np.all(b >= 0)
            dense, _ = _dense_error_and_influence(t, b, workload)
            assert blue_error.blue_expected_error(t, b, workload) == pytest.approx(dense, rel=1e-9)


def _rule_errors(t, eps, workload):
    p = coverage.coverage_probabilities(t, workload)
    rules = {
        "uniform": budget.uniform_budgets(t, eps),
        "hb": budget.uniform_budgets(t, eps, measure_root=False),
        "per_level": budget.per_level_budgets(t, eps, p),
        "optimal": budget.optimal_budgets(t, eps, p),
    }
    return {k: blue_error.blue_expected_error(t, b, workload) for k, b in rules.items()}


def _check_never_worse(workload, seed, count):
    for t, rng in _trees(seed, count):
        eps = float(rng.uniform(0.2, 2.0))
        rules = _rule_errors(t, eps, workload)
        level = cb.consistent_optimal_budgets(t, eps, workload, granularity="level")
        node = cb.consistent_optimal_budgets(t, eps, workload, granularity="node")
        level_error = blue_error.blue_expected_error(t, level, workload)
        node_error = blue_error.blue_expected_error(t, node, workload)
        slack = 1e-9 * rules["uniform"]
        assert level_error <= min(rules["uniform"], rules["hb"], rules["per_level"]) + slack
        assert node_error <= min(*rules.values(), level_error) + slack


@pytest.mark.parametrize("workload", WORKLOADS)
def test_never_worse_than_uniform_hb_or_the_raw_optimum(workload):
    _check_never_worse(workload, 17, 3)


@pytest.mark.slow
@pytest.mark.parametrize("workload", WORKLOADS)
def test_never_worse_on_many_trees(workload):
    _check_never_worse(workload, 23, 16)


def test_binary_per_level_search_finds_the_sixteen_ary_tree_inside_it():
    """Measuring every 4th level of a binary tree over 2^12 bins is the 16-ary tree's
    H_b allocation; the per-level search must do at least as well (it starts there)."""
    sixteen = kary_tree(4096, 16)
    hb16 = blue_error.blue_expected_error(
        sixteen, budget.uniform_budgets(sixteen, 1.0, measure_root=False)
    )
    for k in (2, 4):
        t = kary_tree(4096, k)
        level = cb.consistent_optimal_budgets(t, 1.0, granularity="level")
        assert budget.release_epsilon(t, level) == 1.0
        assert blue_error.blue_expected_error(t, level) <= hb16 * (1 + 1e-9)


def test_never_worse_on_struct_construct_trees():
    for n in (5, 37, 100):
        t = struct_construct(n)
        rules = _rule_errors(t, 1.0, "uniform")
        node = cb.consistent_optimal_budgets(t, 1.0, granularity="node")
        assert blue_error.blue_expected_error(t, node) <= min(rules.values()) * (1 + 1e-9)


@pytest.mark.slow
def test_issue_figures_at_256_and_4096():
    """Post-BLUE optima found by search (issue 12): 76.67 (k=16), 80.70 (k=4), 260.87."""
    node16 = cb.consistent_optimal_budgets(kary_tree(256, 16), 1.0, granularity="node")
    node4 = cb.consistent_optimal_budgets(kary_tree(256, 4), 1.0, granularity="node")
    assert blue_error.blue_expected_error(kary_tree(256, 16), node16) <= 76.7
    assert blue_error.blue_expected_error(kary_tree(256, 4), node4) <= 80.7
    big = kary_tree(4096, 16)
    level = cb.consistent_optimal_budgets(big, 1.0, granularity="level")
    assert blue_error.blue_expected_error(big, level) <= 261.0


def test_fanout_after_consistency_is_the_dense_argmin():
    n = 24
    k, scores = allocation_rules.fanout_after_consistency(n, 1.0, "uniform", "hb", max_fanout=6)
    dense = {}
    for fan in range(2, 7):
        t = kary_tree(n, fan)
        dense[fan] = _dense_error_and_influence(
            t, allocation_rules.allocation_budgets(t, 1.0, "uniform", "hb"), "uniform"
        )[0]
    assert scores == pytest.approx(dense, rel=1e-9)
    assert k == min(dense, key=dense.__getitem__)


def test_allocation_budgets_rejects_unknown_rules():
    with pytest.raises(ValueError, match="unknown allocation"):
        allocation_rules.allocation_budgets(kary_tree(4, 2), 1.0, "uniform", "best")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="granularity"):
        cb.consistent_optimal_budgets(kary_tree(4, 2), 1.0, granularity="bin")  # type: ignore[arg-type]


def test_the_search_reports_progress_and_is_repeatable():
    t = kary_tree(64, 4)
    seen: list[float] = []
    b = cb.consistent_optimal_budgets(t, 0.5, "prefix", granularity="node", progress=seen.append)
    np.testing.assert_array_equal(
        b, cb.consistent_optimal_budgets(t, 0.5, "prefix", granularity="node")
    )
    assert budget.release_epsilon(t, b) == 0.5
    assert seen and seen == sorted(seen) and 0 < seen[-1] <= 1.0
    steps: list[float] = []
    allocation_rules.fanout_after_consistency(
        16, 1.0, "uniform", "hb", max_fanout=5, progress=steps.append
    )
    assert steps == [0.25, 0.5, 0.75, 1.0]


@pytest.mark.parametrize("granularity", ["level", "node"])
def test_tiny_trees(granularity):
    for n in (1, 2, 3):
        t = kary_tree(n, 2)
        b = cb.consistent_optimal_budgets(t, 0.3, granularity=granularity)
        assert budget.release_epsilon(t, b) == 0.3
        assert np.isfinite(blue_error.blue_expected_error(t, b))
