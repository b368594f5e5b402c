"""Single-item frequency oracles: generalized randomized response (GRR) and symmetric
unary encoding (SUE, basic one-time RAPPOR).

Each user holds one item in ``0..k-1``. GRR reports an item; SUE reports a
``k``-bit vector. Wang et al., "Locally Differentially Private Protocols for
Frequency Estimation", USENIX Security 2017; Erlingsson et al., RAPPOR, CCS 2014.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray


def grr_probabilities(eps: float, k: int) -> tuple[float, float]:
    """:math:`p = e^\\varepsilon/(e^\\varepsilon + k - 1)`, :math:`q = 1/(e^\\varepsilon + k - 1)`.

    Parameters
    ----------
    eps : float
        Privacy budget :math:`\\varepsilon` of one report (not checked here).
    k : int
        Number of items, at least 2.

    Returns
    -------
    p : float
        Probability that the true item is reported.
    q : float
        Probability of each of the ``k - 1`` other items.

    Raises
    ------
    ValueError
        If ``k < 2``.

    Examples
    --------
    >>> p, q = grr_probabilities(math.log(3), 3)
    >>> round(p, 6), round(q, 6)
    (0.6, 0.2)
    """
    if k < 2:
        raise ValueError("GRR needs at least two items")
    z = math.exp(eps) + k - 1
    return math.exp(eps) / z, 1.0 / z


def grr_perturb(
    items: NDArray[np.int64], eps: float, k: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Keep the item w.p. ``p``, else report one of the other ``k - 1`` items uniformly.

    Parameters
    ----------
    items : ndarray of int64, shape (n,)
        Each user's item in ``0..k-1``.
    eps : float
        Privacy budget of one report.
    k : int
        Number of items, at least 2.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (n,)
        The reported items, in ``0..k-1``.

    Raises
    ------
    ValueError
        If ``k < 2``.
    """
    p, _ = grr_probabilities(eps, k)
    other = rng.integers(0, k - 1, size=items.size, dtype=np.int64)
    other = other + (other >= items)
    return np.where(rng.random(items.size) < p, items, other).astype(np.int64)


def grr_estimate(reports: NDArray[np.int64], eps: float, k: int) -> NDArray[np.float64]:
    """Unbiased frequencies :math:`\\hat f_j = (C_j/n - q)/(p - q)`.

    Parameters
    ----------
    reports : ndarray of int64, shape (n,)
        GRR reports in ``0..k-1`` (from :func:`grr_perturb`).
    eps : float
        Privacy budget the reports were made with.
    k : int
        Number of items, at least 2.

    Returns
    -------
    ndarray of float64, shape (k,)
        Estimated share of users holding each item (unclipped: may be negative or above 1).
        With no reports, ``n`` counts as 1.

    Raises
    ------
    ValueError
        If ``k < 2``.
    """
    p, q = grr_probabilities(eps, k)
    n = max(reports.size, 1)
    counts = np.bincount(reports, minlength=k).astype(np.float64)
    return np.asarray((counts / n - q) / (p - q), dtype=np.float64)


def grr_variance(eps: float, k: int, n: int, f: NDArray[np.float64]) -> NDArray[np.float64]:
    """:math:`\\mathrm{Var}\\,\\hat f_j = \\frac{q(1-q)}{n(p-q)^2} + \\frac{f_j(1-p-q)}{n(p-q)}`.

    Parameters
    ----------
    eps : float
        Privacy budget of one report.
    k : int
        Number of items, at least 2.
    n : int
        Number of reports.
    f : ndarray of float64
        True frequencies :math:`f_j` (any shape).

    Returns
    -------
    ndarray of float64
        Variance of :func:`grr_estimate` for each entry of ``f`` (same shape).

    Raises
    ------
    ValueError
        If ``k < 2``.
    """
    p, q = grr_probabilities(eps, k)
    return np.asarray(q * (1 - q) / (n * (p - q) ** 2) + f * (1 - p - q) / (n * (p - q)))


def sue_probabilities(eps: float) -> tuple[float, float]:
    """Bit kept w.p. :math:`p = e^{\\varepsilon/2}/(e^{\\varepsilon/2}+1)`; a 0-bit becomes 1
    w.p. :math:`q = 1 - p` (two bits differ between inputs, so each gets
    :math:`\\varepsilon/2`).

    Parameters
    ----------
    eps : float
        Privacy budget of one report (the whole bit vector).

    Returns
    -------
    p : float
        Probability that the 1-bit of the held item stays 1.
    q : float
        Probability that a 0-bit is reported as 1.
    """
    p = math.exp(eps / 2) / (math.exp(eps / 2) + 1)
    return p, 1.0 - p


def sue_perturb_users(
    items: NDArray[np.int64], eps: float, k: int, *, rng: np.random.Generator
) -> NDArray[np.bool_]:
    """The ``n x k`` reported bit matrix (reference sampler; memory ``n k``).

    Parameters
    ----------
    items : ndarray of int64, shape (n,)
        Each user's item in ``0..k-1``.
    eps : float
        Privacy budget of one report.
    k : int
        Number of items (bits per report).
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of bool, shape (n, k)
        Row ``i`` is user ``i``'s reported bit vector.
    """
    p, q = sue_probabilities(eps)
    bits = rng.random((items.size, k)) < q
    rows = np.arange(items.size)
    bits[rows, items] = rng.random(items.size) < p
    return bits


def sue_counts(
    items: NDArray[np.int64], eps: float, k: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Column sums of :func:`sue_perturb_users` drawn directly, exact in distribution.

    Bits of different users are independent, so the count of 1-bits at item ``j`` is
    :math:`\\mathrm{Bin}(n_j, p) + \\mathrm{Bin}(n - n_j, q)` with :math:`n_j` the
    holders of ``j``: the server's whole view, without materialising ``n k`` bits.

    Parameters
    ----------
    items : ndarray of int64, shape (n,)
        Each user's item in ``0..k-1``.
    eps : float
        Privacy budget of one report.
    k : int
        Number of items.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (k,)
        Number of users reporting a 1-bit at each item.
    """
    p, q = sue_probabilities(eps)
    holders = np.bincount(items, minlength=k)
    return rng.binomial(holders, p) + rng.binomial(items.size - holders, q)


def sue_estimate(counts: NDArray[np.int64], n: int, eps: float) -> NDArray[np.float64]:
    """Unbiased frequencies :math:`\\hat f_j = (C_j/n - q)/(p - q)`.

    Parameters
    ----------
    counts : ndarray of int64, shape (k,)
        1-bit counts per item (from :func:`sue_counts`).
    n : int
        Number of reports (0 counts as 1).
    eps : float
        Privacy budget the reports were made with.

    Returns
    -------
    ndarray of float64, shape (k,)
        Estimated share of users holding each item (unclipped).
    """
    p, q = sue_probabilities(eps)
    return np.asarray((counts / max(n, 1) - q) / (p - q), dtype=np.float64)


def sue_variance(eps: float, n: int, f: NDArray[np.float64]) -> NDArray[np.float64]:
    """:math:`\\mathrm{Var}\\,\\hat f_j = \\frac{q(1-q)}{n(p-q)^2} + \\frac{f_j(1-p-q)}{n(p-q)}`
    (``1 - p - q = 0`` for SUE).

    Parameters
    ----------
    eps : float
        Privacy budget of one report.
    n : int
        Number of reports.
    f : ndarray of float64
        True frequencies :math:`f_j` (any shape).

    Returns
    -------
    ndarray of float64
        Variance of :func:`sue_estimate` for each entry of ``f`` (same shape).
    """
    p, q = sue_probabilities(eps)
    return np.asarray(q * (1 - q) / (n * (p - q) ** 2) + f * (1 - p - q) / (n * (p - q)))
