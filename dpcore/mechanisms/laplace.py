"""The Laplace mechanism for vector queries, and its max-error bound against the exact tail.

``f: datasets -> R^k`` with L1 sensitivity ``Δf`` is released as
``f(x) + (Y_1, ..., Y_k)``, ``Y_i`` i.i.d. ``Lap(b)``, ``b = Δf / ε``
(Dwork & Roth, *The Algorithmic Foundations of Differential Privacy*, def. 3.3,
thm. 3.6). The textbook accuracy bound (thm. 3.8), examined by Wang and Kang
(Wang & Kang, "Noise addition and precision analysis in differential privacy"),
comes from a union bound; the exact tail of ``max_i |Y_i|`` is available in
closed form because ``|Y_i| / b`` are i.i.d. standard exponentials.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate

# Simulations draw noise in chunks of at most this many values (32 MiB of float64).
_CHUNK = 2**22


def laplace_scale(eps: float, sensitivity: float) -> float:
    """The noise scale ``b = Δf / ε`` that makes the Laplace mechanism ε-DP.

    .. math:: b = \\frac{\\Delta f}{\\varepsilon}

    Parameters
    ----------
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query.

    Returns
    -------
    float
        The scale ``b``.

    Raises
    ------
    ValueError
        If ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> laplace_scale(0.5, 1.0)
    2.0
    """
    eps = _validate.positive("eps", eps)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    return sensitivity / eps


def laplace_mechanism(
    values: ArrayLike, *, eps: float, sensitivity: float, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Release ``f(x) + Y`` with ``Y_i`` i.i.d. ``Lap(Δf/ε)`` (Dwork & Roth, def. 3.3).

    .. math:: M(x) = f(x) + (Y_1, \\dots, Y_k),
              \\quad Y_i \\sim \\mathrm{Lap}(\\Delta f/\\varepsilon)

    Parameters
    ----------
    values : array_like
        The true query answers ``f(x)`` (any shape; each entry gets its own noise).
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query (not of one entry).
    rng : numpy.random.Generator
        The source of randomness (a teaching generator, not a hardened noise source).

    Returns
    -------
    ndarray of float64
        The noisy answers, shaped like ``values``; the per-entry variance is
        :func:`laplace_variance`.

    Raises
    ------
    ValueError
        If ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or an answer is not finite or too large for float64 to
        keep the noise (``|f(x)| > 2^32 b``, see :mod:`dpcore._validate`).

    Examples
    --------
    >>> laplace_mechanism([10.0, 20.0], eps=1e6, sensitivity=1.0,
    ...                   rng=np.random.default_rng(0)).round(3)
    array([10., 20.])
    """
    true = np.asarray(values, dtype=np.float64)
    scale = laplace_scale(eps, sensitivity)
    _validate.perturbable("A query answer", true, scale)
    return true + rng.laplace(0.0, scale, size=true.shape)


def laplace_variance(eps: float, sensitivity: float) -> float:
    """The variance of each noisy entry, ``2 b^2``.

    .. math:: \\operatorname{Var}[Y_i] = 2 b^2 = 2 (\\Delta f / \\varepsilon)^2

    Parameters
    ----------
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query.

    Returns
    -------
    float
        ``2 b^2``.

    Raises
    ------
    ValueError
        If ``eps`` or ``sensitivity`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> laplace_variance(1.0, 1.0)
    2.0
    """
    return 2.0 * laplace_scale(eps, sensitivity) ** 2


def laplace_max_error_bound(k: int, delta: float, eps: float, sensitivity: float) -> float:
    """The union-bound accuracy of the Laplace mechanism (Dwork & Roth, thm. 3.8).

    With probability at least ``1 - δ`` every one of the ``k`` entries is within
    the returned distance of the truth.

    .. math:: \\Pr\\Big[\\lVert f(x) - M(x) \\rVert_\\infty \\ge
              \\ln\\big(\\tfrac{k}{\\delta}\\big) \\tfrac{\\Delta f}{\\varepsilon}\\Big]
              \\le \\delta

    Parameters
    ----------
    k : int
        Number of entries of the query, a whole number ``>= 1``.
    delta : float
        Failure probability δ, in ``(0, 1)``.
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query.

    Returns
    -------
    float
        ``ln(k/δ) b``, clamped at 0 (for ``k < δ`` the logarithm is negative and the
        bound says nothing; 0 trivially satisfies the inequality).

    Raises
    ------
    ValueError
        If ``k`` is not a whole number ``>= 1``, ``delta`` is not in ``(0, 1)``, or ``eps`` or
        ``sensitivity`` is not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> round(laplace_max_error_bound(100, 0.05, 1.0, 1.0), 4)
    7.6009
    """
    _check_k_delta(k, delta)
    return max(math.log(k / delta), 0.0) * laplace_scale(eps, sensitivity)


def laplace_max_error_tail(threshold: float, k: int, eps: float, sensitivity: float) -> float:
    """The exact probability that the largest of ``k`` noise magnitudes reaches ``threshold``.

    ``|Y_i| / b`` are i.i.d. standard exponentials, so with ``t = threshold / b``

    .. math:: \\Pr\\big[\\max_i |Y_i| \\ge t b\\big] = 1 - (1 - e^{-t})^k,

    evaluated as ``-expm1(k log1p(-e^{-t}))`` so that it stays accurate when the
    probability is tiny or ``k`` is huge.

    Parameters
    ----------
    threshold : float
        The distance ``t b`` (same units as the answers).
    k : int
        Number of entries, a whole number ``>= 1``.
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query.

    Returns
    -------
    float
        The probability, in ``[0, 1]`` (1 for ``threshold <= 0``).

    Raises
    ------
    ValueError
        If ``k`` is not a whole number ``>= 1``, or ``eps`` or ``sensitivity`` is not a finite
        number ``>= 1e-300`` (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> laplace_max_error_tail(math.log(2.0), 1, 1.0, 1.0)
    0.5
    """
    _check_k_delta(k, 0.5)
    t = threshold / laplace_scale(eps, sensitivity)
    if t <= 0.0:
        return 1.0
    return -math.expm1(k * math.log1p(-math.exp(-t)))


def laplace_max_error_exact(k: int, delta: float, eps: float, sensitivity: float) -> float:
    """The exact width ``t* b`` with ``Pr[max_i |Y_i| >= t* b] = δ``.

    Inverting :func:`laplace_max_error_tail`:

    .. math:: t^* = -\\ln\\Big(1 - (1 - \\delta)^{1/k}\\Big)
              \\quad (\\le \\ln(k/\\delta) \\text{ by Bernoulli's inequality}),

    evaluated as ``-log(-expm1(log1p(-δ) / k))``. With ``k = 1`` this is the
    per-entry ``(1 - δ)`` confidence half-width ``b ln(1/δ)``.

    Parameters
    ----------
    k : int
        Number of entries of the query, a whole number ``>= 1``.
    delta : float
        Failure probability δ, in ``(0, 1)``.
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query.

    Returns
    -------
    float
        ``t* b``.

    Raises
    ------
    ValueError
        If ``k`` is not a whole number ``>= 1``, ``delta`` is not in ``(0, 1)``, or ``eps`` or
        ``sensitivity`` is not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> round(laplace_max_error_exact(100, 0.05, 1.0, 1.0), 4)
    7.5756
    >>> laplace_max_error_exact(1, 0.05, 1.0, 1.0) == laplace_max_error_bound(1, 0.05, 1.0, 1.0)
    True
    """
    _check_k_delta(k, delta)
    t_star = -math.log(-math.expm1(math.log1p(-delta) / k))
    return t_star * laplace_scale(eps, sensitivity)


def laplace_expected_max_error(k: int, eps: float, sensitivity: float) -> float:
    """The mean of ``max_i |Y_i|``: ``b`` times the k-th harmonic number.

    The maximum of ``k`` i.i.d. standard exponentials has mean
    ``H_k = 1 + 1/2 + ... + 1/k`` (Rényi's representation of order statistics).

    .. math:: \\mathbb{E}\\big[\\max_i |Y_i|\\big] = b H_k \\approx b (\\ln k + 0.5772)

    Parameters
    ----------
    k : int
        Number of entries, a whole number ``>= 1``.
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query.

    Returns
    -------
    float
        ``b H_k`` (exact sum up to ``k = 10,000``, asymptotic expansion beyond).

    Raises
    ------
    ValueError
        If ``k`` is not a whole number ``>= 1``, or ``eps`` or ``sensitivity`` is not a finite
        number ``>= 1e-300`` (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> laplace_expected_max_error(2, 1.0, 1.0)
    1.5
    """
    _check_k_delta(k, 0.5)
    if k <= 10_000:
        harmonic = float(np.sum(1.0 / np.arange(1, k + 1, dtype=np.float64)))
    else:  # asymptotic expansion, error below 1e-17 here
        harmonic = math.log(k) + np.euler_gamma + 1.0 / (2 * k) - 1.0 / (12 * k * k)
    return harmonic * laplace_scale(eps, sensitivity)


def laplace_confidence_intervals(
    noisy: ArrayLike,
    *,
    confidence: float,
    eps: float,
    sensitivity: float,
    simultaneous: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Exact confidence intervals ``noisy ± h`` for the true answers.

    Parameters
    ----------
    noisy : array_like
        The released answers ``M(x)`` (any shape).
    confidence : float
        ``1 - δ``, in (0, 1).
    eps : float
        The privacy parameter ε > 0 the answers were released with.
    sensitivity : float
        The L1 sensitivity ``Δf`` they were released with.
    simultaneous : bool, default False
        If False, each interval alone covers its true value with probability
        ``confidence`` (``h = b ln(1/δ)``). If True, all ``k`` intervals cover
        at once with that probability (``h`` from :func:`laplace_max_error_exact`).

    Returns
    -------
    lower, upper : ndarray of float64
        Arrays shaped like ``noisy``.

    Raises
    ------
    ValueError
        If ``confidence`` is not in ``(0, 1)``, or ``eps`` or ``sensitivity`` is not a finite number
        ``>= 1e-300`` (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> lo, hi = laplace_confidence_intervals([5.0], confidence=0.5, eps=1.0, sensitivity=1.0)
    >>> round(float(hi[0] - 5.0), 6) == round(math.log(2.0), 6)
    True
    """
    released = np.asarray(noisy, dtype=np.float64)
    k = released.size if simultaneous else 1
    half = laplace_max_error_exact(max(k, 1), 1.0 - confidence, eps, sensitivity)
    return released - half, released + half


def simulate_laplace_max_error(
    k: int, *, eps: float, sensitivity: float, trials: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """``max_i |Y_i|`` of ``trials`` independent draws of ``k`` Laplace noise values.

    Real Laplace draws (not the closed form), generated in chunks so that memory
    stays bounded for large ``k * trials``; the oracle for the formulas above.

    Parameters
    ----------
    k : int
        Number of entries per draw, a whole number ``>= 1``.
    eps : float
        The privacy parameter ε > 0.
    sensitivity : float
        The L1 sensitivity ``Δf`` of the whole vector query.
    trials : int
        Number of independent draws, at least 1.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of float64, shape (trials,)
        The largest noise magnitude of each draw.

    Raises
    ------
    ValueError
        If ``k`` is not a whole number ``>= 1``, ``trials < 1``, or ``eps`` or ``sensitivity`` is
        not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`).
    """
    _check_k_delta(k, 0.5)
    if trials < 1:
        raise ValueError(f"trials must be at least 1, got {trials}")
    scale = laplace_scale(eps, sensitivity)
    maxima = np.empty(trials, dtype=np.float64)
    if k <= _CHUNK:
        rows = max(1, _CHUNK // k)
        for start in range(0, trials, rows):
            stop = min(start + rows, trials)
            draws = rng.laplace(0.0, scale, size=(stop - start, k))
            maxima[start:stop] = np.abs(draws).max(axis=1)
        return maxima
    for trial in range(trials):
        largest = 0.0
        for done in range(0, k, _CHUNK):
            draws = rng.laplace(0.0, scale, size=min(_CHUNK, k - done))
            largest = max(largest, float(np.abs(draws).max()))
        maxima[trial] = largest
    return maxima


def _check_k_delta(k: int, delta: float) -> None:
    if int(k) != k or k < 1:
        raise ValueError(f"k (the number of entries) must be a whole number >= 1, got {k!r}")
    if not 0.0 < delta < 1.0:
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta!r}")
