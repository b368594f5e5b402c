"""Flat 2-D releases: Identity, Uniform, AHP on the cells, and Qardaji, Yang and Li's uniform
and adaptive grids.

Qardaji, Yang, Li, "Differentially private grids for geospatial data", ICDE 2013 (UGrid,
AGrid), with the sizes DPComp's ``UG.py`` and ``AG.py`` compute (sides round down:
``int(x - 1) + 1 = max(1, floor(x))``); Hay et al., SIGMOD 2016 (DPBench) for Identity and
Uniform.

DPComp's UGrid and AGrid read the true number of records ``N`` to size their grids, which
is private only when ``N`` is public. Here they pay for it instead (add/remove neighbours):
``N~ = max(1, N + Lap(1 / (rho eps)))`` with ``rho =`` :data:`TOTAL_SHARE`, and the rest
runs at ``(1 - rho) eps``.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.algorithms.ahp import ahp
from dpcore.algorithms.common import Ranges, Release
from dpcore.algorithms.grid2d.inputs import FloatArray, IntArray
from dpcore.algorithms.grid2d.tiles import boxes_as_rows, leaf_boxes, spread, tile_tree
from dpcore.hist.consistency import blue
from dpcore.hist.release import release_sums
from dpcore.spatial.rectangles import Rectangles
from dpcore.spatial.regions import node_sums

TOTAL_SHARE = 0.05
"""``rho``: the share of ``eps`` UGrid and AGrid spend on the number of records."""
UGRID_C = 10.0
"""Qardaji et al.'s constant ``c`` (cells per side ``sqrt(N eps / c)``)."""
AGRID_C2 = 5.0
"""AGrid's constant ``c2`` for the second level."""
AGRID_ALPHA = 0.5
"""AGrid's share of the (remaining) budget for the first level."""


def identity(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """Identity: every cell ``+ Lap(1/eps)``; budget ``{"cells": eps}`` (parallel composition
    over the disjoint cells). A rectangle's expected squared error is ``2 area / eps^2``."""
    noisy = grid + rng.laplace(0.0, 1.0 / eps, size=grid.shape)
    return Release(noisy, {"cells": eps})


def uniform(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """Uniform: the total ``+ Lap(1/eps)`` spread evenly over the cells; budget
    ``{"total": eps}`` (the whole budget pays for the total: no public total assumed)."""
    total = grid.sum() + rng.laplace(0.0, 1.0 / eps)
    return Release(np.full(grid.shape, total / grid.size), {"total": eps})


def ahp_2d(grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator) -> Release:
    """AHP-2D (Zhang, Chen, Xu, Meng, Xie, SDM 2014; DPComp's ``ahpND_engine``): the 1-D
    :func:`dpcore.algorithms.ahp.ahp` on the cells in row-major order (its clusters form on
    sorted noisy values, so the order does not matter). Budget ``{"noisy counts": 0.85 eps,
    "cluster totals": 0.15 eps}``; thresholds use ``ln(n1 n2)``."""
    flat = ahp(grid.ravel(), eps, Ranges("prefix", grid.size), rng)
    return Release(flat.estimate.reshape(grid.shape), flat.budget)


def noisy_scale(grid: FloatArray, eps: float, rng: np.random.Generator) -> float:
    """``N~ = max(1, N + Lap(1/eps))``: the number of records, paid for with ``eps``."""
    return max(1.0, float(grid.sum() + rng.laplace(0.0, 1.0 / eps)))


def grid_side(cells: int, target: float) -> int:
    """DPComp's tile side for about ``target`` tiles over ``cells`` cells:
    ``int(sqrt(cells / target) - 1) + 1``, i.e. ``max(1, floor(sqrt(cells / target)))``.

    Examples
    --------
    >>> grid_side(128 * 128, 100.0), grid_side(16, 1e9)
    (12, 1)
    """
    return int(math.sqrt(cells / target) - 1) + 1


def ugrid_side(shape: tuple[int, int], scale: float, eps: float, c: float = UGRID_C) -> int:
    """UGrid's tile side: ``M = N eps / c`` tiles wanted, side ``grid_side(n1 n2, M)``
    (capped at the longer side).

    Examples
    --------
    >>> ugrid_side((128, 128), 1e4, 0.1), ugrid_side((128, 128), 1e6, 0.1)
    (12, 1)
    """
    side = grid_side(shape[0] * shape[1], scale * eps / c)
    return min(side, max(shape))


def agrid_level1(
    shape: tuple[int, int], scale: float, eps: float, c: float = UGRID_C
) -> tuple[int, int]:
    """AGrid's first level: ``m1 = max(10, int(sqrt(N eps / c) / 4 - 1) + 1)`` tiles per side
    wanted, and the tile side ``grid_side(n1 n2, m1^2)`` (capped at the longer side).

    Examples
    --------
    >>> agrid_level1((128, 128), 1e4, 0.1), agrid_level1((128, 128), 1e6, 0.1)
    ((10, 12), (25, 5))
    """
    m1 = max(10, int(math.sqrt(scale * eps / c) / 4 - 1) + 1)
    return m1, min(grid_side(shape[0] * shape[1], float(m1) ** 2), max(shape))


def agrid_sub_sides(
    lo: IntArray, hi: IntArray, noisy: FloatArray, eps2: float, c2: float = AGRID_C2
) -> IntArray:
    """AGrid's second-level tile side in each first-level box from its noisy count ``v``:
    ``m2 = 1`` if ``v <= 0`` else ``int(sqrt(v eps2 / c2) - 1) + 1``, side
    ``max(1, int(sqrt(area / m2^2) - 1) + 1)`` (capped at the box's longer side).

    Examples
    --------
    >>> agrid_sub_sides(np.array([[0, 0]]), np.array([[11, 11]]), np.array([500.0]), 0.05).tolist()
    [6]
    """
    with np.errstate(invalid="ignore"):
        m2 = np.where(noisy > 0, np.floor(np.sqrt(np.maximum(noisy, 0) * eps2 / c2) - 1) + 1, 1)
    m2 = np.maximum(m2, 1.0)
    extent = hi - lo + 1
    area = np.prod(extent, axis=1)
    side = np.floor(np.sqrt(area / m2**2) - 1) + 1
    sides: IntArray = np.minimum(np.maximum(side, 1), extent.max(axis=1)).astype(np.int64)
    return sides


def ugrid(grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator) -> Release:
    """UGrid (Qardaji, Yang, Li, ICDE 2013): one grid of square tiles, each tile's count
    ``+ Lap(1/eps_c)`` spread evenly over its cells.

    Budget: ``"records N"`` ``= rho eps`` for ``N~`` (:func:`noisy_scale`, ``rho =``
    :data:`TOTAL_SHARE`), ``"tiles"`` ``= eps_c = (1 - rho) eps``; the side is
    :func:`ugrid_side` of ``N~`` and ``eps_c`` (``c = 10``). ``buckets``: the tiles as
    ``(r0, c0, r1, c1)``.
    """
    eps_n, eps_c = TOTAL_SHARE * eps, (1.0 - TOTAL_SHARE) * eps
    shape = (int(grid.shape[0]), int(grid.shape[1]))
    side = ugrid_side(shape, noisy_scale(grid, eps_n, rng), eps_c)
    tree = tile_tree(shape, [lambda lo, hi: np.full(lo.shape[0], side)])
    leaves, lo, hi = leaf_boxes(tree)
    totals = release_sums(node_sums(tree, grid)[leaves], np.full(leaves.size, eps_c), rng)
    return Release(
        spread(shape, lo, hi, totals), {"records N": eps_n, "tiles": eps_c}, boxes_as_rows(lo, hi)
    )


def agrid(grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator) -> Release:
    """AGrid (Qardaji, Yang, Li, ICDE 2013): a coarse grid, each tile re-cut by its own noisy
    count, both levels measured, made consistent, the leaves spread evenly.

    Budget: ``"records N"`` ``= rho eps`` (:func:`noisy_scale`); of the rest ``e``,
    ``"level 1"`` ``= alpha e`` and ``"level 2"`` ``= (1 - alpha) e``, ``alpha = 0.5``
    (every cell lies in one tile per level). Sizes: :func:`agrid_level1` (``c = 10``) and
    :func:`agrid_sub_sides` (``c2 = 5``) from ``N~`` and ``e``. Consistency is the exact
    BLUE on the two-level tree (:func:`dpcore.hist.consistency.blue`): a tile's estimate
    is ``(a^2 k v + b^2 S) / (a^2 k + b^2)`` with ``S`` its ``k`` sub-tiles' sum,
    ``a = alpha e``, ``b = (1 - alpha) e``, the gap shared evenly; DPComp's ``AG.py`` weighs
    with ``m2^2`` in place of the actual ``k``. ``buckets``: the leaves as
    ``(r0, c0, r1, c1)``.
    """
    eps_n = TOTAL_SHARE * eps
    rest = eps - eps_n
    eps1, eps2 = AGRID_ALPHA * rest, (1.0 - AGRID_ALPHA) * rest
    shape = (int(grid.shape[0]), int(grid.shape[1]))
    _, side1 = agrid_level1(shape, noisy_scale(grid, eps_n, rng), rest)
    level1 = tile_tree(shape, [lambda lo, hi: np.full(lo.shape[0], side1)])
    first = level1.levels()[1]
    v = release_sums(node_sums(level1, grid)[first], np.full(first.stop - first.start, eps1), rng)
    subs = agrid_sub_sides(level1.lo[first], level1.hi[first], v, eps2)
    tree = tile_tree(shape, [lambda lo, hi: np.full(lo.shape[0], side1), lambda lo, hi: subs])
    budgets = np.zeros(tree.size)
    budgets[tree.depth == 1], budgets[tree.depth == 2] = eps1, eps2
    second = tree.depth == 2
    noisy = np.full(tree.size, np.nan)
    noisy[tree.depth == 1] = v
    noisy[second] = release_sums(node_sums(tree, grid)[second], budgets[second], rng)
    smoothed = blue(tree, noisy, budgets)
    leaves, lo, hi = leaf_boxes(tree)
    return Release(
        spread(shape, lo, hi, smoothed[leaves]),
        {"records N": eps_n, "level 1": eps1, "level 2": eps2},
        boxes_as_rows(lo, hi),
    )
