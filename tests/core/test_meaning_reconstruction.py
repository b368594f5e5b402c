"""Reconstruction from noisy subset sums: least squares with rounding against a brute-force
decoder (all 2^n bit vectors, the one closest in L2 to the answers) at small n, and the
DP answers leaving the attacker near chance."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpcore.meaning import reconstruction as rec


def brute_force(queries: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """The bit vector whose subset sums are closest in L2 to the answers, by enumeration."""
    n = queries.shape[1]
    every = np.array(list(itertools.product((0.0, 1.0), repeat=n)))  # (2^n, n)
    distance = ((queries @ every.T - answers[:, None]) ** 2).sum(axis=0)
    return every[int(np.argmin(distance))]


@pytest.mark.parametrize("n", [8, 12])
def test_exact_and_small_noise_answers_give_the_brute_force_decoders_answer(n):
    rng = np.random.default_rng(n)
    s = rec.secret(n, 4 * n, rng)
    for scale in (0.0, 0.02 * math.sqrt(n)):
        a = s.answers([scale], rng)[:, 0]
        ours = rec.least_squares(s.queries, a)
        assert np.array_equal(ours, brute_force(s.queries, a))
        assert np.array_equal(ours, s.bits)


@pytest.mark.parametrize("n", [10, 12])
def test_recovery_rate_tracks_the_brute_force_decoder_across_noise(n):
    rng = np.random.default_rng(100 + n)
    trials = 40
    for ratio in (0.1, 0.5, 2.0):
        ours, best = [], []
        for _ in range(trials):
            s = rec.secret(n, 4 * n, rng)
            a = s.answers([ratio * math.sqrt(n)], rng)[:, 0]
            ours.append(rec.recovered(s, rec.least_squares(s.queries, a))[0])
            best.append(np.mean(brute_force(s.queries, a) == s.bits))
        # the decoders differ only by rounding a continuous solution vs the L2-nearest
        # vertex: their average rates stay within 0.1 of each other
        assert abs(np.mean(ours) - np.mean(best)) < 0.1, (ratio, np.mean(ours), np.mean(best))
        if ratio <= 0.1:
            assert np.mean(ours) > 0.97 and np.mean(best) > 0.97


def test_least_squares_solves_the_normal_equations():
    rng = np.random.default_rng(3)
    s = rec.secret(40, 160, rng)
    a = s.answers([1.0, 5.0], rng)
    direct = np.linalg.solve(s.queries.T @ s.queries, s.queries.T @ a)
    assert np.array_equal(rec.least_squares(s.queries, a), (direct >= 0.5).astype(float))


def test_dp_answers_leave_the_attacker_near_chance():
    n, eps = 256, 1.0
    m = 4 * n
    rng = np.random.default_rng(5)
    _, rates = rec.attack_curve(n, m, [0.05 * math.sqrt(n), rec.dp_scale(m, eps)], rng)
    assert rates[0] == 1.0
    # chance: Binomial(n, ½) / n; 99.9% two-sided interval
    lo, hi = stats.binom.ppf([0.0005, 0.9995], n, 0.5) / n
    assert lo <= rates[1] <= hi
    assert rec.dp_scale(m, eps) == m / eps


def test_bad_inputs_say_what_is_accepted():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="bits n"):
        rec.secret(rec.MAX_BITS + 1, 4 * rec.MAX_BITS, rng)
    with pytest.raises(ValueError, match="queries m"):
        rec.secret(16, 8, rng)
    with pytest.raises(ValueError, match="noise scales"):
        rec.secret(16, 16, rng).answers([-1.0], rng)
