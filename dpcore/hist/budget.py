"""Privacy-budget allocations over a tree's nodes, and the release's true epsilon.

A node ``x`` released as ``h_x + Lap(1/eps_x)`` costs ``eps_x``; by parallel
composition across disjoint nodes and sequential composition along a path,
the whole release is ``max over leaves of the root-to-leaf sum`` -DP
(LUE-DPTree conclusion 3.4). Every allocation here makes that maximum ``eps``;
:func:`release_epsilon` computes it so that callers can check and show it.
A budget of 0 means the node is not measured at all.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.hist.hierarchy import Hierarchy

FloatArray = NDArray[np.float64]

BudgetRule = Literal["uniform", "per_level", "optimal"]
BUDGET_RULES: tuple[BudgetRule, ...] = ("uniform", "per_level", "optimal")


def _check_eps(eps: float) -> None:
    _validate.positive("epsilon", eps)


def _coverage(tree: Hierarchy, coverage: FloatArray) -> FloatArray:
    return _validate.finite_array("coverage", coverage, size=tree.size, nonnegative=True)


def uniform_budgets(tree: Hierarchy, eps: float, *, measure_root: bool = True) -> FloatArray:
    """Homoscedastic budgets (Hay et al.'s "Boost"): ``eps_x = eps / Δ`` for every node.

    With ``measure_root=False`` the root's total is not released (budget 0) and
    the other levels share ``eps``: ``eps / (Δ - 1)`` each, the H_b rule of
    Qardaji, Yang, Li (VLDB 2013). A single-node tree always measures its root.

    Parameters
    ----------
    tree : Hierarchy
        The tree to allocate over.
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    measure_root : bool, default True
        Whether the root's total is released.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets; every root-to-leaf path of the tallest height sums to ``eps``.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number in ``[1e-300, inf)``.
    """
    _check_eps(eps)
    if measure_root or tree.height == 1:
        return np.full(tree.size, eps / tree.height)
    budgets = np.full(tree.size, eps / (tree.height - 1))
    budgets[0] = 0.0
    return budgets


def per_level_budgets(tree: Hierarchy, eps: float, coverage: FloatArray) -> FloatArray:
    """One budget per depth ("Boost-UN"): ``eps_l ∝ P_l^{1/3}``, summing to ``eps`` over depths.

    Optimal for the raw tree's error (no consistency); after BLUE see
    :func:`consistent_optimal_budgets`.

    Depth is the distance from the root; the deepest leaves' paths cross every
    depth, so the levels' budgets summing to ``eps`` is exactly the privacy
    constraint, also for ragged trees (shallower leaves have slack).

    .. math:: \\min \\sum_l P_l / \\epsilon_l^2 \\ \\text{s.t.} \\sum_l \\epsilon_l = \\epsilon
              \\ \\Rightarrow\\ \\epsilon_l = \\epsilon\\, P_l^{1/3} / \\sum_j P_j^{1/3}

    Parameters
    ----------
    tree : Hierarchy
        The tree to allocate over.
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    coverage : array_like of float, shape (tree.size,)
        Coverage probabilities ``p_x >= 0`` (:func:`dpcore.hist.coverage.coverage_probabilities`).

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets, equal within a depth; :func:`uniform_budgets` if all ``p`` are 0.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number in ``[1e-300, inf)``, or ``coverage`` is not
        ``tree.size`` finite numbers ``>= 0``.
    """
    _check_eps(eps)
    level_mass = np.bincount(tree.depth, weights=_coverage(tree, coverage), minlength=tree.height)
    weights = np.cbrt(level_mass)
    if weights.sum() <= 0:
        return uniform_budgets(tree, eps)
    budgets: FloatArray = (eps * weights / weights.sum())[tree.depth]
    return budgets


def geometric_budgets(tree: Hierarchy, eps: float, *, ratio: float = 2.0 ** (1 / 3)) -> FloatArray:
    """Geometric per-level budgets (Cormode et al., ICDE 2012): each depth ``ratio`` times the one
    above, summing to ``eps`` over depths; the leaves get the most.

    .. math:: \\epsilon_d = \\epsilon\\, r^d (r - 1) / (r^{Δ} - 1), \\qquad d = 0..Δ-1

    The default ``r = 2^{1/3}`` is the paper's rule for quadtrees (DPComp's QuadTree);
    with ``t = Δ - 1 - d`` the height from the leaves this is Cormode et al.'s
    ``2^{(h-t)/3} eps (2^{1/3} - 1) / (2^{(h+1)/3} - 1)``.

    Parameters
    ----------
    tree : Hierarchy
        The tree to allocate over.
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    ratio : float, default 2 ** (1/3)
        Budget ratio of a depth to the one above it (``> 0``; 1 gives :func:`uniform_budgets`).

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets, equal within a depth; the deepest paths sum to ``eps``.

    Raises
    ------
    ValueError
        If ``eps`` or ``ratio`` is not a positive finite number.

    Examples
    --------
    >>> from dpcore.hist.tree import kary_tree
    >>> np.round(geometric_budgets(kary_tree(4, 2), 7.0, ratio=2.0)[[0, 1, 3]], 6).tolist()
    [1.0, 2.0, 4.0]
    """
    _check_eps(eps)
    _validate.positive("ratio", ratio)
    weights = ratio ** np.arange(tree.height, dtype=np.float64)
    budgets: FloatArray = (eps * weights / weights.sum())[tree.depth]
    return budgets


def optimal_budgets(tree: Hierarchy, eps: float, coverage: FloatArray) -> FloatArray:
    """Per-node budgets optimal for the raw tree (CNP + NPBD, LUE-DPTree conclusion 3.5), any tree.

    They minimise the raw tree's error; after BLUE consistency other budgets
    do better (:func:`consistent_optimal_budgets`).

    Minimises ``sum_x p_x / eps_x^2`` with every root-to-leaf path summing to
    ``eps``. A subtree given budget ``s`` costs at best ``C_x / s^2``:

    .. math:: C_{leaf} = p_x, \\quad C_x = (p_x^{1/3} + S_x^{1/3})^3, \\quad
              S_x = \\sum_{y \\in ch(x)} C_y, \\quad
              \\epsilon_x = \\frac{p_x^{1/3}}{p_x^{1/3} + S_x^{1/3}}\\, s_x

    (equivalent to the thesis chapter's ``a_x, b_x`` recursion, with ``a/b`` the node's
    share). Leaves take all that is left of their path, so every path sums to
    ``eps``. A node with ``p_x = 0`` gets 0 (never used, so not measured); a
    subtree whose every node has ``p = 0`` is split evenly along its height.

    Parameters
    ----------
    tree : Hierarchy
        The tree to allocate over.
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    coverage : array_like of float, shape (tree.size,)
        Coverage probabilities ``p_x >= 0`` (:func:`dpcore.hist.coverage.coverage_probabilities`).

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets; every root-to-leaf path sums to ``eps``.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number in ``[1e-300, inf)``, or ``coverage`` is not
        ``tree.size`` finite numbers ``>= 0``.
    """
    _check_eps(eps)
    p = _coverage(tree, coverage)
    cost = p.copy()
    share = np.ones(tree.size)
    levels = tree.levels()
    for d in range(tree.height - 2, -1, -1):
        here, below = levels[d], levels[d + 1]
        children_cost = np.bincount(
            tree.parent[below] - here.start, weights=cost[below], minlength=here.stop - here.start
        )
        inner = ~tree.is_leaf[here]
        own, rest = np.cbrt(p[here][inner]), np.cbrt(children_cost[inner])
        total = own + rest
        with np.errstate(invalid="ignore", divide="ignore"):
            node_share = np.where(total > 0, own / total, np.nan)
        idx = np.arange(here.start, here.stop)[inner]
        share[idx] = node_share
        cost[idx] = total**3
    _split_dead_subtrees(tree, share)
    return budgets_from_shares(tree, eps, share)


def _split_dead_subtrees(tree: Hierarchy, share: FloatArray) -> None:
    """Where ``p`` is 0 on a whole subtree (share is NaN), share evenly along its height."""
    dead = np.isnan(share)
    if not dead.any():
        return
    height = np.ones(tree.size, dtype=np.int64)
    levels = tree.levels()
    for d in range(tree.height - 1, 0, -1):
        kids = levels[d]
        np.maximum.at(height, tree.parent[kids], height[kids] + 1)
    share[dead] = 1.0 / height[dead]


def budgets_from_shares(tree: Hierarchy, eps: float, share: FloatArray) -> FloatArray:
    """Budgets from each internal node's share of its path's remaining budget.

    ``eps_x = rem_x share_x``, ``rem_child = rem_x (1 - share_x)``; leaves take
    their whole ``rem``, so every root-to-leaf path sums to exactly ``eps``.

    Parameters
    ----------
    tree : Hierarchy
        The tree.
    eps : float
        The budget of every root-to-leaf path (not checked).
    share : ndarray of float64, shape (tree.size,)
        Each internal node's share of its remaining budget, in ``[0, 1]``; leaves' entries
        are ignored.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets.
    """
    remaining = np.empty(tree.size)
    remaining[0] = eps
    levels = tree.levels()
    for d in range(1, tree.height):
        kids = levels[d]
        par = tree.parent[kids]
        remaining[kids] = remaining[par] * (1.0 - share[par])
    budgets = remaining * share
    budgets[tree.is_leaf] = remaining[tree.is_leaf]
    return budgets


def path_sums(tree: Hierarchy, budgets: FloatArray) -> FloatArray:
    """Sum of budgets from the root down to every node, inclusive.

    Parameters
    ----------
    tree : Hierarchy
        The tree.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets (not checked).

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per node, the sum of the budgets on its root path, itself included.
    """
    total = np.asarray(budgets, dtype=np.float64).copy()
    levels = tree.levels()
    for d in range(1, tree.height):
        kids = levels[d]
        total[kids] += total[tree.parent[kids]]
    return total


def release_epsilon(tree: Hierarchy, budgets: FloatArray) -> float:
    """The epsilon the release actually satisfies: the largest root-to-leaf budget sum.

    Parameters
    ----------
    tree : Hierarchy
        The tree.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets, finite and ``>= 0`` (0 = not measured).

    Returns
    -------
    float
        The largest root-to-leaf budget sum.

    Raises
    ------
    ValueError
        If ``budgets`` is not ``tree.size`` finite numbers ``>= 0``.

    Examples
    --------
    >>> from dpcore.hist.tree import kary_tree
    >>> t = kary_tree(4, 2)
    >>> release_epsilon(t, uniform_budgets(t, 1.0))
    1.0
    """
    checked = _validate.finite_array("budgets", budgets, size=tree.size, nonnegative=True)
    return float(path_sums(tree, checked)[tree.is_leaf].max())


def raw_expected_error(coverage: FloatArray, budgets: FloatArray) -> float:
    """Expected squared error of a random workload range answered from the raw noisy tree.

    .. math:: E[Err] = \\sum_x p_x \\cdot 2 / \\epsilon_x^2

    (LUE-DPTree eq. 3.2/3.6: each used node adds its Laplace variance). Nodes with
    ``p_x = 0`` add nothing even if unmeasured; a used unmeasured node gives inf.

    Parameters
    ----------
    coverage : array_like of float, shape (size,)
        Coverage probabilities ``p_x >= 0``, one per node.
    budgets : array_like of float, shape (size,)
        Per-node budgets ``>= 0`` (0 = not measured).

    Returns
    -------
    float
        The expected squared error (count units); ``inf`` if a used node is unmeasured.

    Raises
    ------
    ValueError
        If ``coverage`` is not a 1-D array of finite numbers ``>= 0``, or ``budgets`` is not
        as many finite numbers ``>= 0``.
    """
    p = _validate.finite_array("coverage", coverage, nonnegative=True)
    eps = _validate.finite_array("budgets", budgets, size=p.size, nonnegative=True)
    used = p > 0
    with np.errstate(divide="ignore"):
        return float(np.sum(p[used] * 2.0 / eps[used] ** 2))


def allocate(rule: BudgetRule, tree: Hierarchy, eps: float, coverage: FloatArray) -> FloatArray:
    """Budgets of one tree by rule: uniform (``eps/Δ``), per-level or per-node optimal for the
    raw tree.

    Parameters
    ----------
    rule : {"uniform", "per_level", "optimal"}
        The allocation (:data:`BUDGET_RULES`).
    tree : Hierarchy
        The tree to allocate over.
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    coverage : array_like of float, shape (tree.size,)
        Coverage probabilities; ignored by ``"uniform"``.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets.

    Raises
    ------
    ValueError
        If ``rule`` is unknown, or as :func:`uniform_budgets`, :func:`per_level_budgets`
        or :func:`optimal_budgets` raise for ``eps`` and ``coverage``.

    Examples
    --------
    >>> from dpcore.hist.tree import kary_tree
    >>> allocate("uniform", kary_tree(4, 2), 0.9, np.ones(7)).tolist()[:2]
    [0.3, 0.3]
    """
    if rule == "uniform":
        return uniform_budgets(tree, eps)
    if rule == "per_level":
        return per_level_budgets(tree, eps, coverage)
    if rule == "optimal":
        return optimal_budgets(tree, eps, coverage)
    raise ValueError(f"unknown budget rule '{rule}'; choose from {', '.join(BUDGET_RULES)}")
