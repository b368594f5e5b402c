"""Flat frequency oracles for range queries: GRR, OUE, OLH and HRR with their exact covariances.

Each user holds one item of ``[k]``; an oracle turns the users' reports into the collector's
statistic (support counts, or HRR's signed row sums) and the statistic into unbiased
frequencies. The covariance of the estimates of a group of ``m`` users with item fractions
``f`` (the group fixed: each user's report drawn given her item) is
``diag(d) - u u^T + g g^T`` (:class:`Covariance`; Wang, Blocki, Li, Jha, USENIX Security
2017; restated in the team's notes on LDP range queries):

.. math:: \\mathrm{pure}\\ (p, q):\\ d_v = \\frac{f_v p(1-p) + (1 - f_v) q(1-q)}{m (p-q)^2},
          \\quad u = g = 0 \\quad (\\mathrm{OUE},\\ \\mathrm{OLH});
          \\qquad \\mathrm{HRR}:\\ d_v = \\frac{c^2 - f_v}{m}

.. math:: \\mathrm{GRR}:\\ \\pi_v = q + (p-q) f_v,\\
          d_v = \\frac{\\pi_v}{m (p-q)^2} - \\frac{f_v}{m},\\
          u_v = \\frac{\\pi_v}{\\sqrt m (p-q)},\\ g_v = \\frac{f_v}{\\sqrt m}

(a user holding ``x`` reports ``y`` w.p. ``P(y|x) = q + (p-q)[y = x]``, so the counts'
covariance is ``sum_x n_x (diag P(.|x) - P(.|x) P(.|x)^T)``: the multinomial of ``pi`` that
i.i.d. users would give, less the multinomial sampling of the group's own histogram,
``(diag f - f f^T)/m``). GRR's estimates are negatively correlated, the others' uncorrelated
(OLH for an ideal random hash). ``f = 0`` gives the noise-only part the spec's constants use:
``V(eps) = 4 e^eps / (e^eps - 1)^2`` for OUE and ``c^2 = V + 1`` for HRR.

HRR runs over the next power of two ``>= k`` (padding with items nobody holds leaves every
formula unchanged). Samplers: :mod:`dpcore.ldp.ranges.reports` (per user, the test oracle)
and :mod:`dpcore.ldp.ranges.aggregate` (the statistic's exact law, any number of users).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp.oracles import grr_probabilities

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

OracleName = Literal["grr", "oue", "olh", "hrr"]
ORACLES: tuple[str, ...] = get_args(OracleName)

MIN_EPS = 1e-4
"""Smallest eps accepted for range queries: ``p - q ~ eps/4`` is a difference of numbers near
1/2, so its relative rounding grows like ``1e-16/eps`` (1e-12 here), and it is squared (below
``1e-154`` it underflows to 0)."""


def checked_eps(eps: object) -> float:
    """``eps`` in ``[MIN_EPS, 10]``, else ValueError naming it and the accepted range.

    Examples
    --------
    >>> checked_eps(1)
    1.0
    """
    return _validate.ldp_epsilon(eps, lower=MIN_EPS)


def check_range_set(ranges: str) -> None:
    """Raise ValueError unless ``ranges`` names a set of ranges averaged over: ``"all"`` (the
    ``D(D+1)/2`` ranges) or ``"prefix"`` (the ``D`` prefixes)."""
    if ranges not in ("all", "prefix"):
        raise ValueError(f"ranges must be 'all' or 'prefix', got {ranges!r}")


def olh_hash_range(eps: float) -> int:
    """OLH's hash range ``g = floor(e^eps + 1)`` (the authors' code; ``>= 2``).

    Examples
    --------
    >>> olh_hash_range(math.log(3))
    4
    """
    return max(2, math.floor(math.exp(eps) + 1))


def hadamard_size(k: int) -> int:
    """The next power of two ``>= k``: the Hadamard rows HRR draws from.

    Examples
    --------
    >>> hadamard_size(5), hadamard_size(8)
    (8, 8)
    """
    return 1 << max(0, (k - 1).bit_length())


def hrr_scale(eps: float) -> float:
    """:math:`c = (e^\\varepsilon + 1)/(e^\\varepsilon - 1)`; a sign is kept w.p.
    :math:`e^\\varepsilon/(e^\\varepsilon + 1) = (1 + 1/c)/2`.

    Examples
    --------
    >>> hrr_scale(math.log(3))
    2.0
    """
    return (math.exp(eps) + 1) / math.expm1(eps)


def support_probabilities(oracle: str, eps: float, k: int) -> tuple[float, float]:
    """``(p, q)``: a report supports an item w.p. ``p`` if the user holds it, ``q`` otherwise.

    Parameters
    ----------
    oracle : {"grr", "oue", "olh"}
        A pure protocol (HRR's statistic is a signed sum: see :func:`hrr_scale`).
    eps : float
        Budget of one report.
    k : int
        Number of items (``>= 2`` for GRR).

    Returns
    -------
    p, q : float
        GRR: ``e^eps/(e^eps+k-1)``, ``1/(e^eps+k-1)``; OUE: ``1/2``, ``1/(e^eps+1)``;
        OLH: ``e^eps/(e^eps+g-1)``, ``1/g`` with ``g`` = :func:`olh_hash_range`.

    Raises
    ------
    ValueError
        If ``oracle`` is not one of the three.

    Examples
    --------
    >>> support_probabilities("oue", math.log(3), 8)
    (0.5, 0.25)
    """
    if oracle == "grr":
        return grr_probabilities(eps, k)
    if oracle == "oue":
        return 0.5, 1.0 / (math.exp(eps) + 1)
    if oracle == "olh":
        g = olh_hash_range(eps)
        return math.exp(eps) / (math.exp(eps) + g - 1), 1.0 / g
    raise ValueError(f"oracle must be one of 'grr', 'oue', 'olh' here, got {oracle!r}")


def noise_constant(oracle: str, eps: float, k: int) -> float:
    """``m`` times the noise-only variance of one item's estimate (``f = 0``).

    .. math:: \\mathrm{GRR}\\ \\frac{e^\\varepsilon + k - 2}{(e^\\varepsilon-1)^2},\\quad
              \\mathrm{OUE}\\ V = \\frac{4 e^\\varepsilon}{(e^\\varepsilon-1)^2},\\quad
              \\mathrm{OLH}\\ \\frac{q(1-q)}{(p-q)^2},\\quad \\mathrm{HRR}\\ c^2 = V + 1

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle.
    eps : float
        Budget of one report.
    k : int
        Number of items.

    Returns
    -------
    float
        The constant (the variance of one item's estimate from ``m`` users is this over ``m``).

    Raises
    ------
    ValueError
        If ``oracle`` is unknown.

    Examples
    --------
    >>> round(noise_constant("oue", 1.0, 16), 6), round(noise_constant("hrr", 1.0, 16), 6)
    (3.682694, 4.682694)
    """
    if oracle == "hrr":
        return hrr_scale(eps) ** 2
    p, q = support_probabilities(oracle, eps, k)
    return q * (1 - q) / (p - q) ** 2


@dataclass(frozen=True, eq=False)
class Covariance:
    """``diag(d) - u u^T + g g^T``: the covariance of one level's item estimates.

    Attributes
    ----------
    d, u, g : ndarray of float64, shape (k,)
        The diagonal part and the two rank-one parts (``u`` and ``g`` zero except for GRR).
    """

    d: FloatArray
    u: FloatArray
    g: FloatArray

    def diagonal(self) -> FloatArray:
        """Each estimate's variance, ``d - u^2 + g^2``."""
        return np.asarray(self.d - self.u**2 + self.g**2, dtype=np.float64)

    def of(self, weights: FloatArray) -> FloatArray:
        """The variance of each weighted sum (rows of ``weights``, shape ``(r, k)``)."""
        w = np.asarray(weights, dtype=np.float64)
        return np.asarray((w**2) @ self.d - (w @ self.u) ** 2 + (w @ self.g) ** 2)


def covariance_factors(
    oracle: str, eps: float, k: int, m: float, frequencies: FloatArray | None = None
) -> Covariance:
    """The covariance ``diag(d) - u u^T + g g^T`` of the ``k`` estimates from a group of ``m``
    users.

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle.
    eps : float
        Budget of one report.
    k : int
        Number of items.
    m : float
        Number of users reporting (``> 0``).
    frequencies : ndarray of float64, shape (k,), optional
        The group's item fractions ``f``; None: the noise-only part (``f = 0``).

    Returns
    -------
    Covariance
        Its factors (module notes).

    Raises
    ------
    ValueError
        If ``oracle`` is unknown.
    """
    f = np.zeros(k) if frequencies is None else np.asarray(frequencies, dtype=np.float64)
    zero = np.zeros(k)
    if oracle == "hrr":
        return Covariance((hrr_scale(eps) ** 2 - f) / m, zero, zero)
    p, q = support_probabilities(oracle, eps, k)
    if oracle == "grr":
        pi = q + (p - q) * f
        d = pi / (m * (p - q) ** 2) - f / m
        return Covariance(d, pi / (math.sqrt(m) * (p - q)), f / math.sqrt(m))
    return Covariance((f * p * (1 - p) + (1 - f) * q * (1 - q)) / (m * (p - q) ** 2), zero, zero)


def walsh_hadamard(values: FloatArray) -> FloatArray:
    """The unnormalised Walsh-Hadamard transform ``H x``, ``H_{jv} = (-1)^{popcount(j & v)}``,
    along the first axis (length a power of two), in ``O(K log K)``.

    Examples
    --------
    >>> walsh_hadamard(np.array([1.0, 0.0, 0.0, 0.0]))
    array([1., 1., 1., 1.])
    """
    x = np.array(values, dtype=np.float64)
    size = x.shape[0]
    half = 1
    while half < size:
        blocks = x.reshape(size // (2 * half), 2, half, *x.shape[1:])
        left, right = blocks[:, 0].copy(), blocks[:, 1].copy()
        blocks[:, 0], blocks[:, 1] = left + right, left - right
        half *= 2
    return x


def hadamard_signs(rows: IntArray, items: IntArray) -> NDArray[np.int64]:
    """:math:`\\phi_j(v) = (-1)^{\\mathrm{popcount}(j \\,\\&\\, v)}`, broadcast over ``rows`` and
    ``items``.

    Examples
    --------
    >>> hadamard_signs(np.array([3]), np.array([1, 3]))
    array([-1,  1])
    """
    parity = np.bitwise_count(np.bitwise_and(rows, items)) & 1
    return np.asarray(1 - 2 * parity.astype(np.int64), dtype=np.int64)


def estimate(oracle: str, statistic: FloatArray, m: int, eps: float, k: int) -> FloatArray:
    """Unbiased frequencies from the collector's statistic.

    .. math:: \\hat f_v = \\frac{C_v/m - q}{p - q}\\ (\\mathrm{pure}), \\qquad
              \\hat f_v = \\frac{c}{m} (H T)_v\\ (\\mathrm{HRR})

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle.
    statistic : ndarray
        Support counts per item (shape ``(k,)``), or for HRR the signed sums per Hadamard row
        (shape ``(hadamard_size(k),)``).
    m : int
        Number of users who reported (0 counts as 1).
    eps : float
        Budget of one report.
    k : int
        Number of items.

    Returns
    -------
    ndarray of float64, shape (k,)
        Estimated fraction of the ``m`` users holding each item (unclipped).

    Raises
    ------
    ValueError
        If ``oracle`` is unknown.
    """
    m = max(m, 1)
    stat = np.asarray(statistic, dtype=np.float64)
    if oracle == "hrr":
        return hrr_scale(eps) / m * walsh_hadamard(stat)[:k]
    p, q = support_probabilities(oracle, eps, k)
    return (stat / m - q) / (p - q)
