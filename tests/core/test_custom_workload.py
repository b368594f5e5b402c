"""A workload listing its own ranges: exact errors, coverage, gradient and the searches
after BLUE against dense least squares and enumeration on small trees."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from dpcore.hist import (
    blue_error,
    blue_gradient,
    budget,
    coverage,
    empirical,
    flat_error,
    pidentity,
    plans,
    raw_error,
)
from dpcore.hist import consistent_budget as cb
from dpcore.hist.tree import kary_tree
from dpcore.hist.workload import (
    MAX_LISTED_RANGES,
    listed_ranges,
    mean_range_length,
    parse_workload,
    workload_ranges,
)
from tests.oracles import canonical_nodes, central_differences, random_tree, strategy_matrix


def _spec(ranges) -> str:
    return "ranges:" + ",".join(f"{a}-{b}" for a, b in ranges)


def _random_ranges(n: int, count: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    ends = np.sort(rng.integers(0, n, size=(count, 2)), axis=1)
    return [(int(a), int(b)) for a, b in ends]


def _trees(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for i in range(count):
        n = int(rng.integers(3, 24))
        t = random_tree(n, rng) if i % 2 else kary_tree(n, int(rng.integers(2, 5)))
        yield t, _random_ranges(n, int(rng.integers(1, 12)), rng), rng


def _dense(tree, budgets, ranges):
    """Per listed range: w^T M^-1 w, and per node: mean_q (w_q^T M^-1 a_x)^2 (explicit inverse)."""
    a = strategy_matrix(tree)
    w = np.zeros((len(ranges), tree.n_bins))
    for q, (lo, hi) in enumerate(ranges):
        w[q, lo : hi + 1] = 1.0
    sigma = np.linalg.inv(a.T @ (a * (budgets**2 / 2.0)[:, None]))
    return np.diag(w @ sigma @ w.T), np.mean((w @ sigma @ a.T) ** 2, axis=0)


def _lstsq_range_errors(tree, budgets, ranges):
    """The same variances by numpy's least squares: w^T (A^T W A)^-1 w via lstsq solves."""
    a = strategy_matrix(tree) * (budgets / np.sqrt(2.0))[:, None]  # rows scaled by sqrt(λ)
    out = []
    for lo, hi in ranges:
        w = np.zeros(tree.n_bins)
        w[lo : hi + 1] = 1.0
        solved = np.linalg.lstsq(a.T @ a, w, rcond=None)[0]
        out.append(float(w @ solved))
    return np.array(out)


def test_post_blue_error_and_gradient_match_dense_least_squares():
    for t, ranges, rng in _trees(1, 10):
        eps = rng.uniform(0.05, 1.0, t.size)
        eps[(rng.random(t.size) < 0.2) & ~t.is_leaf] = 0.0  # some internal nodes unmeasured
        spec = _spec(ranges)
        per_range, influence = _dense(t, eps, ranges)
        exact = blue_error.blue_expected_error(t, eps, spec)
        assert exact == pytest.approx(per_range.mean(), rel=1e-10)
        assert exact == pytest.approx(_lstsq_range_errors(t, eps, ranges).mean(), rel=1e-8)
        grad = blue_gradient.blue_error_gradient(t, eps, spec)
        assert grad.error == pytest.approx(exact, rel=1e-10)
        np.testing.assert_allclose(-grad.d_precision, influence, rtol=1e-9, atol=1e-12)


def test_gradient_matches_finite_differences():
    for t, ranges, rng in _trees(2, 5):
        eps = rng.uniform(0.2, 1.0, t.size)
        spec = _spec(ranges)
        grad = blue_gradient.blue_error_gradient(t, eps, spec).d_budget
        nodes = rng.choice(t.size, size=min(6, t.size), replace=False)
        error = partial(blue_error.blue_expected_error, t, workload=spec)
        for x, fd in central_differences(error, eps, nodes).items():
            assert grad[x] == pytest.approx(fd, rel=1e-5, abs=1e-7)


def test_raw_error_and_coverage_match_enumeration():
    for t, ranges, rng in _trees(3, 10):
        eps = rng.uniform(0.1, 1.0, t.size)
        counts = np.zeros(t.size)
        raw = 0.0
        for a, b in ranges:
            nodes = canonical_nodes(t, a, b)
            counts[nodes] += 1
            raw += float(np.sum(2.0 / eps[nodes] ** 2))
        spec = _spec(ranges)
        np.testing.assert_allclose(
            coverage.coverage_probabilities(t, spec), counts / len(ranges), atol=1e-12
        )
        assert raw_error.raw_expected_error(t, eps, spec) == pytest.approx(raw / len(ranges))


@pytest.mark.parametrize("n", [1, 7, 12])
def test_every_range_listed_is_the_uniform_workload_and_every_prefix_is_prefix(n):
    rng = np.random.default_rng(n)
    t = random_tree(n, rng)
    eps = rng.uniform(0.2, 1.0, t.size)
    every = listed_ranges([(a, b) for a in range(n) for b in range(a, n)], n)
    prefixes = listed_ranges([(0, b) for b in range(n)], n)
    for listed, named in ((every, "uniform"), (prefixes, "prefix")):
        assert listed.size(n) == parse_workload(named).size(n)
        assert mean_range_length(n, listed) == pytest.approx(mean_range_length(n, named))
        np.testing.assert_allclose(
            coverage.coverage_probabilities(t, listed),
            coverage.coverage_probabilities(t, named),
            atol=1e-12,
        )
        for consistent in (False, True):
            assert plans.expected_range_error(
                t, eps, consistent=consistent, workload=listed
            ) == pytest.approx(
                plans.expected_range_error(t, eps, consistent=consistent, workload=named),
                rel=1e-10,
            )
        if n > 1:
            mine, theirs = (blue_gradient.blue_error_gradient(t, eps, w) for w in (listed, named))
            np.testing.assert_allclose(mine.d_budget, theirs.d_budget, rtol=1e-9, atol=1e-12)
            p = coverage.coverage_probabilities(t, named)
            np.testing.assert_allclose(
                budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t, listed)),
                budget.optimal_budgets(t, 1.0, p),
                rtol=1e-9,
            )
            for granularity in ("level", "node"):
                found, reference = (
                    cb.consistent_optimal_budgets(t, 1.0, w, granularity=granularity)
                    for w in (listed, named)
                )
                assert blue_error.blue_expected_error(t, found, named) == pytest.approx(
                    blue_error.blue_expected_error(t, reference, named), rel=1e-6
                )


def test_consistent_optimum_never_worse_than_the_rules_and_release_eps_exact():
    for t, ranges, rng in _trees(4, 12):
        eps = float(rng.uniform(0.2, 2.0))
        spec = _spec(ranges)
        p = coverage.coverage_probabilities(t, spec)
        rules = [
            budget.uniform_budgets(t, eps),
            budget.uniform_budgets(t, eps, measure_root=False),
            budget.per_level_budgets(t, eps, p),
            budget.optimal_budgets(t, eps, p),
        ]
        scores = [blue_error.blue_expected_error(t, b, spec) for b in rules]
        level = cb.consistent_optimal_budgets(t, eps, spec, granularity="level")
        node = cb.consistent_optimal_budgets(t, eps, spec, granularity="node")
        assert budget.release_epsilon(t, level) == eps
        assert budget.release_epsilon(t, node) == eps
        level_error = blue_error.blue_expected_error(t, level, spec)
        node_error = blue_error.blue_expected_error(t, node, spec)
        slack = 1e-9 * scores[0]
        assert level_error <= min(scores[:3]) + slack
        assert node_error <= min(*scores, level_error) + slack
        # bins no listed range uses may stay unmeasured (singular M: lstsq, not inv), and a
        # level may get a share near 0 (leaves: 1e-4), where the dense solve loses digits
        dense = _lstsq_range_errors(t, level, ranges).mean()
        assert level_error == pytest.approx(dense, rel=1e-7)


def test_listed_workloads_in_the_other_workload_functions():
    n = 10
    ranges = [(0, 9), (2, 4), (2, 4), (7, 7)]
    spec = _spec(ranges)
    a, b = workload_ranges(n, spec)
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == ranges  # duplicates kept
    assert flat_error.flat_expected_error(n, 2.0, spec) == pytest.approx(
        2 * (10 + 3 + 3 + 1) / 4 / 4
    )
    drawn_a, drawn_b = empirical.random_ranges(n, 4000, np.random.default_rng(0), spec)
    assert set(zip(drawn_a.tolist(), drawn_b.tolist(), strict=True)) == set(ranges)
    assert np.mean(drawn_a == 2) == pytest.approx(0.5, abs=0.03)  # listed twice: 1/2
    rows = np.random.default_rng(1).normal(size=(3, n))
    w = np.zeros((len(ranges), n))
    for q, (lo, hi) in enumerate(ranges):
        w[q, lo : hi + 1] = 1.0
    np.testing.assert_allclose(pidentity.gram_matvec(spec, n, rows), rows @ (w.T @ w))
    np.testing.assert_allclose(pidentity.gram_diagonal(spec, n), np.diag(w.T @ w))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ranges:", "bad range ''"),
        ("ranges:3-x", "bad range '3-x'"),
        ("ranges:5-2", r"need 0 <= a <= b"),
        ("ranges:-1-2", "bad range"),
        ("ranges:0-10", "beyond the last bin 9"),
        ("ranges:" + ",".join(["1-2"] * (MAX_LISTED_RANGES + 1)), "between 1 and 1,000"),
    ],
)
def test_bad_listed_ranges_say_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_workload(spec, 10)
    with pytest.raises(ValueError, match=message):
        cb.consistent_optimal_budgets(kary_tree(10, 2), 1.0, spec)


def test_listed_ranges_checks_pairs_and_the_gradient_its_work_limit():
    with pytest.raises(ValueError, match="pairs of whole numbers"):
        listed_ranges([(1, 2, 3)])
    with pytest.raises(ValueError, match="between 1 and"):
        listed_ranges([])
    assert listed_ranges([(3, 3)]).describe() == "1 listed range equally likely"
    n = blue_gradient.LISTED_GRADIENT_WORK // 400 + 1
    big = kary_tree(n, 2)  # about 2n nodes: 200 ranges are over the limit
    load = listed_ranges([(0, n - 1)] * 200, n)
    assert blue_gradient.listed_gradient_unavailable(big.size, load) is not None
    with pytest.raises(ValueError, match="range-node steps, above the limit"):
        blue_gradient.blue_error_gradient(big, budget.uniform_budgets(big, 1.0), load)
    assert blue_gradient.listed_gradient_unavailable(kary_tree(64, 2).size, load) is None
