"""The exponential mechanism: exact probabilities in log space, sampling, and accuracy.

Candidates ``r`` in ``R`` with scores ``u(x, r)`` of sensitivity ``Δu`` are
output with probability proportional to ``exp(ε u(x, r) / (2 Δu))`` (McSherry &
Talwar 2007; Dwork & Roth, def. 3.4, thms. 3.10-3.11). Wang and Kang
note that raw counts as scores overflow the naive formula unless ε is
tiny; everything here works from score *differences* to the best score, so any
score magnitude and any ε give finite, exact (to rounding) probabilities.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate


def exponential_log_weights(
    scores: ArrayLike, eps: float, sensitivity: float
) -> NDArray[np.float64]:
    """Natural logs of the weights relative to the best candidate, ``ε (u_r - OPT) / (2Δu)``.

    The best candidates get 0, all others a negative number; the absolute
    weight ``exp(ε u_r / (2Δu))`` is this times ``exp(ε OPT / (2Δu))``, which
    is typically far outside floating-point range.

    .. math:: \\ln w_r - \\ln w_{OPT} = \\frac{\\varepsilon\\,(u(x,r) - OPT)}{2\\Delta u}

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.

    Returns
    -------
    ndarray of float64, shape (|R|,)
        :math:`\\ln w_r - \\ln w_{OPT} \\le 0`.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_log_weights([3.0, 1.0], 1.0, 1.0)
    array([ 0., -1.])
    """
    values = _scores(scores)
    eps = _validate.positive("eps", eps)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    # The difference is taken before scaling: u_r - OPT is exact for integer
    # scores below 2**53, and the product then carries one rounding only.
    log_weights: NDArray[np.float64] = (values - values.max()) * (eps / (2.0 * sensitivity))
    return log_weights


def exponential_log_probabilities(
    scores: ArrayLike, eps: float, sensitivity: float
) -> NDArray[np.float64]:
    """``ln Pr[M(x) = r]`` for every candidate, by log-sum-exp (never overflows).

    .. math:: \\ln \\Pr[M(x) = r] = \\ell_r - \\ln \\sum_{r'} e^{\\ell_{r'}},
              \\quad \\ell_r = \\frac{\\varepsilon (u(x,r) - OPT)}{2 \\Delta u} \\le 0

    The sum is at least 1 (the best candidate contributes ``e^0``) and at most
    ``|R|``, so its logarithm is always finite.

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.

    Returns
    -------
    ndarray of float64, shape (|R|,)
        Log-probabilities, each ``<= 0``.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).
    """
    log_weights = exponential_log_weights(scores, eps, sensitivity)
    return log_weights - math.log(float(np.exp(log_weights).sum()))


def exponential_probabilities(
    scores: ArrayLike, eps: float, sensitivity: float
) -> NDArray[np.float64]:
    """The output distribution of the exponential mechanism (Dwork & Roth, def. 3.4).

    .. math:: \\Pr[M(x) = r] = \\frac{\\exp(\\varepsilon u(x,r) / 2\\Delta u)}
              {\\sum_{r' \\in R} \\exp(\\varepsilon u(x,r') / 2\\Delta u)}

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0 (any size: 1e-6 and 1e3 both work).
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.

    Returns
    -------
    ndarray of float64, shape (|R|,)
        Probabilities summing to 1; candidates far below the best may underflow
        to exactly 0 (their true probability is below 1e-308).

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_probabilities([1.0, 1.0], 1.0, 1.0)
    array([0.5, 0.5])
    >>> exponential_probabilities([10501.0, 7291.0], 1.0, 1.0)  # naive formula overflows
    array([1., 0.])
    """
    return np.exp(exponential_log_probabilities(scores, eps, sensitivity))


def sample_categorical(
    probabilities: ArrayLike, *, size: int, rng: np.random.Generator
) -> NDArray[np.intp]:
    """``size`` independent indices drawn from ``probabilities`` by inverting the CDF.

    One cumulative sum (O(|R|)) and a vectorized binary search per draw
    (O(size log |R|)); entries with probability 0 are never drawn.

    Parameters
    ----------
    probabilities : array_like, shape (|R|,)
        Non-negative finite weights (normalised here, so they need not sum to 1).
    size : int
        Number of draws, ``>= 0``.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of intp, shape (size,)
        Indices into ``probabilities``.

    Raises
    ------
    ValueError
        If ``probabilities`` is empty, not 1-D, has a negative or non-finite entry or is
        all zero, or ``size < 0``.

    Examples
    --------
    >>> sample_categorical([0.0, 1.0, 0.0], size=4, rng=np.random.default_rng(0))
    array([1, 1, 1, 1])
    """
    mass = _validate.finite_array("probabilities", probabilities, nonnegative=True)
    if mass.size == 0:
        raise ValueError("probabilities must hold at least one candidate's probability")
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    cumulative = np.cumsum(mass)
    total = float(cumulative[-1])
    if total <= 0.0:
        raise ValueError("probabilities must not all be zero")
    # u in [0, total) lands in the interval [cdf[j-1], cdf[j]) of index j; a zero-mass
    # index has an empty interval. Rounding can make u == total: give it the last
    # index with positive mass.
    draws = np.searchsorted(cumulative, rng.random(size) * total, side="right")
    last_positive = int(np.flatnonzero(mass)[-1])
    return np.minimum(draws, last_positive)


def sample_exponential(
    scores: ArrayLike, eps: float, sensitivity: float, *, size: int, rng: np.random.Generator
) -> NDArray[np.intp]:
    """``size`` independent runs of the exponential mechanism (indices into ``scores``).

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.
    size : int
        Number of runs, ``>= 0``.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of intp, shape (size,)
        Selected candidates' indices.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``size < 0``.

    Examples
    --------
    >>> sample_exponential([0.0, 1e6], 1.0, 1.0, size=3, rng=np.random.default_rng(1))
    array([1, 1, 1])
    """
    return sample_categorical(
        exponential_probabilities(scores, eps, sensitivity), size=size, rng=rng
    )


def exponential_accuracy_bound(
    scores: ArrayLike, eps: float, sensitivity: float, c: float
) -> float:
    """The textbook bound on ``Pr[u(M(x)) <= c]`` (Dwork & Roth, thm. 3.11); may exceed 1.

    Every candidate with ``u <= c`` has weight at most ``e^{ε c / 2Δu}``, at most
    ``|R|`` of them, and the normaliser is at least ``|R_OPT| e^{ε OPT / 2Δu}``:

    .. math:: \\Pr[u(M(x)) \\le c] \\le \\frac{|R|}{|R_{OPT}|}
              \\exp\\Big(\\frac{\\varepsilon (c - OPT)}{2\\Delta u}\\Big)

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.
    c : float
        The score threshold.

    Returns
    -------
    float
        The bound as is (``inf`` if it overflows), so that a useless bound -- one
        above 1 -- is visible as such.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_accuracy_bound([3.0, 1.0, 1.0, 1.0], 1.0, 1.0, 3.0)
    4.0
    """
    return float(exponential_accuracy_bounds(scores, eps, sensitivity, [c])[0])


def exponential_accuracy_bounds(
    scores: ArrayLike, eps: float, sensitivity: float, thresholds: ArrayLike
) -> NDArray[np.float64]:
    """:func:`exponential_accuracy_bound` for many thresholds ``c`` at once (one pass over scores).

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.
    thresholds : array_like
        Score thresholds ``c`` (any shape).

    Returns
    -------
    ndarray of float64
        The bound for each threshold (same shape; ``inf`` where it overflows).

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_accuracy_bounds([2.0, 0.0], 2.0, 1.0, [2.0, 1.0, 1e6])
    array([2.        , 0.73575888,        inf])
    """
    values = _scores(scores)
    eps = _validate.positive("eps", eps)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    cs = np.asarray(thresholds, dtype=np.float64)
    log_bound = math.log(values.size / _count_best(values)) + (cs - values.max()) * (
        eps / (2.0 * sensitivity)
    )
    # exp overflows (to inf) beyond ln(max float) ~ 709.78; say so without a warning.
    bound: NDArray[np.float64] = np.exp(np.minimum(log_bound, 709.0))
    bound[log_bound > 709.0] = np.inf
    return bound


def exponential_tail_probability(
    scores: ArrayLike, eps: float, sensitivity: float, c: float
) -> float:
    """The exact ``Pr[u(M(x)) <= c]``: the summed probability of candidates scoring at most c.

    .. math:: \\Pr[u(M(x)) \\le c] = \\sum_{r:\\, u(x,r) \\le c} \\Pr[M(x) = r]

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.
    c : float
        The score threshold.

    Returns
    -------
    float
        The probability, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_tail_probability([3.0, 1.0, 1.0, 1.0], 1.0, 1.0, 3.0)
    1.0
    """
    values = _scores(scores)
    probabilities = exponential_probabilities(values, eps, sensitivity)
    return min(float(probabilities[values <= c].sum()), 1.0)


def exponential_threshold(scores: ArrayLike, eps: float, sensitivity: float, t: float) -> float:
    """The score ``c(t)`` below which the output falls with probability at most ``e^{-t}``.

    .. math:: c(t) = OPT - \\frac{2\\Delta u}{\\varepsilon}
              \\Big(\\ln\\frac{|R|}{|R_{OPT}|} + t\\Big),
              \\qquad \\Pr[u(M(x)) \\le c(t)] \\le e^{-t}

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.
    t : float
        The exponent of the failure probability ``e^{-t}``.

    Returns
    -------
    float
        :math:`c(t)`.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_threshold([3.0, 1.0], 2.0, 1.0, 0.0) == 3.0 - math.log(2.0)
    True
    """
    values = _scores(scores)
    eps = _validate.positive("eps", eps)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    spread = math.log(values.size / _count_best(values)) + t
    return float(values.max()) - 2.0 * sensitivity / eps * spread


def exponential_expected_loss(scores: ArrayLike, eps: float, sensitivity: float) -> float:
    """The exact expected score loss ``OPT - E[u(M(x))]`` (always >= 0).

    Summed as ``Σ_r Pr[r] (OPT - u_r)`` so that huge scores do not cancel.

    .. math:: OPT - \\mathbb{E}[u(M(x))] = \\sum_{r} \\Pr[M(x)=r]\\,(OPT - u(x,r))

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.

    Returns
    -------
    float
        The expected loss, ``>= 0``.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_expected_loss([1.0, 0.0], 2.0 * math.log(3.0), 1.0)  # Pr = (3/4, 1/4)
    0.25
    """
    values = _scores(scores)
    probabilities = exponential_probabilities(values, eps, sensitivity)
    return float(probabilities @ (values.max() - values))


def exponential_utility_distribution(
    scores: ArrayLike, eps: float, sensitivity: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The distribution of the output's score ``u(M(x))``: distinct scores and their mass.

    Parameters
    ----------
    scores : array_like, shape (|R|,)
        ``u(x, r)`` for each candidate (finite; any magnitude).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        ``Δu = max_r max_{x~y} |u(x,r) - u(y,r)| > 0``.

    Returns
    -------
    values : ndarray of float64, shape (m,)
        Distinct scores in increasing order.
    mass : ndarray of float64, shape (m,)
        ``Pr[u(M(x)) = value]``; ``np.cumsum(mass)`` is the exact
        ``Pr[u(M(x)) <= value]``.

    Raises
    ------
    ValueError
        If ``scores`` is empty, not 1-D, not finite or spans more than float64's range, or
        ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> exponential_utility_distribution([2.0, 1.0, 2.0], 1e9, 1.0)
    (array([1., 2.]), array([0., 1.]))
    """
    values = _scores(scores)
    probabilities = exponential_probabilities(values, eps, sensitivity)
    distinct, inverse = np.unique(values, return_inverse=True)
    mass = np.bincount(inverse, weights=probabilities, minlength=distinct.size).astype(np.float64)
    return distinct, mass


def _count_best(values: NDArray[np.float64]) -> int:
    return int(np.count_nonzero(values == values.max()))


def _scores(scores: ArrayLike) -> NDArray[np.float64]:
    values = _validate.finite_array("scores", scores)
    if values.size == 0:
        raise ValueError("scores must hold at least one candidate's score")
    with np.errstate(over="ignore"):
        spread = float(values.max() - values.min())
    if not math.isfinite(spread):
        raise ValueError("scores must differ by less than 1.7e308 (max - min overflows float64)")
    return values
