"""Norm-Sub against two brute-force oracles (bisection on delta; Wang et al.'s repeated
"zero the negatives, shift the positives"), and its bias measured by seeded simulation.

Tolerances: bisection to 1e-13 in delta; the simulated bias is a mean over 2,000 draws, its
standard error printed beside each bound.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.ldp.ranges import draw_histogram, ldp_tree, simulate_flat, simulate_tree
from dpcore.ldp.ranges.consistency import norm_sub


def _bisection(f: np.ndarray, total: float = 1.0) -> np.ndarray:
    """delta with sum(max(f_v - delta, 0) over the positive f_v) = total, by bisection on
    [min f - total, max f] (all f_v taken when none is positive)."""
    kept = f > 0 if (f > 0).any() else np.ones(f.size, bool)
    lo, hi = f.min() - total, f.max()  # the sum at lo >= total, at hi = 0
    for _ in range(200):
        mid = (lo + hi) / 2
        if np.maximum(f[kept] - mid, 0).sum() > total:
            lo = mid
        else:
            hi = mid
    return np.where(kept, np.maximum(f - (lo + hi) / 2, 0), 0)


def _repeated(f: np.ndarray) -> np.ndarray:
    """Wang et al. (NDSS 2020): zero the negatives, shift the positives to sum 1, repeat
    (defined when some estimate is positive; the largest then stays positive)."""
    x = f.copy()
    while True:
        x[x < 0] = 0
        positive = x > 0
        x[positive] += (1 - x.sum()) / positive.sum()
        if (x >= 0).all():
            return x


@pytest.mark.parametrize("size", [1, 2, 3, 7, 30])
def test_norm_sub_equals_both_brute_force_oracles(size):
    rng = np.random.default_rng(size)
    for scale in (0.01, 0.3, 3.0):
        f = rng.normal(1 / size, scale, size)
        out = norm_sub(f)
        np.testing.assert_allclose(out, _bisection(f), atol=1e-12)
        if f.max() > 0:
            np.testing.assert_allclose(out, _repeated(f), atol=1e-12)
        assert out.min() >= 0 and out.sum() == pytest.approx(1, abs=1e-12)


def test_norm_sub_rows_totals_and_fixed_points():
    rng = np.random.default_rng(1)
    rows = rng.normal(0.2, 0.4, (5, 6))
    np.testing.assert_allclose(norm_sub(rows, total=2.0), [_bisection(r, 2.0) for r in rows])
    valid = np.array([0.1, 0.0, 0.6, 0.3])
    np.testing.assert_allclose(norm_sub(valid), valid, atol=1e-15)  # already on the simplex
    np.testing.assert_allclose(norm_sub(norm_sub(rows)), norm_sub(rows), atol=1e-15)
    np.testing.assert_allclose(norm_sub([0.1, 0.1]), [0.5, 0.5])  # sum < 1: delta < 0 adds
    for bad in ([], [np.nan, 0.2]):
        with pytest.raises(ValueError, match="estimates must be"):
            norm_sub(bad)
    with pytest.raises(ValueError, match="total"):
        norm_sub([0.5], total=0)


def test_norm_sub_is_biased_on_flat_estimates():
    # half the items empty: the unbiased estimates average 0 there, Norm-Sub's are positive
    reps, users, eps = 2000, 20_000, 1.0
    rng = np.random.default_rng(2)
    hist = draw_histogram(np.r_[np.ones(8), np.zeros(8)], users, rng=rng)
    raw = np.array([simulate_flat("oue", hist, eps, rng=rng) for _ in range(reps)])
    cut = np.array([simulate_flat("oue", hist, eps, rng=rng, normalise=True) for _ in range(reps)])
    f = hist / users
    se = raw.std(axis=0, ddof=1) / np.sqrt(reps)  # ~3e-4
    assert (np.abs(raw.mean(axis=0) - f) < 4.5 * se).all()
    bias = cut.mean(axis=0) - f
    assert (bias[8:] > 10 * se[8:]).all()  # empty items pushed up
    assert (bias[:8] < -10 * se[:8]).all()  # and the others down to keep the sum
    np.testing.assert_allclose(cut.sum(axis=1), 1.0, atol=1e-12)
    assert cut.min() >= 0
    # the trade: smaller squared error over the items despite the bias
    assert ((cut - f) ** 2).sum(axis=1).mean() < ((raw - f) ** 2).sum(axis=1).mean()


def test_norm_sub_per_level_in_the_tree():
    plan = ldp_tree(16, 4, eps=1.0, users=5000)
    rng = np.random.default_rng(3)
    hist = draw_histogram(np.r_[np.ones(4), np.zeros(12)], 5000, rng=rng)
    for per_user in (False, True):
        nodes = simulate_tree(plan, hist, rng=rng, per_user=per_user, normalise=True)
        for level_nodes, _ in plan.level_items:
            assert nodes[level_nodes].sum() == pytest.approx(1.0, abs=1e-12)
            assert nodes[level_nodes].min() >= 0
