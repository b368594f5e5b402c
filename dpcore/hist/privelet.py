"""Privelet: the Haar-wavelet strategy and its release.

Strategy -> measure -> reconstruct are separate functions: :func:`haar_forward`
(the strategy ``A``), :func:`measure` (Laplace noise on every coefficient) and
:func:`haar_inverse` (the reconstruction ``B = A^{-1}``), composed by
:func:`release`. Each noisy coefficient has variance :func:`noise_variance`; the
closed-form errors of the reconstruction (Wu, Chen, Cai and Wang 2018) are
:mod:`dpcore.hist.privelet_error`.

Coefficient order ("heap order"): index 0 holds the total; index ``i >= 1`` is
the node of a complete binary tree numbered level by level from the root
(children of ``i`` are ``2i`` and ``2i + 1``) and holds
``(sum of its left-half bins) - (sum of its right-half bins)``.

Policy for ``n`` not a power of two: the histogram is zero-padded to
``N = 2^h``, the next power of two (:func:`padded_size`); the noise scale,
covariance and every error (:mod:`dpcore.hist.privelet_error`) are those of the
padded transform, and only the first ``n`` reconstructed bins are published. Padding changes no real
bin's sensitivity (each real bin still lies in ``h + 1`` coefficients).

Bins in array arguments are 0-based and inclusive (as in :mod:`dpcore.hist.queries`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate


def padded_size(n: int) -> int:
    """The transform size ``N``: the smallest power of two ``>= n``.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    int
        ``N = 2^h >= n``.

    Raises
    ------
    ValueError
        If ``n < 1``.

    Examples
    --------
    >>> padded_size(1), padded_size(5), padded_size(1024)
    (1, 8, 1024)
    """
    if n < 1:
        raise ValueError(f"need at least one bin, got n={n}")
    return 1 << (n - 1).bit_length()


def levels(n: int) -> int:
    """``h = log2 N`` for the padded size ``N`` of ``n`` bins.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    int
        ``h``, the height of the padded transform's binary tree.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    return padded_size(n).bit_length() - 1


def sensitivity(n: int) -> int:
    """L1 sensitivity ``h + 1`` of the Haar strategy over ``n`` bins (padded).

    Every bin lies in the total and in one coefficient per ancestor, each with
    weight ``±1``; :func:`dpcore.hist.matrix_mechanism.l1_sensitivity` of
    :func:`strategy_matrix` recomputes it from the matrix.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    int
        ``h + 1``.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    return levels(n) + 1


def haar_forward(values: ArrayLike) -> NDArray[np.float64]:
    """The Haar coefficients ``A v`` (heap order) along the last axis, in ``O(N)``.

    The last axis must have a power-of-two length ``N``; leading axes are
    batches (e.g. several releases).

    Parameters
    ----------
    values : array_like of float, shape (..., N)
        Bin values; ``N`` a power of two.

    Returns
    -------
    ndarray of float64, shape (..., N)
        The coefficients in heap order.

    Raises
    ------
    ValueError
        If the last axis is empty or its length is not a power of two.

    Examples
    --------
    >>> haar_forward([1.0, 2.0, 3.0, 4.0]).tolist()
    [10.0, -4.0, -1.0, -1.0]
    """
    sums = np.asarray(values, dtype=np.float64)
    size = sums.shape[-1]
    if size != padded_size(size):
        raise ValueError(f"the Haar transform needs a power-of-two length, got {size}")
    coefficients = np.empty_like(sums)
    while sums.shape[-1] > 1:
        left, right = sums[..., 0::2], sums[..., 1::2]
        count = left.shape[-1]
        coefficients[..., count : 2 * count] = left - right
        sums = left + right
    coefficients[..., 0] = sums[..., 0]
    return coefficients


def haar_inverse(coefficients: ArrayLike) -> NDArray[np.float64]:
    """The reconstruction ``B c`` (``B = A^{-1}``) along the last axis, in ``O(N)``.

    .. math:: v_i = \\frac{c_0}{N} + \\sum_{a \\in \\mathrm{anc}(i)}
              \\pm \\frac{c_a}{2^{\\mathrm{height}(a)}}

    with ``+`` when bin ``i`` is in the left half of ``a``.

    Parameters
    ----------
    coefficients : array_like of float, shape (..., N)
        Coefficients in heap order; ``N`` a power of two.

    Returns
    -------
    ndarray of float64, shape (..., N)
        The reconstructed bin values.

    Raises
    ------
    ValueError
        If the last axis is empty or its length is not a power of two.

    Examples
    --------
    >>> haar_inverse(haar_forward([1.0, 2.0, 3.0, 4.0])).tolist()
    [1.0, 2.0, 3.0, 4.0]
    """
    c = np.asarray(coefficients, dtype=np.float64)
    size = c.shape[-1]
    if size != padded_size(size):
        raise ValueError(f"the Haar transform needs a power-of-two length, got {size}")
    values = c[..., :1] / size
    count, node_size = 1, size
    while count < size:
        detail = c[..., count : 2 * count] / node_size
        values = np.stack((values + detail, values - detail), axis=-1).reshape(
            *c.shape[:-1], 2 * count
        )
        count, node_size = 2 * count, node_size // 2
    return np.asarray(values, dtype=np.float64)


def strategy_matrix(n: int) -> NDArray[np.float64]:
    """The explicit ``N x N`` strategy ``A`` (rows in heap order) for small ``n``.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    ndarray of float64, shape (N, N)
        ``A`` with entries 0 and ±1, ``N = padded_size(n)``.

    Raises
    ------
    ValueError
        If ``n < 1``.

    Examples
    --------
    >>> strategy_matrix(4).astype(int).tolist()
    [[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 0, 0], [0, 0, 1, -1]]
    """
    size = padded_size(n)
    return haar_forward(np.eye(size)).T


def reconstruction_matrix(n: int) -> NDArray[np.float64]:
    """The explicit ``N x N`` reconstruction ``B = A^{-1}`` for small ``n``.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    ndarray of float64, shape (N, N)
        ``B = A^{-1}``, ``N = padded_size(n)``.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    size = padded_size(n)
    return haar_inverse(np.eye(size)).T


def measure(
    coefficients: ArrayLike, epsilon: float, *, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Add ``Lap((h + 1) / epsilon)`` to every coefficient (the whole release is epsilon-DP).

    Parameters
    ----------
    coefficients : array_like of float, shape (..., N)
        Haar coefficients (:func:`haar_forward`); ``N`` sets the sensitivity ``h + 1``.
    epsilon : float
        Privacy budget of the whole release, in ``[1e-300, inf)``.
    rng : numpy.random.Generator
        Source of the Laplace noise.

    Returns
    -------
    ndarray of float64, shape (..., N)
        The noisy coefficients.

    Raises
    ------
    ValueError
        If ``epsilon`` is not a finite number in ``[1e-300, inf)``, the last axis is empty,
        or a coefficient exceeds ``2^32`` times the noise scale in magnitude.
    """
    c = np.asarray(coefficients, dtype=np.float64)
    scale = sensitivity(c.shape[-1]) / _validate.positive("epsilon", epsilon)
    _validate.perturbable("A Haar coefficient", c, scale)
    return c + rng.laplace(0.0, scale, size=c.shape)


def release(
    counts: ArrayLike, epsilon: float, *, rng: np.random.Generator, releases: int | None = None
) -> NDArray[np.float64]:
    """Privelet estimates of the ``n`` bins (zero-padded to ``N`` internally).

    With ``releases=T`` the result has shape ``(T, n)`` (independent releases).
    Raises ValueError for non-finite counts, ``epsilon`` outside ``[1e-300, inf)``,
    and coefficients too large for float64 to keep their noise.

    Parameters
    ----------
    counts : array_like of float, shape (n,)
        The histogram, finite, ``n >= 1``.
    epsilon : float
        Privacy budget of each release, in ``[1e-300, inf)``.
    rng : numpy.random.Generator
        Source of the Laplace noise.
    releases : int, optional
        Number of independent releases ``T``; one unbatched release if omitted.

    Returns
    -------
    ndarray of float64, shape (n,) or (releases, n)
        The estimated bins.

    Raises
    ------
    ValueError
        If ``counts`` is not a non-empty 1-D array of finite numbers, ``epsilon`` is not a
        finite number in ``[1e-300, inf)``, or a coefficient is too large for its noise.
    """
    v = _validate.finite_array("counts", counts)
    n = v.shape[-1]
    padded = np.zeros(padded_size(n))
    padded[:n] = v
    if releases is not None:
        padded = np.broadcast_to(padded, (releases, padded.size))
    noisy = measure(haar_forward(padded), epsilon, rng=rng)
    return haar_inverse(noisy)[..., :n]


def noise_variance(n: int, epsilon: float) -> float:
    """Variance ``2 (h+1)^2 / epsilon^2`` of each noisy coefficient.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).
    epsilon : float
        Privacy budget, in ``[1e-300, inf)``.

    Returns
    -------
    float
        The variance (count units squared).

    Raises
    ------
    ValueError
        If ``n < 1`` or ``epsilon`` is not a finite number in ``[1e-300, inf)``.
    """
    return 2.0 * sensitivity(n) ** 2 / _validate.positive("epsilon", epsilon) ** 2
