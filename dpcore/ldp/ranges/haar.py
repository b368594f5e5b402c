"""HaarHRR: range queries from Haar wavelet coefficients, each level reported with HRR.

``D = 2^h`` items. Detail level ``k = 0..h-1`` has ``2^k`` nodes of ``s = D/2^k`` items; node
``v``'s coefficient is ``c_v = f(L_v) - f(R_v)`` (its left half's fraction minus its right
half's) and the average ``1/D`` is known. A user draws a level uniformly, and reports her
signed one-hot coefficient vector at that level (+1 on her node if her item is in its left
half, -1 if in the right) with HRR over the ``2^k`` coefficients (binary randomised response
at ``k = 0``). Then, with ``m = N/h`` users per level,

.. math:: \\hat Q = \\frac{r}{D} + \\sum_v \\hat c_v \\frac{|Q \\cap L_v| - |Q \\cap R_v|}{s_v},
          \\qquad \\mathrm{Var}[\\hat c_v] = \\frac{c^2 - f(L_v) - f(R_v)}{m},

the coefficients uncorrelated (at most two non-zero terms per level). Averaged over all
ranges, a coefficient's squared weight sums to ``((D+1) sum P^2 - (sum P)^2)/s^2`` with ``P``
its prefix profile ``0, 1, .., s/2, .., 1, 0`` (zero outside the node), so the average is
``O(D)``. Cormode, Kulkarni, Srivastava, PVLDB 2019; the team's notes on LDP range queries.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.ldp.ranges.hierarchy import MAX_DOMAIN
from dpcore.ldp.ranges.oracles import check_range_set, checked_eps, hrr_scale

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def haar_levels(domain: int) -> int:
    """``h = log2 D``; ValueError unless the domain is a power of two ``>= 2``.

    Examples
    --------
    >>> haar_levels(256)
    8
    """
    d = _validate.whole("domain", domain, lower=2, upper=MAX_DOMAIN)
    if d & (d - 1):
        raise ValueError(
            f"domain must be a power of 2 for Haar wavelets, got {d}; pad the domain to "
            f"{1 << d.bit_length()} items (empty ones) to use HaarHRR"
        )
    return d.bit_length() - 1


def coefficient_fractions(frequencies: ArrayLike, domain: int) -> tuple[FloatArray, FloatArray]:
    """Per coefficient (level ``k`` node ``u`` at index ``2^k - 1 + u``), ``c_v`` and
    ``f(L_v) + f(R_v)``.

    Parameters
    ----------
    frequencies : array_like of float, shape (domain,)
        Items' fractions (finite, ``>= 0``).
    domain : int
        ``D``, a power of two.

    Returns
    -------
    coefficients, mass : ndarray of float64, shape (domain - 1,)
        The true coefficients and each node's fraction.

    Raises
    ------
    ValueError
        If ``domain`` is not a power of two or ``frequencies`` is invalid.
    """
    h = haar_levels(domain)
    f = _validate.finite_array("frequencies", frequencies, size=domain, nonnegative=True)
    coefficients, mass = [], []
    for k in range(h):
        halves = f.reshape(2 * (1 << k), -1).sum(axis=1).reshape(-1, 2)
        coefficients.append(halves[:, 0] - halves[:, 1])
        mass.append(halves.sum(axis=1))
    return np.concatenate(coefficients), np.concatenate(mass)


def coefficient_variances(
    domain: int, eps: float, users: int, frequencies: ArrayLike | None = None
) -> FloatArray:
    """``Var[c^_v] = (c^2 - f(L_v) - f(R_v)) h / N`` per coefficient (noise only: ``c^2 h/N``).

    Parameters
    ----------
    domain : int
        ``D``, a power of two.
    eps : float
        Each user's budget.
    users : int
        Number of users ``N`` (``>= h``).
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.

    Returns
    -------
    ndarray of float64, shape (domain - 1,)
        The variances, coefficients in the order of :func:`coefficient_fractions`.

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    h = haar_levels(domain)
    e = checked_eps(eps)
    n = _validate.whole("users", users, lower=h)
    mass = np.zeros(domain - 1)
    if frequencies is not None:
        mass = coefficient_fractions(frequencies, domain)[1]
    return (hrr_scale(e) ** 2 - mass) * h / n


def haar_leaves(coefficients: ArrayLike, domain: int) -> FloatArray:
    """Each item's estimated fraction from the coefficients (the inverse Haar transform).

    .. math:: \\hat f_i = \\frac{1}{D} + \\sum_k \\pm \\frac{\\hat c_{k, i >> (h-k)}}{s_k}

    Parameters
    ----------
    coefficients : array_like of float, shape (domain - 1,)
        The (estimated) coefficients, in the order of :func:`coefficient_fractions`.
    domain : int
        ``D``, a power of two.

    Returns
    -------
    ndarray of float64, shape (domain,)
        The items' fractions (they sum to 1 exactly).

    Raises
    ------
    ValueError
        If ``domain`` is not a power of two or ``coefficients`` has the wrong size.

    Examples
    --------
    >>> f = np.array([0.5, 0.25, 0.25, 0.0])
    >>> haar_leaves(coefficient_fractions(f, 4)[0], 4).tolist()
    [0.5, 0.25, 0.25, 0.0]
    """
    c = _validate.finite_array("coefficients", coefficients, size=domain - 1)
    index, sign = item_signs(domain)
    sizes = domain >> np.arange(index.shape[0])
    return np.asarray(1.0 / domain + (sign * c[index] / sizes[:, None]).sum(axis=0))


def haar_range_variance(
    domain: int,
    eps: float,
    users: int,
    a: ArrayLike,
    b: ArrayLike,
    *,
    frequencies: ArrayLike | None = None,
) -> FloatArray:
    """Variance of each range's estimated fraction under HaarHRR, ``O(h)`` per range.

    Parameters
    ----------
    domain : int
        ``D``, a power of two.
    eps : float
        Each user's budget.
    users : int
        Number of users ``N``.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.

    Returns
    -------
    ndarray of float64
        One variance per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    var = coefficient_variances(domain, eps, users, frequencies)
    first, last = _validate.ranges(domain, a, b)
    return np.asarray(level_sums(domain, first, last, var, power=2).sum(axis=0))


def level_sums(
    domain: int, first: IntArray, last: IntArray, values: FloatArray, *, power: int
) -> FloatArray:
    """Per level ``k`` and range, ``sum_v w_v^power values_v`` over the level's coefficients,
    ``w_v = (|Q ∩ L_v| - |Q ∩ R_v|) / s_v`` the coefficient's weight in the range's answer.

    Only the (at most two) nodes holding an end of the range have ``w_v != 0``: a node inside
    the range counts its halves alike, one outside counts neither. ``O(h)`` per range.

    Parameters
    ----------
    domain : int
        ``D``, a power of two.
    first, last : ndarray of int64
        Valid range starts and ends (same shape).
    values : ndarray of float64, shape (domain - 1,)
        One value per coefficient, in the order of :func:`coefficient_fractions`.
    power : int
        The power of the weight.

    Returns
    -------
    ndarray of float64, shape (h, *first.shape)
        The sums.

    Examples
    --------
    >>> level_sums(4, np.array([0]), np.array([2]), np.ones(3), power=1).tolist()
    [[0.25], [0.5]]
    """
    h = haar_levels(domain)
    out = np.zeros((h, *first.shape))
    for k in range(h):
        size = domain >> k
        u_first, u_last = first // size, last // size
        for node, counted in ((u_first, True), (u_last, u_last != u_first)):
            lo, mid = node * size, node * size + size // 2
            left = _overlap(first, last, lo, mid - 1)
            right = _overlap(first, last, mid, lo + size - 1)
            weight = (left - right) / size
            out[k] += np.where(counted, weight**power * values[(1 << k) - 1 + node], 0.0)
    return out


def item_signs(domain: int) -> tuple[IntArray, IntArray]:
    """Per level ``k`` and item: the coefficient the item's users report and their sign.

    Returns
    -------
    index, sign : ndarray of int64, shape (h, domain)
        ``index[k, x]``: the level-``k`` coefficient (in the order of
        :func:`coefficient_fractions`) whose node holds ``x``; ``sign[k, x]``: +1 if ``x`` is
        in its left half, -1 if in its right.

    Examples
    --------
    >>> [row.tolist() for row in item_signs(4)]
    [[[0, 0, 0, 0], [1, 1, 2, 2]], [[1, 1, -1, -1], [1, -1, 1, -1]]]
    """
    h = haar_levels(domain)
    items = np.arange(domain, dtype=np.int64)
    k = np.arange(h, dtype=np.int64)[:, None]
    index = (1 << k) - 1 + (items >> (h - k))
    sign = 1 - 2 * ((items >> (h - k - 1)) & 1)
    return index, sign


def _overlap(a: IntArray, b: IntArray, lo: IntArray, hi: IntArray) -> NDArray[np.float64]:
    overlap = np.maximum(0, np.minimum(b, hi) - np.maximum(a, lo) + 1)
    return np.asarray(overlap, dtype=np.float64)


def haar_average_variance(
    domain: int,
    eps: float,
    users: int,
    *,
    frequencies: ArrayLike | None = None,
    ranges: str = "all",
) -> float:
    """The average of :func:`haar_range_variance` over all ranges or all prefixes, ``O(D)``.

    .. math:: \\frac{1}{D(D+1)/2} \\sum_v \\mathrm{Var}[\\hat c_v]
              \\frac{(D+1) \\sum P^2 - (\\sum P)^2}{s_v^2},\\quad
              \\sum P = (s/2)^2,\\ \\sum P^2 = \\frac{(s/2-1)(s/2)(s-1)}{3} + (s/2)^2

    (over prefixes: ``sum_v Var[c^_v] (sum P^2) / s_v^2 / D``).

    Parameters
    ----------
    domain : int
        ``D``, a power of two.
    eps : float
        Each user's budget.
    users : int
        Number of users ``N``.
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.
    ranges : {"all", "prefix"}, default "all"
        Average over the ``D(D+1)/2`` ranges or the ``D`` prefixes ``[0, b]``.

    Returns
    -------
    float
        The average variance.

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    check_range_set(ranges)
    var = coefficient_variances(domain, eps, users, frequencies)
    h = haar_levels(domain)
    total = 0.0
    for k in range(h):
        size = domain >> k
        half = size // 2
        s1 = float(half * half)
        s2 = (half - 1) * half * (2 * half - 1) / 3 + s1
        level = float(var[(1 << k) - 1 : (2 << k) - 1].sum())
        if ranges == "prefix":
            total += level * s2 / size**2 / domain
        else:
            total += level * ((domain + 1) * s2 - s1 * s1) / size**2 / (domain * (domain + 1) / 2)
    return total
