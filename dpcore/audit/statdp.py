"""StatDP's hypothesis test of "the mechanism is ε0-DP", swept over ε0.

Ding, Wang, Wang, Zhang, Kifer, "Detecting violations of differential privacy", CCS 2018.
With ``n`` runs on each neighbour, ``c_x`` runs on the favoured side and ``c_y`` on the
other in the event, thinning ``c_x`` by ``e^{-ε0}`` turns Fisher's exact test of equal
proportions into a conservative test of :math:`p_x \\le e^{\\varepsilon_0} p_y`. StatDP
averages the thinned test over 200 random draws; here the expectation is computed exactly,

.. math:: \\text{pvalue}(\\varepsilon_0) = \\sum_j \\mathrm{Binom}(j;\\ c_x, e^{-\\varepsilon_0})\\,
          P[\\mathrm{Hypergeom}(2n, n, j + c_y) \\ge j],

which is deterministic and non-decreasing in ε0, so the largest ε0 it rejects is a lower
bound on ε with confidence ``1 - alpha`` — once the event was chosen on other runs.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from dpcore import _validate

_TAIL = 1e-14  # binomial mass left out of the sum on each side (added back: conservative)


def statdp_pvalue(hits_x: int, hits_y: int, runs: int, eps0: float) -> float:
    """The p-value of "ε0-DP" given ``hits_x >= hits_y`` of ``runs`` per side in the event.

    The binomial sum is taken over the central range holding all but ``2e-14`` of its mass;
    the left-out mass is added (each term's test probability is at most 1), so the value
    returned is never below the exact expectation and at most ``2e-14`` above it.

    Parameters
    ----------
    hits_x, hits_y : int
        Runs in the event on the favoured side and on the other, ``0 <= hits_y <= hits_x
        <= runs``.
    runs : int
        Runs on each side, at least 1.
    eps0 : float
        The ε tested, ``>= 0``.

    Returns
    -------
    float
        The p-value, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If the counts are not whole numbers in the stated order or ``eps0`` is negative.

    Examples
    --------
    Equal counts never reject:

    >>> statdp_pvalue(50, 50, 100, 0.0) > 0.5
    True
    """
    runs = _validate.whole("runs", runs)
    hits_x = _validate.whole("hits_x", hits_x, lower=0, upper=runs)
    hits_y = _validate.whole("hits_y", hits_y, lower=0, upper=hits_x)
    if not (math.isfinite(eps0) and eps0 >= 0):
        raise ValueError(f"eps0 must be a finite number >= 0, got {eps0!r}")
    keep = math.exp(-eps0)
    thinned = stats.binom(hits_x, keep)
    low, high = int(thinned.ppf(_TAIL)), int(thinned.isf(_TAIL))
    j = np.arange(low, high + 1)
    fisher = stats.hypergeom.sf(j - 1, 2 * runs, runs, j + hits_y)
    left_out = float(thinned.cdf(low - 1) + thinned.sf(high))
    return min(1.0, float(np.dot(thinned.pmf(j), fisher)) + left_out)


def statdp_sweep(hits_x: int, hits_y: int, runs: int, eps0: ArrayLike) -> NDArray[np.float64]:
    """:func:`statdp_pvalue` at every ε0 of a grid (StatDP's plot of p-value against ε0).

    Parameters
    ----------
    hits_x, hits_y, runs : int
        As :func:`statdp_pvalue`.
    eps0 : array_like
        The ε0 tested (each ``>= 0``).

    Returns
    -------
    ndarray of float64
        One p-value per ε0 (same shape).

    Raises
    ------
    ValueError
        As :func:`statdp_pvalue`.
    """
    grid = np.asarray(eps0, dtype=np.float64)
    flat = [statdp_pvalue(hits_x, hits_y, runs, float(e)) for e in grid.ravel()]
    return np.asarray(flat, dtype=np.float64).reshape(grid.shape)


def statdp_lower_bound(
    hits_x: int, hits_y: int, runs: int, *, alpha: float = 0.05, tolerance: float = 1e-3
) -> float:
    """The largest ε0 that StatDP's exact test rejects at level ``alpha`` (0 if none).

    The p-value is non-decreasing in ε0, so bisection finds the boundary; the answer is
    rounded down to a multiple of ``tolerance`` (a rejected ε0).

    Parameters
    ----------
    hits_x, hits_y, runs : int
        As :func:`statdp_pvalue`.
    alpha : float, default 0.05
        The test's level, in ``(0, 1)``.
    tolerance : float, default 1e-3
        Precision of the answer, > 0.

    Returns
    -------
    float
        A lower bound on ε with confidence ``1 - alpha`` when the event was fixed in
        advance.

    Raises
    ------
    ValueError
        As :func:`statdp_pvalue`, or ``alpha`` outside ``(0, 1)``.

    Examples
    --------
    >>> statdp_lower_bound(500, 500, 1000)
    0.0
    """
    alpha = _validate.fraction("alpha", alpha)
    tolerance = _validate.positive("tolerance", tolerance)
    if statdp_pvalue(hits_x, hits_y, runs, 0.0) >= alpha:
        return 0.0
    low, high = 0.0, 1.0
    while statdp_pvalue(hits_x, hits_y, runs, high) < alpha:
        low, high = high, 2.0 * high
        if high > 1e3:  # k_y = 0: every ε0 the counts can tell apart is rejected
            return low
    while high - low > tolerance:
        middle = (low + high) / 2
        if statdp_pvalue(hits_x, hits_y, runs, middle) < alpha:
            low = middle
        else:
            high = middle
    return math.floor(low / tolerance) * tolerance
