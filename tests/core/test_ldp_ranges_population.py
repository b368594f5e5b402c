"""The level groups' terms against the whole population: a dense oracle that enumerates every
assignment of a few users to levels, and seeded simulation at large eps.

The oracle is written from the definitions: for each assignment (labelled users, equally
likely; those leaving a group empty dropped for independent draws, only the partition's sizes
kept for a partition) the answer's conditional mean is its linear map of the groups'
histograms, and its conditional variance the oracle's (OUE: independent bits; HRR: a signed
report per user) over those histograms; the total is the mean of the one plus the variance
of the other. Simulation tolerances as in ``test_ldp_ranges_simulation``: with 400 draws a
variance ratio has standard error ~0.07; bounds at about 4 of those.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpcore.ldp.ranges import (
    blue_smoother,
    draw_histogram,
    haar_leaves,
    haar_range_variance,
    ldp_tree,
    simulate_haar,
    simulate_tree,
    tree_range_variance,
)
from dpcore.ldp.ranges.population import (
    all_filled,
    group_sizes,
    haar_sampling_variance,
    inverse_group_size,
    sampling_variance,
)
from tests.core.test_ldp_ranges_simulation import _answers, _same_law, check_against_population
from tests.oracles import canonical_nodes


def _assignments(users: int, levels: int, groups: str):
    """Each user's level in every admissible assignment (rows), all equally likely."""
    rows = np.array(list(itertools.product(range(levels), repeat=users)))
    sizes = np.stack([(rows == level).sum(axis=1) for level in range(levels)], axis=1)
    keep = (sizes > 0).all(axis=1)
    if groups == "partition":
        keep = (sizes == group_sizes(users, levels)).all(axis=1)
    return rows[keep]


def _group_fractions(items, domain, levels, groups):
    """Per admissible assignment and level, the group's item fractions and its size."""
    rows = _assignments(items.size, levels, groups)
    counts = np.einsum("rul,ux->rlx", np.eye(levels)[rows], np.eye(domain)[items])
    sizes = counts.sum(axis=2)
    return counts / sizes[:, :, None], sizes


def _total_variance(means: np.ndarray, variances: np.ndarray) -> float:
    """Law of total variance over equally likely assignments."""
    return float(variances.mean() + means.var())


def test_inverse_group_size_by_enumeration():
    for users, levels in ((5, 2), (6, 3), (7, 3)):
        rows = _assignments(users, levels, "independent")
        sizes = (rows == 0).sum(axis=1)
        assert inverse_group_size(users, levels) == pytest.approx((1 / sizes).mean(), rel=1e-12)
        assert float(all_filled(users, levels)) == pytest.approx(
            len(rows) / levels**users, rel=1e-12
        )
    # large N: about (h/N)(1 + (h-1)/N), the first correction of E[1/m]
    assert inverse_group_size(10**6, 4) * 250_000 == pytest.approx(1 + 3e-6, abs=1e-10)


def _node_weights(plan, a, b, consistency):
    """Each node estimate's weight in the answer of [a, b]: the decomposition by definition,
    or the BLUE's leaves (its linear map built column by column)."""
    tree = plan.tree
    if consistency == "none":
        out = np.zeros(tree.size)
        out[canonical_nodes(tree, a, b)] = 1.0
        return out
    smoother = blue_smoother(plan)
    columns = np.array([smoother.apply(unit) for unit in np.eye(tree.size)]).T
    return columns[tree.leaf_of_bin[a : b + 1]].sum(axis=0)


@pytest.mark.parametrize("oracle", ["oue", "grr"])
@pytest.mark.parametrize("groups", ["independent", "partition"])
@pytest.mark.parametrize(("domain", "users", "consistency"), [(4, 7, "none"), (8, 7, "blue")])
def test_tree_terms_match_the_enumeration(oracle, groups, domain, users, consistency):
    eps = 1.0
    plan = ldp_tree(domain, 2, eps=eps, users=users, oracle=oracle)
    tree, h = plan.tree, plan.levels
    items = np.array([0, 0, 1, domain - 1, domain - 1, domain - 1, 2])[:users]
    f = np.bincount(items, minlength=domain) / users
    g, m = _group_fractions(items, domain, h, groups)
    bins = np.arange(domain)
    under = ((bins >= tree.lo[:, None]) & (bins <= tree.hi[:, None])).astype(float)
    for a, b in [(x, y) for x in range(domain) for y in range(x, domain)]:
        w = _node_weights(plan, a, b, consistency)
        means, variances = np.full(len(g), w[0]), np.zeros(len(g))  # the root: 1, known
        for depth in range(1, h + 1):
            nodes = np.flatnonzero(tree.depth == depth)
            share = g[:, depth - 1] @ under[nodes].T  # each node's fraction of the group
            means += share @ w[nodes]
            variances += _report_variance(oracle, eps, w[nodes], share) / m[:, depth - 1]
        exact = _total_variance(means, variances)
        closed = tree_range_variance(plan, a, b, consistency=consistency, frequencies=f)
        term = sampling_variance(plan, a, b, frequencies=f, consistency=consistency, groups=groups)
        assert closed + term == pytest.approx(exact, rel=1e-10, abs=1e-15), (a, b)


def _report_variance(oracle, eps, w, share):
    """m times the variance of sum_x w_x f^_x given the group's item fractions (rows): OUE's
    bits independent; GRR's report one categorical draw per user, P(y|x) = q + (p-q)[y = x]."""
    e, k = math.exp(eps), w.size
    if oracle == "oue":
        p, q = 0.5, 1 / (e + 1)
        return (share * p * (1 - p) + (1 - share) * q * (1 - q)) @ w**2 / (p - q) ** 2
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    second = q * (w**2).sum() + (p - q) * w**2  # E[w_y^2 | x], per item x
    first = q * w.sum() + (p - q) * w  # E[w_y | x]
    return share @ (second - first**2) / (p - q) ** 2


@pytest.mark.parametrize("groups", ["independent", "partition"])
@pytest.mark.parametrize(("domain", "users"), [(4, 7), (8, 7)])
def test_haar_terms_match_the_enumeration(groups, domain, users):
    eps = 1.0
    c2 = ((math.exp(eps) + 1) / math.expm1(eps)) ** 2
    h = domain.bit_length() - 1
    items = np.array([0, 0, 1, domain - 1, domain - 1, domain - 1, 2])[:users]
    f = np.bincount(items, minlength=domain) / users
    g, m = _group_fractions(items, domain, h, groups)
    bins = np.arange(domain)
    for a, b in [(x, y) for x in range(domain) for y in range(x, domain)]:
        means, variances = np.full(len(g), (b - a + 1) / domain), np.zeros(len(g))
        for k in range(h):
            size = domain >> k
            for lo in range(0, domain, size):
                left = (bins >= lo) & (bins < lo + size // 2)
                right = (bins >= lo + size // 2) & (bins < lo + size)
                span = (bins >= a) & (bins <= b)
                weight = ((span & left).sum() - (span & right).sum()) / size
                in_left, in_right = g[:, k] @ left, g[:, k] @ right
                means += weight * (in_left - in_right)
                variances += weight**2 * (c2 - in_left - in_right) / m[:, k]  # HRR, signed
        exact = _total_variance(means, variances)
        closed = haar_range_variance(domain, eps, users, a, b, frequencies=f)
        term = haar_sampling_variance(domain, eps, users, a, b, frequencies=f, groups=groups)
        assert closed + term == pytest.approx(exact, rel=1e-10, abs=1e-15), (a, b)


RANGES = (np.array([0, 3, 5, 1, 0]), np.array([0, 6, 13, 14, 7]))


@pytest.mark.parametrize("groups", ["independent", "partition"])
def test_haar_against_the_population_by_simulation(groups):
    # at eps = 6 (c^2 = 1.01) the groups' deviation rivals the oracle's noise
    users, reps, eps = 20_000, 400, 6.0
    rng = np.random.default_rng(31)
    hist = draw_histogram(np.r_[np.full(8, 4.0), np.ones(8)], users, rng=rng)
    f = hist / users
    a, b = RANGES
    noise = haar_range_variance(16, eps, users, a, b, frequencies=f)
    expected = noise + haar_sampling_variance(16, eps, users, a, b, frequencies=f, groups=groups)
    samples = []
    for per_user in (False, True):
        answers = []
        for _ in range(reps):
            coefficients = simulate_haar(hist, eps, rng=rng, per_user=per_user, groups=groups)
            prefix = np.concatenate(([0.0], np.cumsum(haar_leaves(coefficients, 16))))
            answers.append(prefix[b + 1] - prefix[a])
        samples.append(np.array(answers))
    _same_law(*samples)
    check_against_population(samples, f, (a, b), expected, noise)


@pytest.mark.parametrize("consistency", ["none", "blue"])
def test_independent_levels_against_the_population_by_simulation(consistency):
    users, reps = 20_000, 400
    plan = ldp_tree(16, 4, eps=6.0, users=users)
    rng = np.random.default_rng(32)
    hist = draw_histogram(np.r_[np.full(8, 4.0), np.ones(8)], users, rng=rng)
    f = hist / users
    a, b = RANGES
    noise = tree_range_variance(plan, a, b, consistency=consistency, frequencies=f)
    term = sampling_variance(
        plan, a, b, frequencies=f, consistency=consistency, groups="independent"
    )
    sample = np.array(
        [_answers(plan, simulate_tree(plan, hist, rng=rng), consistency, a, b)
         for _ in range(reps)]
    )  # fmt: skip
    ratio = sample.var(axis=0, ddof=1) / (noise + term)
    assert ((ratio > 0.72) & (ratio < 1.35)).all(), ratio
    assert (sample.var(axis=0, ddof=1) / noise).max() > 1.3


def test_group_terms_refuse_unknown_groups():
    plan = ldp_tree(16, 4, eps=1.0, users=1000)
    with pytest.raises(ValueError, match="groups must be"):
        sampling_variance(plan, 0, 3, frequencies=np.full(16, 1 / 16), groups="fixed")
    with pytest.raises(ValueError, match="groups must be"):
        simulate_haar(np.full(16, 10), 1.0, rng=np.random.default_rng(0), groups="fixed")
