"""Exact errors of a raw (not post-processed) tree release, any budgets.

A range is answered by the sum of its canonical decomposition, so its error is the sum of
those nodes' variances (LUE-DPTree eq. 3.2); an unmeasured node is answered by its children.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist import coverage
from dpcore.hist.hierarchy import Hierarchy
from dpcore.hist.tree import Tree
from dpcore.hist.workload import Workload

FloatArray = NDArray[np.float64]


def effective_raw_variances(t: Hierarchy, budgets: ArrayLike) -> FloatArray:
    """Variance of each node's raw answer: ``2/eps_x^2``, or its children's sum if unmeasured.

    Mirrors :func:`dpcore.hist.queries.fill_unmeasured` (``inf`` for an unmeasured leaf).

    Parameters
    ----------
    t : Hierarchy
        The tree (an interval or a region tree).
    budgets : array_like of float, shape (t.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.

    Returns
    -------
    ndarray of float64, shape (t.size,)
        Variance of each node's raw answer (count units squared).

    Raises
    ------
    ValueError
        If ``budgets`` is not ``t.size`` finite numbers, each 0 or ``>= 1e-300``.
    """
    eps = _validate.budgets("budgets", budgets, size=t.size)
    with np.errstate(divide="ignore"):
        var = np.where(eps > 0, 2.0 / np.maximum(eps, 1e-300) ** 2, np.inf)
    var[eps == 0] = np.inf
    levels = t.levels()
    for d in range(t.height - 2, -1, -1):
        here, below = levels[d], levels[d + 1]
        sums = np.bincount(
            t.parent[below] - here.start, weights=var[below], minlength=here.stop - here.start
        )
        fill = (eps[here] == 0) & ~t.is_leaf[here]
        var[here] = np.where(fill, sums, var[here])
    return var


def raw_range_errors(t: Tree, budgets: ArrayLike, a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Raw-tree MSE of each range: the variance sum over its canonical decomposition.

    With ``g_x = var_x - sum of var over x's children``, the sum of ``g`` over
    all nodes inside ``[a, b]`` telescopes to the sum over the maximal ones,
    and the nodes of one depth inside a range are contiguous: two binary
    searches per level and query. ``inf`` if the decomposition needs an
    unmeasured leaf.

    .. math:: \\mathrm{MSE}[a, b] = \\sum_{x \\in \\mathrm{dec}[a, b]} \\mathrm{Var}(\\tilde h_x)

    Parameters
    ----------
    t : Tree
        The tree.
    budgets : array_like of float, shape (t.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    ndarray of float64
        MSE per range (count units squared), shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < t.n_bins``, ``a`` and ``b`` do not broadcast, or
        ``budgets`` is invalid.
    """
    a_arr, b_arr = _validate.ranges(t.n_bins, a, b)
    var = effective_raw_variances(t, budgets)
    unknown = np.isinf(var)
    finite = np.where(unknown, 0.0, var)
    inner = ~t.is_leaf
    child_sum = np.zeros(t.size)
    child_unknown = np.zeros(t.size)
    child_sum[inner] = np.add.reduceat(finite[1:], t.child_ptr[:-1][inner] - 1)
    child_unknown[inner] = np.add.reduceat(unknown[1:].astype(float), t.child_ptr[:-1][inner] - 1)
    g = finite - child_sum
    g_unknown = unknown - child_unknown
    total = np.zeros(a_arr.shape)
    n_unknown = np.zeros(a_arr.shape)
    for level in t.levels():
        first = np.searchsorted(t.lo[level], a_arr, side="left")
        stop = np.maximum(np.searchsorted(t.hi[level], b_arr, side="right"), first)
        prefix = np.concatenate(([0.0], np.cumsum(g[level])))
        prefix_unknown = np.concatenate(([0.0], np.cumsum(g_unknown[level])))
        total += prefix[stop] - prefix[first]
        n_unknown += prefix_unknown[stop] - prefix_unknown[first]
    return np.where(n_unknown > 0.5, np.inf, total)


def raw_expected_error(t: Tree, budgets: ArrayLike, workload: str | Workload = "uniform") -> float:
    """Raw-tree mean range MSE over a workload: ``sum_x p_x Var(h~_x)`` (LUE-DPTree eq. 3.6).

    Parameters
    ----------
    t : Tree
        The tree.
    budgets : array_like of float, shape (t.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    float
        Mean MSE over the workload's ranges; ``inf`` if a used node's answer is undefined.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``t.n_bins`` bins or ``budgets`` is invalid.
    """
    p = coverage.coverage_probabilities(t, workload)
    var = effective_raw_variances(t, budgets)
    used = p > 0
    return float(np.sum(p[used] * var[used]))
