"""The empirical harness: query sampling, CI bookkeeping, and simulation vs closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from dpcore.hist import empirical, plans


def test_random_ranges_are_uniform_over_all_ranges() -> None:
    n, draws = 6, 42_000
    a, b = empirical.random_ranges(n, draws, np.random.default_rng(1))
    assert np.all((a >= 0) & (a <= b) & (b < n))
    index = {(int(x), int(y)): i for i, (x, y) in enumerate(zip(*np.triu_indices(n), strict=True))}
    observed = np.bincount([index[(int(x), int(y))] for x, y in zip(a, b, strict=True)])
    assert observed.size == n * (n + 1) // 2
    assert stats.chisquare(observed).pvalue > 0.001


def test_random_ranges_other_workloads() -> None:
    rng = np.random.default_rng(2)
    a, b = empirical.random_ranges(10, 500, rng, "length:4")
    assert np.all(b - a == 3) and a.min() >= 0 and b.max() <= 9
    a, b = empirical.random_ranges(10, 500, rng, "prefix")
    assert np.all(a == 0) and set(b.tolist()) == set(range(10))


def test_summaries_match_manual_computation() -> None:
    squared = np.array([[1.0, 4.0, 9.0], [3.0, 2.0, 5.0], [2.0, 6.0, 1.0]])
    result = empirical.EmpiricalErrors(
        np.array([0, 0, 2]), np.array([0, 1, 3]), squared, confidence=0.9
    )
    mse, half = result.per_query()
    np.testing.assert_allclose(mse, squared.mean(axis=0))
    t90 = stats.t.ppf(0.95, 2)
    np.testing.assert_allclose(half, t90 * squared.std(axis=0, ddof=1) / np.sqrt(3))
    lengths, by_len, _ = result.by_length()
    np.testing.assert_array_equal(lengths, [1, 2])
    np.testing.assert_allclose(by_len, [squared[:, 0].mean(), squared[:, 1:].mean()])
    overall, overall_half = result.overall()
    per_release = squared.mean(axis=1)
    assert overall == pytest.approx(per_release.mean())
    assert overall_half == pytest.approx(t90 * per_release.std(ddof=1) / np.sqrt(3))


def test_seeded_runs_repeat_and_progress_reports() -> None:
    plan = plans.prepare("boost", 50, 1.0)
    counts = np.arange(50.0)
    a, b = empirical.random_ranges(50, 20, np.random.default_rng(3))
    seen: list[float] = []
    first = empirical.simulate_range_errors(
        plan, counts, a, b, releases=25, rng=np.random.default_rng(4), progress=seen.append
    )
    again = empirical.simulate_range_errors(
        plan, counts, a, b, releases=25, rng=np.random.default_rng(4)
    )
    np.testing.assert_array_equal(first.squared_errors, again.squared_errors)
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) == 3


@pytest.mark.slow
@pytest.mark.parametrize("key", list(plans.ALGORITHMS))
def test_simulation_agrees_with_closed_form_per_length_and_overall(key: str) -> None:
    """Every algorithm at n = 1000 (Privelet padded to 1024): exact inside ~4 standard errors.

    Per range length (2^0..2^9, 40 ranges each) and overall, 300 releases,
    fixed seed; the band is twice the 95% half-width.
    """
    n = 1000
    rng = np.random.default_rng(list(plans.ALGORITHMS).index(key))
    counts = rng.integers(0, 50, n).astype(float)
    plan = plans.prepare(key, n, 0.5)
    starts, ends = [], []
    for k in range(10):
        a, b = empirical.random_ranges(n, 40, rng, f"length:{2**k}")
        starts.append(a)
        ends.append(b)
    a, b = np.concatenate(starts), np.concatenate(ends)
    result = empirical.simulate_range_errors(plan, counts, a, b, releases=300, rng=rng)
    exact = plans.plan_range_errors(plan, a, b)
    lengths, mse, half = result.by_length()
    for length, m, h in zip(lengths, mse, half, strict=True):
        expected = exact[(b - a + 1) == length].mean()
        assert abs(m - expected) < 2 * h, (key, length, m, expected, h)
    overall, overall_half = result.overall()
    assert abs(overall - exact.mean()) < 2 * overall_half


@pytest.mark.slow
def test_workload_simulation_matches_exact_average_for_privelet_table2() -> None:
    """The seed's table 2 at N = 2^6: every range, 400 releases, eq. 16 inside the band."""
    n = 64
    plan = plans.prepare("privelet", n, 1.0)
    mean, half = empirical.simulate_workload_error(
        plan, np.zeros(n), releases=400, rng=np.random.default_rng(6)
    )
    assert abs(mean - plans.plan_expected_error(plan)) < 2 * half


@pytest.mark.slow
@pytest.mark.parametrize("key", ["boost", "privelet", "binary_raw"])
def test_sampled_workload_simulation_covers_the_exact_average(key: str) -> None:
    """Fresh random ranges per release: the interval covers the all-range average."""
    n = 300
    plan = plans.prepare(key, n, 1.0)
    mean, half = empirical.simulate_workload_error(
        plan, np.ones(n), releases=200, sample=100, rng=np.random.default_rng(8)
    )
    assert abs(mean - plans.plan_expected_error(plan)) < 2 * half


def test_bad_parameters_raise() -> None:
    plan = plans.prepare("dwork", 10, 1.0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="counts"):
        empirical.simulate_range_errors(plan, np.ones(9), [0], [1], releases=2, rng=rng)
    with pytest.raises(ValueError, match="release"):
        empirical.simulate_range_errors(plan, np.ones(10), [0], [1], releases=0, rng=rng)
    with pytest.raises(ValueError, match="ranges"):
        empirical.simulate_range_errors(plan, np.ones(10), [0], [10], releases=2, rng=rng)
    with pytest.raises(ValueError, match="confidence"):
        empirical.simulate_range_errors(
            plan, np.ones(10), [0], [1], releases=2, rng=rng, confidence=1.0
        )
    with pytest.raises(ValueError, match="count"):
        empirical.random_ranges(10, 0, rng)
