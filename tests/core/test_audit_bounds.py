"""Audit arithmetic: Clopper–Pearson, the ε bound, exact ε, StatDP's test and the one-run bound.

Expected values come from scipy.stats computed here independently, from hand derivations,
or from the spec's worked examples (privacy auditing, sections 2, 3, 5 and 7).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import _validate
from dpcore.audit import bounds, exact, one_run, statdp
from dpcore.mechanisms import laplace_mechanism

E = math.e


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (500, 1000), (1, 1), (17, 40)])
@pytest.mark.parametrize("alpha", [0.025, 0.05, 0.2])
def test_clopper_pearson_equals_the_beta_quantiles(k, n, alpha):
    lo, hi = bounds.clopper_pearson(k, n, alpha)
    want_lo = 0.0 if k == 0 else stats.beta.ppf(alpha, k, n - k + 1)
    want_hi = 1.0 if k == n else stats.beta.ppf(1 - alpha, k + 1, n - k)
    assert float(lo) == pytest.approx(want_lo, rel=1e-10, abs=1e-14)
    assert float(hi) == pytest.approx(want_hi, rel=1e-10, abs=1e-14)


@pytest.mark.parametrize(("k", "n"), [(3, 10), (500, 1000), (17, 40)])
def test_clopper_pearson_bounds_have_tail_probability_alpha(k, n):
    """The definition: p_lo is where P[Bin(n, p) >= k] = alpha, p_hi where P[Bin <= k] = alpha."""
    lo, hi = bounds.clopper_pearson(k, n, 0.05)
    assert stats.binom.sf(k - 1, n, float(lo)) == pytest.approx(0.05, rel=1e-8)
    assert stats.binom.cdf(k, n, float(hi)) == pytest.approx(0.05, rel=1e-8)


def test_clopper_pearson_covers_at_least_its_level_exactly():
    """Exact coverage, by summing the binomial pmf over every k: P[p_lo > p] <= alpha."""
    n, alpha = 30, 0.05
    k = np.arange(n + 1)
    lo, hi = bounds.clopper_pearson(k, n, alpha)
    for p in np.linspace(0.01, 0.99, 37):
        pmf = stats.binom.pmf(k, n, p)
        assert pmf[lo > p].sum() <= alpha + 1e-12
        assert pmf[hi < p].sum() <= alpha + 1e-12


@pytest.mark.parametrize(
    ("n", "want"), [(1_000, 0.805), (2_000, 0.863), (5_000, 0.913), (10_000, 0.939),
                    (100_000, 0.981), (1_000_000, 0.994)],
)  # fmt: skip
def test_laplace_bound_at_t_1_matches_the_worked_example(n, want):
    """Spec section 7: 1 + Lap(1) against Lap(1), event y >= 1, counts rounded, 95 %."""
    k, k_prime = round(n * 0.5), round(n * 0.5 / E)
    got = float(bounds.epsilon_lower_bound(k, n, k_prime, n, alpha=0.05))
    assert got == pytest.approx(want, abs=5e-4)


def test_delta_lowers_the_bound_and_the_fpr_fnr_form_agrees():
    plain = float(bounds.epsilon_lower_bound(900, 1000, 100, 1000, alpha=0.05))
    with_delta = float(bounds.epsilon_lower_bound(900, 1000, 100, 1000, alpha=0.05, delta=0.1))
    lo = stats.beta.ppf(0.025, 900, 101)
    hi = stats.beta.ppf(0.975, 101, 900)
    assert plain == pytest.approx(math.log(lo / hi), rel=1e-10)
    assert with_delta == pytest.approx(math.log((lo - 0.1) / hi), rel=1e-10)
    # 100 of 1000 D' runs flagged, 100 of 1000 D runs not flagged: the same event
    assert bounds.fpr_fnr_epsilon(100, 1000, 100, 1000, alpha=0.05) == pytest.approx(plain)
    # a delta above p_lo gives no bound at all
    assert float(bounds.epsilon_lower_bound(5, 1000, 0, 1000, alpha=0.05, delta=0.5)) == -np.inf


def test_point_estimate_is_the_plain_log_ratio():
    assert bounds.point_estimate(30, 100, 10, 200) == pytest.approx(math.log(0.3 / 0.05))
    assert bounds.point_estimate(3, 10, 0, 10) == math.inf
    assert math.isnan(bounds.point_estimate(0, 10, 0, 10))


@pytest.mark.parametrize("p", [0.55, 0.75, 0.9, 0.999])
def test_exact_epsilon_of_randomized_response_is_ln_p_over_1_minus_p(p):
    assert exact.exact_epsilon([p, 1 - p], [1 - p, p]) == pytest.approx(math.log(p / (1 - p)))


def test_exact_epsilon_of_grr_and_unequal_supports():
    eps, k = 0.7, 5
    p = math.exp(eps) / (math.exp(eps) + k - 1)
    q = 1 / (math.exp(eps) + k - 1)
    channel = np.where(np.eye(k, dtype=bool), p, q)
    assert exact.exact_channel_epsilon(channel) == pytest.approx(eps)
    assert exact.exact_channel_epsilon(channel, [[0, 1]]) == pytest.approx(eps)
    assert exact.exact_epsilon([0.5, 0.5, 0.0], [0.5, 0.25, 0.25]) == math.inf
    # outputs impossible on both sides are skipped
    assert exact.exact_epsilon([0.5, 0.5, 0.0], [0.25, 0.75, 0.0]) == pytest.approx(math.log(2))


def test_exact_delta_by_hand():
    p, q = [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]
    # at eps = ln 2: forward (0.5 - 0.4) = 0.1; backward (0.5 - 0.4) = 0.1
    assert exact.exact_delta(p, q, math.log(2)) == pytest.approx(0.1)
    assert exact.exact_delta(p, q, math.log(2.5)) == 0.0
    assert exact.exact_delta(p, q, 0.0) == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("bad", "match"),
    [(([0.5, 0.6], [0.5, 0.5]), "pmf_d"), (([0.5, 0.5], [0.5, 0.4, 0.1]), "pmf_d_prime"),
     (([1.0, -0.0, np.nan], [1.0, 0.0, 0.0]), r"pmf_d\[2\]")],
)  # fmt: skip
def test_exact_rejects_non_distributions(bad, match):
    with pytest.raises(ValueError, match=match):
        exact.exact_epsilon(*bad)


def test_statdp_pvalue_equals_the_thinned_fisher_expectation_by_direct_sum():
    """Independent computation: the full sum over j with scipy's pmfs (no truncation)."""
    cx, cy, n, eps0 = 60, 25, 200, 0.4
    j = np.arange(cx + 1)
    direct = np.sum(
        stats.binom.pmf(j, cx, math.exp(-eps0)) * stats.hypergeom.sf(j - 1, 2 * n, n, j + cy)
    )
    got = statdp.statdp_pvalue(cx, cy, n, eps0)
    assert got >= direct - 1e-15 and got == pytest.approx(direct, abs=3e-14)
    sweep = statdp.statdp_sweep(cx, cy, n, [0.0, 0.2, 0.4, 0.8])
    assert np.all(np.diff(sweep) >= 0) and sweep[2] == pytest.approx(got)


@pytest.mark.parametrize(("n", "want"), [(2_000, 0.87), (5_000, 0.91), (10_000, 0.94)])
def test_statdp_on_laplace_matches_the_worked_example(n, want):
    """Spec section 3: Laplace at eps = 1, best event y >= 1, counts at their expectations.
    The spec rounds to two digits (and counts' rounding moves the third), hence 0.01."""
    got = statdp.statdp_lower_bound(round(n * 0.5), round(n * 0.5 / E), n)
    assert got == pytest.approx(want, abs=0.01)
    assert statdp.statdp_pvalue(round(n * 0.5), round(n * 0.5 / E), n, got) < 0.05


def test_statdp_test_is_valid_at_the_boundary_in_simulation():
    """Counts from p_x = e^eps0 p_y exactly: rejections of "eps0-DP" at 5 % must be rare.
    200 seeded draws; a valid test rejects at most 5 % in expectation, so more than 20
    rejections (binomial tail 1e-3 under 5 %) would show it invalid."""
    rng = np.random.default_rng(11)
    n, eps0, p_y = 400, 1.0, 0.15
    rejections = sum(
        statdp.statdp_pvalue(*sorted((rng.binomial(n, p_y * E), rng.binomial(n, p_y)))[::-1],
                             n, eps0) < 0.05
        for _ in range(200)
    )  # fmt: skip
    assert rejections <= 20


@pytest.mark.parametrize(
    ("m", "want"),
    [(100, 0.55), (500, 0.79), (1_000, 0.86), (2_000, 0.90), (5_000, 0.94), (10_000, 0.955),
     (100_000, 0.986)],
)  # fmt: skip
def test_one_run_bound_matches_the_worked_example(m, want):
    """Spec section 5: guess rate 1/2 + 1/(2e), precision e/(1 + e), counts rounded, 5 %."""
    r = round(m * (0.5 + 1 / (2 * E)))
    v = round(r * E / (1 + E))
    assert one_run.one_run_lower_bound(m, r, v) == pytest.approx(want, abs=0.006)


def test_one_run_guessing_every_canary_is_capped_near_ln_0697_over_0303():
    precision = 1 - 0.5 * math.exp(-0.5)  # P[y > 0.5 | in] = P[y < 0.5 | out]
    m = 10**6
    got = one_run.one_run_lower_bound(m, m, round(m * precision))
    cap = math.log(precision / (1 - precision))
    assert cap == pytest.approx(0.83, abs=0.005) and cap - 0.01 < got <= cap


def test_one_run_with_delta_only_lowers_the_bound_and_matches_the_formula():
    m, r, v, delta = 1000, 684, 500, 1e-6
    plain = one_run.one_run_lower_bound(m, r, v)
    with_delta = one_run.one_run_lower_bound(m, r, v, delta=delta)
    assert 0 < with_delta < plain
    # at the answer, the bound equals alpha: recompute the formula's second term directly
    q = 1 / (1 + math.exp(-with_delta))
    second = max(
        (stats.binom.cdf(v - 1, r, q) - stats.binom.cdf(v - 1 - i, r, q)) / i
        for i in range(1, v + 1)
    )
    assert stats.binom.sf(v - 1, r, q) + 2 * m * delta * second == pytest.approx(0.05, rel=1e-6)


def test_one_run_game_on_the_product_laplace_mechanism_stays_below_its_epsilon():
    """One seeded run of the canary game of spec section 5 with dpcore's Laplace mechanism
    at eps = 1 (5,000 canaries): the bound is valid at 95 % (<= 1) and near the 0.94 that
    expected counts give (the spread of one run is about 0.05)."""
    rng = np.random.default_rng(3)
    included = rng.random(5_000) < 0.5
    y = laplace_mechanism(included.astype(float), eps=1.0, sensitivity=1.0, rng=rng)
    guess_in, guess_out = y > 1.0, y < 0.0
    right = int(np.count_nonzero(included & guess_in) + np.count_nonzero(~included & guess_out))
    got = one_run.one_run_lower_bound(5_000, int(guess_in.sum() + guess_out.sum()), right)
    assert 0.8 < got <= 1.0
    by_scores = one_run.one_run_from_scores(
        included, y, guess_in=int(guess_in.sum()), guess_out=int(guess_out.sum())
    )
    assert by_scores == pytest.approx(got)


def test_the_fraction_and_generator_validators():
    assert _validate.fraction("a", 0.5) == 0.5
    assert _validate.fraction("delta", 0, open_low=False) == 0.0
    assert _validate.fraction("p", 1, open_high=False) == 1.0
    for bad in (0.0, 1.0, math.nan, math.inf, -0.1):
        with pytest.raises(ValueError, match=r"a must be a number in \(0, 1\)"):
            _validate.fraction("a", bad)
    for bad in (True, "0.5", None):
        with pytest.raises(TypeError, match="a must be a number"):
            _validate.fraction("a", bad)
    rng = np.random.default_rng(0)
    assert _validate.generator("rng", rng) is rng
    with pytest.raises(TypeError, match=r"rng must be a numpy\.random\.Generator"):
        _validate.generator("rng", np.random.RandomState(0))
