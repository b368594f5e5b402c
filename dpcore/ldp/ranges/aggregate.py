"""The collector's statistic drawn from its exact law: any number of users at the cost of a few.

The users enter only through how many hold each item, and every oracle's statistic has a
known law given those counts (the team's notes on LDP range queries):

* GRR is "keep the true item w.p. ``p - q``, else report a uniform item of ``[k]``":
  ``keep ~ Binomial(n_v, p - q)`` and ``counts = keep + Multinomial(m - sum keep, 1/k)``;
* OUE's bits are independent: ``C_v ~ Binomial(n_v, 1/2) + Binomial(m - n_v, q)``;
* HRR: w.p. ``1/c`` a user is truthful (uniform row ``j``, sign ``phi_j(v)``), otherwise her
  (row, sign) is uniform over the ``2K`` pairs: one ``Multinomial`` for the noise; the
  truthful users' rows are drawn by halving the rows bit by bit (:func:`_truthful_rows`),
  ``O(K log K)`` binomials where one multinomial per occupied item costs ``O(K^2)``;
* OLH has no exact aggregate for a concrete hash family (the counts' joint law depends on
  the family; :mod:`dpcore.ldp.ranges.reports` simulates its users). Under the *ideal random
  hash* model (each user's hash uniformly random) supports are independent:
  ``C_v ~ Binomial(n_v, p) + Binomial(m - n_v, 1/g)``; that is what is drawn here, labelled.

numpy's ``binomial`` and ``multinomial`` take int64 counts, so 10^8 users cost what 10^3 do.
Cormode, Kulkarni, Srivastava, PVLDB 2019; Wang et al., USENIX Security 2017.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dpcore.ldp.ranges.oracles import hadamard_size, hrr_scale, support_probabilities

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def aggregate_statistic(
    oracle: str,
    holders: IntArray,
    eps: float,
    *,
    rng: np.random.Generator,
    negative: IntArray | None = None,
) -> FloatArray:
    """The statistic of :func:`dpcore.ldp.ranges.reports.user_statistic`, drawn from its law.

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle ("olh": the ideal-random-hash model, see the module notes).
    holders : ndarray of int64, shape (k,)
        Number of users holding each item (with sign +1, for HRR).
    eps : float
        Budget of one report.
    rng : numpy.random.Generator
        Source of the randomness.
    negative : ndarray of int64, shape (k,), optional
        HRR only: users holding each item with sign -1 (HaarHRR's signed one-hot input).

    Returns
    -------
    ndarray of float64
        Support counts per item (shape ``(k,)``), or HRR's signed sums per Hadamard row
        (shape ``(hadamard_size(k),)``).

    Raises
    ------
    ValueError
        If ``oracle`` is unknown or ``negative`` is given for another oracle than HRR.
    """
    n = np.asarray(holders, dtype=np.int64)
    k = n.size
    if negative is not None and oracle != "hrr":
        raise ValueError(f"negative applies to the 'hrr' oracle only, got oracle={oracle!r}")
    if oracle == "hrr":
        neg = np.zeros(k, np.int64) if negative is None else np.asarray(negative, np.int64)
        return _hrr(n, neg, eps, rng)
    if oracle not in ("grr", "oue", "olh"):
        raise ValueError(f"oracle must be one of 'grr', 'oue', 'olh', 'hrr', got {oracle!r}")
    m = int(n.sum())
    p, q = support_probabilities(oracle, eps, k)
    if oracle == "grr":
        keep = rng.binomial(n, p - q)
        spread = rng.multinomial(m - int(keep.sum()), np.full(k, 1.0 / k))
        return (keep + spread).astype(np.float64)
    return (rng.binomial(n, p) + rng.binomial(m - n, q)).astype(np.float64)


def _hrr(pos: IntArray, neg: IntArray, eps: float, rng: np.random.Generator) -> FloatArray:
    size = hadamard_size(pos.size)
    truthful = 1.0 / hrr_scale(eps)  # = 2 p - 1
    t_pos = np.zeros(size, np.int64)
    t_neg = np.zeros(size, np.int64)
    t_pos[: pos.size], t_neg[: neg.size] = rng.binomial(pos, truthful), rng.binomial(neg, truthful)
    noise = int(pos.sum() + neg.sum() - t_pos.sum() - t_neg.sum())
    pairs = rng.multinomial(noise, np.full(2 * size, 0.5 / size)).reshape(size, 2)
    return (pairs[:, 0] - pairs[:, 1] + _truthful_rows(t_pos, t_neg, rng)).astype(np.float64)


def _truthful_rows(pos: IntArray, neg: IntArray, rng: np.random.Generator) -> IntArray:
    """``sum_v phi_j(v) (X+_vj - X-_vj)`` with each truthful user's row uniform, in
    ``O(K log K)`` binomials.

    A uniform row is a sequence of fair bits, top bit first. With ``j = (j_t, j')`` and
    ``v = (v_t, v')``, ``phi_j(v) = (-1)^(j_t v_t) phi_j'(v')``: the users whose row has
    ``j_t = 0`` see items ``v'`` and ``v' + K/2`` alike (their counts merge), those with
    ``j_t = 1`` see ``v' + K/2`` with its sign flipped (its + and - counts swap as they
    merge). Halving ``log2 K`` times leaves one item per row: its ``+`` minus ``-`` count.
    """
    up = pos.reshape(1, -1)
    down = neg.reshape(1, -1)
    while up.shape[1] > 1:
        half = up.shape[1] // 2
        up_low, down_low = rng.binomial(up, 0.5), rng.binomial(down, 0.5)
        up_high, down_high = up - up_low, down - down_low
        low = (up_low[:, :half] + up_low[:, half:], down_low[:, :half] + down_low[:, half:])
        high = (up_high[:, :half] + down_high[:, half:], down_high[:, :half] + up_high[:, half:])
        up = np.stack((low[0], high[0]), axis=1).reshape(-1, half)
        down = np.stack((low[1], high[1]), axis=1).reshape(-1, half)
    return np.asarray((up - down)[:, 0], dtype=np.int64)


def split_levels(
    histogram: IntArray, levels: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Each user draws one of ``levels`` levels uniformly: per item, how many chose each.

    .. math:: (n_{v,1}, \\dots, n_{v,h}) \\sim \\mathrm{Multinomial}(n_v, 1/h, \\dots, 1/h),
              \\ \\text{independent over } v

    Parameters
    ----------
    histogram : ndarray of int64, shape (d,)
        Users holding each item.
    levels : int
        Number of levels ``h`` (``>= 1``).
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (levels, d)
        Row ``l``: the users of each item who report level ``l``.
    """
    n = np.asarray(histogram, dtype=np.int64)
    draws = rng.multinomial(n, np.full(levels, 1.0 / levels))
    return np.ascontiguousarray(np.asarray(draws, dtype=np.int64).reshape(n.size, levels).T)
