"""BLUE consistency: the weighted least-squares tree that sums up, in O(n) for any tree.

Minimise ``sum_x eps_x^2 (h~_x - h^_x)^2`` subject to every node equalling the
sum of its children (seed conclusions 3.6-3.8, PA_BLUE + CRC). Two passes:

* upward: ``z_x``, the best estimate of node ``x``'s sum from its own subtree,
  and its variance ``v_x`` -- the inverse-variance combination of its own
  measurement with the sum of its children's ``z``;
* downward: the root keeps ``z``; each child gets its ``z`` plus a share of
  its parent's correction ``h^_f - sum_children z`` proportional to its ``v``.

This is the Gaussian smoother on a tree; it equals the dense weighted
least-squares solve (tested to 1e-9 on random trees and budgets). Unmeasured
nodes (budget 0) carry infinite variance: they take the whole correction,
shared evenly when several siblings are unmeasured.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dpcore.tree import Tree

FloatArray = NDArray[np.float64]


def blue(tree: Tree, noisy: FloatArray, budgets: FloatArray) -> FloatArray:
    """Consistent node values: the BLUE of the true node sums given the noisy tree.

    .. math:: \\hat h = \\arg\\min_{h\\ \\mathrm{consistent}} \\sum_x \\epsilon_x^2
              (\\tilde h_x - h_x)^2
    """
    budgets = np.asarray(budgets, dtype=np.float64)
    measured = budgets > 0
    precision = np.where(measured, budgets**2, 0.0)
    own = np.where(measured, noisy, 0.0)
    z = own.copy()
    with np.errstate(divide="ignore"):
        var = 1.0 / precision
    child_z = np.zeros(tree.size)
    child_var = np.zeros(tree.size)
    levels = tree.levels()
    for d in range(tree.height - 1, 0, -1):
        kids, above = levels[d], levels[d - 1]
        slot = tree.parent[kids] - above.start
        width = above.stop - above.start
        child_z[above] = np.bincount(slot, weights=z[kids], minlength=width)
        child_var[above] = np.bincount(slot, weights=var[kids], minlength=width)
        inner = np.arange(above.start, above.stop)[~tree.is_leaf[above]]
        with np.errstate(divide="ignore", invalid="ignore"):
            child_precision = 1.0 / child_var[inner]
            total = precision[inner] + child_precision
            z[inner] = np.where(
                total > 0,
                (precision[inner] * own[inner] + child_precision * child_z[inner]) / total,
                child_z[inner],
            )
            var[inner] = 1.0 / total
    return _distribute(tree, z, var, child_z, child_var)


def _distribute(
    tree: Tree, z: FloatArray, var: FloatArray, child_z: FloatArray, child_var: FloatArray
) -> FloatArray:
    estimate = z.copy()
    levels = tree.levels()
    for d in range(1, tree.height):
        kids, above = levels[d], levels[d - 1]
        par = tree.parent[kids]
        correction = estimate[par] - child_z[par]
        with np.errstate(invalid="ignore", divide="ignore"):
            share = var[kids] / child_var[par]
        unknown = np.isinf(var[kids])
        if unknown.any():
            # siblings of unknown variance absorb the whole correction, evenly
            slot = par - above.start
            n_unknown = np.bincount(slot, weights=unknown, minlength=above.stop - above.start)
            even = unknown / np.maximum(n_unknown[slot], 1.0)
            share = np.where(np.isinf(child_var[par]), even, share)
        estimate[kids] = z[kids] + share * correction
    return estimate
