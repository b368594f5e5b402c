"""Numerics behind the papers' experiments that need more than one closed form at a time.

* :func:`privelet_table2`: Table 2 of Wu, Chen, Cai and Wang (2018): the
  average MSE over every range of ``N = 2^m`` bins, by their eq. 16 (exact),
  eq. 17 (the asymptote the paper prints as "theory") and simulation.
* :func:`fanout_sweep`: the exact expected error of ``k``-ary trees for a run
  of fan-outs, raw and after BLUE, under uniform, per-level and per-node
  budgets (the LUE-DPTree chapter's choice ``k*`` answers it for uniform raw
  trees only).

Simulations score *every* range of each release in ``O(N)`` with the
prefix-sum identity of :func:`all_ranges_mean_squared_error`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from dpcore import _validate
from dpcore.hist import (
    blue_error,
    budget,
    coverage,
    privelet,
    privelet_error,
    raw_error,
)
from dpcore.hist.budget import BUDGET_RULES, BudgetRule
from dpcore.hist.tree import kary_tree
from dpcore.hist.workload import Workload

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def all_ranges_mean_squared_error(bin_errors: ArrayLike) -> FloatArray:
    """Mean over all ``n(n+1)/2`` ranges of the squared range error, per row, in ``O(n)``.

    With prefix sums ``P_0 = 0, P_1, .., P_n`` of the bin errors, a range's
    error is ``P_r - P_l`` (``l < r``), and

    .. math:: \\sum_{0 \\le l < r \\le n} (P_r - P_l)^2
              = (n + 1) \\sum_i P_i^2 - \\Big(\\sum_i P_i\\Big)^2 .

    Parameters
    ----------
    bin_errors : array_like of float, shape (n,) or (T, n)
        Error of every bin, one row per release.

    Returns
    -------
    ndarray of float64, shape (T,)
        Mean squared range error per row (``T = 1`` for one vector).

    Examples
    --------
    >>> float(all_ranges_mean_squared_error([1.0, -1.0])[0])  # ranges: 1, -1, 0
    0.6666666666666666
    """
    e = np.atleast_2d(np.asarray(bin_errors, dtype=np.float64))
    n = e.shape[-1]
    prefix = np.zeros((e.shape[0], n + 1))
    np.cumsum(e, axis=-1, out=prefix[:, 1:])
    total = (n + 1) * (prefix**2).sum(axis=-1) - prefix.sum(axis=-1) ** 2
    return np.asarray(total / (n * (n + 1) / 2), dtype=np.float64)


def _mean_and_half_width(samples: FloatArray, confidence: float) -> tuple[float, float]:
    t = samples.size
    if t < 2:
        return float(samples.mean()), float("nan")
    q = stats.t.ppf(0.5 + confidence / 2, t - 1)
    return float(samples.mean()), float(q * samples.std(ddof=1) / np.sqrt(t))


@dataclass(frozen=True)
class PriveletTable2:
    """Average range MSE of Privelet on ``N = 2^m`` bins: eq. 16, eq. 17 and simulated.

    ``simulated`` and ``ci`` (95% half-width over releases) are NaN where not simulated.

    Attributes
    ----------
    m : ndarray of int64, shape (k,)
        ``log2 N`` per row.
    eq16, eq17 : ndarray of float64, shape (k,)
        Average range MSE by eq. 16 (exact) and eq. 17 (asymptotic).
    simulated, ci : ndarray of float64, shape (k,)
        Simulated average and its confidence half-width (NaN where not simulated).
    """

    m: IntArray
    eq16: FloatArray
    eq17: FloatArray
    simulated: FloatArray
    ci: FloatArray

    @property
    def difference(self) -> FloatArray:
        """``eq17 - eq16``: what the paper's asymptotic "theory" column is off by."""
        return np.asarray(self.eq17 - self.eq16, dtype=np.float64)


def privelet_table2(
    ms: ArrayLike,
    eps: float,
    *,
    releases: int,
    rng: np.random.Generator,
    simulate_up_to: int,
    confidence: float = 0.95,
) -> PriveletTable2:
    """Table 2 of Wu et al. (2018): every range of ``N = 2^m`` bins, ``MSE = 2(m+1)²/ε² · c̄``.

    ``c̄`` is eq. 16 (exact, :func:`dpcore.hist.privelet_error.average_error_coefficient`)
    or eq. 17 (``m/6 + 1/36``); the simulation releases ``N`` zero bins
    ``releases`` times for each ``m <= simulate_up_to`` and scores every range
    (errors do not depend on the data: the mechanism is linear and unbiased).

    Parameters
    ----------
    ms : array_like of int
        ``m`` values, each in ``[0, 30]``.
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    releases : int
        Releases per simulated ``m`` (``>= 1``).
    rng : numpy.random.Generator
        Source of the noise.
    simulate_up_to : int
        Largest ``m`` simulated.
    confidence : float, default 0.95
        Confidence level of ``ci``, in ``(0, 1)``.

    Returns
    -------
    PriveletTable2
        One row per ``m``, in the given order.

    Raises
    ------
    ValueError
        If an ``m`` is outside ``[0, 30]``, ``releases`` is not a whole number ``>= 1``, or
        (``ms`` non-empty) ``eps`` is not a finite number in ``[1e-300, inf)``.

    Examples
    --------
    >>> t = privelet_table2([0], 1.0, releases=2, rng=np.random.default_rng(0), simulate_up_to=-1)
    >>> float(t.eq16[0]), round(float(t.eq17[0]), 4)  # at m = 0: 2.0 vs 0.0556
    (2.0, 0.0556)
    """
    m = np.asarray(ms, dtype=np.int64).ravel()
    if m.size and (m.min() < 0 or m.max() > 30):
        raise ValueError("m must be in 0..30")
    releases = _validate.whole("releases", releases)
    sizes = [2 ** int(k) for k in m]
    scale = np.array([privelet.noise_variance(size, eps) for size in sizes])
    eq16 = scale * np.array([privelet_error.average_error_coefficient(size) for size in sizes])
    eq17 = scale * np.array(
        [privelet_error.asymptotic_average_error_coefficient(size) for size in sizes]
    )
    simulated = np.full(m.size, np.nan)
    ci = np.full(m.size, np.nan)
    for i, k in enumerate(m):
        if k <= simulate_up_to:
            estimates = privelet.release(np.zeros(2**k), eps, rng=rng, releases=releases)
            simulated[i], ci[i] = _mean_and_half_width(
                all_ranges_mean_squared_error(estimates), confidence
            )
    return PriveletTable2(m, eq16, eq17, simulated, ci)


@dataclass(frozen=True)
class FanoutSweep:
    """Exact expected range MSE of ``k``-ary trees: ``errors[(rule, blue)][i]`` at ``ks[i]``.

    Attributes
    ----------
    n : int
        Number of bins.
    ks : ndarray of int64, shape (k,)
        Fan-outs.
    heights : ndarray of int64, shape (k,)
        Height Δ of each ``k``-ary tree.
    errors : dict of (str, bool) to ndarray of float64, shape (k,)
        Mean range MSE per budget rule and BLUE flag.
    """

    n: int
    ks: IntArray
    heights: IntArray
    errors: dict[tuple[BudgetRule, bool], FloatArray]


def fanout_sweep(
    n: int, eps: float, ks: ArrayLike, workload: str | Workload = "uniform"
) -> FanoutSweep:
    """Exact expected error of the ``k``-ary tree over ``n`` bins for every ``k`` in ``ks``.

    Per-level and per-node budgets are optimal for the *raw* tree's error
    (LUE-DPTree conclusion 3.5); the BLUE columns apply consistency on top of them.

    Parameters
    ----------
    n : int
        Number of bins (``>= 2``).
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    ks : array_like of int
        Fan-outs, each ``>= 2``, at least one.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    FanoutSweep
        Errors for every rule of :data:`dpcore.hist.budget.BUDGET_RULES`, raw and BLUE.

    Raises
    ------
    ValueError
        If ``n < 2``, ``ks`` is empty or holds a ``k < 2``, ``eps`` is not a finite number
        in ``[1e-300, inf)``, or ``workload`` is invalid for ``n`` bins.

    Examples
    --------
    >>> s = fanout_sweep(4, 1.0, [2])  # LUE-DPTree example 5: complete binary, eps/3
    >>> round(float(s.errors[("uniform", False)][0]), 6)
    23.4
    """
    k_arr = np.asarray(ks, dtype=np.int64).ravel()
    if n < 2 or k_arr.size == 0 or k_arr.min() < 2:
        raise ValueError("need n >= 2 and fan-outs k >= 2")
    out: dict[tuple[BudgetRule, bool], FloatArray] = {
        (rule, blue): np.empty(k_arr.size) for rule in BUDGET_RULES for blue in (False, True)
    }
    heights = np.empty(k_arr.size, dtype=np.int64)
    for i, k in enumerate(k_arr):
        shape = kary_tree(n, int(k))
        heights[i] = shape.height
        p = coverage.coverage_probabilities(shape, workload)
        for rule in BUDGET_RULES:
            eps_x = budget.allocate(rule, shape, eps, p)
            out[(rule, False)][i] = raw_error.raw_expected_error(shape, eps_x, workload)
            out[(rule, True)][i] = blue_error.blue_expected_error(shape, eps_x, workload)
    return FanoutSweep(n, k_arr, heights, out)
