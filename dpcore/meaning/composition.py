"""Composition: what asking again costs, and what a split budget buys.

The same count asked ``k`` times with ``Lap(Δ/ε)`` noise each: the answers' running average
converges to the true count (its standard deviation is ``√2 Δ/(ε√j)`` after ``j`` answers),
so the ``k`` answers together must cost more than one. The ledger (Dwork & Roth 2014,
thm. 3.16; Bun & Steinke, TCC 2016):

* basic composition: ``k`` answers at ε each are ``kε``-DP (and with Gaussian noise at
  (ε, δ) each, ``(kε, kδ)``-DP);
* Gaussian noise of ``σ`` on a query of L2 sensitivity Δ is ``ρ = Δ²/(2σ²)``-zCDP, ρ adds up,
  so ``k`` answers are ``kρ``-zCDP, which is ``(ρ + 2√(ρ ln(1/δ)), δ)``-DP;
* exactly: ``k`` Gaussian answers with ``σ`` each are, for the privacy of one person, one
  Gaussian answer with ``σ/√k`` (their average is a sufficient statistic), whose exact ε at δ
  comes from :func:`dpcore.meaning.neighbours.gaussian_delta`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from dpcore import _validate
from dpcore.meaning.neighbours import gaussian_delta

FloatArray = NDArray[np.float64]
MAX_QUERIES = 10_000


def _delta(delta: float) -> float:
    if not (isinstance(delta, int | float) and 0 < delta < 1):
        raise ValueError(f"δ must be a number in (0, 1), got {delta!r}: zCDP gives no ε at δ = 0")
    return float(delta)


def basic_epsilon(k: ArrayLike, eps: float) -> FloatArray:
    """``kε``: the ε of ``k`` answers at ε each by basic composition.

    Parameters
    ----------
    k : array_like of int
        Numbers of answers, >= 1.
    eps : float
        ε > 0 of each answer.

    Returns
    -------
    ndarray of float
    """
    eps = _validate.positive("epsilon", eps)
    return np.asarray(k, dtype=np.float64) * eps


def zcdp_rho(k: ArrayLike, sigma: float, sensitivity: float = 1.0) -> FloatArray:
    """``ρ = kΔ²/(2σ²)``: the zCDP of ``k`` Gaussian answers (Bun & Steinke 2016, prop. 1.6
    and lemma 1.7).

    Parameters
    ----------
    k : array_like of int
    sigma : float
        The noise's standard deviation, > 0.
    sensitivity : float, default 1
        L2 sensitivity Δ.

    Returns
    -------
    ndarray of float
    """
    sigma = _validate.positive("sigma", sigma)
    delta_f = _validate.positive("sensitivity", sensitivity)
    return np.asarray(k, dtype=np.float64) * delta_f**2 / (2 * sigma**2)


def zcdp_epsilon(rho: ArrayLike, delta: float) -> FloatArray:
    """``ε = ρ + 2√(ρ ln(1/δ))``: ρ-zCDP as (ε, δ)-DP (Bun & Steinke 2016, prop. 1.3).

    Parameters
    ----------
    rho : array_like of float
        ρ >= 0.
    delta : float
        δ in (0, 1).

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        If δ is not in (0, 1).

    Examples
    --------
    >>> round(float(zcdp_epsilon([0.5], 1e-5)[0]), 4)
    5.2985
    """
    d = _delta(delta)
    r = np.asarray(rho, dtype=np.float64)
    return np.asarray(r + 2 * np.sqrt(r * math.log(1 / d)), dtype=np.float64)


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The exact smallest ε at which ``N(0, σ²)`` noise is (ε, δ)-DP (inverting the analytic
    δ of Balle & Wang 2018 by root finding; 0 when δ is reached at ε = 0).

    Parameters
    ----------
    sigma : float
    delta : float
        δ in (0, 1).
    sensitivity : float, default 1

    Returns
    -------
    float
    """
    sigma = _validate.positive("sigma", sigma)
    d = _delta(delta)
    delta_f = _validate.positive("sensitivity", sensitivity)

    def excess(e: float) -> float:
        return gaussian_delta(sigma, max(e, 1e-300), delta_f) - d

    if excess(1e-12) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2
    root: float = optimize.brentq(excess, 1e-12, hi, xtol=1e-12, rtol=1e-12)
    return root


def exact_gaussian_epsilon(k: ArrayLike, sigma: float, delta: float) -> FloatArray:
    """The exact ε at δ of ``k`` Gaussian answers with ``σ`` each (sensitivity 1): one answer
    with ``σ/√k``.

    Parameters
    ----------
    k : array_like of int
    sigma : float
    delta : float

    Returns
    -------
    ndarray of float
    """
    ks = np.asarray(k, dtype=np.float64)
    return np.array([gaussian_epsilon(sigma / math.sqrt(j), delta) for j in ks.ravel()])


def running_average(
    count: float, eps: float, k: int, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray]:
    """``k`` answers ``count + Lap(1/ε)`` and the average of the first ``j`` of them for each
    ``j``, with the standard deviation ``√2/(ε√j)`` of that average.

    Parameters
    ----------
    count : float
    eps : float
        ε > 0 of each answer.
    k : int
        1 to :data:`MAX_QUERIES` answers.
    rng : numpy.random.Generator

    Returns
    -------
    (ndarray, ndarray)
        The running averages and their exact standard deviations, shape (k,).
    """
    eps = _validate.positive("epsilon", eps)
    n = _validate.whole("answers k", k, lower=1, upper=MAX_QUERIES)
    answers = count + rng.laplace(0.0, 1 / eps, n)
    j = np.arange(1, n + 1, dtype=np.float64)
    return np.cumsum(answers) / j, math.sqrt(2) / (eps * np.sqrt(j))


def split(total: float, weights: ArrayLike) -> FloatArray:
    """A total ε split among queries in proportion to ``weights`` (basic composition: the
    shares add up to the total).

    Parameters
    ----------
    total : float
        ε > 0.
    weights : array_like of float
        Positive weights, one per query.

    Returns
    -------
    ndarray of float
    """
    total = _validate.positive("epsilon", total)
    w = np.asarray(weights, dtype=np.float64)
    if w.size == 0 or np.any(~np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be positive numbers, at least one")
    return np.asarray(total * w / w.sum(), dtype=np.float64)


def laplace_errors(shares: ArrayLike, sensitivity: float = 1.0) -> tuple[FloatArray, FloatArray]:
    """The error each share ``ε_i`` buys with Laplace noise: the mean absolute error
    ``Δ/ε_i`` and the standard deviation ``√2 Δ/ε_i``.

    Parameters
    ----------
    shares : array_like of float
    sensitivity : float, default 1

    Returns
    -------
    (ndarray, ndarray)
    """
    delta_f = _validate.positive("sensitivity", sensitivity)
    b = delta_f / np.asarray(shares, dtype=np.float64)
    return b, math.sqrt(2) * b
