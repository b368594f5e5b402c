"""DPCube-2D: a coarse noisy grid guides kd cuts; the final boxes are measured afresh.

Xiao, Xiong, Fan, Goryczka, Li, "DPCube: Differentially private histogram release
through multidimensional partitioning", Transactions on Data Privacy 2014, simplified as
DPComp's ``DPcube.py`` runs it:

1. ``X1``: UGrid with the fixed side ``gz = 11`` at ``alpha eps`` (``alpha = 0.5``): each
   tile's count ``+ Lap(1/(alpha eps))``, spread evenly (no number of records needed);
2. from the whole grid, recursively: cut axis 0 if it is strictly longer than axis 1, else
   axis 1, at the cut minimising ``SSE(X1, left) + SSE(X1, right)``; keep the cut only if
   that ``+ 2/eps2 < SSE(X1, box) + 1/eps2`` (DPComp's rule, SSE in count units squared
   against ``1/eps`` terms, as coded), ``eps2 = (1 - alpha) eps`` -- post-processing of
   ``X1``;
3. every final box's true count ``+ Lap(1/eps2)``, spread evenly; ``X1`` is not published.

DPComp seeds steps 1 and 3 alike (the same standard Laplace draws); here they come one
after the other from the one generator, independent.
"""

from __future__ import annotations

import numpy as np

from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d.inputs import FloatArray, IntArray
from dpcore.algorithms.grid2d.tiles import boxes_as_rows, leaf_boxes, spread, tile_tree
from dpcore.hist.release import release_sums
from dpcore.spatial.rectangles import Rectangles
from dpcore.spatial.regions import box_sums, node_sums, summed_area_table

TILE_SIDE = 11
"""DPComp's ``gz``: the side of step 1's tiles."""
ALPHA = 0.5
"""Share of ``eps`` for step 1."""


def _sse(sums: FloatArray, squares: FloatArray, lo: IntArray, hi: IntArray) -> FloatArray:
    """Sum of squared deviations from the mean over each box (summed-area tables)."""
    area = np.prod(hi - lo + 1, axis=1)
    s = box_sums(sums, lo, hi)
    sse: FloatArray = np.maximum(box_sums(squares, lo, hi) - s * s / area, 0.0)
    return sse


def kd_partition(guide: FloatArray, eps2: float) -> tuple[IntArray, IntArray]:
    """Step 2: DPComp's kd cuts of the grid by the SSE of ``guide``.

    Parameters
    ----------
    guide : ndarray of float64, shape (n1, n2)
        ``X1``.
    eps2 : float
        Step 3's budget (sets the cut penalty).

    Returns
    -------
    lo, hi : ndarray of int64, shape (k, 2)
        The final boxes (a partition of the grid).

    Examples
    --------
    >>> g = np.zeros((4, 4)); g[:, 2:] = 100.0
    >>> lo, hi = kd_partition(g, 1.0)
    >>> sorted(map(tuple, np.hstack([lo, hi]).tolist()))
    [(0, 0, 3, 1), (0, 2, 3, 3)]
    """
    sums = summed_area_table(guide)
    squares = summed_area_table(guide * guide)
    stack = [(np.zeros(2, np.int64), np.array(guide.shape, np.int64) - 1)]
    final_lo, final_hi = [], []
    while stack:
        lo, hi = stack.pop()
        extent = hi - lo + 1
        axis = 0 if extent[0] > extent[1] else 1
        if extent[axis] < 2:
            final_lo.append(lo)
            final_hi.append(hi)
            continue
        cuts = np.arange(lo[axis], hi[axis], dtype=np.int64)  # last index of the left part
        left_hi = np.tile(hi, (cuts.size, 1))
        left_hi[:, axis] = cuts
        right_lo = np.tile(lo, (cuts.size, 1))
        right_lo[:, axis] = cuts + 1
        cost = _sse(sums, squares, np.tile(lo, (cuts.size, 1)), left_hi) + _sse(
            sums, squares, right_lo, np.tile(hi, (cuts.size, 1))
        )
        best = int(np.argmin(cost))
        whole = float(_sse(sums, squares, lo[None, :], hi[None, :])[0])
        if cost[best] + 2.0 / eps2 < whole + 1.0 / eps2:
            stack.append((right_lo[best], hi))
            stack.append((lo, left_hi[best]))
        else:
            final_lo.append(lo)
            final_hi.append(hi)
    return np.array(final_lo, dtype=np.int64), np.array(final_hi, dtype=np.int64)


def dpcube_2d(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """DPCube-2D (see the module). Budget: ``{"grid": alpha eps, "partition counts":
    (1 - alpha) eps}``; ``buckets``: the final boxes as ``(r0, c0, r1, c1)``."""
    eps1 = ALPHA * eps
    eps2 = eps - eps1
    shape = (int(grid.shape[0]), int(grid.shape[1]))
    coarse = tile_tree(shape, [lambda lo, hi: np.full(lo.shape[0], TILE_SIDE)])
    tiles, tile_lo, tile_hi = leaf_boxes(coarse)
    noisy = release_sums(node_sums(coarse, grid)[tiles], np.full(tiles.size, eps1), rng)
    lo, hi = kd_partition(spread(shape, tile_lo, tile_hi, noisy), eps2)
    table = summed_area_table(grid)
    totals = release_sums(box_sums(table, lo, hi), np.full(lo.shape[0], eps2), rng)
    return Release(
        spread(shape, lo, hi, totals),
        {"grid": eps1, "partition counts": eps2},
        boxes_as_rows(lo, hi),
    )
