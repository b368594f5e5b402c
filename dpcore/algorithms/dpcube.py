"""DPCube in one dimension: a noisy histogram, a kd-style partition of it, noisy partition counts.

Xiao, Xiong, Yuan, "Differentially private data release through multidimensional
partitioning", SDM workshop 2010 (and Xiao, Xiong, Fan, Goryczka, Li, Trans. Data Privacy
2014), with DPComp's 1-D defaults (``DPcube1D_engine``, ``dpcomp-org/dpcomp_core``):

1. **cells** (``alpha eps``, ``alpha = 0.5``): groups of ``gz = 11`` adjacent bins (the last
   one shorter) each get their count plus ``Lap(1 / (alpha eps))``, spread evenly over the
   group's bins;
2. **partition** (no budget: it reads only step 1's output): a segment is split at the
   point minimising the two halves' sums of squared errors (SSE) of the noisy histogram
   when that sum plus ``2 / eps2`` is below the segment's SSE plus ``1 / eps2`` (each
   partition's count will carry the variance-like cost ``1 / eps2``), recursively;
3. **partition counts** (``eps2 = (1 - alpha) eps``): every partition's count plus
   ``Lap(1 / eps2)`` (the partitions are disjoint), spread evenly over its bins.

DPComp returns step 3 alone; the published method also uses step 1's counts, so here each
partition's total is the inverse-variance weighted mean of the two independent estimates
(step 3's, variance ``2 / eps2^2``, and step 1's sum over the partition, variance ``2 / (alpha
eps)^2`` times the sum of the squared covered fractions of the groups).
"""

from __future__ import annotations

import numpy as np

from dpcore.algorithms.common import FloatArray, IntArray, Ranges, Release

GROUP = 11
"""Bins per group of the first step (DPComp's ``gz``)."""

ALPHA = 0.5
"""The first step's share of the budget (DPComp's ``alpha``)."""


def _prefix_sums(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    zero = np.zeros(1)
    return np.concatenate((zero, np.cumsum(x))), np.concatenate((zero, np.cumsum(x * x)))


def _sse(p: FloatArray, pp: FloatArray, lo: IntArray, hi: IntArray) -> FloatArray:
    """SSE of the bins ``lo..hi`` (inclusive) around their mean."""
    total = p[hi + 1] - p[lo]
    sse: FloatArray = pp[hi + 1] - pp[lo] - total * total / (hi - lo + 1)
    return sse


def partition(noisy: FloatArray, eps2: float) -> IntArray:
    """Step 2: the partitions' first bins, splitting level by level (every open segment at once).

    Parameters
    ----------
    noisy : ndarray of float64, shape (n,)
        The first step's noisy histogram.
    eps2 : float
        The partition counts' budget (it sets the cost ``1 / eps2`` of one more partition).

    Returns
    -------
    ndarray of int64
        Ascending first bins, from 0.
    """
    n = noisy.size
    p, pp = _prefix_sums(noisy)
    done: list[IntArray] = []
    lo = np.zeros(1, np.int64)
    hi = np.full(1, n - 1, np.int64)
    while lo.size:
        single = lo == hi
        done.append(lo[single])
        lo, hi = lo[~single], hi[~single]
        if lo.size == 0:
            break
        # every split point k in lo..hi-1 of every open segment, flattened
        width = hi - lo
        starts = np.cumsum(width) - width
        seg = np.repeat(np.arange(lo.size), width)
        k = lo[seg] + np.arange(int(width.sum())) - starts[seg]
        cost = _sse(p, pp, lo[seg], k) + _sse(p, pp, k + 1, hi[seg])
        best = np.minimum.reduceat(cost, starts)
        # the first k reaching the minimum (the reference's strict "<" keeps the first)
        first = np.flatnonzero(cost <= best[seg])
        pick = first[np.unique(seg[first], return_index=True)[1]]
        split = best + 2.0 / eps2 < _sse(p, pp, lo, hi) + 1.0 / eps2
        done.append(lo[~split])
        at = k[pick][split]
        lo, hi = np.concatenate((lo[split], at + 1)), np.concatenate((at, hi[split]))
    return np.sort(np.concatenate(done))


def dpcube(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """DPCube (1-D) with DPComp's defaults (see the module).

    Parameters
    ----------
    counts : ndarray of float64, shape (n,)
        The histogram.
    eps : float
        Privacy budget.
    workload : Ranges
        Unused (DPCube does not adapt to the workload).
    rng : numpy.random.Generator
        All of the randomness.

    Returns
    -------
    Release
        The estimate, ``{"cells": alpha eps, "partition counts": (1 - alpha) eps}`` and the
        partitions' first bins.
    """
    n = counts.size
    eps1 = ALPHA * eps
    eps2 = eps - eps1
    group_starts = np.arange(0, n, GROUP)
    group_widths = np.diff(np.append(group_starts, n))
    group_noisy = np.add.reduceat(counts, group_starts) + rng.laplace(
        0.0, 1.0 / eps1, size=group_starts.size
    )
    cells = np.repeat(group_noisy / group_widths, group_widths)
    starts = partition(cells, eps2)
    widths = np.diff(np.append(starts, n))
    measured = np.add.reduceat(counts, starts) + rng.laplace(0.0, 1.0 / eps2, size=starts.size)
    # step 1's estimate of every partition and its variance: each bin carries its group's
    # noise over the group's width, so a partition's variance is 2/eps1^2 times the sum over
    # groups of (covered fraction)^2
    part = np.repeat(np.arange(starts.size), widths)
    key = part * group_starts.size + np.arange(n) // GROUP  # ascending over the bins
    pieces = np.flatnonzero(np.diff(key, prepend=-1))
    fraction = np.diff(np.append(pieces, n)) / group_widths[key[pieces] % group_starts.size]
    squared = np.bincount(part[pieces], weights=fraction**2, minlength=starts.size)
    from_cells = np.add.reduceat(cells, starts)
    cell_var = 2.0 / eps1**2 * squared
    count_var = 2.0 / eps2**2
    total = (measured / count_var + from_cells / cell_var) / (1.0 / count_var + 1.0 / cell_var)
    estimate: FloatArray = np.repeat(total / widths, widths)
    return Release(estimate, {"cells": eps1, "partition counts": eps2}, starts)
