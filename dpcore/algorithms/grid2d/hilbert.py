"""DAWA-2D: the cells in Hilbert-curve order, then 1-D DAWA.

Li, Hay, Miklau, Wang, "A Data- and Workload-Aware Algorithm for Range Queries Under
Differential Privacy", PVLDB 2014, as DPComp's ``dawa2D_engine`` runs it: embed the grid in
``d x d`` zeros, ``d = 2^ceil(log2 max(n1, n2))``, read the cells along the Hilbert curve
(nearby cells stay nearby, so a rectangle is a few runs of the order), run 1-D DAWA
(:func:`dpcore.algorithms.dawa.dawa`: ``0.25 eps`` for the L1 partition, the rest for
GreedyH on the buckets), write back, crop.

Two departures, both stated on the page: the estimate stays in floats (DPComp writes it
into an ``int32`` array, truncating toward 0); and GreedyH adapts to all ranges of the
Hilbert order, not to the rectangles' own Gram ``QᵀQ`` (DPComp builds it dense: 262 MB of
workload and 2.1 GB matrices at 128², infeasible at 256²). Measured against DPComp's code
(``bench/check_dpcomp_2d.py``): given DPComp's noise stream the partition is its partition,
bucket for bucket; the all-ranges Gram changes no error measurably; the ``int32`` write-back
is the whole gap between the two (up to 5x either way, by grid); without it the errors match.
"""

from __future__ import annotations

import functools

import numpy as np

from dpcore.algorithms.common import Ranges, Release
from dpcore.algorithms.dawa import dawa
from dpcore.algorithms.grid2d.inputs import FloatArray, IntArray
from dpcore.spatial.rectangles import Rectangles


@functools.lru_cache(maxsize=8)
def hilbert_order(d: int) -> tuple[IntArray, IntArray]:
    """The ``d x d`` cells along the Hilbert curve (``d`` a power of 2), DPComp's recursion:
    ``xs = (0, 0, 1, 1)``, ``ys = (0, 1, 1, 0)`` at ``d = 2``; from ``(xs, ys)`` of
    ``h = d/2``: ``xs' = [ys, xs, h + xs, d - 1 - ys]``, ``ys' = [xs, h + ys, h + ys,
    h - 1 - xs]``.

    Examples
    --------
    >>> xs, ys = hilbert_order(4)
    >>> xs.tolist()
    [0, 1, 1, 0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 2, 2, 3]
    >>> ys.tolist()
    [0, 0, 1, 1, 2, 3, 3, 2, 2, 3, 3, 2, 1, 1, 0, 0]
    """
    if d == 1:
        return np.zeros(1, np.int64), np.zeros(1, np.int64)
    xs, ys = np.array([0, 0, 1, 1], np.int64), np.array([0, 1, 1, 0], np.int64)
    size = 2
    while size < d:
        h, size = size, 2 * size
        xs, ys = (
            np.concatenate([ys, xs, h + xs, size - 1 - ys]),
            np.concatenate([xs, h + ys, h + ys, h - 1 - xs]),
        )
    xs.setflags(write=False)
    ys.setflags(write=False)
    return xs, ys


def dawa_2d(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """DAWA-2D (see the module). Budget: ``{"partition": 0.25 eps, "bucket counts":
    0.75 eps}``; no buckets (a bucket is a run of the Hilbert order, not a box)."""
    n1, n2 = (int(n) for n in grid.shape)
    d = 1 << max(0, (max(n1, n2) - 1).bit_length())
    xs, ys = hilbert_order(d)
    padded = np.zeros((d, d))
    padded[:n1, :n2] = grid
    flat = dawa(padded[xs, ys], eps, Ranges("all ranges", d * d), rng)
    estimate = np.empty((d, d))
    estimate[xs, ys] = flat.estimate
    return Release(estimate[:n1, :n2].copy(), flat.budget)
