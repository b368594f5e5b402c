"""PCKV-GRR and PCKV-UE (Gu, Li, Cheng, Xiong, Cao: "PCKV: Locally Differentially
Private Correlated Key-Value Data Collection with Optimized Utility", USENIX Security
2020), with the parameters used by the HISKV comparison.

Both use padding-and-sampling with a fixed length ``l`` over ``d' = d + l`` keys,
discretise the value and then perturb the key (kept w.p. ``a``) and the value
(kept w.p. ``p``). Their per-key marginals have the pair form of
:mod:`dpcore.ldp.pairs` (``p1 = a p``, ``q1 = a (1 - p)``, ``q2 = b / 2``), so one
estimator serves both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp.data import KVData
from dpcore.ldp.pairs import (
    PairProbabilities,
    estimate_pairs,
    pair_counts,
    pair_index,
    perturb_pairs,
)
from dpcore.ldp.sampling import discretise, padding_sample


@dataclass(frozen=True)
class KeyValueProbabilities:
    """Key kept w.p. ``a``; another key w.p. ``b`` (GRR: in total; UE: per bit); value
    kept w.p. ``p``; over ``n_keys = d + l`` keys.

    Attributes
    ----------
    a : float
        Probability that the sampled key is reported.
    b : float
        PCKV-GRR: probability of each other key; PCKV-UE: probability that an idle
        position reports ``±1``.
    p : float
        Probability that the discretised value is kept (given the key is).
    n_keys : int
        ``d + l``: real keys plus dummies.
    p1, q1, q2 : float
        The pair form of :mod:`dpcore.ldp.pairs`: ``a p``, ``a (1 - p)`` and ``b / 2``
        (properties).
    """

    a: float
    b: float
    p: float
    n_keys: int

    @property
    def p1(self) -> float:
        return self.a * self.p

    @property
    def q1(self) -> float:
        return self.a * (1.0 - self.p)

    @property
    def q2(self) -> float:
        return self.b / 2.0


def grr_probabilities(eps: float, d: int, length: int) -> KeyValueProbabilities:
    """PCKV-GRR's optimal parameters, claimed eps-LDP through padding-and-sampling:

    .. math::
        a = \\frac{l(e^\\varepsilon - 1) + 2}{l(e^\\varepsilon - 1) + 2d'},\\quad
        p = \\frac{l(e^\\varepsilon - 1) + 1}{l(e^\\varepsilon - 1) + 2},\\quad
        b = \\frac{1 - a}{d' - 1}.

    Parameters
    ----------
    eps : float
        Privacy budget of each user.
    d : int
        Size of the key domain, at least 1.
    length : int
        Padding length ``l``, at least 1.

    Returns
    -------
    KeyValueProbabilities
        ``(a, b, p)`` over ``d' = d + l`` keys.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``d < 1`` or ``length < 1``.

    Examples
    --------
    >>> pr = grr_probabilities(math.log(2), d=2, length=1)
    >>> round(pr.a, 6), round(pr.p, 6), round(pr.b, 6)
    (0.428571, 0.666667, 0.285714)
    """
    eps = _validate.positive("eps", eps)
    if d < 1 or length < 1:
        raise ValueError("need d >= 1 and l >= 1")
    gain = length * math.expm1(eps)
    d_prime = d + length
    a = (gain + 2) / (gain + 2 * d_prime)
    p = (gain + 1) / (gain + 2)
    return KeyValueProbabilities(a, (1 - a) / (d_prime - 1), p, d_prime)


def ue_probabilities(eps: float, d: int, length: int) -> KeyValueProbabilities:
    """PCKV-UE's optimal parameters (eps-LDP per report, no sampling gain claimed):

    .. math:: a = 1/2,\\quad b = \\frac{2}{e^\\varepsilon + 3},\\quad
        p = \\frac{e^\\varepsilon}{e^\\varepsilon + 1}.

    Parameters
    ----------
    eps : float
        Privacy budget of each user.
    d : int
        Size of the key domain, at least 1.
    length : int
        Padding length ``l``, at least 1.

    Returns
    -------
    KeyValueProbabilities
        ``(a, b, p)`` over ``d + l`` positions.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``d < 1`` or ``length < 1``.
    """
    eps = _validate.positive("eps", eps)
    if d < 1 or length < 1:
        raise ValueError("need d >= 1 and l >= 1")
    e = math.exp(eps)
    return KeyValueProbabilities(0.5, 2 / (e + 3), e / (e + 1), d + length)


def grr_perturb(
    data: KVData, eps: float, length: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """PCKV-GRR client side: one pair index in ``0..2 d' - 1`` per user.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user.
    length : int
        Padding length ``l``.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (n,)
        Reported pair indices (:func:`dpcore.ldp.pairs.pair_index`).

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``d < 1`` or ``length < 1``.
    """
    pr = grr_probabilities(eps, data.d, length)
    sampled = padding_sample(data, length, rng=rng)
    signs = discretise(sampled.values, rng=rng)
    probs = PairProbabilities(pr.p1, pr.q1, pr.q2, pr.n_keys)
    return perturb_pairs(pair_index(sampled.keys, signs), probs, rng=rng)


def grr_estimate(
    reports: NDArray[np.int64], eps: float, d: int, length: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """PCKV-GRR server side: ``(frequency, mean)`` of the ``d`` real keys.

    Parameters
    ----------
    reports : ndarray of int64, shape (n,)
        Reported pair indices (from :func:`grr_perturb`).
    eps : float
        Privacy budget the reports were made with.
    d : int
        Size of the key domain.
    length : int
        Padding length ``l`` the reports were made with.

    Returns
    -------
    frequency : ndarray of float64, shape (d,)
        Unbiased frequencies (unclipped).
    mean : ndarray of float64, shape (d,)
        Bounded means in ``[-1, 1]`` (:func:`dpcore.ldp.pairs.estimate_pairs`).

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``d < 1`` or ``length < 1``.
    """
    pr = grr_probabilities(eps, d, length)
    c_plus, c_minus = pair_counts(reports, d)
    est = estimate_pairs(c_plus, c_minus, reports.size, length, p1=pr.p1, q1=pr.q1, q2=pr.q2)
    return est.frequency, est.mean


def _sampled_signed_keys(
    data: KVData, length: int, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int8]]:
    sampled = padding_sample(data, length, rng=rng)
    return sampled.keys, discretise(sampled.values, rng=rng)


def ue_perturb_users(
    data: KVData, eps: float, length: int, *, rng: np.random.Generator
) -> NDArray[np.int8]:
    """PCKV-UE reference client: the ``n x d'`` matrix of reports in ``{0, +1, -1}``.

    At the sampled key: ``b`` (its value) w.p. ``a p``, ``-b`` w.p. ``a (1-p)``, 0
    otherwise; at every other key: ``±1`` w.p. ``b/2`` each, 0 otherwise.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user.
    length : int
        Padding length ``l``.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int8, shape (n, d + l)
        Row ``i`` is user ``i``'s report vector (memory ``n (d + l)``).

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``d < 1`` or ``length < 1``.
    """
    pr = ue_probabilities(eps, data.d, length)
    keys, signs = _sampled_signed_keys(data, length, rng)
    n = keys.size
    u = rng.random((n, pr.n_keys))
    out = np.where(u < pr.q2, 1, np.where(u < 2 * pr.q2, -1, 0)).astype(np.int8)
    v = rng.random(n)
    rows = np.arange(n)
    out[rows, keys] = np.where(v < pr.p1, signs, np.where(v < pr.a, -signs, 0))
    return out


def ue_counts(
    data: KVData, eps: float, length: int, *, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(C+_k, C-_k)`` of :func:`ue_perturb_users` for ``k < d``, drawn exactly in
    distribution without the ``n x d'`` matrix.

    Users' entries are independent, so per key the counts are a sum of three
    multinomials: users who sampled ``<k,+1>``, ``<k,-1>``, and all others.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user.
    length : int
        Padding length ``l``.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    c_plus, c_minus : ndarray of int64, shape (d,)
        Number of ``+1`` and of ``-1`` entries at each real key.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``d < 1`` or ``length < 1``.
    """
    pr = ue_probabilities(eps, data.d, length)
    keys, signs = _sampled_signed_keys(data, length, rng)
    n1 = np.bincount(keys[signs > 0], minlength=pr.n_keys)[: data.d]
    n2 = np.bincount(keys[signs < 0], minlength=pr.n_keys)[: data.d]
    rest = keys.size - n1 - n2
    same = rng.multinomial(n1, [pr.p1, pr.q1, 1 - pr.a])
    flipped = rng.multinomial(n2, [pr.q1, pr.p1, 1 - pr.a])
    others = rng.multinomial(rest, [pr.q2, pr.q2, 1 - pr.b])
    total = same + flipped + others
    return total[:, 0].astype(np.int64), total[:, 1].astype(np.int64)


def ue_estimate(
    c_plus: NDArray[np.int64], c_minus: NDArray[np.int64], n: int, eps: float, length: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """PCKV-UE server side: ``(frequency, mean)`` from the per-key counts.

    Parameters
    ----------
    c_plus, c_minus : ndarray of int64, shape (d,)
        Counts of ``+1`` and ``-1`` entries (from :func:`ue_counts`).
    n : int
        Number of reports.
    eps : float
        Privacy budget the reports were made with.
    length : int
        Padding length ``l`` the reports were made with.

    Returns
    -------
    frequency : ndarray of float64, shape (d,)
        Unbiased frequencies (unclipped).
    mean : ndarray of float64, shape (d,)
        Bounded means in ``[-1, 1]``.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300``
        (:func:`dpcore._validate.positive`), or ``c_plus`` is empty or ``length < 1``.
    """
    pr = ue_probabilities(eps, c_plus.size, length)
    est = estimate_pairs(c_plus, c_minus, n, length, p1=pr.p1, q1=pr.q1, q2=pr.q2)
    return est.frequency, est.mean
