"""The exact distribution of a weighted sum of independent Laplace variables.

A range answered from a tree release has error ``sum_x c_x L_x`` with
independent ``L_x ~ Lap(1/eps_x)``: ``c_x = 1`` on the canonical
decomposition for the raw tree, the BLUE weights after consistency
(:func:`dpcore.hist.consistency.blue_range_weights`). Each term is ``Lap(s_x)``
with scale ``s_x = |c_x| / eps_x``, so the sum has characteristic function

.. math:: \\varphi(t) = \\prod_x \\frac{1}{1 + s_x^2 t^2},
          \\qquad \\mathrm{Var} = 2 \\sum_x s_x^2 ,

inverted here numerically on an FFT grid. The ``max_terms`` largest scales
enter exactly; the rest (many small terms, as after BLUE) are replaced by one
Gaussian of the same variance, a central-limit approximation whose share of
the variance is reported. The sampler draws the same mixture, so a histogram
of its draws and the density describe the same variable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate

FloatArray = NDArray[np.float64]

MAX_TERMS = 256
GRID_POINTS = 8192
HALF_WIDTH_SD = 12.0


@dataclass(frozen=True)
class LaplaceSum:
    """``sum_x L_x`` with ``L_x ~ Lap(exact_x)`` plus an independent ``N(0, gaussian_variance)``.

    ``exact`` holds the largest scales, descending; ``gaussian_variance`` is the
    total variance ``2 s^2`` of the scales folded into the Gaussian remainder.

    Attributes
    ----------
    exact : ndarray of float64, shape (k,)
        Scales of the exact Laplace terms, descending, all ``> 0``.
    gaussian_variance : float
        Variance of the Gaussian remainder (0 if none).
    variance : float
        Total variance.
    gaussian_share : float
        The remainder's share of it, in ``[0, 1]``.
    """

    exact: FloatArray
    gaussian_variance: float

    @property
    def variance(self) -> float:
        """``2 sum s_x^2``: exact, including the remainder's part."""
        return float(2.0 * np.sum(self.exact**2) + self.gaussian_variance)

    @property
    def gaussian_share(self) -> float:
        """The fraction of the variance carried by the Gaussian remainder (0 = fully exact)."""
        total = self.variance
        return self.gaussian_variance / total if total > 0 else 0.0


def node_scales(weights: ArrayLike, budgets: ArrayLike) -> FloatArray:
    """Laplace scales ``|c_x| / eps_x`` of the terms ``c_x Lap(1/eps_x)``: 0 where ``c_x = 0``,
    ``inf`` where a node with weight is unmeasured (``eps_x = 0``).

    Parameters
    ----------
    weights : array_like of float, shape (size,)
        Each node's finite weight ``c_x`` in the answer.
    budgets : array_like of float, shape (size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.

    Returns
    -------
    ndarray of float64, shape (size,)
        The scales.

    Raises
    ------
    ValueError
        If ``weights`` is not a 1-D array of finite numbers, or ``budgets`` is not as many
        finite numbers, each 0 or ``>= 1e-300``.

    Examples
    --------
    >>> node_scales([1.0, 0.0, -0.5], [0.5, 0.0, 1.0]).tolist()
    [2.0, 0.0, 0.5]
    """
    c = np.abs(_validate.finite_array("weights", weights))
    eps = _validate.budgets("budgets", budgets, size=c.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(c > 0, c / eps, 0.0), dtype=np.float64)


def laplace_sum(scales: ArrayLike, *, max_terms: int = MAX_TERMS) -> LaplaceSum:
    """The distribution of ``sum_x Lap(|scales_x|)``: the largest ``max_terms`` kept exactly.

    Zero scales are dropped; scales must be finite and at least one non-zero.

    Parameters
    ----------
    scales : array_like of float
        Laplace scales (signs ignored; flattened).
    max_terms : int, default MAX_TERMS (256)
        How many of the largest scales stay exact (``>= 1``).

    Returns
    -------
    LaplaceSum
        The distribution.

    Raises
    ------
    ValueError
        If a scale is not finite, no scale is non-zero, or ``max_terms`` is not a whole
        number ``>= 1``.
    """
    s = np.abs(np.asarray(scales, dtype=np.float64).ravel())
    if not np.all(np.isfinite(s)):
        raise ValueError("Laplace scales must be finite (an unmeasured node has no finite error)")
    max_terms = _validate.whole("max_terms", max_terms)
    s = np.sort(s[s > 0])[::-1]
    if s.size == 0:
        raise ValueError("need at least one non-zero Laplace scale")
    rest = s[max_terms:]
    return LaplaceSum(s[:max_terms].copy(), float(2.0 * np.sum(rest**2)))


def density(
    dist: LaplaceSum, *, points: int = GRID_POINTS, half_width_sd: float = HALF_WIDTH_SD
) -> tuple[FloatArray, FloatArray]:
    """``(x, f(x))`` on an even grid over ``±half_width_sd`` standard deviations.

    Inverts the characteristic function with one real FFT: with grid step
    ``h`` and half-width ``L = points h / 2``, ``f(x_j) = h^{-1}
    \\mathrm{irfft}(\\varphi(t_k) (-1)^k)_j`` at ``t_k = 2 \\pi k / (points h)``.
    Errors: mass beyond ``±L`` (below ``1e-7`` at 12 sd) folds back, and
    frequencies beyond ``\\pi / h`` are cut (the density's cusp at 0 when a
    single term dominates is rounded over a few grid steps). Tiny negative
    ripples are clipped to 0.

    Parameters
    ----------
    dist : LaplaceSum
        The distribution.
    points : int, default GRID_POINTS (8192)
        Grid size, even and ``>= 16``.
    half_width_sd : float, default HALF_WIDTH_SD (12.0)
        Half-width of the grid in standard deviations.

    Returns
    -------
    x, f : ndarray of float64, shape (points,)
        Grid points and density values (``>= 0``).

    Raises
    ------
    ValueError
        If ``points`` is odd or below 16.
    """
    if points < 16 or points % 2:
        raise ValueError(f"points must be an even number >= 16, got {points}")
    half = half_width_sd * np.sqrt(dist.variance)
    step = 2.0 * half / points
    t = 2.0 * np.pi * np.arange(points // 2 + 1) / (points * step)
    log_phi = -np.log1p(np.multiply.outer(t * t, dist.exact**2)).sum(axis=1)
    log_phi -= 0.5 * dist.gaussian_variance * t * t
    signs = np.where(np.arange(t.size) % 2 == 0, 1.0, -1.0)
    f = np.fft.irfft(np.exp(log_phi) * signs, n=points) / step
    x = -half + step * np.arange(points)
    return x, np.maximum(f, 0.0)


def gaussian_density(x: ArrayLike, variance: float) -> FloatArray:
    """The normal density with mean 0 and ``variance`` (the central-limit approximation).

    Parameters
    ----------
    x : array_like of float
        Where to evaluate.
    variance : float
        The variance (``> 0``).

    Returns
    -------
    ndarray of float64
        The density, shaped like ``x``.
    """
    x_arr = np.asarray(x, dtype=np.float64)
    return np.asarray(
        np.exp(-0.5 * x_arr * x_arr / variance) / np.sqrt(2.0 * np.pi * variance), dtype=np.float64
    )


def sample(dist: LaplaceSum, size: int, rng: np.random.Generator) -> FloatArray:
    """``size`` independent draws of the sum (only its exact terms and one Gaussian).

    Parameters
    ----------
    dist : LaplaceSum
        The distribution.
    size : int
        Number of draws.
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    ndarray of float64, shape (size,)
        The draws.
    """
    draws = rng.laplace(0.0, 1.0, size=(size, dist.exact.size)) @ dist.exact
    if dist.gaussian_variance > 0:
        draws += rng.normal(0.0, np.sqrt(dist.gaussian_variance), size=size)
    return np.asarray(draws, dtype=np.float64)
