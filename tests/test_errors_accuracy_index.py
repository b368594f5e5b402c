"""The O(lb^3 N) accuracy index: finite-N ratios and their extrapolation to the seed's values."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import accuracy_index as ai
from dpcore import errors


def test_ratio_is_lb3_over_the_exact_average_coefficient() -> None:
    for key in errors.ALGORITHMS:
        plan = errors.prepare(key, 2**6, 1.0)
        expected = 6**3 / (errors.plan_expected_error(plan) / 2)
        assert ai.lb3_ratio(key, 6) == pytest.approx(expected)


def test_privelet_ratio_follows_eq17_for_large_n() -> None:
    for m in (30, 100, 1000):
        asymptotic = m**3 / ((m + 1) ** 2 * (m / 6 + 1 / 36))
        assert ai.lb3_ratio("privelet", m) == pytest.approx(asymptotic, rel=1e-9)


def test_extrapolation_recovers_a_known_expansion() -> None:
    ms = np.arange(5, 15)
    ratios = 4.0 - 3.0 / ms + 7.0 / ms**2
    assert ai.extrapolated_index(ms, ratios) == pytest.approx(4.0, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("key", "tolerance"), [("binary_raw", 0.02), ("boost", 0.06), ("privelet", 0.04)]
)
def test_extrapolated_indices_approach_the_seed_values(key: str, tolerance: float) -> None:
    """From exact ratios at N = 2^8..2^18 (ratios still 1-20% off the limit there)."""
    ms = np.arange(8, 19)
    ratios = ai.ratio_curve(key, ms)
    assert ai.extrapolated_index(ms, ratios) == pytest.approx(ai.SEED_INDEX[key], abs=tolerance)
    # the raw finite-N ratio approaches from one side, monotonically for the last points
    gaps = np.abs(ratios - ai.SEED_INDEX[key])
    assert gaps[-1] < gaps[-4]


def test_flat_laplace_has_index_zero() -> None:
    ratios = ai.ratio_curve("dwork", [10, 20, 40])
    assert np.all(np.diff(ratios) < 0) and ratios[-1] < 1e-6


def test_bad_parameters_raise() -> None:
    with pytest.raises(ValueError, match="m must"):
        ai.lb3_coefficient("boost", -1)
    with pytest.raises(ValueError, match="tree algorithms"):
        ai.lb3_coefficient("boost", 40)
    with pytest.raises(ValueError, match="points"):
        ai.extrapolated_index([1, 2], [1.0, 2.0])
