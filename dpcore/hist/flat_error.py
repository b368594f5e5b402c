"""Exact errors of flat Laplace (Dwork): each bin ``+ Lap(1/eps)``, so a range of length ``L``
has mean squared error ``2 L / eps^2``."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.workload import Workload, mean_range_length

FloatArray = NDArray[np.float64]


def flat_range_errors(eps: float, a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Dwork: ``2 (b - a + 1) / eps^2`` per range (independent ``Lap(1/eps)`` per bin)."""
    eps = _validate.positive("epsilon", eps)
    a_arr, b_arr = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(b, np.int64))
    return np.asarray(2.0 * (b_arr - a_arr + 1) / eps**2, dtype=np.float64)


def flat_expected_error(n: int, eps: float, workload: str | Workload = "uniform") -> float:
    """Dwork's mean range MSE over a workload: ``2 E[L] / eps^2``."""
    return 2.0 * mean_range_length(n, workload) / _validate.positive("epsilon", eps) ** 2
