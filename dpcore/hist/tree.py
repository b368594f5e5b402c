"""Interval trees over histogram bins, stored as flat arrays and built level by level.

Bins are 0-based here (the spec's bin ``i`` is our ``i - 1``); every node
covers the inclusive range ``[lo, hi]``. Nodes are kept in breadth-first order,
root first, each depth level sorted left to right, so that a node's children
are the contiguous block ``child_ptr[i]:child_ptr[i + 1]`` and depth ``d`` is
``level_ptr[d]:level_ptr[d + 1]``. Every pass over a tree is a loop over its
levels with numpy inside, never Python recursion over nodes.

Reference: the LUE-DPTree thesis chapter (chapter 3), splitting rule and Struct-Construct.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from dpcore.hist.hierarchy import Hierarchy

IntArray = NDArray[np.int64]

MAX_FANOUT = 20


@dataclass(frozen=True, eq=False)
class Tree(Hierarchy):
    """An interval tree: every internal node's children partition its range, left to right.

    Attributes
    ----------
    parent, depth, child_ptr, level_ptr : ndarray of int64
        The structure (:class:`dpcore.hist.hierarchy.Hierarchy`).
    lo, hi : ndarray of int64, shape (size,)
        First and last bin (0-based, inclusive) of every node, breadth-first.
    n_bins, size, height : int
        Bins covered by the root, number of nodes, Δ (nodes on the longest root-to-leaf path).
    """

    lo: IntArray
    hi: IntArray

    @property
    def n_bins(self) -> int:
        return int(self.hi[0]) + 1

    @cached_property
    def leaf_of_bin(self) -> IntArray:
        """Index of the leaf covering each bin."""
        leaves = np.flatnonzero(self.is_leaf)
        out = np.empty(self.n_bins, dtype=np.int64)
        out[self.lo[leaves]] = leaves
        return out

    @cached_property
    def widths(self) -> NDArray[np.float64]:
        """Number of bins under each node, as floats (the weights of range-error sums)."""
        return (self.hi - self.lo + 1).astype(np.float64)

    @cached_property
    def bins_around(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Per node, its parent's bins before it and after it (the root: 0 and 0)."""
        before, after = np.zeros(self.size), np.zeros(self.size)
        up = self.parent[1:]
        before[1:] = self.lo[1:] - self.lo[up]
        after[1:] = self.hi[up] - self.hi[1:]
        return before, after


# --------------------------------------------------------------------- building


def split_ranges(
    lo: IntArray, hi: IntArray, fanout: IntArray, *, larger_first: bool = False
) -> tuple[IntArray, IntArray, IntArray]:
    """Split each ``[lo, hi]`` into ``fanout`` parts as near-equal as possible.

    Parts are as equal as possible, smaller parts first (LUE-DPTree's trees; with
    ``larger_first`` the first parts get the +1, as DPComp's quadtrees and HB-2D
    grids do); a range shorter than its fan-out splits into single bins. Returns
    ``(owner, child_lo, child_hi)`` with ``owner`` the index of the range each
    part came from.

    Parameters
    ----------
    lo, hi : ndarray of int64, shape (m,)
        First and last bin of each range (0-based, inclusive, ``lo <= hi``).
    fanout : ndarray of int64, shape (m,)
        Wanted number of parts per range (``>= 1``).
    larger_first : bool, default False
        Whether the longer parts of an uneven split come first.

    Returns
    -------
    owner : ndarray of int64, shape (k,)
        Index into ``lo`` of the range each part came from, ranges in order.
    child_lo, child_hi : ndarray of int64, shape (k,)
        Each part's first and last bin, left to right within a range;
        ``k = sum(min(fanout, hi - lo + 1))``.

    Examples
    --------
    >>> split_ranges(np.array([0]), np.array([4]), np.array([2]))[1:]
    (array([0, 2]), array([1, 4]))
    """
    length = hi - lo + 1
    parts = np.minimum(fanout, length)
    base, extra = np.divmod(length, parts)
    owner = np.repeat(np.arange(lo.size, dtype=np.int64), parts)
    # np.repeat is much cheaper than gathering with `owner` on million-node levels
    j = np.arange(owner.size, dtype=np.int64) - np.repeat(np.cumsum(parts) - parts, parts)
    size = np.repeat(base, parts)
    if larger_first:
        n_large = np.repeat(extra, parts)
        child_lo = np.repeat(lo, parts) + j * size + np.minimum(j, n_large)
        return owner, child_lo, child_lo + size - 1 + (j < n_large)
    n_small = np.repeat(parts - extra, parts)
    child_lo = np.repeat(lo, parts) + j * size + np.maximum(0, j - n_small)
    child_hi = child_lo + size - 1 + (j >= n_small)
    return owner, child_lo, child_hi


FanoutRule = Callable[[IntArray, IntArray], IntArray]


def _grow(n: int, fanout_of: FanoutRule) -> Tree:
    """Build a tree from the root down; ``fanout_of(lo, hi)`` gives splittable nodes' fan-outs.

    The interval shortcut of :func:`dpcore.hist.hierarchy.grow` (which region trees use),
    kept as it was: routed through the shared loop, 1-D tree building ran up to 40 %
    slower at 2^20 bins, from the order in which temporaries are freed alone (glibc's
    adaptive mmap threshold; with it raised both take the same time).
    """
    if n < 1:
        raise ValueError(f"a tree needs at least one bin, got n={n}")
    # an interval tree whose internal nodes have >= 2 children has at most 2n - 1
    # nodes: fill preallocated buffers level by level (no concatenation copies)
    capacity = 2 * n - 1
    lo_buf = np.empty(capacity, dtype=np.int64)
    hi_buf = np.empty(capacity, dtype=np.int64)
    parent_buf = np.empty(capacity, dtype=np.int64)
    n_child = np.zeros(capacity, dtype=np.int64)
    lo_buf[0], hi_buf[0], parent_buf[0] = 0, n - 1, -1
    level_ptr = [0, 1]
    while True:
        start, stop = level_ptr[-2], level_ptr[-1]
        lo, hi = lo_buf[start:stop], hi_buf[start:stop]
        inner = np.flatnonzero(hi > lo)
        if inner.size == 0:
            break
        fanout = fanout_of(lo[inner], hi[inner])
        owner, child_lo, child_hi = split_ranges(lo[inner], hi[inner], fanout)
        n_child[start + inner] = np.minimum(fanout, hi[inner] - lo[inner] + 1)
        end = stop + owner.size
        lo_buf[stop:end], hi_buf[stop:end] = child_lo, child_hi
        parent_buf[stop:end] = start + inner[owner]
        level_ptr.append(end)
    size = level_ptr[-1]
    levels = np.asarray(level_ptr, dtype=np.int64)
    n_child = n_child[:size]
    child_ptr = np.empty(size + 1, dtype=np.int64)
    child_ptr[0] = 1
    np.cumsum(n_child, out=child_ptr[1:])
    child_ptr[1:] += 1
    return Tree(
        lo=lo_buf[:size],
        hi=hi_buf[:size],
        parent=parent_buf[:size],
        depth=np.repeat(np.arange(levels.size - 1, dtype=np.int64), np.diff(levels)),
        child_ptr=child_ptr,
        level_ptr=levels,
    )


def kary_tree(n: int, fanout: int) -> Tree:
    """The ``fanout``-ary tree over ``n`` bins by the splitting rule (any ``n``, any fan-out >= 2).

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).
    fanout : int
        Children per internal node (``>= 2``; capped at ``n``).

    Returns
    -------
    Tree
        Breadth-first interval tree; every leaf is a single bin.

    Raises
    ------
    ValueError
        If ``fanout < 2`` or ``n < 1``.

    Examples
    --------
    >>> t = kary_tree(5, 2)
    >>> [(int(a), int(b)) for a, b in zip(t.lo, t.hi)][:3]
    [(0, 4), (0, 1), (2, 4)]
    """
    if fanout < 2:
        raise ValueError(f"the fan-out must be at least 2, got {fanout}")
    fanout = min(fanout, max(n, 2))  # a node never has more children than bins
    return _grow(n, lambda lo, hi: np.full(lo.size, fanout, dtype=np.int64))


# ------------------------------------------------------------ Struct-Construct


class _ShapeMoments:
    """Exact integer moments of the internal nodes of ``w``-ary subtrees, memoised.

    Under the uniform workload a node ``z = [L+a, L+a+s-1]`` is contained in
    ``g(z) = (L+1+a)(b-L)`` ranges, ``b = n+1-a-s``. Summing
    ``c_z g(z)`` with ``c_z = #children - 1`` over the internal nodes of the
    ``w``-ary tree over ``m`` bins placed at ``L`` gives ``-S0 L^2 + S1 L + S2``;
    ``(S0, S1, S2)`` depend only on ``(m, w)``, and a child at offset ``o``
    shifts them as ``S1 -> S1 - 2 o S0``, ``S2 -> S2 + o S1 - o^2 S0``.
    Python integers keep every comparison exact.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.memo: dict[tuple[int, int], tuple[int, int, int]] = {}

    def __call__(self, m: int, w: int) -> tuple[int, int, int]:
        if m <= 1:
            return (0, 0, 0)
        key = (m, w)
        if key not in self.memo:
            parts = min(w, m)
            c, b = parts - 1, self.n + 1 - m
            s0, s1, s2 = c, c * (b - 1), c * b
            base, extra = divmod(m, parts)
            n_small = parts - extra
            # children: n_small of size `base` at offsets j*base, then `extra` of size base+1
            for count, size, first in ((n_small, base, 0), (extra, base + 1, n_small * base)):
                if count == 0:
                    continue
                c0, c1, c2 = self(size, w)
                offs_sum = count * first + size * count * (count - 1) // 2
                offs_sq = sum((first + size * j) ** 2 for j in range(count))
                s0 += count * c0
                s1 += count * c1 - 2 * offs_sum * c0
                s2 += count * c2 + offs_sum * c1 - offs_sq * c0
            self.memo[key] = (s0, s1, s2)
        return self.memo[key]


def _uniform_leaf_sum(n: int, lo: int, hi: int) -> int:
    """Sum over bins i in [lo, hi] of (i+1)(n-i): ranges containing each bin."""
    i = np.arange(lo, hi + 1, dtype=object)
    return int(((i + 1) * (n - i)).sum())


def subtree_coverage_sum(n: int, lo: int, hi: int, parent_lo: int, parent_hi: int, w: int) -> float:
    """``Hval``: the sum of uniform-workload coverage probabilities of the ``w``-ary subtree
    over ``[lo, hi]``, the subtree root's coverage computed with its real parent.

    .. math:: Hval = \\frac{1}{N}\\Big(\\sum_{leaves} g - \\sum_{internal\\ z} (|ch(z)|-1)\\, g(z)
              - g(f)\\Big), \\quad N = n(n+1)/2

    Parameters
    ----------
    n : int
        Number of bins of the whole histogram (``>= 1``).
    lo, hi : int
        The subtree root's first and last bin (0-based, inclusive).
    parent_lo, parent_hi : int
        Its parent's first and last bin (the whole ``[0, n-1]`` for a child of the root).
    w : int
        Fan-out of the subtree (``>= 2``).

    Returns
    -------
    float
        ``Hval``: the subtree's summed coverage probabilities under the uniform workload.

    Examples
    --------
    >>> round(subtree_coverage_sum(5, 2, 4, 0, 4, 2), 4)  # spec example 1: Hval(3,5,2)
    0.9333
    """
    s0, s1, s2 = _ShapeMoments(n)(hi - lo + 1, w)
    inner = -s0 * lo * lo + s1 * lo + s2
    g_parent = (parent_lo + 1) * (n - parent_hi)
    total = _uniform_leaf_sum(n, lo, hi) - inner - g_parent
    return total / (n * (n + 1) // 2)


def _kary_height(n: int, k: int) -> int:
    height, m = 1, n
    while m > 1:
        m = -(-m // k)  # the largest part of a k-ary split
        height += 1
    return height


def best_fanout(n: int, *, max_fanout: int = MAX_FANOUT) -> int:
    """``k*``: the fan-out minimising the uniform-budget k-ary tree's uniform-workload error.

    .. math:: k^* = \\arg\\min_{2 \\le k \\le U} \\Delta_k^2 \\sum_x p_x

    Parameters
    ----------
    n : int
        Number of bins.
    max_fanout : int, default MAX_FANOUT (20)
        Largest fan-out ``U`` tried (candidates ``2..min(U, n)``).

    Returns
    -------
    int
        The minimising fan-out, the smallest on ties; 2 when ``n < 2``.
    """
    if n < 2:
        return 2
    moments = _ShapeMoments(n)
    leaves = _uniform_leaf_sum(n, 0, n - 1)
    best, best_cost = 2, None
    for k in range(2, max(2, min(max_fanout, n)) + 1):
        coverage_sum = leaves - moments(n, k)[2]  # times N; root placed at L = 0
        cost = _kary_height(n, k) ** 2 * coverage_sum
        if best_cost is None or cost < best_cost:
            best, best_cost = k, cost
    return best


def struct_construct(n: int, *, max_fanout: int = MAX_FANOUT) -> Tree:
    """The Struct-Construct (SC) tree of the LUE-DPTree chapter, algorithm 3.1.

    Nodes starting at the first bin split ``k*``-ary (:func:`best_fanout`);
    every other node takes the fan-out ``w in [k*, max_fanout]`` whose ``w``-ary
    subtree has the least total coverage (:func:`subtree_coverage_sum`), ties
    to the smallest ``w``. Depth is whatever results: read ``tree.height``.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).
    max_fanout : int, default MAX_FANOUT (20)
        Largest fan-out any node may get (``>= 2``; capped at ``n``).

    Returns
    -------
    Tree
        The SC tree over ``n`` bins.

    Raises
    ------
    ValueError
        If ``max_fanout < 2`` or ``n < 1``.
    """
    if max_fanout < 2:
        raise ValueError(f"max_fanout must be at least 2, got {max_fanout}")
    max_fanout = min(max_fanout, max(n, 2))  # wider candidates split like a fan-out of n
    k_star = best_fanout(n, max_fanout=max_fanout)
    moments = _ShapeMoments(n)
    candidates = range(k_star, max(k_star, max_fanout) + 1)

    def fanout_of(lo: IntArray, hi: IntArray) -> IntArray:
        fanout = np.full(lo.size, k_star, dtype=np.int64)
        length = hi - lo + 1
        free = lo > 0
        for m in np.unique(length[free]):
            rows = np.flatnonzero(free & (length == m))
            # maximise sum_z c_z g(z) == minimise Hval (leaves and parent terms do not depend on w)
            scores = np.stack([_inner_score(moments(int(m), w), lo[rows]) for w in candidates])
            fanout[rows] = k_star + np.argmax(scores, axis=0)
        return fanout

    return _grow(n, fanout_of)


def _inner_score(moments: tuple[int, int, int], lo: IntArray) -> NDArray[np.float64]:
    s0, s1, s2 = (float(v) for v in moments)
    x = lo.astype(np.float64)
    return -s0 * x * x + s1 * x + s2


# ---------------------------------------------------------- arbitrary trees


def from_intervals(lo: IntArray | list[int], hi: IntArray | list[int]) -> Tree:
    """A tree from any list of intervals (0-based inclusive), in any order.

    The intervals must contain the root ``[0, n-1]``, every single bin as a
    leaf, no duplicates, and nest so that each internal node's children
    partition it (at least two children). Raises ``ValueError`` saying which
    interval breaks which rule.

    Parameters
    ----------
    lo, hi : array_like of int, shape (m,)
        First and last bin (0-based, inclusive) of each node, in any order.

    Returns
    -------
    Tree
        The tree over ``n = max(hi) + 1`` bins, nodes in breadth-first order.

    Raises
    ------
    ValueError
        If ``lo`` and ``hi`` are not equal-length non-empty 1-D sequences, an interval has
        ``lo < 0`` or ``hi < lo``, the root ``[0, n-1]`` is missing, an interval repeats or
        overlaps another without nesting, a leaf covers more than one bin, an internal
        node has a single child, or some children do not partition their parent.
    """
    lo_arr = np.asarray(lo, dtype=np.int64)
    hi_arr = np.asarray(hi, dtype=np.int64)
    if lo_arr.shape != hi_arr.shape or lo_arr.ndim != 1 or lo_arr.size == 0:
        raise ValueError("lo and hi must be equal-length, non-empty 1-D sequences")
    if (hi_arr < lo_arr).any() or (lo_arr < 0).any():
        raise ValueError("every interval needs 0 <= lo <= hi")
    n = int(hi_arr.max()) + 1
    order = np.lexsort((-hi_arr, lo_arr))  # pre-order: by start, longer first
    lo_arr, hi_arr = lo_arr[order], hi_arr[order]
    if lo_arr[0] != 0 or hi_arr[0] != n - 1:
        raise ValueError(f"the root interval [0, {n - 1}] is missing")
    dup = (np.diff(lo_arr) == 0) & (np.diff(hi_arr) == 0)
    if dup.any():
        i = int(np.argmax(dup))
        raise ValueError(f"interval [{lo_arr[i]}, {hi_arr[i]}] appears twice")
    parent = np.full(lo_arr.size, -1, dtype=np.int64)
    stack = [0]
    for i in range(1, lo_arr.size):
        while hi_arr[stack[-1]] < lo_arr[i]:
            stack.pop()
        top = stack[-1]
        if hi_arr[i] > hi_arr[top]:
            raise ValueError(
                f"[{lo_arr[i]}, {hi_arr[i]}] overlaps [{lo_arr[top]}, {hi_arr[top]}] "
                "without nesting"
            )
        parent[i] = top
        stack.append(i)
    _check_partitions(lo_arr, hi_arr, parent)
    depth = np.zeros(lo_arr.size, dtype=np.int64)
    for i in range(1, lo_arr.size):  # pre-order: parents come first
        depth[i] = depth[parent[i]] + 1
    bfs = np.lexsort((lo_arr, depth))
    rank = np.empty_like(bfs)
    rank[bfs] = np.arange(bfs.size)
    lo_b, hi_b, depth_b = lo_arr[bfs], hi_arr[bfs], depth[bfs]
    parent_b = np.where(parent[bfs] >= 0, rank[np.maximum(parent[bfs], 0)], -1)
    n_child = np.bincount(parent_b[1:], minlength=bfs.size).astype(np.int64)
    levels = np.bincount(depth_b).astype(np.int64)
    return Tree(
        lo=lo_b,
        hi=hi_b,
        parent=parent_b.astype(np.int64),
        depth=depth_b,
        child_ptr=np.concatenate(([1], 1 + np.cumsum(n_child))).astype(np.int64),
        level_ptr=np.concatenate(([0], np.cumsum(levels))).astype(np.int64),
    )


def _check_partitions(lo: IntArray, hi: IntArray, parent: IntArray) -> None:
    """Children (in pre-order) must tile their parent exactly; leaves must be single bins."""
    n_child = np.bincount(parent[1:], minlength=lo.size)
    for i in np.flatnonzero(n_child == 0):
        if lo[i] != hi[i]:
            raise ValueError(f"leaf [{lo[i]}, {hi[i]}] covers more than one bin")
    for i in np.flatnonzero(n_child == 1):
        raise ValueError(f"[{lo[i]}, {hi[i]}] has a single child; internal nodes need >= 2")
    kids = np.flatnonzero(parent >= 0)
    par = parent[kids]
    # group siblings (sorted by start) and check each touches the previous one
    order = np.lexsort((lo[kids], par))
    kids, par = kids[order], par[order]
    first = np.ones(kids.size, dtype=bool)
    first[1:] = par[1:] != par[:-1]
    last = np.ones(kids.size, dtype=bool)
    last[:-1] = par[:-1] != par[1:]
    gaps = ~first & (lo[kids] != np.roll(hi[kids], 1) + 1)
    bad_start = first & (lo[kids] != lo[par])
    bad_end = last & (hi[kids] != hi[par])
    for mask in (gaps, bad_start, bad_end):
        if mask.any():
            p = int(par[int(np.argmax(mask))])
            raise ValueError(f"the children of [{lo[p]}, {hi[p]}] do not partition it")
