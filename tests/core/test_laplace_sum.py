"""The distribution of a weighted Laplace sum: closed forms, moments, and seeded simulation."""

import numpy as np
import pytest
from scipy import stats

from dpcore.hist import budget, consistency, coverage, laplace_sum, queries, release, tree


def test_one_term_is_the_laplace_density():
    dist = laplace_sum.laplace_sum([2.0])
    x, f = laplace_sum.density(dist)
    want = stats.laplace.pdf(x, scale=2.0)
    # the cusp at 0 is rounded over a few grid steps; elsewhere the inversion is near exact
    assert np.max(np.abs(f - want)) < 1e-3 * want.max()
    away = np.abs(x) > 0.1
    assert np.max(np.abs(f - want)[away]) < 1e-5 * want.max()


def test_two_equal_terms_match_the_closed_form():
    """Lap(b) + Lap(b) has density (1 + |x|/b) e^{-|x|/b} / (4b)."""
    b = 1.5
    x, f = laplace_sum.density(laplace_sum.laplace_sum([b, -b]))
    want = (1 + np.abs(x) / b) * np.exp(-np.abs(x) / b) / (4 * b)
    np.testing.assert_allclose(f, want, atol=1e-8)


def test_density_has_unit_mass_and_the_exact_variance():
    scales = np.random.default_rng(40).uniform(0.1, 3.0, 30)
    dist = laplace_sum.laplace_sum(scales)
    assert dist.variance == pytest.approx(2 * np.sum(scales**2), rel=1e-12)
    x, f = laplace_sum.density(dist)
    step = x[1] - x[0]
    assert f.sum() * step == pytest.approx(1.0, abs=1e-6)
    assert (f * x * x).sum() * step == pytest.approx(dist.variance, rel=1e-4)


def test_gaussian_remainder_keeps_the_variance_and_stays_close_to_the_exact_density():
    scales = np.full(400, 0.5)
    exact = laplace_sum.laplace_sum(scales, max_terms=400)
    mixed = laplace_sum.laplace_sum(scales, max_terms=20)
    assert exact.gaussian_share == 0.0
    assert mixed.gaussian_share == pytest.approx(380 / 400)
    assert mixed.variance == pytest.approx(exact.variance)
    x, f_exact = laplace_sum.density(exact)
    _, f_mixed = laplace_sum.density(mixed)
    # excess kurtosis 3/400 of the exact sum: the CLT error is well under 1% of the peak
    assert np.max(np.abs(f_exact - f_mixed)) < 0.01 * f_exact.max()
    gauss = laplace_sum.gaussian_density(x, exact.variance)
    assert np.max(np.abs(f_exact - gauss)) < 0.01 * f_exact.max()


def test_samples_follow_the_density_and_the_variance():
    """20,000 seeded draws: variance within 5% (3 standard errors at kurtosis <= 6); KS p > 1e-3."""
    dist = laplace_sum.laplace_sum([3.0, 1.0, 1.0, 0.5, *np.full(50, 0.2)], max_terms=10)
    draws = laplace_sum.sample(dist, 20_000, np.random.default_rng(41))
    assert draws.var() == pytest.approx(dist.variance, rel=0.05)
    x, f = laplace_sum.density(dist)
    cdf = np.cumsum(f) * (x[1] - x[0])
    assert stats.kstest(draws, lambda v: np.interp(v, x, cdf)).pvalue > 1e-3


@pytest.mark.slow
def test_simulated_releases_spread_as_the_exact_error_says():
    """4,000 seeded releases of a 16-bin tree: the range answers' error variance, raw and after
    BLUE, within 8% of the exact values (standard error about 2.4% for Laplace-like sums)."""
    t = tree.kary_tree(16, 2)
    b = budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t, "uniform"))
    counts = np.random.default_rng(42).integers(0, 30, 16).astype(float)
    a, c = 3, 12
    nodes = queries.canonical_decomposition(t, a, c, b)
    weights = consistency.blue_range_weights(t, b, a, c)
    ones = np.ones(nodes.size)
    raw_exact = laplace_sum.laplace_sum(laplace_sum.node_scales(ones, b[nodes])).variance
    blue_exact = laplace_sum.laplace_sum(laplace_sum.node_scales(weights, b)).variance
    smoother = consistency.BlueSmoother.build(t, b)
    rng = np.random.default_rng(43)
    truth = counts[a : c + 1].sum()
    raw, blue = [], []
    for _ in range(4000):
        noisy = release.laplace_release(t, counts, b, rng)
        raw.append(queries.answer_raw(t, noisy, np.array([a]), np.array([c]))[0] - truth)
        blue.append(smoother.apply(noisy)[t.leaf_of_bin[a : c + 1]].sum() - truth)
    assert np.var(raw) == pytest.approx(raw_exact, rel=0.08)
    assert np.var(blue) == pytest.approx(blue_exact, rel=0.08)
    assert blue_exact < raw_exact


def test_node_scales_mark_unmeasured_nodes_with_weight_infinite():
    scales = laplace_sum.node_scales([1.0, 0.0, 2.0], [0.0, 0.0, 4.0])
    assert scales.tolist() == [np.inf, 0.0, 0.5]


def test_bad_scales_are_refused():
    with pytest.raises(ValueError, match="at least one non-zero"):
        laplace_sum.laplace_sum([0.0, 0.0])
    with pytest.raises(ValueError, match="finite"):
        laplace_sum.laplace_sum([1.0, np.inf])
    with pytest.raises(ValueError, match="max_terms"):
        laplace_sum.laplace_sum([1.0], max_terms=0)
    with pytest.raises(ValueError, match="even number"):
        laplace_sum.density(laplace_sum.laplace_sum([1.0]), points=15)
