"""DAWA: a private L1 partition of the bins, then GreedyH on the bucket counts.

Li, Hay, Miklau, Wang, "A Data- and Workload-Aware Algorithm for Range Queries Under
Differential Privacy", PVLDB 7(5), 2014, with DPComp's choices
(``dpcomp_core/algorithm/dawa``, ``L1partition_approx``):

* ``rho = 0.25`` of ``eps`` for the partition (``eps1``), the rest (``eps2``) for GreedyH;
* candidate buckets are the intervals whose length is a power of 2, at every offset
  (``O(n log n)`` of them, the paper's efficient variant);
* a bucket's noisy cost is its L1 deviation ``sum |x_i - mean|`` plus ``1/eps2`` (the
  expected noise of its count) plus ``Lap((2 - 1/len - 1/n) / eps1)`` (no noise for single
  bins, whose deviation is 0), floored at ``1/eps2``;
* the partition minimising the summed noisy cost, by dynamic programming over bucket
  ends (ties go to the longer last bucket);
* each bucket's estimate spread uniformly over its bins.

The deviations of all candidate windows come from one wavelet matrix over the bins'
ranks: the count and sum of the values below a window's mean, ``O(log n)`` vectorised
steps for all windows at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcore.algorithms.common import FloatArray, IntArray, Ranges, Release
from dpcore.algorithms.greedy_h import greedy_release, kernel

_BLOCK = 64
"""Ends per step of :func:`best_partition`: buckets of this length or longer ending in a
block of ``_BLOCK`` ends start before it, so their candidates are taken at once."""

RHO = 0.25
"""Share of ``eps`` spent on the partition (DPBench's and the paper's setting)."""


def window_deviations(x: FloatArray) -> FloatArray:
    """``sum |x_i - mean|`` over every window of length ``2^j`` ending at every bin.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        The histogram.

    Returns
    -------
    ndarray of float64, shape (J, n)
        Row ``j``, column ``i``: the window ``[i - 2^j + 1, i]``; ``inf`` where it would
        start before bin 0. ``J = floor(log2 n) + 1``.
    """
    n = x.size
    lengths = 1 << np.arange(int(np.log2(n)) + 1 if n > 1 else 1)
    ends = [np.arange(length - 1, n) for length in lengths]
    end = np.concatenate(ends)
    start = end - np.repeat(lengths, [e.size for e in ends]) + 1
    prefix = np.concatenate(([0.0], np.cumsum(x)))
    total = prefix[end + 1] - prefix[start]
    width = (end - start + 1).astype(np.float64)
    mean = total / width
    order = np.argsort(x, kind="stable")
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    below = np.searchsorted(x[order], mean, side="left")  # values < mean have rank < below
    count, low_sum = _rank_below(rank, x, start, end + 1, below)
    dev = total - 2.0 * low_sum + mean * (2.0 * count - width)
    out = np.full((lengths.size, n), np.inf)
    out[np.repeat(np.arange(lengths.size), [e.size for e in ends]), end] = np.maximum(dev, 0.0)
    return out


def _rank_below(
    rank: IntArray, x: FloatArray, a: IntArray, b: IntArray, r: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Count and sum of ``x[i]`` for ``a <= i < b`` with ``rank[i] < r``: a wavelet matrix.

    Both ends of every window move together as one ``(2, windows)`` array of 32-bit
    positions, and the windows whose threshold bit is 0 add nothing (times 0, exactly).
    """
    n = rank.size
    bits = max(1, int(n).bit_length())
    index: type[np.signedinteger[Any]] = np.int32 if n < np.iinfo(np.int32).max else np.int64
    cur, cur_x = rank.astype(index), x
    ends = np.stack((a, b)).astype(index)
    r = r.astype(index)
    count = np.zeros(a.size)
    total = np.zeros(a.size)
    for level in range(bits - 1, -1, -1):
        bit = (cur >> level) & 1
        ones = np.zeros(n + 1, index)
        np.cumsum(bit, out=ones[1:])
        zero_sum = np.zeros(n + 1)
        np.cumsum(np.where(bit == 0, cur_x, 0.0), out=zero_sum[1:])
        zeros = n - int(ones[-1])
        ones_at = ones[ends]
        right = (r >> level) & 1
        stay = ends - ones_at  # the zeros before each end: where it lands going left
        count += right * (stay[1] - stay[0])
        at = zero_sum[ends]
        total += right * (at[1] - at[0])
        ends = np.where(right.astype(bool), ones_at + zeros, stay)
        order = np.concatenate((np.flatnonzero(bit == 0), np.flatnonzero(bit)))
        cur, cur_x = cur[order], cur_x[order]
    return count, total


def noisy_costs(x: FloatArray, eps1: float, eps2: float, noise: FloatArray) -> FloatArray:
    """Every candidate bucket's noisy cost, DPComp's ``L1partition_approx`` scoring.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        The histogram.
    eps1, eps2 : float
        Budgets of the partition and of the bucket counts.
    noise : ndarray of float64, shape (J, n)
        Standard ``Laplace(0, 1)`` draws, one per candidate (row ``j``: length ``2^j``).

    Returns
    -------
    ndarray of float64, shape (J, n)
        ``max(dev + 1/eps2 + (2 - 1/len - 1/n) noise / eps1, 1/eps2)`` (no noise for
        length 1); ``inf`` for windows starting before bin 0.
    """
    dev = window_deviations(x)
    length = (1 << np.arange(dev.shape[0]))[:, None].astype(np.float64)
    scale = np.where(length > 1, (2.0 - 1.0 / length - 1.0 / x.size) / eps1, 0.0)
    cost: FloatArray = np.maximum(dev + 1.0 / eps2 + scale * noise, 1.0 / eps2)
    return cost


def best_partition(cost: FloatArray) -> tuple[IntArray, float]:
    """The partition into power-of-2 buckets of least total ``cost`` (dynamic program).

    Parameters
    ----------
    cost : ndarray of float64, shape (J, n)
        Row ``j``, column ``i``: the cost of the bucket of length ``2^j`` ending at ``i``.

    Returns
    -------
    starts : ndarray of int64
        First bin of every bucket, ascending from 0.
    total : float
        Its total cost.
    """
    n = cost.shape[1]
    short = min(cost.shape[0], _BLOCK.bit_length() - 1)  # lengths below _BLOCK, one by one
    rows = [row.tolist() for row in cost[:short]]  # contiguous rows: a fast tolist
    first = rows[0]
    nearby = [(1 << j, rows[j]) for j in range(1, short)]
    far = cost[short:]
    far_length = 1 << np.arange(short, cost.shape[0])
    best = [0.0] * (n + 1)
    best_array = np.zeros(n + 1)
    back = [0] * (n + 1)
    for s in range(0, n, _BLOCK):
        # Buckets of _BLOCK bins or more ending in this block start at or before its
        # first bin: their candidates need only earlier ends, all at once (ties: longest).
        ends = np.arange(s, min(s + _BLOCK, n))
        far_top, far_arg = [np.inf] * ends.size, [0] * ends.size
        if far_length.size:
            before = ends[None, :] + 1 - far_length[:, None]
            cand = np.where(before >= 0, best_array[np.maximum(before, 0)] + far[:, ends], np.inf)
            pick = far_length.size - 1 - np.argmin(cand[::-1], axis=0)
            far_top = cand[pick, np.arange(ends.size)].tolist()
            far_arg = far_length[pick].tolist()
        for i in range(s, s + ends.size):
            end = i + 1
            top = best[i] + first[i]
            arg = 1
            for length, row in nearby:
                if length > end:
                    break
                cand_i = best[end - length] + row[i]
                if cand_i <= top:  # DPComp: ties go to the longer bucket
                    top, arg = cand_i, length
            if far_top[i - s] <= top:
                top, arg = far_top[i - s], far_arg[i - s]
            best[end] = top
            back[end] = arg
        best_array[s + 1 : s + ends.size + 1] = best[s + 1 : s + ends.size + 1]
    starts = []
    end = n
    while end > 0:
        end -= back[end]
        starts.append(end)
    return np.array(starts[::-1], dtype=np.int64), best[n]


def dawa(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """DAWA (Li, Hay, Miklau, Wang, PVLDB 2014): see the module docstring.

    Parameters
    ----------
    counts : ndarray of float64, shape (n,)
        The histogram.
    eps : float
        Privacy budget: ``RHO * eps`` for the partition, the rest for GreedyH.
    workload : Ranges
        The workload GreedyH adapts to (reformed onto the buckets).
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    Release
        The estimate, ``{"partition": eps1, "bucket counts": eps2}`` and the buckets.
    """
    eps1 = RHO * eps
    eps2 = eps - eps1
    n = counts.size
    rows = int(np.log2(n)) + 1 if n > 1 else 1
    cost = noisy_costs(counts, eps1, eps2, rng.laplace(0.0, 1.0, size=(rows, n)))
    starts, _ = best_partition(cost)
    prefix = np.concatenate(([0.0], np.cumsum(counts)))
    bounds = np.append(starts, n)
    buckets = prefix[bounds[1:]] - prefix[bounds[:-1]]
    estimate = greedy_release(buckets, eps2, kernel(workload, starts), rng)
    width = np.diff(bounds)
    return Release(
        np.repeat(estimate / width, width),
        {"partition": eps1, "bucket counts": eps2},
        starts,
    )
