"""Single-purpose baselines: Harmony (means only) and SUE / basic RAPPOR (frequencies only).

- Harmony (Nguyen et al., "Collecting and Analyzing Data from Smart Device Users
  with Local Differential Privacy", 2016): each user samples one key ``j``
  uniformly, discretises its value (0 when the key is absent) and flips the sign
  with probability :math:`1/(1 + e^\\varepsilon)`. The collector learns the
  zero-filled mean :math:`f_j m_j`; as a mean-only baseline it is divided by a
  frequency supplied by the caller (the experiment passes the *true* frequency, an
  advantage for Harmony that the page states).
- SUE (symmetric unary encoding = basic one-time RAPPOR): one item per user by
  padding-and-sampling with length ``l``, unary-encoded over ``d + l`` bits,
  each bit flipped at ``eps / 2``; :math:`\\hat f = l \\cdot \\hat f_{SUE}`.
- Central Laplace (the baseline local DP gives up: a trusted curator holds the raw pairs):
  its frequencies' expected error in closed form, :func:`central_frequency_mse`.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp import oracles
from dpcore.ldp.data import KVData
from dpcore.ldp.sampling import PLUS, domain_sample, padding_sample


def harmony_keep_probability(eps: float) -> float:
    """:math:`p = e^\\varepsilon / (1 + e^\\varepsilon)`.

    Parameters
    ----------
    eps : float
        Privacy budget of one report.

    Returns
    -------
    float
        Probability that the discretised sign is reported unflipped.
    """
    return math.exp(eps) / (1 + math.exp(eps))


def harmony_channel(eps: float) -> NDArray[np.float64]:
    """``P[state, report]`` for states (absent, +1, -1) and reports (+1, -1).

    Parameters
    ----------
    eps : float
        Privacy budget of one report.

    Returns
    -------
    ndarray of float64, shape (3, 2)
        Row-stochastic channel; the absent state reports a fair coin.
    """
    p = harmony_keep_probability(eps)
    return np.array([[0.5, 0.5], [p, 1 - p], [1 - p, p]])


def harmony_perturb(
    data: KVData, eps: float, *, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int8]]:
    """Client side: ``(sampled key, ±1)``; absent keys discretise the value 0.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    keys : ndarray of int64, shape (n,)
        Key each user sampled uniformly from ``0..d-1``.
    signs : ndarray of int8, shape (n,)
        Reported sign, ``+1`` or ``-1``.
    """
    keys, state = domain_sample(data, rng=rng)
    # domain_sample already discretised the held value; absent keys get a fair coin.
    coin = np.where(rng.random(keys.size) < 0.5, 1, -1)
    sign = np.where(state == PLUS, 1, np.where(state == 0, coin, -1))
    keep = rng.random(keys.size) < harmony_keep_probability(eps)
    return keys, np.where(keep, sign, -sign).astype(np.int8)


def harmony_estimate(
    keys: NDArray[np.int64],
    signs: NDArray[np.int8],
    d: int,
    eps: float,
    frequency: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Means :math:`\\hat m_j = \\mathrm{clip}(\\hat g_j / f_j)` with the unbiased
    zero-filled mean :math:`\\hat g_j = \\bar r_j / (2p - 1)`.

    Parameters
    ----------
    keys : ndarray of int64, shape (n,)
        Sampled keys (from :func:`harmony_perturb`).
    signs : ndarray of int8, shape (n,)
        Reported signs.
    d : int
        Size of the key domain.
    eps : float
        Privacy budget the reports were made with.
    frequency : ndarray of float64, shape (d,)
        Frequency to divide by (the experiment passes the true one).

    Returns
    -------
    ndarray of float64, shape (d,)
        Mean estimates in ``[-1, 1]``; 0 where ``frequency <= 0``.
    """
    p = harmony_keep_probability(eps)
    n_j = np.maximum(np.bincount(keys, minlength=d), 1)
    g = np.bincount(keys, weights=signs.astype(np.float64), minlength=d) / n_j / (2 * p - 1)
    safe = np.where(frequency > 0, frequency, 1.0)
    return np.where(frequency > 0, np.clip(g / safe, -1.0, 1.0), 0.0)


def sue_counts(
    data: KVData, eps: float, length: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Client side, aggregated: 1-bit counts of the ``d + l`` positions (exact in
    distribution, see :func:`dpcore.ldp.oracles.sue_counts`).

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user.
    length : int
        Padding length ``l``, at least 1.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (d + l,)
        1-bit counts of the real keys, then of the ``l`` dummies.

    Raises
    ------
    ValueError
        If ``length < 1`` (:func:`dpcore.ldp.sampling.padding_sample`).
    """
    items = padding_sample(data, length, rng=rng).keys
    return oracles.sue_counts(items, eps, data.d + length, rng=rng)


def sue_estimate(
    counts: NDArray[np.int64], n: int, d: int, eps: float, length: int
) -> NDArray[np.float64]:
    """Server side: :math:`\\hat f_k = l \\cdot (C_k / n - q)/(p - q)` for ``k < d``.

    Parameters
    ----------
    counts : ndarray of int64, shape (d + l,)
        1-bit counts (from :func:`sue_counts`).
    n : int
        Number of reports.
    d : int
        Size of the key domain.
    eps : float
        Privacy budget the reports were made with.
    length : int
        Padding length ``l`` the reports were made with.

    Returns
    -------
    ndarray of float64, shape (d,)
        Estimated key frequencies (unclipped).
    """
    return length * oracles.sue_estimate(counts[:d], n, eps)


def central_frequency_mse(eps: float, n_users: int, max_length: int) -> float:
    """Expected squared error of each key's frequency when a trusted curator releases it
    (central DP): Laplace noise on every key's count of holders, divided by ``n``.

    A user holds at most ``max_length`` = L keys, so adding or removing one user changes at
    most L counts by one: L1 sensitivity L, Laplace scale L/ε on each count (ε-DP for the
    user's whole set, as the local mechanisms' padding-amplified accounting), unbiased, so

    .. math:: \\mathrm{MSE}(\\hat f_k) = \\frac{2 L^2}{\\varepsilon^2 n^2}

    (Dwork, McSherry, Nissim and Smith 2006).

    Parameters
    ----------
    eps : float
        Privacy budget of each user's whole set.
    n_users : int
        ``n``, at least 1.
    max_length : int
        L, the most keys one user holds, at least 1.

    Returns
    -------
    float
        The expected squared error of every key's frequency (the same for all keys).

    Raises
    ------
    ValueError
        If ``eps`` is not a local-DP budget, or ``n_users`` or ``max_length`` is not a whole
        number of at least 1.

    >>> central_frequency_mse(1.0, 1000, 5)
    5e-05
    """
    eps = _validate.ldp_epsilon(eps)
    n = _validate.whole("n_users", n_users)
    length = _validate.whole("max_length", max_length)
    return 2.0 * (length / (eps * n)) ** 2
