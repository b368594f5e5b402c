"""The attacker's view: the Laplace ROC, the ε-DP bound, the posterior band and the
differencing attack against independent oracles (numerical integration, simulation)."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpcore.meaning import attacks


@pytest.mark.parametrize("eps", [0.05, 0.5, 1.0, 3.0])
def test_roc_closed_form_matches_the_threshold_tests_by_integration(eps):
    b = 1 / eps
    for t in np.linspace(-3 * b, 1 + 3 * b, 13):
        # P[o > t] by integrating each density (independent of scipy's sf)
        kinks = [k for k in (0.0, 1.0) if t < k]  # where each density has its peak
        opts = {"points": kinks or None, "epsabs": 1e-12, "epsrel": 1e-12, "limit": 200}
        fpr = integrate.quad(lambda o: math.exp(-abs(o) / b) / (2 * b), t, t + 60 * b, **opts)[0]
        tpr = integrate.quad(lambda o: math.exp(-abs(o - 1) / b) / (2 * b), t, t + 60 * b, **opts)[
            0
        ]
        assert attacks.laplace_roc([fpr], eps)[0] == pytest.approx(tpr, abs=1e-8)


@pytest.mark.parametrize("eps", [1e-5, 0.3, 1.0, 4.0, 100.0])
def test_roc_is_concave_below_the_bound_and_touches_it_on_the_outer_pieces(eps):
    a = np.linspace(0, 1, 2001)
    roc, bound = attacks.laplace_roc(a, eps), attacks.dp_bound(a, eps)
    assert np.all(roc <= bound + 1e-12)
    assert np.all(np.diff(roc, 2) <= 1e-9)  # concave: the optimal tests' curve
    low = a <= 0.5 * math.exp(-eps)
    np.testing.assert_allclose(roc[low], bound[low], rtol=1e-12)
    high = a >= 0.5
    np.testing.assert_allclose(roc[high], bound[high], rtol=1e-12)
    assert roc[0] == 0 and roc[-1] == pytest.approx(1.0)


@pytest.mark.parametrize("eps", [0.2, 1.0, 2.5])
def test_no_threshold_test_beats_the_neyman_pearson_curve(eps):
    # any test "in if o in [lo, hi]" has a rate pair on or below the ROC (Neyman-Pearson)
    b = 1 / eps
    rng = np.random.default_rng(0)
    for lo, width in zip(
        rng.uniform(-4 * b, 1 + 4 * b, 50), rng.uniform(0, 6 * b, 50), strict=True
    ):
        hi = lo + width
        fpr = stats.laplace.cdf(hi, 0, b) - stats.laplace.cdf(lo, 0, b)
        tpr = stats.laplace.cdf(hi, 1, b) - stats.laplace.cdf(lo, 1, b)
        assert tpr <= attacks.laplace_roc([fpr], eps)[0] + 1e-12


@pytest.mark.parametrize("eps", [0.25, 1.0, 3.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_simulated_point_is_under_the_bound_within_its_interval(eps, seed):
    att = attacks.simulate_attack(eps, 5_000, np.random.default_rng(seed), points=9)
    # within its 95% box, each point can sit under the bound: TPR low vs bound at FPR high
    assert np.all(att.tpr_lo <= attacks.dp_bound(att.fpr_hi, eps) + 1e-12)
    # the exact rates of each threshold test fall in simultaneous intervals (Bonferroni over
    # the 18 rates, 99.9% jointly: the rates share their draws, so misses would cluster)
    fpr, tpr = attacks.threshold_rates(att.thresholds, eps)
    level = 1 - 1e-3 / 18
    for exact, rate in ((fpr, att.fpr), (tpr, att.tpr)):
        lo, hi = attacks.clopper_pearson(np.round(rate * att.trials), att.trials, level)
        assert np.all((lo <= exact) & (exact <= hi))
    # and the exact rate pairs lie on the ROC (threshold tests are the optimal ones)
    np.testing.assert_allclose(attacks.laplace_roc(fpr, eps), tpr, atol=1e-12)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("prior", [0.05, 0.5, 0.9])
def test_posteriors_stay_in_the_band_and_follow_bayes(eps, prior):
    post = attacks.simulate_posteriors(prior, eps, 20_000, np.random.default_rng(4))
    lo, hi = attacks.posterior_band([prior], eps)
    assert np.all(post >= lo[0] - 1e-12) and np.all(post <= hi[0] + 1e-12)
    # both ends are reached (outputs beyond both counts): the band is tight
    assert post.min() == pytest.approx(lo[0], rel=1e-9)
    assert post.max() == pytest.approx(hi[0], rel=1e-9)
    # a calibrated posterior averages to the prior (law of total probability)
    assert post.mean() == pytest.approx(prior, abs=4 * post.std() / math.sqrt(post.size))


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_differencing_accuracy_by_convolution_and_simulation(eps):
    b = 1 / eps
    # P[Z > -1/2] with Z the difference of two Laplace(b): integrate the convolution density
    dens = lambda z: (1 + abs(z) / b) * math.exp(-abs(z) / b) / (4 * b)  # noqa: E731
    oracle = integrate.quad(dens, -0.5, 60 * b)[0]
    assert attacks.differencing_accuracy(eps) == pytest.approx(oracle, abs=1e-8)
    rng = np.random.default_rng(9)
    n = 200_000
    z = rng.laplace(0, b, n) - rng.laplace(0, b, n)
    share = np.mean(z > -0.5)
    assert abs(share - oracle) < 5 * math.sqrt(oracle * (1 - oracle) / n)
    assert 0.5 < attacks.differencing_accuracy(eps) <= attacks.best_accuracy(2 * eps)


def test_bad_inputs_say_what_is_accepted():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        attacks.laplace_roc([1.5], 1.0)
    with pytest.raises(ValueError, match="prior"):
        attacks.simulate_posteriors(1.0, 1.0, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        attacks.dp_bound([0.5], 0.0)
