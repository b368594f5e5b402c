"""Range queries under LDP: the aggregate draws against per-user simulation, and the closed
forms against seeded simulation.

Tolerances: with ``R`` repetitions a sample variance has relative standard error about
``sqrt(2/R)`` (0.08 at ``R = 300``); variance ratios must lie within about 4 of those, means
within 4.5 standard errors, and a two-sample KS test must not reject at ``p < 1e-3``. Fixed
seeds make every check reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.ldp.ranges import (
    authors_consistency,
    blue_smoother,
    coefficient_fractions,
    draw_histogram,
    flat_range_variance,
    haar_leaves,
    haar_range_variance,
    ldp_tree,
    simulate_flat,
    simulate_haar,
    simulate_tree,
    tree_range_variance,
)
from dpcore.ldp.ranges.aggregate import aggregate_statistic
from dpcore.ldp.ranges.oracles import estimate
from dpcore.ldp.ranges.population import group_sizes, partition_groups, sampling_variance
from dpcore.ldp.ranges.reports import user_statistic

REPS = 300


def _wang_variance(oracle: str, eps: float, k: int, m: int, f: np.ndarray) -> np.ndarray:
    """Var of one item's estimate (Wang et al. 2017), HRR's from its definition."""
    e = math.exp(eps)
    if oracle == "hrr":
        return (((e + 1) / (e - 1)) ** 2 - f) / m
    if oracle == "grr":
        p, q = e / (e + k - 1), 1 / (e + k - 1)
    elif oracle == "oue":
        p, q = 0.5, 1 / (e + 1)
    else:
        g = math.floor(e + 1)
        p, q = e / (e + g - 1), 1 / g
    return q * (1 - q) / (m * (p - q) ** 2) + f * (1 - p - q) / (m * (p - q))


def _same_law(a: np.ndarray, b: np.ndarray) -> None:
    """Two samples (reps x coordinates) share means, variances and (first coordinate) law."""
    se = np.sqrt(a.var(axis=0, ddof=1) / len(a) + b.var(axis=0, ddof=1) / len(b))
    assert (np.abs(a.mean(axis=0) - b.mean(axis=0)) < 4.5 * se).all()
    ratio = a.var(axis=0, ddof=1) / b.var(axis=0, ddof=1)
    assert ((ratio > 0.65) & (ratio < 1.55)).all(), ratio
    assert stats.ks_2samp(a[:, 0], b[:, 0]).pvalue > 1e-3


@pytest.mark.parametrize("oracle", ["grr", "oue", "olh", "hrr"])
def test_aggregate_and_per_user_oracles_have_the_same_law(oracle):
    eps, k = 1.0, 6
    holders = np.array([800, 500, 300, 200, 200, 0])
    m = int(holders.sum())
    items = np.repeat(np.arange(k), holders)
    rng = np.random.default_rng(11)
    fast = np.array(
        [estimate(oracle, aggregate_statistic(oracle, holders, eps, rng=rng), m, eps, k)
         for _ in range(REPS)]
    )  # fmt: skip
    slow = np.array(
        [estimate(oracle, user_statistic(oracle, items, eps, k, rng=rng), m, eps, k)
         for _ in range(REPS)]
    )  # fmt: skip
    _same_law(fast, slow)
    # the aggregate is cheap: 4000 draws pin the variance to ~3 % (SE), so the bounds
    # below are ~4 SE and tell V from c^2 = V + 1 (27 % apart at eps = 1)
    many = np.array(
        [estimate(oracle, aggregate_statistic(oracle, holders, eps, rng=rng), m, eps, k)
         for _ in range(4000)]
    )  # fmt: skip
    f = holders / m
    expected = _wang_variance(oracle, eps, k, m, f)
    assert (np.abs(many.mean(axis=0) - f) < 4.5 * np.sqrt(expected / 4000)).all()  # unbiased
    ratio = many.var(axis=0, ddof=1) / expected
    assert ((ratio > 0.88) & (ratio < 1.13)).all(), ratio


def test_grr_closed_form_is_the_fixed_groups_variance():
    # K = 2, f = 1/2, eps = 1: the fixed group's variance 0.921/m; the i.i.d. users' law
    # (multinomial of the mixture) would say 1.171/m, 27% more. 4000 draws: SE ~ 2.2%.
    m, reps = 10_000, 4000
    rng = np.random.default_rng(21)
    draws = np.array([simulate_flat("grr", [m // 2, m // 2], 1.0, rng=rng)[0] for _ in range(reps)])
    closed = flat_range_variance(
        "grr", eps=1.0, users=m, a=0, b=0, domain=2, frequencies=[0.5, 0.5]
    )
    assert float(closed) * m == pytest.approx(_wang_variance("grr", 1.0, 2, 1, np.array(0.5)))
    assert draws.var(ddof=1) / closed == pytest.approx(1.0, abs=0.09)


def test_grr_estimates_covary_negatively_as_the_users_reports_say():
    eps, k, m = 1.0, 8, 4000
    holders = np.full(k, m // k)
    rng = np.random.default_rng(12)
    draws = np.array(
        [estimate("grr", aggregate_statistic("grr", holders, eps, rng=rng), m, eps, k)
         for _ in range(2000)]
    )  # fmt: skip
    e = math.exp(eps)
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    # -sum_x f_x P(v|x) P(w|x) over the items, f = 1/k each: q^2 + 2 q (p - q) / k
    expected = -(q * q + 2 * q * (p - q) / k) / (m * (p - q) ** 2)
    pair = np.cov(draws[:, 0], draws[:, 1])[0, 1]
    assert pair == pytest.approx(expected, rel=0.35)  # 2000 draws: correlation SE ~ 0.022
    # the sum of 4 items: summing the variances would overstate it by ~45 % (spec 07 sect. 2)
    summed = draws[:, :4].sum(axis=1).var(ddof=1)
    assert summed < 0.85 * draws[:, :4].var(axis=0, ddof=1).sum()


def test_flat_simulation_per_user_matches_the_aggregate():
    rng = np.random.default_rng(13)
    hist = draw_histogram(np.arange(1.0, 9.0), 3000, rng=rng)
    fast = np.array([simulate_flat("hrr", hist, 1.0, rng=rng) for _ in range(REPS)])
    slow = np.array([simulate_flat("hrr", hist, 1.0, rng=rng, per_user=True) for _ in range(REPS)])
    _same_law(fast, slow)


def test_tree_aggregate_matches_per_user_with_sampled_levels():
    # an uneven tree (D = 12, B = 3) with a different oracle per level
    plan = ldp_tree(12, 3, eps=1.0, users=3000, oracle=("grr", "hrr", "olh"))
    rng = np.random.default_rng(14)
    hist = draw_histogram(np.arange(1.0, 13.0), 3000, rng=rng)
    fast = np.array([simulate_tree(plan, hist, rng=rng) for _ in range(REPS)])
    slow = np.array([simulate_tree(plan, hist, rng=rng, per_user=True) for _ in range(REPS)])
    _same_law(fast[:, 1:], slow[:, 1:])


def test_haar_aggregate_matches_per_user():
    rng = np.random.default_rng(15)
    hist = draw_histogram(np.arange(1.0, 17.0), 4000, rng=rng)
    fast = np.array([simulate_haar(hist, 1.0, rng=rng) for _ in range(REPS)])
    slow = np.array([simulate_haar(hist, 1.0, rng=rng, per_user=True) for _ in range(REPS)])
    _same_law(fast, slow)
    truth = coefficient_fractions(hist / hist.sum(), 16)[0]
    np.testing.assert_allclose(haar_leaves(truth, 16), hist / hist.sum(), atol=1e-15)


RANGES = (np.array([0, 3, 5, 1, 0]), np.array([0, 6, 13, 14, 15]))


def _range_answers(plan, nodes, consistency):
    a, b = RANGES
    tree = plan.tree
    if consistency == "blue":
        values = blue_smoother(plan).apply(nodes)
    elif consistency == "authors":
        values = authors_consistency(tree, int(tree.n_children[0]), nodes)
    else:
        return np.array(
            [_decomposition_sum(tree, nodes, lo, hi) for lo, hi in zip(a, b, strict=True)]
        )
    leaves = values[tree.leaf_of_bin]
    prefix = np.concatenate(([0.0], np.cumsum(leaves)))
    return prefix[b + 1] - prefix[a]


def _decomposition_sum(tree, nodes, a, b):
    return _decomposition(tree, np.atleast_1d(a), np.atleast_1d(b))[0] @ nodes


def _decomposition(tree, a, b):
    """Per range, its canonical nodes by definition: inside it, the parent not."""
    inside = (tree.lo >= a[:, None]) & (tree.hi <= b[:, None])
    parent_inside = np.where(tree.parent >= 0, inside[:, np.maximum(tree.parent, 0)], False)
    return (inside & ~parent_inside).astype(np.float64)


@pytest.mark.parametrize(
    ("levels", "oracle", "eps", "consistency"),
    [
        ("split", "oue", 1.0, "none"),
        ("split", "olh", 1.0, "blue"),
        ("sample", "hrr", 0.5, "blue"),
        ("sample", "oue", 0.5, "authors"),
        ("split", ("grr", "grr", "oue", "oue"), 1.0, "blue"),  # GRR top: weighted LS
        ("split", ("grr", "grr", "oue", "oue"), 1.0, "none"),
    ],
)
def test_tree_closed_forms_match_simulation(levels, oracle, eps, consistency):
    # split eps: every level measures the population itself, the closed form's estimand. Sampled
    # levels: each group estimates its own histogram; against the population an extra
    # (h - 1) f (1 - f) / N appears, under 1 % of the noise at eps = 0.5 (V = 15.7) here.
    users = 100_000
    plan = ldp_tree(16, 2, eps=eps, users=users, oracle=oracle, levels=levels)
    rng = np.random.default_rng(16)
    hist = draw_histogram(np.linspace(1.0, 3.0, 16), users, rng=rng)
    f = hist / users
    answers = np.array(
        [_range_answers(plan, simulate_tree(plan, hist, rng=rng), consistency) for _ in range(REPS)]
    )
    a, b = RANGES
    truth = np.array([f[lo : hi + 1].sum() for lo, hi in zip(a, b, strict=True)])
    expected = tree_range_variance(plan, a, b, consistency=consistency, frequencies=f)
    assert (np.abs(answers.mean(axis=0) - truth) <= 4.5 * np.sqrt(expected / REPS)).all()
    known = expected == 0  # the full range without the authors' map: the root, exact
    assert np.allclose(answers[:, known], 1.0, rtol=0, atol=1e-12)
    ratio = answers[:, ~known].var(axis=0, ddof=1) / expected[~known]
    assert ((ratio > 0.7) & (ratio < 1.4)).all(), ratio


def test_haar_closed_form_matches_simulation():
    users, eps = 100_000, 0.5
    rng = np.random.default_rng(17)
    hist = draw_histogram(np.linspace(3.0, 1.0, 16), users, rng=rng)
    f = hist / users
    a, b = RANGES
    answers = []
    for _ in range(REPS):
        leaves = haar_leaves(simulate_haar(hist, eps, rng=rng), 16)
        prefix = np.concatenate(([0.0], np.cumsum(leaves)))
        answers.append(prefix[b + 1] - prefix[a])
    sample = np.array(answers)
    expected = haar_range_variance(16, eps, users, a, b, frequencies=f)
    truth = np.array([f[lo : hi + 1].sum() for lo, hi in zip(a, b, strict=True)])
    assert (np.abs(sample.mean(axis=0) - truth) <= 4.5 * np.sqrt(expected / REPS)).all()
    known = expected == 0  # the full range: the known average
    assert np.allclose(sample[:, known], 1.0, rtol=0, atol=1e-12)
    ratio = sample[:, ~known].var(axis=0, ddof=1) / expected[~known]
    assert ((ratio > 0.7) & (ratio < 1.4)).all(), ratio


def test_a_hundred_million_users_cost_what_a_thousand_do():
    users = 10**8
    plan = ldp_tree(256, 4, eps=1.0, users=users, levels="split")
    rng = np.random.default_rng(18)
    hist = draw_histogram(np.ones(256), users, rng=rng)
    assert hist.sum() == users
    smoother = blue_smoother(plan)
    a, b = np.array([0, 10, 100]), np.array([0, 200, 255])
    answers = []
    for _ in range(60):
        leaves = smoother.apply(simulate_tree(plan, hist, rng=rng))[plan.tree.leaf_of_bin]
        prefix = np.concatenate(([0.0], np.cumsum(leaves)))
        answers.append(prefix[b + 1] - prefix[a])
    expected = tree_range_variance(plan, a, b, consistency="blue", frequencies=hist / users)
    ratio = np.array(answers).var(axis=0, ddof=1) / expected
    assert ((ratio > 0.5) & (ratio < 1.7)).all(), ratio  # 60 reps: SE of a variance ~ 0.18


@pytest.mark.parametrize("consistency", ["none", "blue"])
def test_random_partition_against_the_population_adds_the_sampling_term(consistency):
    # at eps = 6 (V = 0.0099) the groups' own deviation rivals the oracles' data terms
    users, reps = 20_000, 400
    plan = ldp_tree(16, 4, eps=6.0, users=users)
    rng = np.random.default_rng(19)
    hist = draw_histogram(np.r_[np.full(8, 4.0), np.ones(8)], users, rng=rng)
    f = hist / users
    a, b = np.array([0, 3, 5, 1, 0]), np.array([0, 6, 13, 14, 7])
    noise = tree_range_variance(plan, a, b, consistency=consistency, frequencies=f)
    expected = noise + sampling_variance(plan, a, b, frequencies=f, consistency=consistency)
    samples = []
    for per_user in (False, True):
        answers = []
        for _ in range(reps):
            nodes = simulate_tree(plan, hist, rng=rng, groups="partition", per_user=per_user)
            answers.append(_answers(plan, nodes, consistency, a, b))
        samples.append(np.array(answers))
    _same_law(*samples)
    check_against_population(samples, f, (a, b), expected, noise)


def check_against_population(samples, f, ranges, expected, noise):
    """Per-user and aggregate answers (reps x ranges) unbiased for the population's, with the
    variance ``expected`` (``noise`` plus the groups' terms) and not ``noise`` alone."""
    a, b = ranges
    truth = np.array([f[lo : hi + 1].sum() for lo, hi in zip(a, b, strict=True)])
    for sample in samples:
        reps = len(sample)
        assert (np.abs(sample.mean(axis=0) - truth) <= 4.5 * np.sqrt(expected / reps)).all()
        ratio = sample.var(axis=0, ddof=1) / expected
        assert ((ratio > 0.72) & (ratio < 1.35)).all(), ratio
        assert (sample.var(axis=0, ddof=1) / noise).max() > 1.3  # without the term: misses


def _answers(plan, nodes, consistency, a, b):
    tree = plan.tree
    if consistency == "none":
        return np.array(
            [_decomposition_sum(tree, nodes, lo, hi) for lo, hi in zip(a, b, strict=True)]
        )
    leaves = blue_smoother(plan).apply(nodes)[tree.leaf_of_bin]
    prefix = np.concatenate(([0.0], np.cumsum(leaves)))
    return prefix[b + 1] - prefix[a]


def test_independent_levels_and_the_partition_differ_only_in_group_sizes():
    plan = ldp_tree(16, 4, eps=1.0, users=1000)
    hist = draw_histogram(np.ones(16), 1000, rng=np.random.default_rng(20))
    groups = partition_groups(hist, 2, rng=np.random.default_rng(21))
    assert groups.sum(axis=1).tolist() == group_sizes(1000, 2).tolist() == [500, 500]
    np.testing.assert_array_equal(groups.sum(axis=0), hist)
    with pytest.raises(ValueError, match="groups must be"):
        simulate_tree(plan, hist, rng=np.random.default_rng(0), groups="fixed")
    assert np.all(sampling_variance(
        ldp_tree(16, 4, eps=1.0, users=1000, levels="split"), 0, 5, frequencies=hist / 1000
    ) == 0)  # fmt: skip
