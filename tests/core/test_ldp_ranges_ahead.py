"""AHEAD: answers against the authors' greedy query by brute force, the adaptive tree's rules,
the budget (each user reports once, at eps), and per-user simulation against the aggregate.

Tolerances as in ``test_ldp_ranges_simulation``: 300 draws per sample, means within 4.5
standard errors, variance ratios in [0.65, 1.55], KS p > 1e-3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.ldp.ranges import average_variance, draw_histogram
from dpcore.ldp.ranges.ahead import (
    ahead_answers,
    ahead_levels,
    ahead_node_values,
    ahead_threshold,
    simulate_ahead,
)
from dpcore.ldp.ranges.oracles import support_probabilities
from dpcore.ldp.ranges.population import group_sizes
from tests.core.test_ldp_ranges_simulation import _same_law


def _greedy_answer(release, a, b):
    """The authors' ``ahead_tree_answer_query``: nodes breadth-first; a node with children
    wholly inside what is left of the range takes it; a leaf takes its overlap pro rata."""
    d, fanout = release.domain, release.fanout
    left = np.zeros(d, bool)
    left[a : b + 1] = True
    answer = 0.0
    for depth in range(release.levels + 1):
        size = d // fanout**depth
        for j in np.flatnonzero(release.present[depth]):
            lo, hi = j * size, (j + 1) * size
            if not left.any():
                return answer
            value = release.values[depth][j]
            if release.split[depth][j] and left[lo:hi].all():
                answer += value
                left[lo:hi] = False
            elif not release.split[depth][j]:
                answer += value * left[lo:hi].mean()
                left[lo:hi] = False
    return answer


@pytest.mark.parametrize(("domain", "fanout", "users"), [(16, 2, 3000), (27, 3, 5000)])
def test_answers_equal_the_greedy_query(domain, fanout, users):
    rng = np.random.default_rng(41)
    hist = draw_histogram(
        np.exp(-0.5 * ((np.arange(domain) - 5) / 2.0) ** 2) + 0.02, users, rng=rng
    )
    a, b = np.triu_indices(domain)
    for per_user in (False, True):
        release = simulate_ahead(hist, 1.0, rng=rng, fanout=fanout, per_user=per_user)
        assert 0 < release.present[-1].sum() < domain  # adaptive: some leaves stopped above
        expected = [_greedy_answer(release, x, y) for x, y in zip(a, b, strict=True)]
        np.testing.assert_allclose(ahead_answers(release, a, b), expected, atol=1e-12)
    assert ahead_answers(release, 0, domain - 1) == 1.0  # the root, known


def test_the_tree_splits_where_the_mass_is_and_the_frontier_partitions_the_domain():
    # theta is sqrt(B + 1) standard deviations of a node's noise: empty nodes split now and
    # then, nodes holding a quarter of the users (eps = 8, 10^6 users: sd ~ 1e-4) always
    users, domain = 10**6, 64
    hist = np.zeros(domain, np.int64)
    hist[[5, 40, 41, 63]] = users // 4
    release = simulate_ahead(hist, 8.0, rng=np.random.default_rng(42), fanout=2)
    assert release.theta == pytest.approx(ahead_threshold(domain, 2, 8.0, users))
    h = release.levels
    for depth in range(1, h + 1):
        size = domain // 2**depth
        mass = hist.reshape(-1, size).sum(axis=1) > 0
        parent_split = np.repeat(release.split[depth - 1], 2)
        np.testing.assert_array_equal(release.present[depth], parent_split)
        if depth < h:
            rule = release.present[depth] & (release.created[depth] >= release.theta)
            np.testing.assert_array_equal(release.split[depth], rule)
            assert release.split[depth][mass].all()
    # each level's frontier (created nodes and the stopped ones above) covers each item once
    for depth in range(1, h + 1):
        covered = np.zeros(domain, int)
        for d in range(1, depth + 1):
            size = domain // 2**d
            leaves = release.present[d] & (~release.split[d] if d < depth else True)
            covered += np.repeat(leaves, size)
        assert (covered == 1).all()
        assert release.frontier_sizes[depth - 1] == sum(
            (release.present[d] & (~release.split[d] if d < depth else True)).sum()
            for d in range(1, depth + 1)
        )
    truth = hist / users
    values = ahead_node_values(release)[-1]
    np.testing.assert_allclose(values, truth, atol=0.01)


def test_bottom_up_average_by_inverse_variance():
    # B = 2, D = 4, everything split: depth-1 nodes and leaves reported once each. A node's
    # estimate (variance s^2) and its children's sum (2 s^2) combine with weights 2/3 and 1/3.
    hist = np.full(4, 25_000)
    release = simulate_ahead(hist, 10.0, rng=np.random.default_rng(43), fanout=2)
    assert release.split[1].all()
    own, leaves = release.created[1], release.created[2]
    np.testing.assert_allclose(release.values[2], leaves, atol=0)
    kids = leaves.reshape(2, 2).sum(axis=1)
    np.testing.assert_allclose(release.values[1], 2 / 3 * own + 1 / 3 * kids, atol=1e-15)


@pytest.mark.parametrize("groups", ["independent", "partition"])
def test_each_user_reports_once_at_eps(groups):
    users = 5000
    hist = draw_histogram(np.arange(1.0, 17.0), users, rng=np.random.default_rng(44))
    for per_user in (False, True):
        release = simulate_ahead(
            hist, 1.0, rng=np.random.default_rng(45), per_user=per_user, groups=groups
        )
        assert release.group_sizes.sum() == users  # one group each: one report each
        assert release.eps == 1.0
        if groups == "partition":
            assert release.group_sizes.tolist() == group_sizes(users, 4).tolist()
    # OUE's report: the likelihood ratio of any bit is at most e^eps (p = 1/2, q = 1/(e^eps+1))
    p, q = support_probabilities("oue", 1.0, 16)
    assert p * (1 - q) / (q * (1 - p)) == pytest.approx(math.e)


def test_per_user_matches_the_aggregate():
    users, reps = 3000, 300
    rng = np.random.default_rng(46)
    hist = draw_histogram(np.exp(-np.arange(16) / 3.0), users, rng=rng)
    a, b = np.array([0, 2, 5, 0]), np.array([1, 9, 15, 15 - 1])
    samples = []
    for per_user in (False, True):
        rows = []
        for _ in range(reps):
            release = simulate_ahead(hist, 1.0, rng=rng, per_user=per_user)
            rows.append([*ahead_answers(release, a, b), release.frontier_sizes.sum()])
        samples.append(np.array(rows, dtype=float))
    _same_law(*samples)


def test_ahead_refuses_bad_input():
    with pytest.raises(ValueError, match="power of the fan-out 2"):
        ahead_levels(12, 2)
    with pytest.raises(ValueError, match="groups must be"):
        simulate_ahead(np.full(4, 5), 1.0, rng=np.random.default_rng(0), groups="x")
    with pytest.raises(ValueError, match="users"):
        simulate_ahead(np.array([1, 0, 0, 0]), 1.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="eps"):
        ahead_threshold(16, 2, 0.0, 100)
    with pytest.raises(ValueError, match="AHEAD has no closed form"):
        average_variance("ahead", domain=16, eps=1.0, users=100)
