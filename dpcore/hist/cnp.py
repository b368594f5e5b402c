"""The CNP / NPBD coefficients ``a_x, b_x`` of the per-node optimal budgets (LUE-DPTree).

:func:`dpcore.hist.budget.optimal_budgets` computes the same optimum through subtree costs;
this module exposes the chapter's own coefficients so that a page can show them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dpcore.hist.tree import Tree

FloatArray = NDArray[np.float64]


def coefficients(tree: Tree, coverage: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(a, b)`` per node, bottom-up (LUE-DPTree conclusion 3.5).

    .. math:: a_x = b_x = 1 \\ (\\text{leaf}), \\qquad
              a_x = \\Big(\\frac{p_x}{\\sum_{y \\in ch(x)} p_y b_y^3 / a_y^3}\\Big)^{1/3},
              \\quad b_x = a_x + 1,

    and top-down ``eps_x = (a_x / b_x) psum(x)``. ``p_y b_y^3 / a_y^3`` is the least
    cost ``C_y`` of ``y``'s subtree per unit ``1/psum^2``; it stays finite when
    ``p_y = 0`` (then ``a_y = 0``, ``C_y`` = its children's sum). NaN where every
    child subtree has ``p = 0`` (the node then takes its whole path budget).

    Parameters
    ----------
    tree : Tree
        The tree.
    coverage : array_like of float, shape (tree.size,)
        Coverage probabilities ``p_x >= 0`` (not checked).

    Returns
    -------
    a, b : ndarray of float64, shape (tree.size,)
        The coefficients per node (1 at leaves, NaN as described above).
    """
    p = np.asarray(coverage, dtype=np.float64)
    a, b = np.ones(tree.size), np.ones(tree.size)
    cost = p.copy()  # C_x; a leaf's C is p_x
    levels = tree.levels()
    for d in range(tree.height - 2, -1, -1):
        here, below = levels[d], levels[d + 1]
        children = np.bincount(
            tree.parent[below] - here.start, weights=cost[below], minlength=here.stop - here.start
        )
        idx = np.arange(here.start, here.stop)[~tree.is_leaf[here]]
        s = children[idx - here.start]
        with np.errstate(invalid="ignore", divide="ignore"):
            a[idx] = np.where(s > 0, np.cbrt(p[idx] / s), np.nan)
        b[idx] = a[idx] + 1.0
        cost[idx] = np.where(s > 0, s * b[idx] ** 3, p[idx])
    return a, b
