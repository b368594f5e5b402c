"""The Laplace mechanism: noise distribution, and bound vs exact vs simulated max error."""

from __future__ import annotations

import decimal
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcore.mechanisms import (
    laplace_confidence_intervals,
    laplace_expected_max_error,
    laplace_max_error_bound,
    laplace_max_error_exact,
    laplace_max_error_tail,
    laplace_mechanism,
    laplace_scale,
    laplace_variance,
    simulate_laplace_max_error,
)

ks = st.integers(1, 10**9)
deltas = st.floats(1e-12, 0.999)
epsilons = st.floats(1e-3, 1e3)
sensitivities = st.floats(1e-3, 1e3)


@pytest.mark.slow
def test_laplace_noise_passes_a_ks_test():
    truth = np.linspace(0.0, 1000.0, 50_000)
    eps, sensitivity = 0.5, 2.0
    noise = laplace_mechanism(truth, eps=eps, sensitivity=sensitivity, rng=np.random.default_rng(1))
    _, p_value = stats.kstest(noise - truth, stats.laplace(scale=sensitivity / eps).cdf)
    assert p_value > 1e-3  # fixed seed; a wrong scale (e.g. eps/Δ) gives p ~ 0 at n = 50 000
    sample_variance = float(np.var(noise - truth))
    # Var of the sample variance of Laplace noise is (μ4 - σ^4)/n = (24 b^4 - 4 b^4)/n.
    b = sensitivity / eps
    assert abs(sample_variance - laplace_variance(eps, sensitivity)) < 4 * math.sqrt(
        20 * b**4 / truth.size
    )


def test_mechanism_keeps_shape_and_is_reproducible():
    truth = np.arange(12.0).reshape(3, 4)
    first = laplace_mechanism(truth, eps=1.0, sensitivity=1.0, rng=np.random.default_rng(4))
    again = laplace_mechanism(truth, eps=1.0, sensitivity=1.0, rng=np.random.default_rng(4))
    assert first.shape == truth.shape
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, truth)


@settings(deadline=None)  # timing varies on a shared 2-core machine
@given(k=ks, delta=deltas, eps=epsilons, sensitivity=sensitivities)
def test_exact_width_inverts_the_exact_tail(k, delta, eps, sensitivity):
    width = laplace_max_error_exact(k, delta, eps, sensitivity)
    assert math.isclose(laplace_max_error_tail(width, k, eps, sensitivity), delta, rel_tol=1e-8)


@settings(deadline=None)  # timing varies on a shared 2-core machine
@given(k=ks, delta=deltas, eps=epsilons, sensitivity=sensitivities)
def test_exact_width_never_exceeds_the_union_bound(k, delta, eps, sensitivity):
    exact = laplace_max_error_exact(k, delta, eps, sensitivity)
    bound = laplace_max_error_bound(k, delta, eps, sensitivity)
    assert exact <= bound * (1 + 1e-12) + 1e-300
    # ... and the union bound's event still has probability at most delta.
    assert laplace_max_error_tail(bound, k, eps, sensitivity) <= delta * (1 + 1e-12)


@pytest.mark.parametrize(
    ("k", "delta"), [(1, 0.05), (100, 0.05), (10**9, 1e-12), (3, 0.999), (10**6, 0.5)]
)
def test_exact_width_against_high_precision(k, delta):
    with decimal.localcontext(decimal.Context(prec=50)):
        one = decimal.Decimal(1)
        t_star = -(one - (one - decimal.Decimal(delta)) ** (one / k)).ln()
    assert math.isclose(
        laplace_max_error_exact(k, delta, 2.0, 3.0), float(t_star) * 1.5, rel_tol=1e-12
    )


def test_single_query_width_is_the_bound():
    # k = 1: no union bound, both equal b ln(1/delta).
    assert math.isclose(
        laplace_max_error_exact(1, 0.01, 0.5, 1.0), 2 * math.log(100), rel_tol=1e-14
    )
    assert math.isclose(
        laplace_max_error_bound(1, 0.01, 0.5, 1.0), 2 * math.log(100), rel_tol=1e-15
    )


def test_bound_gap_tends_to_a_constant_as_k_grows():
    """ln(k/δ) - t* -> ln(-ln(1-δ)/δ): the absolute slack does not grow with k."""
    delta = 0.2
    limit = math.log(-math.log1p(-delta) / delta)
    gaps = [
        laplace_max_error_bound(k, delta, 1.0, 1.0) - laplace_max_error_exact(k, delta, 1.0, 1.0)
        for k in (10, 10**3, 10**6)
    ]
    assert gaps[0] < gaps[1] < gaps[2] < limit
    assert math.isclose(gaps[2], limit, rel_tol=1e-4)


def test_tail_edge_cases():
    assert laplace_max_error_tail(0.0, 5, 1.0, 1.0) == 1.0
    assert laplace_max_error_tail(-3.0, 5, 1.0, 1.0) == 1.0
    # Tiny tails stay accurate: k e^{-t} for large t.
    assert math.isclose(
        laplace_max_error_tail(50.0, 1000, 1.0, 1.0), 1000 * math.exp(-50), rel_tol=1e-9
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((0, 0.1, 1.0, 1.0), "k"),
        ((2.5, 0.1, 1.0, 1.0), "k"),
        ((10, 0.0, 1.0, 1.0), "delta"),
        ((10, 1.0, 1.0, 1.0), "delta"),
        ((10, 0.1, 0.0, 1.0), "eps"),
        ((10, 0.1, 1.0, math.inf), "sensitivity"),
    ],
)
def test_rejects_invalid_arguments(arguments, message):
    with pytest.raises(ValueError, match=message):
        laplace_max_error_exact(*arguments)
    with pytest.raises(ValueError, match=message):
        laplace_max_error_bound(*arguments)


@pytest.mark.slow
@pytest.mark.parametrize("k", [1, 10, 1000])
def test_exact_width_matches_simulation(k):
    delta, eps, sensitivity, trials = 0.1, 0.8, 1.0, 4000
    maxima = simulate_laplace_max_error(
        k, eps=eps, sensitivity=sensitivity, trials=trials, rng=np.random.default_rng(k)
    )
    sigma = math.sqrt(delta * (1 - delta) / trials)
    exceed_exact = float(np.mean(maxima >= laplace_max_error_exact(k, delta, eps, sensitivity)))
    assert abs(exceed_exact - delta) < 4 * sigma
    bound = laplace_max_error_bound(k, delta, eps, sensitivity)
    tail_at_bound = laplace_max_error_tail(bound, k, eps, sensitivity)
    assert abs(float(np.mean(maxima >= bound)) - tail_at_bound) < 4 * sigma
    # Mean of the max: b times the k-th harmonic number.
    expected = laplace_expected_max_error(k, eps, sensitivity)
    assert abs(float(maxima.mean()) - expected) < 4 * float(maxima.std()) / math.sqrt(trials)


def test_simulation_of_huge_k_is_chunked():
    maxima = simulate_laplace_max_error(
        2**22 + 5, eps=1.0, sensitivity=1.0, trials=1, rng=np.random.default_rng(0)
    )
    # The max of 4.2 million standard exponentials lies near ln k = 15.2 (sd ~ 1.3).
    assert 11.0 < maxima[0] < 25.0


def test_expected_max_error_switches_to_the_asymptotic_series_smoothly():
    for k in (10_000, 10_001, 123_456):
        with decimal.localcontext(decimal.Context(prec=40)):
            harmonic = float(sum(decimal.Decimal(1) / i for i in range(1, k + 1)))
        assert math.isclose(laplace_expected_max_error(k, 2.0, 1.0), harmonic / 2, rel_tol=1e-14)


@pytest.mark.slow
@pytest.mark.parametrize("simultaneous", [False, True])
def test_confidence_intervals_cover_at_the_stated_rate(simultaneous):
    rng = np.random.default_rng(21)
    truth = np.arange(20.0)
    confidence, trials = 0.8, 4000
    covered = []
    for _ in range(trials):
        noisy = laplace_mechanism(truth, eps=1.0, sensitivity=2.0, rng=rng)
        lower, upper = laplace_confidence_intervals(
            noisy, confidence=confidence, eps=1.0, sensitivity=2.0, simultaneous=simultaneous
        )
        inside = (lower <= truth) & (truth <= upper)
        covered.append(inside.all() if simultaneous else inside.mean())
    sigma = math.sqrt(
        confidence * (1 - confidence) / (trials * (1 if simultaneous else truth.size))
    )
    assert abs(float(np.mean(covered)) - confidence) < 4 * sigma


def test_scale_is_sensitivity_over_eps():
    assert laplace_scale(0.25, 3.0) == 12.0
    with pytest.raises(ValueError, match="eps"):
        laplace_scale(math.nan, 1.0)
