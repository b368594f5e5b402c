"""The exponential mechanism: probabilities against independent oracles, DP ratio, sampling."""

from __future__ import annotations

import decimal
import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcore.mechanisms import (
    exponential_accuracy_bound,
    exponential_expected_loss,
    exponential_log_probabilities,
    exponential_probabilities,
    exponential_tail_probability,
    exponential_threshold,
    exponential_utility_distribution,
    sample_categorical,
    sample_exponential,
)

ADULT_EDUCATION = np.array(
    [10501, 7291, 5355, 1723, 1382, 1175, 1067, 933, 646, 576, 514, 433, 413, 333, 168, 51],
    dtype=np.float64,
)

finite_scores = st.lists(
    st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False), min_size=1, max_size=12
)
epsilons = st.floats(1e-6, 1e3)
sensitivities = st.floats(1e-3, 1e3)


def naive_softmax(scores: np.ndarray, eps: float, sensitivity: float) -> np.ndarray:
    weights = np.array([math.exp(eps * u / (2 * sensitivity)) for u in scores])
    return weights / weights.sum()


HIGH_PRECISION = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def reference_probabilities(
    scores: np.ndarray, eps: float, sensitivity: float
) -> list[decimal.Decimal]:
    """The definition evaluated with 60 significant digits and no shifting (stdlib decimal)."""
    with decimal.localcontext(HIGH_PRECISION):
        scale = decimal.Decimal(eps) / (2 * decimal.Decimal(sensitivity))
        weights = [(decimal.Decimal(float(u)) * scale).exp() for u in scores]
        total = sum(weights, decimal.Decimal(0))
        return [w / total for w in weights]


@settings(deadline=None)  # timing varies on a shared 2-core machine
@given(
    scores=st.lists(st.floats(-300, 300), min_size=1, max_size=10),
    eps=st.floats(1e-3, 5.0),
    sensitivity=st.floats(0.5, 10.0),
)
def test_equals_naive_softmax_where_it_is_finite(scores, eps, sensitivity):
    values = np.array(scores)
    assume(np.abs(values).max() * eps / (2 * sensitivity) < 700)  # naive weights finite
    np.testing.assert_allclose(
        exponential_probabilities(values, eps, sensitivity),
        naive_softmax(values, eps, sensitivity),
        rtol=1e-12,
        atol=1e-300,
    )


@settings(max_examples=200, deadline=None)
@given(scores=finite_scores, eps=epsilons, sensitivity=sensitivities)
def test_finite_and_exact_for_any_magnitude(scores, eps, sensitivity):
    values = np.array(scores)
    ours = exponential_probabilities(values, eps, sensitivity)
    assert np.isfinite(ours).all()
    assert math.isclose(ours.sum(), 1.0, rel_tol=1e-12)
    assert np.isfinite(exponential_log_probabilities(values, eps, sensitivity)).all()
    for mine, exact in zip(ours, reference_probabilities(values, eps, sensitivity), strict=True):
        if exact > decimal.Decimal("1e-290"):
            assert math.isclose(mine, float(exact), rel_tol=1e-9)
        else:  # below the normal float range the answer may only underflow
            assert mine <= 1e-289


def test_raw_counts_with_large_eps_do_not_overflow():
    # The seed's complaint: counts as scores overflow exp() unless eps is tiny.
    with np.errstate(over="ignore"):
        assert not np.isfinite(np.exp(1.0 * ADULT_EDUCATION / 2)).all()
    probabilities = exponential_probabilities(ADULT_EDUCATION * 1e8, 1e3, 1.0)
    assert probabilities[0] == 1.0 and probabilities[1:].sum() == 0.0


def test_huge_equal_scores_split_evenly():
    probabilities = exponential_probabilities([1e12, 1e12, 1e12 - 1.0], 1e3, 1.0)
    assert probabilities[0] == probabilities[1]
    # The third weight is e^{-500} relative to the best: tiny but not zero.
    assert math.isclose(probabilities[2], math.exp(-500) / 2, rel_tol=1e-12)


def test_log_probability_of_a_distant_candidate_is_exact():
    log_p = exponential_log_probabilities([1e12, 1e12 - 1.0], 1e3, 1.0)
    # ln p = (0, -500) - ln(1 + e^{-500}); the last term is far below rounding.
    assert log_p[1] == -500.0
    assert -1e-200 < log_p[0] <= 0.0


def log_ratios(scores, shifted, eps, sensitivity):
    return exponential_log_probabilities(scores, eps, sensitivity) - (
        exponential_log_probabilities(shifted, eps, sensitivity)
    )


@pytest.mark.parametrize("eps", [0.1, 1.0, 7.5])
@pytest.mark.parametrize("sensitivity", [1.0, 2.5])
def test_neighbour_ratio_exhaustive(eps, sensitivity):
    """Every score vector in {0,1,2}^3 (times Δ) against every neighbour moved by -Δ, 0 or +Δ."""
    worst = -math.inf
    grid = [0.0, sensitivity, 2 * sensitivity]
    for base in itertools.product(grid, repeat=3):
        for moves in itertools.product((-1.0, 0.0, 1.0), repeat=3):
            scores = np.array(base)
            shifted = scores + sensitivity * np.array(moves)
            worst = max(worst, float(log_ratios(scores, shifted, eps, sensitivity).max()))
    assert worst <= eps + 1e-12
    # The worst pair on this grid, derived by hand: the candidate r scores 0 and
    # drops by Δ, the two others score 2Δ and rise by Δ. Then
    # p_r(u)/p_r(u') = e^{ε/2} (e^{-ε/2} + 2 e^{ε} e^{ε/2}) / (1 + 2 e^{ε}) -> e^ε as ε grows.
    by_hand = eps / 2 + math.log(
        (math.exp(-eps / 2) + 2 * math.exp(1.5 * eps)) / (1 + 2 * math.exp(eps))
    )
    assert math.isclose(worst, by_hand, rel_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 8),
    eps=st.floats(1e-3, 50.0),
    sensitivity=st.floats(1e-2, 1e2),
)
def test_neighbour_ratio_random(data, n, eps, sensitivity):
    scores = np.array(data.draw(st.lists(st.floats(-1e4, 1e4), min_size=n, max_size=n)))
    moves = np.array(data.draw(st.lists(st.floats(-1.0, 1.0), min_size=n, max_size=n)))
    shifted = scores + sensitivity * moves
    scale = np.abs(np.concatenate([scores, shifted])).max() * eps / (2 * sensitivity)
    tolerance = 1e-13 * (1.0 + scale)  # a few roundings of numbers of size `scale`
    assert log_ratios(scores, shifted, eps, sensitivity).max() <= eps + tolerance
    assert log_ratios(shifted, scores, eps, sensitivity).max() <= eps + tolerance


@pytest.mark.parametrize("bad", [{"eps": 0.0}, {"eps": -1.0}, {"sensitivity": 0.0}])
def test_rejects_non_positive_parameters(bad):
    arguments = {"eps": 1.0, "sensitivity": 1.0} | bad
    with pytest.raises(ValueError, match="positive"):
        exponential_probabilities([1.0, 2.0], **arguments)


@pytest.mark.parametrize("scores", [[], [1.0, math.nan], [math.inf]])
def test_rejects_empty_or_non_finite_scores(scores):
    with pytest.raises(ValueError, match="scores"):
        exponential_probabilities(scores, 1.0, 1.0)


@pytest.mark.slow
def test_sampling_frequencies_match_probabilities():
    scores = np.array([30.0, 25.0, 8.0, 5.0, 24.0, 0.0])
    eps = 0.4
    probabilities = exponential_probabilities(scores, eps, 1.0)
    draws = 200_000
    samples = sample_exponential(scores, eps, 1.0, size=draws, rng=np.random.default_rng(7))
    observed = np.bincount(samples, minlength=scores.size)
    expected = probabilities * draws
    keep = expected >= 5  # chi-square needs expected counts >= 5; pool the rest
    observed_pooled = np.append(observed[keep], observed[~keep].sum())
    expected_pooled = np.append(expected[keep], expected[~keep].sum())
    if expected_pooled[-1] == 0:
        observed_pooled, expected_pooled = observed_pooled[:-1], expected_pooled[:-1]
    _, p_value = stats.chisquare(observed_pooled, expected_pooled)
    assert p_value > 1e-3  # fixed seed; a wrong distribution gives p ~ 0 at this size


def test_sampler_never_draws_zero_probability_candidates():
    samples = sample_categorical(
        [0.0, 0.3, 0.0, 0.7, 0.0], size=50_000, rng=np.random.default_rng(3)
    )
    assert set(np.unique(samples)) == {1, 3}


def test_sampler_handles_mass_that_underflows():
    scores = np.array([0.0, 1e6, -1e6, 1e6 - 1.0])
    samples = sample_exponential(scores, 1.0, 1.0, size=10_000, rng=np.random.default_rng(0))
    assert set(np.unique(samples)) <= {1, 3}


def test_sampling_is_reproducible_with_a_seed():
    scores = np.arange(10.0)
    first = sample_exponential(scores, 1.0, 1.0, size=100, rng=np.random.default_rng(5))
    again = sample_exponential(scores, 1.0, 1.0, size=100, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(first, again)


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.integers(-50, 50), min_size=1, max_size=10),
    eps=st.floats(1e-3, 20.0),
    c=st.integers(-60, 60),
)
def test_exact_tail_never_exceeds_the_bound(scores, eps, c):
    values = np.array(scores, dtype=np.float64)
    exact = exponential_tail_probability(values, eps, 1.0, c)
    brute = sum(p for p, u in zip(naive_softmax_safe(values, eps), values, strict=True) if u <= c)
    assert math.isclose(exact, brute, rel_tol=1e-9, abs_tol=1e-300)
    assert exact <= exponential_accuracy_bound(values, eps, 1.0, c) * (1 + 1e-12)


def naive_softmax_safe(values: np.ndarray, eps: float) -> list[float]:
    return [float(p) for p in reference_probabilities(values, eps, 1.0)]


@settings(max_examples=100, deadline=None)
@given(
    scores=st.lists(st.integers(0, 100), min_size=1, max_size=10),
    eps=st.floats(1e-2, 10.0),
    t=st.floats(0.0, 20.0),
)
def test_threshold_form_of_the_bound(scores, eps, t):
    values = np.array(scores, dtype=np.float64)
    c = exponential_threshold(values, eps, 1.0, t)
    assert math.isclose(exponential_accuracy_bound(values, eps, 1.0, c), math.exp(-t), rel_tol=1e-9)
    assert exponential_tail_probability(values, eps, 1.0, c) <= math.exp(-t) * (1 + 1e-9)


def test_seed_adult_example_bound_is_useless_for_small_eps():
    """Adult education counts: with a small eps the bound on a wrong answer exceeds 1."""
    runner_up = ADULT_EDUCATION[1]
    small = exponential_accuracy_bound(ADULT_EDUCATION, 1e-4, 1.0, runner_up)
    exact_small = exponential_tail_probability(ADULT_EDUCATION, 1e-4, 1.0, runner_up)
    assert small > 1.0
    assert 0.0 < exact_small < 1.0
    # 16 * e^{-eps (10501 - 7291) / 2}, with the exact probability below it.
    large = exponential_accuracy_bound(ADULT_EDUCATION, 0.01, 1.0, runner_up)
    assert math.isclose(large, 16 * math.exp(-0.01 * 3210 / 2), rel_tol=1e-12)
    assert exponential_tail_probability(ADULT_EDUCATION, 0.01, 1.0, runner_up) < large


def test_bound_overflow_is_reported_as_infinite():
    assert exponential_accuracy_bound([0.0, 1.0], 1e3, 1e-3, 1e12) == math.inf


@pytest.mark.slow
def test_exact_tail_matches_simulated_frequency():
    scores = ADULT_EDUCATION
    eps, c = 0.002, ADULT_EDUCATION[2]
    exact = exponential_tail_probability(scores, eps, 1.0, c)
    draws = 100_000
    samples = sample_exponential(scores, eps, 1.0, size=draws, rng=np.random.default_rng(11))
    frequency = float(np.mean(scores[samples] <= c))
    sigma = math.sqrt(exact * (1 - exact) / draws)
    assert abs(frequency - exact) < 4 * sigma


def test_utility_distribution_cumulates_to_the_tail():
    scores = np.array([4.0, 1.0, 4.0, 2.0, 1.0])
    values, mass = exponential_utility_distribution(scores, 0.7, 1.0)
    np.testing.assert_array_equal(values, [1.0, 2.0, 4.0])
    assert math.isclose(mass.sum(), 1.0)
    tails = [exponential_tail_probability(scores, 0.7, 1.0, v) for v in values]
    np.testing.assert_allclose(np.cumsum(mass), tails, rtol=1e-12)
    p = naive_softmax(scores, 0.7, 1.0)
    assert math.isclose(mass[2], p[0] + p[2], rel_tol=1e-12)


def test_expected_loss_against_the_definition_and_huge_scores():
    scores = np.array([5.0, 3.0, 3.0, -1.0])
    p = naive_softmax(scores, 0.9, 2.0)
    assert math.isclose(exponential_expected_loss(scores, 0.9, 2.0), float(p @ (5.0 - scores)))
    # Shifting every score by 1e12 changes nothing (no cancellation in OPT - E[u]).
    shifted = exponential_expected_loss(scores + 1e12, 0.9, 2.0)
    assert math.isclose(shifted, float(p @ (5.0 - scores)), rel_tol=1e-12)
