"""Projected L-BFGS over x >= 0 against scipy's non-negative least squares (an active-set
method, exact up to rounding) on small problems whose solution has entries at the bound."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize

from dpcore.hist import nonnegative_lbfgs


@pytest.mark.parametrize("seed", (0, 1, 2))
def test_minimise_matches_nonnegative_least_squares(seed):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(30, 12))
    b = rng.normal(size=30)
    expected, _ = scipy.optimize.nnls(a, b)
    assert np.any(expected == 0) and np.any(expected > 0)  # the bound is active somewhere

    def fun(x):
        r = a @ x - b
        return float(r @ r), 2.0 * (a.T @ r)

    steps = []
    found = nonnegative_lbfgs.minimise(fun, rng.random(12), 500, lambda: steps.append(1))
    assert np.all(found >= 0)
    np.testing.assert_allclose(found, expected, atol=1e-6)
    assert 0 < len(steps) <= 500


def test_minimise_stops_after_max_iter():
    steps = []
    x = nonnegative_lbfgs.minimise(
        lambda x: (float(np.sum((x - 3.0) ** 2)), 2.0 * (x - 3.0)),
        np.zeros(4),
        2,
        lambda: steps.append(1),
    )
    assert len(steps) <= 2 and np.all(x >= 0)
