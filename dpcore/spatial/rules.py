"""The budget rules of a region tree by name, as :func:`dpcore.spatial.expected_error` and the
"Spatial data" page use them (one dispatch for both)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.hist import budget
from dpcore.hist.hierarchy import Hierarchy

FloatArray = NDArray[np.float64]

SpatialBudgets = Literal["per-node", "per-level", "geometric", "uniform", "identity"]
SPATIAL_BUDGETS: tuple[SpatialBudgets, ...] = (
    "per-node",
    "per-level",
    "geometric",
    "uniform",
    "identity",
)


def tree_budgets(
    tree: Hierarchy, rule: SpatialBudgets, eps: float, coverage: FloatArray
) -> FloatArray:
    """Per-node budgets of ``tree`` under the named rule; every root-to-leaf path sums to ``eps``.

    ``"per-node"``: the LUE optimum of the raw error (Cormode et al.'s and Qardaji et al.'s
    per-level rules are special cases); ``"per-level"``: ``eps_t ∝ N_t^{1/3}``, ``N_t`` the
    level's coverage; ``"geometric"``: Cormode et al. (ICDE 2012); ``"uniform"``:
    ``eps / height``; ``"identity"``: every leaf (cell) ``eps``, no other node measured --
    Identity written as a tree (a node's raw answer is then its cells' sum).

    Parameters
    ----------
    tree : Hierarchy
        The region (or interval) tree.
    rule : {"per-node", "per-level", "geometric", "uniform", "identity"}
        The rule.
    eps : float
        The privacy budget of every root-to-leaf path, in ``[1e-300, inf)``.
    coverage : ndarray of float64, shape (tree.size,)
        ``p_x``, the probability that a random query's decomposition uses each node
        (read by the per-node and per-level rules).

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        The budgets.

    Raises
    ------
    ValueError
        If ``rule`` is unknown or ``eps`` is invalid.
    """
    eps = _validate.positive("epsilon", eps)
    if rule == "per-node":
        return budget.optimal_budgets(tree, eps, coverage)
    if rule == "per-level":
        return budget.per_level_budgets(tree, eps, coverage)
    if rule == "geometric":
        return budget.geometric_budgets(tree, eps)
    if rule == "uniform":
        return budget.uniform_budgets(tree, eps)
    if rule == "identity":
        return np.where(tree.is_leaf, eps, 0.0)
    raise ValueError(f"unknown budgets '{rule}'; choose from {', '.join(SPATIAL_BUDGETS)}")
