"""Composition: the zCDP conversion against a direct minimisation over Rényi orders, the
exact Gaussian ε against the analytic δ and against zCDP, and the running average against
its exact standard deviation."""

import math

import numpy as np
import pytest
from scipy import optimize

from dpcore.meaning import composition as comp
from dpcore.meaning.neighbours import gaussian_delta, gaussian_sigma


@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.5, 3.0, 50.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_zcdp_conversion_is_the_minimum_over_renyi_orders(rho, delta):
    # ρ-zCDP is (α, ρα)-RDP for every α > 1, and (α, r)-RDP gives (r + ln(1/δ)/(α-1), δ)-DP;
    # the best α minimises ρα + ln(1/δ)/(α-1): the closed form of Bun & Steinke, prop. 1.3
    res = optimize.minimize_scalar(
        lambda a: rho * a + math.log(1 / delta) / (a - 1),
        bounds=(1 + 1e-9, 1e9),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert comp.zcdp_epsilon([rho], delta)[0] == pytest.approx(res.fun, rel=1e-6)


def test_rho_adds_up_over_answers():
    sigma = 2.5
    one = comp.zcdp_rho([1], sigma)[0]
    assert one == pytest.approx(1 / (2 * sigma**2))
    np.testing.assert_allclose(comp.zcdp_rho([1, 7, 100], sigma), [one, 7 * one, 100 * one])


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-8])
def test_exact_gaussian_epsilon_inverts_the_analytic_delta_and_is_below_zcdp(eps, delta):
    sigma = gaussian_sigma(eps, delta)
    ks = np.array([1, 2, 10, 100, 1000])
    exact = comp.exact_gaussian_epsilon(ks, sigma, delta)
    assert exact[0] == pytest.approx(eps, rel=1e-8)  # one answer: back to its own ε
    for k, e in zip(ks, exact, strict=True):
        assert gaussian_delta(sigma / math.sqrt(k), e) == pytest.approx(delta, rel=1e-6)
    zcdp = comp.zcdp_epsilon(comp.zcdp_rho(ks, sigma), delta)
    assert np.all(exact <= zcdp + 1e-9)  # zCDP's conversion is an upper bound
    assert np.all(np.diff(exact) > 0)
    # zCDP grows like √k, basic like k: from some k on, zCDP is the smaller
    assert zcdp[-1] < comp.basic_epsilon(ks, eps)[-1]


def test_k_gaussian_answers_are_one_with_sigma_over_root_k_by_simulation():
    # the privacy loss of k answers is the sum of k losses: compare its distribution with
    # one answer's at σ/√k (mean k/(2σ²), variance k/σ² for sensitivity 1)
    sigma, k = 3.0, 25
    rng = np.random.default_rng(1)
    noise = rng.normal(0, sigma, (40_000, k))
    loss = ((noise + 1) ** 2 - noise**2).sum(axis=1) / (2 * sigma**2)  # ln p(o|D)/p(o|D')
    assert loss.mean() == pytest.approx(k / (2 * sigma**2), abs=5 * math.sqrt(k) / sigma / 200)
    assert loss.var() == pytest.approx(k / sigma**2, rel=0.03)


@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_running_average_converges_with_its_exact_sd(eps):
    k, runs = 400, 2_000
    rng = np.random.default_rng(7)
    finals = np.array([comp.running_average(10.0, eps, k, rng)[0][-1] for _ in range(runs)])
    _, sd = comp.running_average(10.0, eps, k, rng)
    assert sd[0] == pytest.approx(math.sqrt(2) / eps)  # Var Lap(b) = 2b²
    assert finals.std() == pytest.approx(sd[-1], rel=0.05)
    assert abs(finals.mean() - 10.0) < 5 * sd[-1] / math.sqrt(runs)


def test_a_split_adds_up_and_each_share_buys_its_error():
    shares = comp.split(1.0, [0.5, 0.25, 0.25])
    assert shares.sum() == pytest.approx(1.0)
    mean, sd = comp.laplace_errors(shares)
    rng = np.random.default_rng(2)
    for share, m in zip(shares, mean, strict=True):
        draws = rng.laplace(0, 1 / share, 100_000)
        assert np.abs(draws).mean() == pytest.approx(m, rel=0.02)
    np.testing.assert_allclose(sd, math.sqrt(2) * mean)


def test_bad_inputs_say_what_is_accepted():
    with pytest.raises(ValueError, match="δ = 0"):
        comp.zcdp_epsilon([1.0], 0.0)
    with pytest.raises(ValueError, match="answers k"):
        comp.running_average(1.0, 1.0, comp.MAX_QUERIES + 1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="weights"):
        comp.split(1.0, [1.0, 0.0])
