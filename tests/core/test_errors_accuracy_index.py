"""The O(lb^3 N) accuracy index: finite-N ratios, and limits only where a form is justified."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.hist import accuracy_index as ai
from dpcore.hist import plans


def test_ratio_is_lb3_over_the_exact_average_coefficient() -> None:
    for key in plans.ALGORITHMS:
        plan = plans.prepare(key, 2**6, 1.0)
        expected = 6**3 / (plans.plan_expected_error(plan) / 2)
        assert ai.lb3_ratio(key, 6) == pytest.approx(expected)


def test_privelet_ratio_follows_eq17_for_large_n() -> None:
    for m in (30, 100, 1000):
        asymptotic = m**3 / ((m + 1) ** 2 * (m / 6 + 1 / 36))
        assert ai.lb3_ratio("privelet", m) == pytest.approx(asymptotic, rel=1e-9)


def test_cubic_fit_recovers_a_known_cubic() -> None:
    ms = np.arange(5, 12)
    coefficients = 0.25 * ms**3 - 2.0 * ms**2 + 3.0 * ms + 7.0
    np.testing.assert_allclose(ai.cubic_fit(ms, coefficients), [0.25, -2.0, 3.0, 7.0], atol=1e-9)


def test_every_offered_algorithm_has_a_stated_form() -> None:
    for key in plans.ALGORITHMS:
        form = ai.limit_form(key)
        assert form.kind != "unknown" or "Not fitted" in form.reason
        assert form.reason


def test_flat_laplace_is_labelled_zero_and_not_fitted() -> None:
    ms = np.arange(1, 17)
    f = ai.coefficient_curve("dwork", ms)
    np.testing.assert_allclose(f, (2.0**ms + 2) / 3)  # E[L] = (N + 2) / 3
    est = ai.estimate_index("dwork", ms, f)
    assert est.kind == "zero" and est.limit == 0.0 and np.isnan(est.value) and est.fit is None
    assert "→ 0" in est.note


@pytest.mark.parametrize(("key", "paper"), [("binary_raw", 1.0), ("boost", 6.0), ("privelet", 6.0)])
def test_cubic_limits_at_2_to_16_land_on_the_papers_indices(key: str, paper: float) -> None:
    """Exact ratios at 2^16 are still 1-20% off; the cubic limits are within 1% of the paper."""
    ms = np.arange(1, 17)
    est = ai.estimate_index(key, ms, ai.coefficient_curve(key, ms))
    assert est.reliable and est.value == pytest.approx(paper, rel=0.01)
    assert est.low <= est.value <= est.high and (est.high - est.low) / est.value <= 0.02
    assert abs(est.value - paper) < abs(ms[-1] ** 3 / ai.lb3_coefficient(key, 16) - paper)


def test_too_few_m_are_never_fitted() -> None:
    """The issue's case: largest m = 6 used to fit 3 points and print nonsense."""
    ms = np.arange(1, 7)
    for key in ("binary_raw", "boost", "privelet"):
        est = ai.estimate_index(key, ms, ai.coefficient_curve(key, ms))
        assert not est.reliable and np.isnan(est.value) and "≥ 12" in est.note


def test_struct_construct_trees_and_boost_un_are_not_fitted() -> None:
    ms = np.arange(1, 13)
    for key in ("sc_raw", "sc_tree", "lue_dptree", "boost_un"):
        est = ai.estimate_index(key, ms, ai.coefficient_curve(key, ms))
        assert not est.reliable and np.isnan(est.value) and "ot fitted" in est.note


def test_fits_that_disagree_across_windows_are_withheld() -> None:
    ms = np.arange(1, 17)
    wobbly = ms**3 / 6.0 * (1.0 + 0.001 * (-1.0) ** ms)  # 0.1% off a cubic: windows disagree
    est = ai.estimate_index("boost", ms, wobbly)
    assert not est.reliable and np.isnan(est.value) and "disagree by" in est.note
    assert est.high - est.low > 0.02 * 6


def test_boost_un_ratio_is_above_boost_at_every_m() -> None:
    """The stated reason for Boost-UN: its ratio exceeds Boost's at every m computed."""
    ms = np.arange(2, 15)
    assert np.all(ai.ratio_curve("boost_un", ms) > ai.ratio_curve("boost", ms))


def test_bad_parameters_raise() -> None:
    with pytest.raises(ValueError, match="m must"):
        ai.lb3_coefficient("boost", -1)
    with pytest.raises(ValueError, match="tree algorithms"):
        ai.lb3_coefficient("boost", 40)
    with pytest.raises(ValueError, match="5 points"):
        ai.cubic_fit([1, 2], [1.0, 2.0])
