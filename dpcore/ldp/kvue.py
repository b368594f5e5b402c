"""KVUE and KVOH (Sun, Zhao, Ye, Feng, Wang, Bai 2019; baselines of the HISKV paper).

Each user samples one key ``j`` uniformly from the domain; its state is absent,
``+1`` or ``-1`` (value discretised). KVUE randomizes the state by 3-ary GRR at
``eps``; KVOH one-hot encodes it in 3 bits and flips each bit at ``eps / 2`` (two
bits differ between any two states).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpcore.ldp import oracles
from dpcore.ldp.data import KVData
from dpcore.ldp.sampling import domain_sample

STATES = 3


def kvue_channel(eps: float) -> NDArray[np.float64]:
    """``P[state, reported state]``: 3-ary GRR, :math:`p = e^\\varepsilon/(e^\\varepsilon+2)`.

    Parameters
    ----------
    eps : float
        Privacy budget of one report.

    Returns
    -------
    ndarray of float64, shape (3, 3)
        Channel over the states (absent, +1, -1).
    """
    p, q = oracles.grr_probabilities(eps, STATES)
    return np.where(np.eye(STATES, dtype=bool), p, q)


def kvoh_bit_probability(eps: float) -> float:
    """Each bit kept w.p. :math:`e^{\\varepsilon/2}/(1 + e^{\\varepsilon/2})`.

    Parameters
    ----------
    eps : float
        Privacy budget of one report (all three bits).

    Returns
    -------
    float
        Probability that a bit is reported unflipped.
    """
    return math.exp(eps / 2) / (1 + math.exp(eps / 2))


def kvoh_channel(eps: float) -> NDArray[np.float64]:
    """``P[state, 3-bit report]`` with report ``r`` = bits ``(r >> s) & 1`` of state ``s``.

    Parameters
    ----------
    eps : float
        Privacy budget of one report.

    Returns
    -------
    ndarray of float64, shape (3, 8)
        Channel from the states (absent, +1, -1) to the 8 bit patterns.
    """
    p = kvoh_bit_probability(eps)
    reports = np.arange(2**STATES)
    bits = (reports[None, :] >> np.arange(STATES)[:, None]) & 1  # (bit, report)
    onehot = np.eye(STATES, dtype=np.int64)  # (state, bit)
    keep = bits[None, :, :] == onehot[:, :, None]  # (state, bit, report)
    return np.asarray(np.where(keep, p, 1 - p).prod(axis=1), dtype=np.float64)


def _counts_to_estimates(
    states_hat: NDArray[np.float64], n_j: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``f = (n+ + n-)/n_j``, ``m = clip((n+ - n-)/(n+ + n-))`` from unbiased state counts."""
    present = states_hat[1] + states_hat[2]
    freq = present / n_j
    safe = np.where(present > 0, present, 1.0)
    mean = np.where(present > 0, np.clip((states_hat[1] - states_hat[2]) / safe, -1, 1), 0.0)
    return freq, mean


def kvue_perturb(
    data: KVData, eps: float, *, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Client side: ``(sampled key, reported state)`` per user.

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
    reported : ndarray of int64, shape (n,)
        Reported state: 0 absent, 1 value +1, 2 value -1.
    """
    keys, state = domain_sample(data, rng=rng)
    return keys, oracles.grr_perturb(state.astype(np.int64), eps, STATES, rng=rng)


def kvue_estimate(
    keys: NDArray[np.int64], reported: NDArray[np.int64], d: int, eps: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Server side: per key, unbias the 3-state GRR counts, :math:`(C_s - n_j q)/(p - q)`.

    Parameters
    ----------
    keys : ndarray of int64, shape (n,)
        Sampled keys (from :func:`kvue_perturb`).
    reported : ndarray of int64, shape (n,)
        Reported states.
    d : int
        Size of the key domain.
    eps : float
        Privacy budget the reports were made with.

    Returns
    -------
    frequency : ndarray of float64, shape (d,)
        :math:`(\\hat n^+_j + \\hat n^-_j)/n_j` (unclipped).
    mean : ndarray of float64, shape (d,)
        :math:`(\\hat n^+_j - \\hat n^-_j)/(\\hat n^+_j + \\hat n^-_j)` clipped to
        ``[-1, 1]``; 0 where the estimated holders are not positive.
    """
    p, q = oracles.grr_probabilities(eps, STATES)
    n_j = np.maximum(np.bincount(keys, minlength=d), 1).astype(np.float64)
    counts = np.stack(
        [np.bincount(keys[reported == s], minlength=d) for s in range(STATES)]
    ).astype(np.float64)
    return _counts_to_estimates((counts - n_j * q) / (p - q), n_j)


def kvoh_perturb(
    data: KVData, eps: float, *, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """Client side: ``(sampled key, n x 3 reported bits)`` per user.

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
    bits : ndarray of bool, shape (n, 3)
        One-hot state (absent, +1, -1) with each bit flipped independently.
    """
    p = kvoh_bit_probability(eps)
    keys, state = domain_sample(data, rng=rng)
    onehot = np.arange(STATES)[None, :] == state[:, None]
    flip = rng.random((keys.size, STATES)) >= p
    return keys, onehot ^ flip


def kvoh_estimate(
    keys: NDArray[np.int64], bits: NDArray[np.bool_], d: int, eps: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Server side: per key and state, :math:`(B_s - n_j (1-p))/(2p - 1)`.

    Parameters
    ----------
    keys : ndarray of int64, shape (n,)
        Sampled keys (from :func:`kvoh_perturb`).
    bits : ndarray of bool, shape (n, 3)
        Reported bits.
    d : int
        Size of the key domain.
    eps : float
        Privacy budget the reports were made with.

    Returns
    -------
    frequency : ndarray of float64, shape (d,)
        Estimated key frequencies (unclipped).
    mean : ndarray of float64, shape (d,)
        Estimated means in ``[-1, 1]``; 0 where the estimated holders are not positive.
    """
    p = kvoh_bit_probability(eps)
    n_j = np.maximum(np.bincount(keys, minlength=d), 1).astype(np.float64)
    counts = np.stack(
        [np.bincount(keys, weights=bits[:, s].astype(np.float64), minlength=d) for s in range(3)]
    )
    return _counts_to_estimates((counts - n_j * (1 - p)) / (2 * p - 1), n_j)
