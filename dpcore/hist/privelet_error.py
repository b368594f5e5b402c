"""Privelet's exact error: the covariance of its reconstruction and the error coefficient
of every range.

The closed-form errors follow Wu, Chen, Cai and Wang (2018, "error
analysis of DP data publishing under the matrix mechanism"): the covariance
``B B^T`` (theorem 2), the error coefficient of one range in ``O(log n)``
(algorithm 3) and its exact average over all ranges (eq. 16) with the
asymptote (eq. 17).

Every coefficient is for unit-variance noise on each Haar coefficient; multiply by
:func:`dpcore.hist.privelet.noise_variance` for the mean squared error.

Zero padding as in :mod:`dpcore.hist.privelet`: for ``n`` not a power of two the
covariance and every error below are those of the transform padded to
``N = 2^h`` (:func:`dpcore.hist.privelet.padded_size`), over the first ``n`` bins.

Bins in array arguments are 0-based and inclusive (as in :mod:`dpcore.hist.queries`),
except :func:`range_error_coefficient`, which keeps the paper's 1-indexed ``l..r``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.privelet import haar_forward, levels, padded_size


def _bit_length(x: NDArray[np.int64]) -> NDArray[np.int64]:
    """Vectorized ``int.bit_length`` for non-negative integers below ``2^53``."""
    return np.frexp(x.astype(np.float64))[1].astype(np.int64)


def diagonal_covariance(n: int) -> float:
    """``Σ_ii = (1 + 2 * 4^{-h}) / 3`` (Wu et al. 2018, theorem 2), unit noise variance.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    float
        ``Σ_ii``.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    return (1.0 + 2.0 * 4.0 ** -levels(n)) / 3.0


def lca_covariance(n: int, k: ArrayLike) -> NDArray[np.float64]:
    """``Φ_k = (2/3)(4^{-h} - 4^{-k})``: ``Σ_ij`` for ``i != j`` whose LCA has height ``k``.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).
    k : array_like of float
        LCA heights, ``1 <= k <= h``.

    Returns
    -------
    ndarray of float64
        ``Φ_k``, shaped like ``k``.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    k = np.asarray(k, dtype=np.float64)
    return (2.0 / 3.0) * (4.0 ** -levels(n) - 4.0**-k)


def covariance_entries(n: int, i: ArrayLike, j: ArrayLike) -> NDArray[np.float64]:
    """``Σ_ij`` of ``B B^T`` by theorem 2 (0-based bins ``i``, ``j``; vectorized).

    .. math:: Σ_{ij} = \\begin{cases} (1 + 2 \\cdot 4^{-h})/3 & i = j \\\\
              Φ_k & k = \\mathrm{bitlen}(i \\oplus j) \\end{cases}

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).
    i, j : array_like of int
        Bin indices in ``[0, N)``, broadcast together.

    Returns
    -------
    ndarray of float64
        ``Σ_ij``, shaped like the broadcast ``i`` and ``j``.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``i`` and ``j`` do not broadcast.
    """
    i_arr, j_arr = np.broadcast_arrays(np.asarray(i, np.int64), np.asarray(j, np.int64))
    k = _bit_length(np.bitwise_xor(i_arr, j_arr))
    return np.where(k == 0, diagonal_covariance(n), lca_covariance(n, np.maximum(k, 1)))


def covariance_matrix(n: int) -> NDArray[np.float64]:
    """The padded ``N x N`` covariance ``B B^T`` built from theorem 2.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    ndarray of float64, shape (N, N)
        ``B B^T``, ``N = padded_size(n)``.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    idx = np.arange(padded_size(n))
    return covariance_entries(n, idx[:, None], idx[None, :])


def _overlap(
    a: NDArray[np.int64], b: NDArray[np.int64], lo: NDArray[np.int64], hi: NDArray[np.int64]
) -> NDArray[np.int64]:
    return np.asarray(np.maximum(0, np.minimum(b, hi) - np.maximum(a, lo) + 1), dtype=np.int64)


def range_error_coefficients(n: int, a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """Error coefficients ``w^T B B^T w`` of ranges ``[a, b]`` (0-based) by algorithm 3.

    ``O(log n)`` per range, vectorized over the arrays ``a`` and ``b``:

    .. math:: \\mathrm{coef}(a, b) = (b - a + 1) Σ_{ii}
              + \\sum_{k=1}^{h} Φ_k \\, \\mathrm{pairs}_k(a, b)

    where ``pairs_k`` counts ordered bin pairs in the range whose lowest common
    ancestor has height ``k``: ``2 \\cdot 4^{k-1}`` per height-``k`` node inside the
    range and ``2 |P| |R|`` for each of the (at most two) height-``k`` nodes cut
    by the range (``P``, ``R`` the parts of the range in its two halves).
    The MSE is ``2 (h+1)^2 / epsilon^2`` times this. The two sums cancel to
    ``O(log n)`` from ``O(L)``: the float64 result carries a relative error of
    about ``1e-16 L`` (``1e-10`` at a million bins); :func:`linear_query_coefficient`
    has no cancellation.

    Parameters
    ----------
    n : int
        Number of bins.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    ndarray of float64
        The coefficient per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < n`` or ``a`` and ``b`` do not broadcast.

    Examples
    --------
    >>> float(range_error_coefficients(8, 2, 6))  # the paper's [3, 7] at n = 8
    0.96875
    """
    a_arr, b_arr = _validate.ranges(n, a, b)
    coefficient = (b_arr - a_arr + 1) * diagonal_covariance(n)
    for k in range(1, levels(n) + 1):
        size, half = 1 << k, 1 << (k - 1)
        first_full = (a_arr + size - 1) >> k
        last_full = ((b_arr + 1) >> k) - 1
        pairs = np.maximum(0, last_full - first_full + 1) * (2 * half * half)
        left_node, right_node = a_arr >> k, b_arr >> k
        for node, counted in ((left_node, False), (right_node, left_node == right_node)):
            start = node << k
            cut = (a_arr > start) | (b_arr < start + size - 1)
            p = _overlap(a_arr, b_arr, start, start + half - 1)
            r = _overlap(a_arr, b_arr, start + half, start + size - 1)
            pairs = pairs + np.where(cut & ~counted, 2 * p * r, 0)
        coefficient = coefficient + lca_covariance(n, k) * pairs
    return np.asarray(coefficient, dtype=np.float64)


def range_error_coefficient(n: int, l: int, r: int) -> float:  # noqa: E741
    """Error coefficient ``w^T B B^T w`` of the 1-indexed range ``l..r`` (Wu et al., alg. 3).

    Unit-variance noise on every coefficient; multiply by
    :func:`dpcore.hist.privelet.noise_variance` for the MSE. ``n`` need not be a power of two
    (zero padding, see the module docstring).

    Parameters
    ----------
    n : int
        Number of bins.
    l, r : int
        First and last bin, 1-based inclusive.

    Returns
    -------
    float
        The coefficient.

    Raises
    ------
    ValueError
        If not ``1 <= l <= r <= n``.

    Examples
    --------
    >>> range_error_coefficient(8, 3, 7)
    0.96875
    """
    if not 1 <= l <= r <= n:
        raise ValueError(f"need 1 <= l <= r <= n, got l={l}, r={r}, n={n}")
    return float(range_error_coefficients(n, l - 1, r - 1))


def linear_query_coefficient(weights: ArrayLike) -> NDArray[np.float64]:
    """``w^T B B^T w = ||B^T w||^2`` for any linear query(s) ``w`` in ``O(N)``.

    ``B^T w`` has entry ``sum(w) / N`` for the total and
    ``(sum of w over the left half - over the right half) / 2^k`` for a
    height-``k`` node: a Haar transform of ``w`` with scaled rows. Leading
    axes are batches; ``w`` is zero-padded to ``N``.

    Parameters
    ----------
    weights : array_like of float, shape (..., n)
        Query weights over ``n >= 1`` bins.

    Returns
    -------
    ndarray of float64, shape (...)
        The coefficient per query (a 0-d array for one query).

    Raises
    ------
    ValueError
        If the last axis is empty.
    """
    w = np.asarray(weights, dtype=np.float64)
    size = padded_size(w.shape[-1])
    padded = np.zeros((*w.shape[:-1], size))
    padded[..., : w.shape[-1]] = w
    coefficients = haar_forward(padded)
    scale = np.empty(size)
    scale[0] = size
    for k in range(1, size.bit_length()):
        count = size >> k
        scale[count : 2 * count] = 1 << k
    return np.asarray(((coefficients / scale) ** 2).sum(axis=-1), dtype=np.float64)


def _pair_count_total(n_pow: int, k: int) -> Fraction:
    """``sum over ordered pairs (i, j) with LCA height k of cnt_ij`` (Wu et al., eq. 13), exactly.

    ``cnt_ij = min(i,j) (N - max(i,j) + 1)`` (1-indexed) counts the ranges using
    ``Σ_ij``. For node ``t`` of height ``k`` (size ``s``, halves of ``u = s/2``)
    the sum over its left-half ``i`` and right-half ``j`` factorises into
    ``(u s t + c)(u (N - s) + c - u s t)`` with ``c = u (u+1) / 2``; the sum over
    ``t = 0..N/s - 1`` uses the power sums ``S0, S1, S2``.
    """
    s, u = 1 << k, 1 << (k - 1)
    m = n_pow // s
    c = Fraction(u * (u + 1), 2)
    alpha = u * s
    beta = u * (n_pow - s) + c
    s0, s1, s2 = m, Fraction(m * (m - 1), 2), Fraction((m - 1) * m * (2 * m - 1), 6)
    return 2 * (-(alpha**2) * s2 + alpha * (beta - c) * s1 + c * beta * s0)


def _exact_average_power_of_two(h: int) -> Fraction:
    n_pow = 1 << h
    diagonal = (1 + Fraction(2, 4**h)) / 3
    total = diagonal * Fraction(n_pow * (n_pow + 1) * (n_pow + 2), 6)
    for k in range(1, h + 1):
        phi = Fraction(2, 3) * (Fraction(1, 4**h) - Fraction(1, 4**k))
        total += phi * _pair_count_total(n_pow, k)
    return total / Fraction(n_pow * (n_pow + 1), 2)


def average_error_coefficient(n: int) -> float:
    """Exact mean of ``w^T B B^T w`` over all ``n(n+1)/2`` ranges (Wu et al. 2018, eq. 16).

    For ``n = 2^h`` the pairs are grouped by LCA height (``O(log n)``, exact
    rational arithmetic); the sum simplifies to

    .. math:: \\bar{c}(2^h) = \\frac{h}{6}
              + \\frac{N^3 + 37 N^2 + 26 N + 8}{36 N^2 (N + 1)}, \\quad N = 2^h.

    For other ``n`` (ranges within the first ``n`` bins of the zero-padded
    transform) it uses the prefix-sum identity
    ``sum over ranges of Var = (n+1) sum_a Var(P_a) - Var(sum_a P_a)``
    with algorithm 3 for the prefixes (``O(n log n)``).

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    float
        The mean coefficient over all ranges.

    Raises
    ------
    ValueError
        If ``n < 1``.

    Examples
    --------
    >>> average_error_coefficient(1), average_error_coefficient(4)
    (1.0, 0.6)
    """
    size = padded_size(n)
    if size == n:
        return float(_exact_average_power_of_two(levels(n)))
    ends = np.arange(n)
    prefix = range_error_coefficients(n, np.zeros(n, np.int64), ends)
    total_of_prefixes = linear_query_coefficient((n - ends).astype(np.float64))
    ranges = n * (n + 1) / 2
    return float(((n + 1) * prefix.sum() - total_of_prefixes) / ranges)


def asymptotic_average_error_coefficient(n: int) -> float:
    """Wu et al., eq. 17: ``h / 6 + 1/36``, eq. 16 without its terms that vanish as ``h -> ∞``.

    The difference from eq. 16 is ``(36 N^2 + 26 N + 8) / (36 N^2 (N+1)) ≈ 1 / N``.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    float
        ``h / 6 + 1/36``.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    return levels(n) / 6.0 + 1.0 / 36.0
