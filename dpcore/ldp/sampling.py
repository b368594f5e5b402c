"""Client-side sampling steps shared by the key-value mechanisms (vectorized over users).

- :func:`padding_sample` (PCKV's padding-and-sampling, used by HISKV and PCKV):
  one pair per user from the set truncated or padded to length ``L``.
- :func:`domain_sample` (PrivKV, KVUE, KVOH, Harmony): one key index drawn
  uniformly from the whole domain and the user's state for it.
- :func:`discretise`: a value in ``[-1, 1]`` becomes ``±1`` with the same mean.

References: Gu et al., "PCKV", USENIX Security 2020; Ye et al., "PrivKV",
IEEE S&P 2019; Zhang, Xu, Fu and Meng, HISKV (reconstructed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore.ldp.data import KVData

# State of a sampled key in domain sampling: not held, held with value +1, with -1.
ABSENT, PLUS, MINUS = 0, 1, 2


@dataclass(frozen=True)
class SampledPairs:
    """One pair per user: ``keys`` in ``[0, d + L)`` (``>= d`` are dummies), values.

    Attributes
    ----------
    keys : ndarray of int64, shape (n,)
        Sampled key of each user; ``d + j`` is dummy ``j``.
    values : ndarray of float64, shape (n,)
        The pair's value in ``[-1, 1]`` (0 for a dummy).
    """

    keys: NDArray[np.int64]
    values: NDArray[np.float64]


def discretise(values: NDArray[np.float64], *, rng: np.random.Generator) -> NDArray[np.int8]:
    """``+1`` with probability :math:`(1+v)/2`, else ``-1``: unbiased, :math:`E = v`.

    Parameters
    ----------
    values : ndarray of float64, shape (n,)
        Values in ``[-1, 1]``.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int8, shape (n,)
        ``+1`` or ``-1`` per value.

    Examples
    --------
    >>> discretise(np.array([1.0, -1.0]), rng=np.random.default_rng(0)).tolist()
    [1, -1]
    """
    plus = rng.random(values.size) < (1.0 + values) / 2.0
    return np.where(plus, 1, -1).astype(np.int8)


def padding_sample(
    data: KVData,
    length: int,
    *,
    rng: np.random.Generator,
    users: NDArray[np.int64] | None = None,
) -> SampledPairs:
    """Padding-and-sampling with length ``L``, one pair per user.

    A user with :math:`l_i \\ge L` picks one of its own pairs uniformly (the same law as
    truncating to ``L`` pairs without replacement and picking one of those); a user with
    :math:`l_i < L` is padded with :math:`L - l_i` distinct dummies
    :math:`\\langle d + j, 0\\rangle`, :math:`j \\in 0..L-1`, and picks one of the ``L``
    pairs uniformly, so

    .. math::
        P(\\text{real pair}) = 1/\\max(l_i, L),\\qquad
        P(\\text{dummy } j) = (L - l_i)^+ / L^2 .

    Empty sets (``l_i = 0``) are allowed and always yield a dummy.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    length : int
        Padding length ``L``, at least 1.
    rng : numpy.random.Generator
        Source of the randomness.
    users : ndarray of int64, optional
        Restrict the sampling to these users (in that order) without copying their
        pairs; ``None`` samples every user.

    Returns
    -------
    SampledPairs
        One pair per (selected) user.

    Raises
    ------
    ValueError
        If ``length < 1``.
    """
    if length < 1:
        raise ValueError("the padding length L must be at least 1")
    starts = data.offsets[:-1] if users is None else data.offsets[users]
    lengths = data.lengths if users is None else data.offsets[users + 1] - starts
    n = lengths.size
    slots = np.maximum(lengths, length)
    pick = np.minimum((rng.random(n) * slots).astype(np.int64), slots - 1)
    real = pick < lengths
    flat = starts + np.where(real, pick, 0)
    flat = np.minimum(flat, max(data.keys.size - 1, 0))
    dummy_keys = data.d + rng.integers(0, length, size=n)
    if data.keys.size:
        keys = np.where(real, data.keys[flat], dummy_keys)
        values = np.where(real, data.values[flat], 0.0)
    else:
        keys, values = dummy_keys, np.zeros(n)
    return SampledPairs(keys.astype(np.int64), values.astype(np.float64))


def domain_sample(
    data: KVData, *, rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int8]]:
    """Each user draws a key ``j`` uniformly from ``0..d-1`` and reports its state.

    "Does user i hold j" is one pass over the flat pairs: keys equal to their user's
    ``j`` (at most one per user).

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    keys : ndarray of int64, shape (n,)
        The sampled key ``j`` of each user.
    state : ndarray of int8, shape (n,)
        :data:`ABSENT`, :data:`PLUS` or :data:`MINUS` (the held value discretised by
        :func:`discretise`).
    """
    n = data.n_users
    sampled = rng.integers(0, data.d, size=n, dtype=np.int64)
    hits = np.flatnonzero(data.keys == np.repeat(sampled, data.lengths))
    hit_users = np.searchsorted(data.offsets, hits, side="right") - 1
    held = np.zeros(n, dtype=bool)
    held[hit_users] = True
    value = np.zeros(n)
    value[hit_users] = data.values[hits]
    sign = discretise(value, rng=rng)
    state = np.where(held, np.where(sign > 0, PLUS, MINUS), ABSENT).astype(np.int8)
    return sampled, state
