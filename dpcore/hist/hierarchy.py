"""The shape of a tree, whatever its nodes cover: flat parent/child arrays, level by level.

Budgets, the Laplace release of given node sums, BLUE consistency and its Gauss-Markov
error model use only this structure (children partition their parent, breadth-first
order), so they run unchanged on interval trees (:class:`dpcore.hist.tree.Tree`) and on
region trees over grids (:class:`dpcore.spatial.regions.BoxTree`). Only building a tree,
its node sums and its coverage probabilities know the geometry.

Nodes are kept in breadth-first order, root first, so that a node's children are the
contiguous block ``child_ptr[i]:child_ptr[i + 1]`` and depth ``d`` is
``level_ptr[d]:level_ptr[d + 1]``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """A rooted tree as flat breadth-first arrays.

    Attributes
    ----------
    parent : ndarray of int64, shape (size,)
        Index of each node's parent; -1 for the root (node 0).
    depth : ndarray of int64, shape (size,)
        Distance from the root (root: 0).
    child_ptr : ndarray of int64, shape (size + 1,)
        Node ``i``'s children are ``child_ptr[i]:child_ptr[i + 1]``.
    level_ptr : ndarray of int64, shape (height + 1,)
        Depth ``d`` is ``level_ptr[d]:level_ptr[d + 1]``.
    size, height : int
        Number of nodes, Δ (nodes on the longest root-to-leaf path).
    """

    parent: IntArray
    depth: IntArray
    child_ptr: IntArray
    level_ptr: IntArray

    @property
    def size(self) -> int:
        return int(self.parent.size)

    @property
    def height(self) -> int:
        """Δ: the number of nodes on the longest root-to-leaf path."""
        return int(self.level_ptr.size) - 1

    @cached_property
    def n_children(self) -> IntArray:
        return np.diff(self.child_ptr)

    @cached_property
    def is_leaf(self) -> NDArray[np.bool_]:
        leaf: NDArray[np.bool_] = self.n_children == 0
        return leaf

    @cached_property
    def sibling_span(self) -> tuple[IntArray, IntArray]:
        """Per node, its family's first index and one past its last (the root: 0 and 1)."""
        first = np.zeros(self.size, dtype=np.int64)
        last = np.ones(self.size, dtype=np.int64)
        first[1:] = self.child_ptr[self.parent[1:]]
        last[1:] = self.child_ptr[self.parent[1:] + 1]
        return first, last

    def levels(self) -> list[slice]:
        """Slices of node indices, one per depth, root level first."""
        ptr = self.level_ptr
        return [slice(int(ptr[d]), int(ptr[d + 1])) for d in range(self.height)]


Split = Callable[[IntArray, IntArray], tuple[IntArray, IntArray, IntArray, IntArray, IntArray]]
"""One level's split: from its nodes' ``(lo, hi)`` (shape ``(m,)`` or ``(m, ndim)``), the
indices of the nodes that split, their numbers of children, and the children -- ``owner``
(an index into the splitting nodes), ``child_lo``, ``child_hi`` -- grouped by owner, in order."""


def grow(
    root_lo: IntArray, root_hi: IntArray, capacity: int, split: Split
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]:
    """Grow a tree from its root level by level, into preallocated buffers (no copies).

    Parameters
    ----------
    root_lo, root_hi : ndarray of int64, shape () or (ndim,)
        The root's extent (a range, or a box).
    capacity : int
        An upper bound on the number of nodes (``2 cells - 1`` when every split has
        ``>= 2`` children).
    split : Split
        The splitting rule of one level; the growth stops at a level where no node splits.

    Returns
    -------
    parent, depth, child_ptr, level_ptr : ndarray of int64
        The structure, as :class:`Hierarchy` holds it.
    lo, hi : ndarray of int64, shape (size,) + root_lo.shape
        Every node's extent, breadth-first.
    """
    lo_buf = np.empty((capacity, *np.shape(root_lo)), dtype=np.int64)
    hi_buf = np.empty_like(lo_buf)
    parent_buf = np.empty(capacity, dtype=np.int64)
    n_child = np.zeros(capacity, dtype=np.int64)
    lo_buf[0], hi_buf[0], parent_buf[0] = root_lo, root_hi, -1
    level_ptr = [0, 1]
    while True:
        start, stop = level_ptr[-2], level_ptr[-1]
        inner, count, owner, child_lo, child_hi = split(lo_buf[start:stop], hi_buf[start:stop])
        if inner.size == 0:
            break
        n_child[start + inner] = count
        end = stop + owner.size
        lo_buf[stop:end], hi_buf[stop:end] = child_lo, child_hi
        parent_buf[stop:end] = start + inner[owner]
        level_ptr.append(end)
    size = level_ptr[-1]
    levels = np.asarray(level_ptr, dtype=np.int64)
    depth = np.repeat(np.arange(levels.size - 1, dtype=np.int64), np.diff(levels))
    child_ptr = _child_pointers(n_child[:size])
    return parent_buf[:size], depth, child_ptr, levels, lo_buf[:size], hi_buf[:size]


def _child_pointers(n_children: IntArray) -> IntArray:
    """``child_ptr`` from each node's number of children (breadth-first order).

    Parameters
    ----------
    n_children : ndarray of int64, shape (size,)
        Children per node.

    Returns
    -------
    ndarray of int64, shape (size + 1,)
        Node ``i``'s children are ``out[i]:out[i + 1]``.
    """
    out = np.empty(n_children.size + 1, dtype=np.int64)
    out[0] = 1
    np.cumsum(n_children, out=out[1:])
    out[1:] += 1
    return out
