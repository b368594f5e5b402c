"""Every named allocation rule of a tree's budgets, and the fan-out scan after BLUE consistency.

:data:`ALLOCATION_RULES` names the rules the product compares: uniform, H_b's (root not
measured), the optima for the raw tree (Boost-UN per level, LUE-DPTree per node) and the
optima after BLUE (:func:`dpcore.hist.consistent_budget.consistent_optimal_budgets`);
:func:`allocation_budgets` computes one, and :func:`fanout_after_consistency` finds the
fan-out whose tree has the least error after BLUE under one rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from dpcore.hist import budget, coverage
from dpcore.hist.blue_error import blue_expected_error
from dpcore.hist.consistent_budget import Granularity, consistent_optimal_budgets
from dpcore.hist.tree import MAX_FANOUT, Tree, kary_tree
from dpcore.hist.workload import Workload

FloatArray = NDArray[np.float64]


AllocationRule = Literal[
    "uniform", "hb", "per_level", "optimal", "consistent_level", "consistent_node"
]
ALLOCATION_RULES: tuple[AllocationRule, ...] = (
    "uniform",
    "hb",
    "per_level",
    "optimal",
    "consistent_level",
    "consistent_node",
)
"""``uniform``: eps/Δ (root measured); ``hb``: root not measured, eps/(Δ-1) per level;
``per_level`` / ``optimal``: optimal for the RAW tree (Boost-UN / LUE-DPTree);
``consistent_*``: optimal after BLUE
(:func:`dpcore.hist.consistent_budget.consistent_optimal_budgets`)."""


def allocation_budgets(
    tree: Tree, eps: float, workload: str | Workload, rule: AllocationRule
) -> FloatArray:
    """The budgets of one named allocation rule (see :data:`ALLOCATION_RULES`).

    Parameters
    ----------
    tree : Tree
        The tree.
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    workload : str or Workload
        The workload the workload-dependent rules optimise for.
    rule : str
        One of :data:`ALLOCATION_RULES`.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets.

    Raises
    ------
    ValueError
        If ``rule`` is unknown, ``eps`` is not a finite number in ``[1e-300, inf)``, or a
        rule that uses ``workload`` finds it invalid or over a gradient limit (see
        :func:`dpcore.hist.blue_gradient.blue_error_gradient`).
    """
    if rule == "uniform":
        return budget.uniform_budgets(tree, eps)
    if rule == "hb":
        return budget.uniform_budgets(tree, eps, measure_root=False)
    if rule in ("per_level", "optimal"):
        p = coverage.coverage_probabilities(tree, workload)
        make = budget.per_level_budgets if rule == "per_level" else budget.optimal_budgets
        return make(tree, eps, p)
    if rule in ("consistent_level", "consistent_node"):
        granularity: Granularity = "level" if rule == "consistent_level" else "node"
        return consistent_optimal_budgets(tree, eps, workload, granularity=granularity)
    raise ValueError(f"unknown allocation '{rule}'; choose from {', '.join(ALLOCATION_RULES)}")


def fanout_after_consistency(
    n: int,
    eps: float,
    workload: str | Workload,
    rule: AllocationRule,
    *,
    max_fanout: int = MAX_FANOUT,
    progress: Callable[[float], object] | None = None,
) -> tuple[int, dict[int, float]]:
    """The fan-out ``k`` whose ``k``-ary tree, with allocation ``rule``, has the least error
    after BLUE; returns ``(k, {k: error})`` over ``k = 2..max_fanout``.

    Struct-Construct's ``k*`` minimises the RAW tree's error with uniform
    budgets; this is the answer for what a user sees after consistency.
    ``progress(fraction)`` is called after each fan-out.

    Parameters
    ----------
    n : int
        Number of bins (``>= 2``).
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    workload : str or Workload
        The workload of the error.
    rule : str
        One of :data:`ALLOCATION_RULES`.
    max_fanout : int, default MAX_FANOUT (20)
        Largest fan-out tried (capped at ``n``).
    progress : callable, optional
        Called with the fraction done, in ``[0, 1]``.

    Returns
    -------
    k : int
        The best fan-out (the smallest on ties).
    errors : dict of int to float
        Mean range MSE after BLUE per fan-out tried.

    Raises
    ------
    ValueError
        If ``n < 2``, or as :func:`allocation_budgets` raises.
    """
    if n < 2:
        raise ValueError(f"a fan-out needs at least 2 bins, got n={n}")
    scores: dict[int, float] = {}
    fanouts = range(2, min(max_fanout, n) + 1)
    for k in fanouts:
        t = kary_tree(n, k)
        scores[k] = blue_expected_error(t, allocation_budgets(t, eps, workload, rule), workload)
        if progress is not None:
            progress((k - 1) / len(fanouts))
    return min(scores, key=scores.__getitem__), scores
