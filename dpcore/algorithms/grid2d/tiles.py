"""Boxes cut into square tiles, trees of tiles on the region-tree engine, and estimates spread
uniformly over the boxes of a partition: the shared geometry of UGrid, AGrid and PrivTree.

Tiles are cut the way DPComp's ``UG.py`` and ``AG.py`` cut them (Qardaji, Yang, Li, ICDE
2013): side ``s`` from the box's first cell, the last tile of each axis cut short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore.hist.hierarchy import grow
from dpcore.spatial.regions import BoxTree, box_cells

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

SideRule = Callable[[IntArray, IntArray], IntArray]
"""From a level's boxes ``(lo, hi)`` (shape ``(m, 2)``), the tile side of each box."""


def tile(lo: IntArray, hi: IntArray, side: ArrayLike) -> tuple[IntArray, IntArray, IntArray]:
    """Cut every box into ``side x side`` tiles from its first cell, the last ones cut short.

    Parameters
    ----------
    lo, hi : ndarray of int64, shape (m, 2)
        The boxes' first and last cells (inclusive).
    side : int or array_like of int, shape (m,)
        Tile side per box, ``>= 1``.

    Returns
    -------
    owner : ndarray of int64, shape (k,)
        The box each tile belongs to; tiles grouped by box, row-major within it.
    tile_lo, tile_hi : ndarray of int64, shape (k, 2)
        The tiles' first and last cells.

    Examples
    --------
    >>> owner, a, b = tile(np.array([[0, 0]]), np.array([[2, 4]]), 2)
    >>> a.tolist()
    [[0, 0], [0, 2], [0, 4], [2, 0], [2, 2], [2, 4]]
    >>> b.tolist()
    [[1, 1], [1, 3], [1, 4], [2, 1], [2, 3], [2, 4]]
    """
    s = np.broadcast_to(np.asarray(side, dtype=np.int64), (lo.shape[0],))
    per_axis = (hi - lo) // s[:, None] + 1
    count = per_axis[:, 0] * per_axis[:, 1]
    owner = np.repeat(np.arange(lo.shape[0], dtype=np.int64), count)
    rest = np.arange(owner.size, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    index = np.column_stack([rest // per_axis[owner, 1], rest % per_axis[owner, 1]])
    tile_lo: IntArray = (lo[owner] + index * s[owner, None]).astype(np.int64)
    tile_hi: IntArray = np.minimum(tile_lo + s[owner, None] - 1, hi[owner]).astype(np.int64)
    return owner, tile_lo, tile_hi


def tile_tree(shape: tuple[int, int], sides: Sequence[SideRule]) -> BoxTree:
    """A region tree whose level ``d + 1`` tiles each box of level ``d`` with side ``sides[d]``.

    Parameters
    ----------
    shape : tuple of int
        The grid's rows and columns (the root's box).
    sides : sequence of SideRule
        One rule per level below the root.

    Returns
    -------
    BoxTree
        ``len(sides) + 1`` levels (leaves need not be single cells).

    Examples
    --------
    >>> t = tile_tree((4, 4), [lambda lo, hi: np.full(len(lo), 2)])
    >>> t.size, t.height
    (5, 2)
    """
    rules = list(sides)

    def split(
        lo: IntArray, hi: IntArray
    ) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
        if not rules:
            none = np.zeros(0, dtype=np.int64)
            return none, none, none, np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64)
        owner, tile_lo, tile_hi = tile(lo, hi, rules.pop(0)(lo, hi))
        count = np.bincount(owner, minlength=lo.shape[0]).astype(np.int64)
        return np.arange(lo.shape[0], dtype=np.int64), count, owner, tile_lo, tile_hi

    cells = shape[0] * shape[1]
    parent, depth, child_ptr, level_ptr, lo, hi = grow(
        np.zeros(2, dtype=np.int64),
        np.asarray(shape, dtype=np.int64) - 1,
        1 + len(rules) * cells,
        split,
    )
    return BoxTree(
        parent=parent, depth=depth, child_ptr=child_ptr, level_ptr=level_ptr, lo=lo, hi=hi
    )


def spread(shape: tuple[int, int], lo: IntArray, hi: IntArray, totals: ArrayLike) -> FloatArray:
    """The grid in which each box of a partition holds its total spread evenly over its cells.

    Parameters
    ----------
    shape : tuple of int
        The grid's rows and columns.
    lo, hi : ndarray of int64, shape (k, 2)
        Boxes that partition the grid.
    totals : array_like of float, shape (k,)
        Each box's estimated sum.

    Returns
    -------
    ndarray of float64, shape ``shape``

    Examples
    --------
    >>> spread((1, 3), np.array([[0, 0], [0, 2]]), np.array([[0, 1], [0, 2]]), [4, 1]).tolist()
    [[2.0, 2.0, 1.0]]
    """
    area = np.prod(hi - lo + 1, axis=1)
    owner, flat = box_cells(lo, hi, shape)
    grid = np.zeros(shape[0] * shape[1])
    grid[flat] = (np.asarray(totals, dtype=np.float64) / area)[owner]
    return grid.reshape(shape)


def leaf_boxes(tree: BoxTree) -> tuple[IntArray, IntArray, IntArray]:
    """The leaves of ``tree`` and their boxes (a partition of the grid).

    Returns
    -------
    leaves : ndarray of int64
        Node indices.
    lo, hi : ndarray of int64, shape (k, 2)
        Their boxes.
    """
    leaves = np.flatnonzero(tree.is_leaf).astype(np.int64)
    return leaves, tree.lo[leaves], tree.hi[leaves]


def boxes_as_rows(lo: IntArray, hi: IntArray) -> IntArray:
    """Boxes as rows ``(r0, c0, r1, c1)`` (a 2-D :attr:`Release.buckets`)."""
    return np.column_stack([lo[:, 0], lo[:, 1], hi[:, 0], hi[:, 1]]).astype(np.int64)
