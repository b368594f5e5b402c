"""Exact errors of flat Laplace (Dwork): each bin ``+ Lap(1/eps)``, so a range of length ``L``
has mean squared error ``2 L / eps^2``."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from dpcore import _validate
from dpcore.hist.workload import Workload, mean_range_length

FloatArray = NDArray[np.float64]


def flat_range_errors(eps: float, a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Dwork: ``2 (b - a + 1) / eps^2`` per range (independent ``Lap(1/eps)`` per bin).

    Parameters
    ----------
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive; not checked against a bin count),
        broadcast together.

    Returns
    -------
    ndarray of float64
        MSE per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number in ``[1e-300, inf)``, or ``a`` and ``b`` do not
        broadcast.
    """
    eps = _validate.positive("epsilon", eps)
    a_arr, b_arr = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(b, np.int64))
    return np.asarray(2.0 * (b_arr - a_arr + 1) / eps**2, dtype=np.float64)


def flat_range_mean_abs(eps: float, a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Dwork: the exact mean absolute error ``E|sum of L iid Lap(1/eps)|`` per range.

    .. math:: \\mathrm{E}\\,\\Bigl|\\sum_{i=1}^{L} \\mathrm{Lap}(s)\\Bigr|
              = \\frac{2 s\\, \\Gamma(L + 1/2)}{\\sqrt{\\pi}\\, \\Gamma(L)},
              \\qquad s = 1/\\varepsilon ,

    since ``Lap(s) = s (E_1 - E_2)`` with independent standard exponentials, so the sum is
    ``s (G_1 - G_2)`` with independent ``Gamma(L, 1)``, whose mean absolute difference
    (Gini's mean difference of the gamma law) is ``2 Γ(L + 1/2) / (√π Γ(L))``. It is ``s``
    for one bin and tends to the normal ``sqrt(2/π · 2 L s²)`` as ``L`` grows (12.8% above
    the exact value at ``L = 1``).

    Parameters
    ----------
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive; not checked against a bin count),
        broadcast together.

    Returns
    -------
    ndarray of float64
        Mean absolute error per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number in ``[1e-300, inf)``, or ``a`` and ``b`` do not
        broadcast.

    Examples
    --------
    >>> flat_range_mean_abs(2.0, [0, 0], [0, 1])  # one bin: E|Lap(s)| = s; two: 3s/2
    array([0.5 , 0.75])
    """
    eps = _validate.positive("epsilon", eps)
    a_arr, b_arr = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(b, np.int64))
    length = (b_arr - a_arr + 1).astype(np.float64)
    ratio = np.exp(special.gammaln(length + 0.5) - special.gammaln(length))
    return np.asarray(2.0 / eps * ratio / np.sqrt(np.pi), dtype=np.float64)


def flat_expected_error(n: int, eps: float, workload: str | Workload = "uniform") -> float:
    """Dwork's mean range MSE over a workload: ``2 E[L] / eps^2``.

    Parameters
    ----------
    n : int
        Number of bins.
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    float
        Mean MSE over the workload's ranges.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins or ``eps`` is not a finite number in
        ``[1e-300, inf)``.
    """
    return 2.0 * mean_range_length(n, workload) / _validate.positive("epsilon", eps) ** 2
