"""Neighbouring datasets: the exact densities, privacy loss and Gaussian δ against independent
oracles (numerical integration, direct density ratios, seeded simulation)."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpcore.meaning.neighbours import MECHANISMS, gaussian_delta, gaussian_sigma, neighbours


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_continuous_densities_integrate_to_one(mechanism, eps):
    nb = neighbours(mechanism, 7, eps, delta=1e-5)
    for neighbour in (False, True):
        centre = nb.neighbour_count if neighbour else nb.count
        total, _ = integrate.quad(
            lambda o, n=neighbour: float(nb.density([o], neighbour=n)[0]),
            -np.inf,
            np.inf,
            points=None,
        )
        assert total == pytest.approx(1.0, abs=1e-7), (centre, total)


@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_geometric_masses_sum_to_one_on_the_integers(eps):
    nb = neighbours("geometric", 7, eps)
    o = np.arange(-5000, 5001)
    assert nb.density(o).sum() == pytest.approx(1.0, abs=1e-12)
    assert nb.density(o, neighbour=True).sum() == pytest.approx(1.0, abs=1e-12)
    assert nb.density([7.5])[0] == 0.0  # no mass between the integers


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_loss_is_the_log_ratio_of_the_two_densities(mechanism):
    nb = neighbours(mechanism, 4, 0.7, delta=1e-3)
    o = np.arange(-20, 30, dtype=float)
    direct = np.log(nb.density(o) / nb.density(o, neighbour=True))
    np.testing.assert_allclose(nb.loss(o), direct, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mechanism", ["laplace", "geometric"])
@pytest.mark.parametrize("eps", [0.05, 1.0, 10.0])
def test_pure_dp_loss_stays_within_eps_and_reaches_both_ends(mechanism, eps):
    nb = neighbours(mechanism, 3, eps)
    o = np.arange(-200, 200, dtype=float)
    loss = nb.loss(o)
    assert np.all(np.abs(loss) <= eps * (1 + 1e-12))
    assert loss.max() == pytest.approx(eps) and loss.min() == pytest.approx(-eps)
    assert nb.exceeds() == 0.0 and nb.delta == 0.0


@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("sigma", [0.5, 2.0, 10.0])
def test_gaussian_delta_equals_the_hockey_stick_divergence_by_integration(eps, sigma):
    def p(o, c):
        return stats.norm.pdf(o, loc=c, scale=sigma)

    # δ = ∫ max(p_D - e^ε p_D', 0) do, with D at 1 and D' at 0 (sensitivity 1)
    integrand = lambda o: max(p(o, 1.0) - math.exp(eps) * p(o, 0.0), 0.0)  # noqa: E731
    cut = 0.5 + eps * sigma**2  # where the integrand starts to be positive
    oracle, _ = integrate.quad(integrand, cut, np.inf, epsabs=1e-14, epsrel=1e-10)
    assert gaussian_delta(sigma, eps) == pytest.approx(oracle, rel=1e-6, abs=1e-13)


@pytest.mark.parametrize("eps", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_analytic_sigma_hits_delta_and_beats_the_classic_calibration(eps, delta):
    sigma = gaussian_sigma(eps, delta)
    assert gaussian_delta(sigma, eps) == pytest.approx(delta, rel=1e-9)
    classic = math.sqrt(2 * math.log(1.25 / delta)) / eps  # Dwork & Roth thm. A.1, ε < 1
    assert sigma <= classic
    assert gaussian_delta(classic, eps) <= delta


def test_gaussian_loss_exceeds_eps_above_the_threshold_with_the_stated_chance():
    nb = neighbours("gaussian", 10, 1.0, delta=1e-2)
    t = nb.loss_threshold()
    assert nb.loss([t - 1e-9])[0] < 1.0 < nb.loss([t + 1e-9])[0]
    draws = nb.sample(200_000, np.random.default_rng(3))
    share = np.mean(nb.loss(draws) > nb.eps)
    # binomial standard error below 4e-4 here; 5 standard errors
    se = math.sqrt(nb.exceeds() * (1 - nb.exceeds()) / draws.size)
    assert abs(share - nb.exceeds()) < 5 * se
    assert nb.exceeds() >= nb.delta  # δ is the mass beyond ε less e^ε times the neighbour's


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_continuous_samples_follow_the_density(mechanism):
    nb = neighbours(mechanism, 5, 0.8, delta=1e-4)
    rng = np.random.default_rng(11)
    for neighbour in (False, True):
        centre = nb.neighbour_count if neighbour else nb.count
        draws = nb.sample(20_000, rng, neighbour=neighbour)
        if mechanism == "laplace":
            ref = stats.laplace(loc=centre, scale=nb.scale).cdf
        else:
            ref = stats.norm(loc=centre, scale=nb.scale).cdf
        assert stats.kstest(draws, ref).pvalue > 1e-3


def test_geometric_samples_follow_the_mass():
    nb = neighbours("geometric", 5, 0.8)
    draws = nb.sample(50_000, np.random.default_rng(5))
    values, counts = np.unique(draws, return_counts=True)
    keep = counts >= 20
    expected = nb.density(values[keep]) * draws.size
    chi2 = np.sum((counts[keep] - expected) ** 2 / expected)
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3


def test_bad_inputs_say_what_is_accepted():
    with pytest.raises(ValueError, match="not empty"):
        neighbours("laplace", 0, 1.0)
    with pytest.raises(ValueError, match="whole"):
        neighbours("geometric", 2.5, 1.0)
    with pytest.raises(ValueError, match=r"δ must be a number in \(0, 1\)"):
        neighbours("gaussian", 3, 1.0, delta=0.0)
    with pytest.raises(ValueError, match="epsilon"):
        neighbours("laplace", 3, 0.0)
    with pytest.raises(ValueError, match="unknown mechanism"):
        neighbours("exponential", 3, 1.0)  # type: ignore[arg-type]


def test_a_count_too_large_for_float64_noise_is_refused():
    with pytest.raises(ValueError, match="beyond float64"):
        neighbours("laplace", 2.0**40, 100.0)
    assert neighbours("laplace", 2.0**40, 1e-3).count == 2.0**40  # scale 1,000: fine
