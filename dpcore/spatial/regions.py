"""Region trees over a grid: every node is a box, a cell range per axis; children tile it.

A :class:`BoxTree` is the shared :class:`~dpcore.hist.hierarchy.Hierarchy` (so budgets,
the Laplace release, BLUE and its Gauss-Markov error model run on it unchanged) plus each
node's box ``lo[x, d] .. hi[x, d]`` (0-based, inclusive; axis 0 = rows). Any number of
axes: a 1-D interval tree is a box tree with one axis (:func:`as_box_tree`).

Families (Cormode et al. 2012; Qardaji, Yang and Li 2013), all split at fixed positions,
built level by level:

* :func:`quadtree`: each axis of a node in ``fanout[d]`` near-equal parts (2 x 2 is the
  quadtree, ``b x b`` HB-2D's grid tree, :func:`hb_fanout` its branching rule); an axis
  shorter than its fan-out splits into single cells, an axis of one cell not at all;
* :func:`kd_tree`: one cut per node, at the midpoint of its longest axis.

Uneven splits give the first parts the extra cell (an odd remainder goes to the first
part, as DPComp's quadtree and HB-2D do; LUE-DPTree's interval trees put it last).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.hierarchy import Hierarchy, grow
from dpcore.hist.tree import Tree, split_ranges

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]

MAX_CELLS = 1 << 22
"""Largest grid a region tree may cover (cells)."""


@dataclass(frozen=True, eq=False)
class BoxTree(Hierarchy):
    """A region tree: every node a box of cells, every internal node tiled by its children.

    Attributes
    ----------
    parent, depth, child_ptr, level_ptr : ndarray of int64
        The structure (:class:`dpcore.hist.hierarchy.Hierarchy`), breadth-first.
    lo, hi : ndarray of int64, shape (size, ndim)
        Each node's first and last cell per axis (0-based, inclusive).
    """

    lo: IntArray
    hi: IntArray

    @property
    def shape(self) -> tuple[int, ...]:
        """Cells per axis of the whole grid (the root's box)."""
        return tuple(int(v) + 1 for v in self.hi[0])

    @property
    def ndim(self) -> int:
        return int(self.lo.shape[1])


def box_cells(lo: IntArray, hi: IntArray, shape: Sequence[int]) -> tuple[IntArray, IntArray]:
    """Every cell of every box, boxes in order and each box's cells row-major.

    Parameters
    ----------
    lo, hi : ndarray of int64, shape (m, ndim)
        The boxes' first and last cells per axis (inclusive).
    shape : sequence of int
        The grid's cells per axis.

    Returns
    -------
    owner : ndarray of int64, shape (k,)
        Index of the box each cell belongs to.
    flat : ndarray of int64, shape (k,)
        The cell's row-major index in the grid; ``k`` is the boxes' total area.
    """
    extent = hi - lo + 1
    area = np.prod(extent, axis=1)
    owner = np.repeat(np.arange(lo.shape[0], dtype=np.int64), area)
    rest = np.arange(owner.size, dtype=np.int64) - np.repeat(np.cumsum(area) - area, area)
    flat = np.zeros(owner.size, dtype=np.int64)
    stride = 1
    for d in range(lo.shape[1] - 1, -1, -1):  # the last axis varies fastest
        e = np.repeat(extent[:, d], area)
        flat += (np.repeat(lo[:, d], area) + rest % e) * stride
        rest //= e
        stride *= int(shape[d])
    return owner, flat


PartsRule = Callable[[IntArray], IntArray]


def _grow(shape: Sequence[int], parts_of: PartsRule) -> BoxTree:
    """Build from the root down; ``parts_of(extent)`` gives each splittable box's parts per axis."""
    dims = np.array([_validate.whole("grid side", s) for s in shape], dtype=np.int64)
    n_cells = int(np.prod(dims))
    if n_cells > MAX_CELLS:
        raise ValueError(f"a grid of {n_cells:,} cells is over the limit of {MAX_CELLS:,}")

    def split(
        lo: IntArray, hi: IntArray
    ) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
        inner = np.flatnonzero((hi > lo).any(axis=1))
        lo, hi = lo[inner], hi[inner]
        parts = parts_of(hi - lo + 1)
        count = np.prod(parts, axis=1)
        owner = np.repeat(np.arange(inner.size, dtype=np.int64), count)
        rest = np.arange(owner.size, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
        child_lo = np.empty((owner.size, dims.size), dtype=np.int64)
        child_hi = np.empty_like(child_lo)
        for d in range(dims.size - 1, -1, -1):  # children row-major: the last axis varies fastest
            _, part_lo, part_hi = split_ranges(lo[:, d], hi[:, d], parts[:, d], larger_first=True)
            first = np.cumsum(parts[:, d]) - parts[:, d]
            k = parts[owner, d]
            pick = first[owner] + rest % k
            rest //= k
            child_lo[:, d], child_hi[:, d] = part_lo[pick], part_hi[pick]
        return inner, count, owner, child_lo, child_hi

    # every internal node has >= 2 children: at most 2 cells - 1 nodes
    parent, depth, child_ptr, level_ptr, lo, hi = grow(
        np.zeros(dims.size, dtype=np.int64), dims - 1, 2 * n_cells - 1, split
    )
    return BoxTree(
        parent=parent, depth=depth, child_ptr=child_ptr, level_ptr=level_ptr, lo=lo, hi=hi
    )


def quadtree(shape: Sequence[int], fanout: Sequence[int] = (2, 2)) -> BoxTree:
    """The full region tree splitting each axis of every node in ``fanout[d]`` near-equal parts.

    ``(2, 2)`` is the quadtree, ``(b, b)`` the ``b x b`` grid tree of HB-2D (Qardaji, Yang,
    Li, PVLDB 2013); any number of axes. Leaves are single cells.

    Parameters
    ----------
    shape : sequence of int
        Cells per axis (each ``>= 1``; at most :data:`MAX_CELLS` cells in all).
    fanout : sequence of int, default (2, 2)
        Parts per axis (each ``>= 2``), one per axis of ``shape``.

    Returns
    -------
    BoxTree
        Breadth-first region tree; each node's children in row-major order.

    Raises
    ------
    ValueError
        If ``shape`` and ``fanout`` differ in length, a side is not a whole number ``>= 1``,
        a fan-out is below 2, or the grid has more than :data:`MAX_CELLS` cells.

    Examples
    --------
    >>> t = quadtree((3, 4))
    >>> t.size, t.height, t.lo[1].tolist(), t.hi[1].tolist()
    (17, 3, [0, 0], [1, 1])
    """
    if len(fanout) != len(shape):
        raise ValueError(f"one fan-out per axis: shape {tuple(shape)}, fan-out {tuple(fanout)}")
    wanted = np.array([_validate.whole("fan-out", f, lower=2) for f in fanout], dtype=np.int64)
    return _grow(shape, lambda extent: np.minimum(wanted, extent))


def kd_tree(shape: Sequence[int]) -> BoxTree:
    """The kd-style region tree: each node cut in two at the midpoint of its longest axis.

    Ties go to the later axis (DPCube cuts axis 0 only when it is strictly longer); an odd
    side gives the first part the extra cell.

    Parameters
    ----------
    shape : sequence of int
        Cells per axis (each ``>= 1``; at most :data:`MAX_CELLS` cells in all).

    Returns
    -------
    BoxTree
        Breadth-first binary region tree; leaves are single cells.

    Raises
    ------
    ValueError
        If a side is not a whole number ``>= 1`` or the grid is over :data:`MAX_CELLS` cells.

    Examples
    --------
    >>> t = kd_tree((2, 3))
    >>> [(a.tolist(), b.tolist()) for a, b in zip(t.lo[1:3], t.hi[1:3])]
    [([0, 0], [1, 1]), ([0, 2], [1, 2])]
    """

    def parts_of(extent: IntArray) -> IntArray:
        ndim = extent.shape[1]
        longest = ndim - 1 - np.argmax(extent[:, ::-1], axis=1)
        parts = np.ones_like(extent)
        parts[np.arange(extent.shape[0]), longest] = 2
        return parts

    return _grow(shape, parts_of)


def hb_fanout(shape: Sequence[int]) -> tuple[int, int]:
    """HB-2D's branching factor and height (Qardaji, Yang, Li, PVLDB 2013; DPComp's ``HB2D``).

    With ``n = floor(sqrt(n1 n2))``, the ``b`` in ``2..n`` minimising ``b (n - 1) h^2``,
    ``h`` the least integer with ``b^h >= n`` (computed in integers; first minimum).

    Parameters
    ----------
    shape : sequence of int
        The grid's two sides (each ``>= 1``).

    Returns
    -------
    tuple of int
        ``(b, h)``; ``(2, 1)`` when ``n < 2``.

    Raises
    ------
    ValueError
        If ``shape`` is not two whole numbers ``>= 1``.

    Examples
    --------
    >>> hb_fanout((64, 64)), hb_fanout((128, 128)), hb_fanout((256, 256))
    ((8, 2), (12, 2), (7, 3))
    """
    if len(shape) != 2:
        raise ValueError(f"HB-2D's rule is for two axes, got shape {tuple(shape)}")
    n1, n2 = (_validate.whole("grid side", s) for s in shape)
    n = math.isqrt(n1 * n2)
    best: tuple[int, int, int] | None = None
    for b in range(2, n + 1):
        h, reach = 1, b
        while reach < n:
            h, reach = h + 1, reach * b
        cost = b * (n - 1) * h * h
        if best is None or cost < best[0]:
            best = (cost, b, h)
    return (2, 1) if best is None else (best[1], best[2])


def as_box_tree(tree: Tree) -> BoxTree:
    """An interval tree as a one-axis region tree (same nodes, same order).

    Parameters
    ----------
    tree : Tree
        The interval tree.

    Returns
    -------
    BoxTree
        Its nodes as boxes of one axis.
    """
    return BoxTree(
        parent=tree.parent,
        depth=tree.depth,
        child_ptr=tree.child_ptr,
        level_ptr=tree.level_ptr,
        lo=tree.lo[:, None],
        hi=tree.hi[:, None],
    )


def node_sums(tree: BoxTree, counts: ArrayLike) -> FloatArray:
    """True sum of every node's box, from a summed-area table (``O(cells + 2^ndim size)``).

    .. math:: S[i+1][j+1] = \\sum_{i' \\le i, j' \\le j} x[i'][j'], \\quad
              h_x = S[r_1+1][c_1+1] - S[r_0][c_1+1] - S[r_1+1][c_0] + S[r_0][c_0]

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    counts : array_like of float, shape tree.shape
        The grid of counts, finite.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Every node's true sum.

    Raises
    ------
    ValueError
        If ``counts`` is not an array of shape ``tree.shape`` of finite numbers.
    """
    grid = np.asarray(counts, dtype=np.float64)
    if grid.shape != tree.shape:
        raise ValueError(f"counts must have shape {tree.shape}, got {grid.shape}")
    _validate.finite_array("counts", grid.ravel())
    table = summed_area_table(grid)
    return box_sums(table, tree.lo, tree.hi)


def summed_area_table(grid: FloatArray) -> FloatArray:
    """Cumulative sums over every axis, with a leading zero per axis.

    Parameters
    ----------
    grid : ndarray of float64
        Any n-dimensional grid.

    Returns
    -------
    ndarray of float64
        ``S`` with one more entry per axis: ``S[i+1, j+1] = grid[:i+1, :j+1].sum()``.
    """
    table = np.pad(grid, [(1, 0)] * grid.ndim)
    for axis in range(grid.ndim):
        np.cumsum(table, axis=axis, out=table)
    return table


def box_sums(table: FloatArray, lo: IntArray, hi: IntArray) -> FloatArray:
    """Sums of boxes by inclusion-exclusion over the ``2^ndim`` corners of a summed-area table.

    Parameters
    ----------
    table : ndarray of float64
        A :func:`summed_area_table`.
    lo, hi : ndarray of int64, shape (m, ndim)
        The boxes' first and last cells per axis (inclusive).

    Returns
    -------
    ndarray of float64, shape (m,)
        Each box's sum.
    """
    total = np.zeros(lo.shape[0])
    for corner in itertools.product((0, 1), repeat=lo.shape[1]):
        index = tuple(hi[:, d] + 1 if c else lo[:, d] for d, c in enumerate(corner))
        sign = (-1) ** (lo.shape[1] - sum(corner))
        total += sign * table[index]
    return total


def canonical_decomposition(tree: BoxTree, lo: Sequence[int], hi: Sequence[int]) -> IntArray:
    """The nodes a raw answer to box ``[lo, hi]`` sums: inside it, their parent not.

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    lo, hi : sequence of int
        The query's first and last cell per axis (inclusive, inside the grid).

    Returns
    -------
    ndarray of int64
        The node indices, breadth-first; their boxes tile the query.

    Raises
    ------
    ValueError
        If the box is not ``0 <= lo <= hi < shape`` on every axis.

    Examples
    --------
    >>> canonical_decomposition(quadtree((4, 4)), (0, 0), (1, 3)).tolist()
    [1, 2]
    """
    q_lo, q_hi = check_box(tree.shape, lo, hi)
    inside = np.asarray((tree.lo >= q_lo).all(axis=1) & (tree.hi <= q_hi).all(axis=1))
    parent_inside = np.where(tree.parent >= 0, inside[np.maximum(tree.parent, 0)], False)
    return np.flatnonzero(inside & ~parent_inside)


def level_of_cells(tree: BoxTree, depth: int) -> IntArray:
    """The node at ``depth`` holding each cell (the cell's leaf where it is shallower).

    Parameters
    ----------
    tree : BoxTree
        A region tree whose leaves are single cells (:func:`quadtree`, :func:`kd_tree`).
    depth : int
        0 (the root) to ``tree.height - 1`` (the leaves).

    Returns
    -------
    ndarray of int64, shape tree.shape
        A node index per cell.

    Raises
    ------
    ValueError
        If ``depth`` is outside ``0..tree.height - 1`` or a leaf is not a single cell.

    Examples
    --------
    >>> level_of_cells(quadtree((4, 4)), 1).tolist()
    [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]
    """
    if not 0 <= depth < tree.height:
        raise ValueError(f"depth must be in 0..{tree.height - 1}, got {depth}")
    leaves = np.flatnonzero(tree.is_leaf)
    if np.any(tree.lo[leaves] != tree.hi[leaves]):
        raise ValueError("every leaf must be a single cell")
    node = np.full(tree.shape, -1, dtype=np.int64)
    node[tuple(tree.lo[leaves].T)] = leaves
    while True:  # climb, one level per pass, until no cell is below the depth
        deep = tree.depth[node] > depth
        if not deep.any():
            return node
        node[deep] = tree.parent[node[deep]]


def check_box(shape: Sequence[int], lo: ArrayLike, hi: ArrayLike) -> tuple[IntArray, IntArray]:
    """Boxes as int arrays, checked to lie in the grid: ``0 <= lo <= hi < shape`` per axis.

    Parameters
    ----------
    shape : sequence of int
        The grid's cells per axis.
    lo, hi : array_like of int, shape (ndim,) or (m, ndim)
        First and last cells per axis.

    Returns
    -------
    lo, hi : ndarray of int64
        As given, checked.

    Raises
    ------
    ValueError
        Naming the first box that is not inside the grid or has ``lo > hi``.
    """
    lo_arr, hi_arr = np.asarray(lo), np.asarray(hi)
    if lo_arr.shape != hi_arr.shape or lo_arr.shape[-1:] != (len(shape),):
        raise ValueError(f"a box needs {len(shape)} first and last cells, got {lo_arr.shape}")
    if not (np.issubdtype(lo_arr.dtype, np.integer) and np.issubdtype(hi_arr.dtype, np.integer)):
        raise ValueError("box corners must be whole numbers")
    dims = np.asarray(shape, dtype=np.int64)
    bad = ((lo_arr < 0) | (hi_arr < lo_arr) | (hi_arr >= dims)).any(axis=-1)
    if bad.any():
        i = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise ValueError(
            f"box {lo_arr[i].tolist()}..{hi_arr[i].tolist()} is not inside the grid "
            f"{tuple(shape)} (need 0 <= lo <= hi < shape)"
        )
    return lo_arr.astype(np.int64), hi_arr.astype(np.int64)
