"""Answering range queries from a released tree, vectorized over many queries.

Ranges are 0-based inclusive ``[a, b]``.

* From the raw noisy tree: the canonical decomposition (maximal nodes inside
  the range). With ``g_x = h~_x - sum of h~ over x's children``, the sum of
  ``g`` over *all* nodes inside ``[a, b]`` telescopes to the sum over the
  maximal ones, and the nodes of one depth inside ``[a, b]`` are contiguous,
  so each query costs two binary searches per level.
* From consistent values: the leaves in bin order and their prefix sums.

:func:`canonical_decomposition` lists the nodes one raw answer sums.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.hierarchy import Hierarchy
from dpcore.hist.tree import Tree

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def fill_unmeasured(tree: Hierarchy, noisy: FloatArray) -> FloatArray:
    """Replace NaN (unmeasured) internal nodes by the sum of their children, bottom-up.

    Parameters
    ----------
    tree : Hierarchy
        The tree (an interval or a region tree).
    noisy : array_like of float, shape (tree.size,)
        Node values, NaN where unmeasured.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        A copy with every unmeasured internal node set to its children's (filled) sum; NaN
        stays where an unmeasured leaf is below.
    """
    filled = np.asarray(noisy, dtype=np.float64).copy()
    if not np.isnan(filled).any():
        return filled
    levels = tree.levels()
    for d in range(tree.height - 1, 0, -1):
        kids, above = levels[d], levels[d - 1]
        sums = np.bincount(
            tree.parent[kids] - above.start,
            weights=filled[kids],
            minlength=above.stop - above.start,
        )
        missing = np.isnan(filled[above]) & ~tree.is_leaf[above]
        filled[above] = np.where(missing, sums, filled[above])
    return filled


def answer_raw(tree: Tree, noisy: FloatArray, a: IntArray, b: IntArray) -> FloatArray:
    """Range answers from the raw noisy node values by canonical decomposition.

    Unmeasured nodes are replaced by their children's sum; a range needing an
    unmeasured leaf answers NaN.

    Parameters
    ----------
    tree : Tree
        The tree.
    noisy : array_like of float, shape (tree.size,)
        Noisy node values, NaN where unmeasured (:func:`dpcore.hist.release.laplace_release`).
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    ndarray of float64
        One answer per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < tree.n_bins`` or ``a`` and ``b`` do not broadcast.
    """
    a, b = _validate.ranges(tree.n_bins, a, b)
    filled = fill_unmeasured(tree, noisy)
    children_sum = np.zeros(tree.size)
    inner = ~tree.is_leaf
    children_sum[inner] = np.add.reduceat(filled[1:], tree.child_ptr[:-1][inner] - 1)
    g = filled - children_sum
    answer = np.zeros(a.shape)
    for level in tree.levels():
        lo, hi = tree.lo[level], tree.hi[level]
        prefix = np.concatenate(([0.0], np.cumsum(g[level])))
        first = np.searchsorted(lo, a, side="left")
        stop = np.maximum(np.searchsorted(hi, b, side="right"), first)
        answer += prefix[stop] - prefix[first]
    return answer


def canonical_decomposition(
    tree: Tree, a: int, b: int, budgets: ArrayLike | None = None
) -> IntArray:
    """The nodes whose raw noisy values sum to the answer of ``[a, b]``, breadth-first.

    Without ``budgets``: the maximal nodes inside ``[a, b]``. With ``budgets``,
    an unmeasured internal node (``eps_x = 0``) stands for the sum of its
    children, as in :func:`answer_raw`, so it is replaced by its children,
    recursively; an unmeasured leaf stays (the answer is then undefined).
    One binary search per level plus the nodes inside the range at that level.

    Parameters
    ----------
    tree : Tree
        The tree.
    a, b : int
        The range's first and last bin (0-based, inclusive).
    budgets : array_like of float, shape (tree.size,), optional
        Per-node budgets; a node is measured iff its budget is ``> 0``.

    Returns
    -------
    ndarray of int64
        Node indices, breadth-first (root level first, left to right within a level).

    Raises
    ------
    ValueError
        If not ``0 <= a <= b < tree.n_bins``.

    Examples
    --------
    >>> from dpcore.hist.tree import kary_tree
    >>> t = kary_tree(4, 2)
    >>> [(int(t.lo[x]), int(t.hi[x])) for x in canonical_decomposition(t, 1, 3)]
    [(2, 3), (1, 1)]
    """
    first_bin, last_bin = _validate.ranges(tree.n_bins, a, b)
    a, b = int(first_bin), int(last_bin)
    if budgets is None:
        measured = np.ones(tree.size, dtype=bool)
    else:
        measured = np.asarray(budgets, dtype=np.float64) > 0
    # summed[x]: x is inside [a, b] and its value is part of the answer through x or an ancestor
    summed = np.zeros(tree.size, dtype=bool)
    found: list[IntArray] = []
    for level in tree.levels():
        first = level.start + int(np.searchsorted(tree.lo[level], a, side="left"))
        stop = level.start + int(np.searchsorted(tree.hi[level], b, side="right"))
        if stop <= first:
            continue
        inside = np.arange(first, stop)
        par = tree.parent[inside]
        free = (par < 0) | ~summed[np.maximum(par, 0)]
        found.append(inside[free & (measured[inside] | tree.is_leaf[inside])])
        summed[inside] = ~free | measured[inside]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def leaf_values(tree: Tree, node_values: FloatArray) -> FloatArray:
    """The leaves' values in bin order (the published histogram of a consistent tree).

    Parameters
    ----------
    tree : Tree
        The tree.
    node_values : array_like of float, shape (tree.size,)
        One value per node.

    Returns
    -------
    ndarray of float64, shape (tree.n_bins,)
        The leaves' values, bin ``i`` at index ``i``.

    Raises
    ------
    ValueError
        If ``node_values`` does not have shape ``(tree.size,)``.
    """
    values = np.asarray(node_values, dtype=np.float64)
    if values.shape != (tree.size,):
        raise ValueError(f"node_values must be {tree.size} values, got shape {values.shape}")
    return values[tree.leaf_of_bin]


def answer_from_leaves(tree: Tree, node_values: FloatArray, a: IntArray, b: IntArray) -> FloatArray:
    """Range answers as sums of leaf values (exact for consistent trees), via prefix sums.

    Parameters
    ----------
    tree : Tree
        The tree.
    node_values : array_like of float, shape (tree.size,)
        Node values, e.g. BLUE-consistent ones (:func:`dpcore.hist.consistency.blue`).
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    ndarray of float64
        One answer per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < tree.n_bins``, ``a`` and ``b`` do not broadcast,
        or ``node_values`` does not have shape ``(tree.size,)``.
    """
    a, b = _validate.ranges(tree.n_bins, a, b)
    prefix = np.concatenate(([0.0], np.cumsum(leaf_values(tree, node_values))))
    return prefix[b + 1] - prefix[a]
