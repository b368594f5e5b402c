"""How sure a ranking is: probability best and the algorithms within noise of the leader."""

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import gamma

from dpcore.algorithms.ranking import (
    DRAWS,
    control_variate_mean,
    likely_best,
    probability_best,
    within_noise,
)

TOLERANCE = 4 * 0.5 / np.sqrt(DRAWS)
"""Four standard deviations of a share of DRAWS draws (at most 0.5 / √DRAWS each)."""


def two_way(m1: float, s1: float, m2: float, s2: float, dof: int, dof2: int = 0) -> float:
    """P(m1 + s1 T1 < m2 + s2 T2) for independent Student t's (``dof`` and ``dof2``, the same
    when 0), by numerical integration over T1 of the chance that T2 lies above the crossing
    point."""
    t1, t2 = stats.t(dof), stats.t(dof2 or dof)
    value, _ = integrate.quad(lambda u: t1.pdf(u) * t2.sf((m1 + s1 * u - m2) / s2), -np.inf, np.inf)
    return value


@pytest.mark.parametrize(
    ("m1", "s1", "m2", "s2", "trials"),
    [(1.0, 0.3, 1.2, 0.2, 3), (1.0, 0.05, 1.1, 0.05, 20), (2.0, 1.0, 1.0, 0.5, 5)],
)
def test_two_algorithms_match_the_integral(m1, s1, m2, s2, trials):
    p = probability_best([m1, m2], [s1, s2], trials, np.random.default_rng(1))
    expected = two_way(m1, s1, m2, s2, trials - 1)
    assert p[0] == pytest.approx(expected, abs=TOLERANCE)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


def test_trials_per_algorithm_give_each_its_own_t():
    """A leader raced on to 24 trials against one dropped after 3: each mean is drawn from
    its own t (23 and 2 degrees of freedom), which the integral checks."""
    p = probability_best([1.0, 1.3], [0.1, 0.3], [24, 3], np.random.default_rng(5))
    assert p[0] == pytest.approx(two_way(1.0, 0.1, 1.3, 0.3, 23, 2), abs=TOLERANCE)
    # and not the single-t answer of either count (the test can fail)
    assert abs(two_way(1.0, 0.1, 1.3, 0.3, 2) - two_way(1.0, 0.1, 1.3, 0.3, 23, 2)) > TOLERANCE


def test_an_exact_value_against_a_mean_is_the_t_tail():
    """Exact 1.0 against a mean of 1.5 with standard error 0.25 over 4 trials: the mean's
    draw is below 1.0 with probability P(T3 < -2)."""
    p = probability_best([1.5, 1.0], [0.25, 0.0], 4, np.random.default_rng(2))
    assert p[0] == pytest.approx(stats.t(3).cdf(-2.0), abs=TOLERANCE)


def test_probabilities_sum_to_one_for_many_algorithms():
    rng = np.random.default_rng(3)
    means = rng.uniform(0.5, 2.0, 13)
    p = probability_best(means, rng.uniform(0.0, 0.4, 13), 3, rng)
    assert p.shape == (13,) and (p >= 0).all() and p.sum() == pytest.approx(1.0, abs=1e-12)


def test_bad_input_says_what_is_accepted():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="trials must be a whole number >= 2"):
        probability_best([1.0, 2.0], [0.1, 0.1], 1, rng)
    with pytest.raises(ValueError, match="finite numbers >= 0"):
        probability_best([1.0, 2.0], [0.1, -0.1], 3, rng)
    with pytest.raises(ValueError, match="at least one"):
        within_noise([], [])


def test_within_noise_is_overlap_with_the_leaders_interval():
    """By hand: the leader B [0.75, 1.25]; A [1.1, 1.9] overlaps it, C [1.3, 1.5] does not,
    D touches it at 1.25 (counted), E is exact at 1.0 (inside)."""
    means = [1.5, 1.0, 1.4, 1.75, 1.0]
    half = [0.4, 0.25, 0.1, 0.5, 0.0]
    assert within_noise(means, half).tolist() == [True, True, False, True, True]


def test_within_noise_matches_pairwise_overlap_by_brute_force():
    rng = np.random.default_rng(4)
    for _ in range(50):
        means, half = rng.uniform(0, 1, 6), rng.uniform(0, 0.3, 6)
        lead = np.argmin(means)
        brute = [
            max(means[i] - half[i], means[lead] - half[lead])
            <= min(means[i] + half[i], means[lead] + half[lead])
            for i in range(6)
        ]
        assert within_noise(means, half).tolist() == brute


def test_the_control_variate_interval_covers_the_mean_95_percent_of_the_time():
    """Simulation: |Laplace sums| (the absolute error of a range) with their squares as the
    control, whose mean (the MSE) is known. Over 2,000 repetitions of 10 trials, the 95%
    t interval of the corrected mean covers the true E|X| in 95% ± 2.2% (4.5 binomial
    standard deviations) of them, and it is narrower than the plain mean's on average."""
    rng = np.random.default_rng(7)
    scale, terms, k, reps = 1.0, 4, 10, 2000
    mse = 2 * scale**2 * terms
    # the true E|sum of 4 Lap(1)| = 2 Γ(4.5) / (√π Γ(4)), the flat closed form
    truth = 2 * scale * gamma(terms + 0.5) / (np.sqrt(np.pi) * gamma(terms))
    covered, narrower = 0, 0
    for _ in range(reps):
        x = rng.laplace(0, scale, size=(k, 50, terms)).sum(axis=2)  # 50 queries per trial
        values, controls = np.abs(x).mean(axis=1), (x**2).mean(axis=1)
        mean, se, dof = control_variate_mean(values, controls, mse)
        covered += abs(mean - truth) <= stats.t.ppf(0.975, dof) * se
        narrower += stats.t.ppf(0.975, dof) * se < stats.t.ppf(0.975, k - 1) * values.std(
            ddof=1
        ) / np.sqrt(k)
    assert abs(covered / reps - 0.95) <= 4.5 * np.sqrt(0.95 * 0.05 / reps)
    assert narrower / reps > 0.9


def test_a_control_variate_needs_three_trials():
    with pytest.raises(ValueError, match="at least 3 trials"):
        control_variate_mean([1.0, 2.0], [1.0, 2.0], 1.5)


def test_likely_best_is_the_smallest_set_reaching_the_level_by_brute_force():
    """Every subset enumerated: the chosen set reaches 95% and no smaller subset does."""
    rng = np.random.default_rng(8)
    for _ in range(200):
        p = rng.dirichlet(np.full(6, rng.uniform(0.1, 2.0)))
        chosen = likely_best(p)
        assert p[chosen].sum() >= 0.95 - 1e-12
        smallest = min(
            bin(mask).count("1")
            for mask in range(1, 64)
            if p[[i for i in range(6) if mask >> i & 1]].sum() >= 0.95 - 1e-12
        )
        assert chosen.sum() == smallest
