"""The exact error after BLUE on a region tree and its gradient in every node's budget, O(cells
* (n_1 + n_2)) per evaluation: reverse-mode differentiation of :mod:`dpcore.spatial.error`.

With ``λ_x = eps_x^2 / 2`` the error is ``E = V_root Q_root + sum_{c != root} V_c Q_c -
sum_{x internal} S_x Q_x`` (``V`` the upward variances, ``S_x = sum_c V_c``,
``Q_x = A_x^T G A_x``, ``A`` the products of ``r_c = V_c / S_parent`` down to each cell).
Backwards: ``Q̄_x = V_x - S_x`` (internal) or ``V_x``; ``∂Q_x / ∂A_x = 2 G A_x``, and the
loading of depth ``d`` is that of depth ``d + 1`` times ``r`` of the depth-``d + 1`` node,
which gives ``r̄``; then ``r_c = V_c / S_p`` and, top-down, ``V_x = 1 / (λ_x + 1/S_x)`` with
``∂V/∂λ = -V^2`` and ``∂V/∂S = V^2 / S^2`` (a leaf: ``V = 1/λ``, the same ``-V^2``).
The per-level loadings and images are kept: ``2 cells x height`` floats.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.blue_error import GaussMarkovTree
from dpcore.hist.blue_gradient import ErrorGradient
from dpcore.spatial.error import gram_forms
from dpcore.spatial.rectangles import Rectangles, rectangle_workload
from dpcore.spatial.regions import BoxTree, box_cells

FloatArray = NDArray[np.float64]


def blue_error_gradient(
    tree: BoxTree, budgets: ArrayLike, workload: str | Rectangles = "random rectangles"
) -> ErrorGradient:
    """Exact mean squared error of a rectangle after BLUE, and its gradient in every budget.

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``; every leaf measured.
    workload : str or Rectangles, default "random rectangles"
        A workload with independent axes (``"random rectangles"`` or ``"all rectangles"``).

    Returns
    -------
    ErrorGradient
        The error (as :func:`dpcore.spatial.error.blue_expected_error`), ``d error / d λ_x``
        and ``d error / d eps_x``.

    Raises
    ------
    ValueError
        If ``budgets`` is invalid, a node's sum is undetermined, or the workload is a list.
    """
    load = rectangle_workload(workload, tree.shape)
    if load.kind == "listed":
        raise ValueError("the gradient needs a workload with independent axes, not a list")
    eps = _validate.budgets("budgets", budgets, size=tree.size)
    gm = GaussMarkovTree.build(tree, eps)
    if gm.has_undetermined:
        raise ValueError("some node's sum is not determined by its subtree: measure every leaf")
    grams = [load.axis_gram(d) for d in range(tree.ndim)]
    levels = tree.levels()
    cells_of = [box_cells(tree.lo[lv], tree.hi[lv], tree.shape) for lv in levels]
    n_cells = int(np.prod(tree.shape))
    loading = np.ones(n_cells)
    forms = np.empty(tree.size)
    saved: list[tuple[FloatArray, FloatArray]] = [(loading, loading)] * tree.height
    for d in range(tree.height - 1, -1, -1):  # forward, as error.loading_forms
        if d + 1 < tree.height:
            owner, cells = cells_of[d + 1]
            loading[cells] *= gm.r[levels[d + 1]][owner]
        images = np.zeros(n_cells)
        here = levels[d]
        forms[here] = gram_forms(tree.lo[here], tree.hi[here], loading, grams, tree.shape, images)
        saved[d] = (loading.copy(), images)
    vf, fam_s, inner = gm.vf, gm.fam_s, ~tree.is_leaf
    error = vf[0] * forms[0] + np.sum(vf[1:] * forms[1:]) - np.sum(fam_s[inner] * forms[inner])
    forms_bar = vf - np.where(inner, fam_s, 0.0)
    vf_bar = forms.copy()
    s_bar = np.where(inner, -forms, 0.0)
    r_bar = np.zeros(tree.size)
    loading_bar = np.zeros(n_cells)
    for d in range(tree.height):  # backwards through the loadings, root level first
        owner, cells = cells_of[d]
        here = levels[d]
        loading_bar[cells] += 2.0 * forms_bar[here][owner] * saved[d][1][cells]
        if d + 1 < tree.height:
            below = levels[d + 1]
            owner, cells = cells_of[d + 1]
            r_bar[below] = np.bincount(
                owner,
                weights=loading_bar[cells] * saved[d + 1][0][cells],
                minlength=below.stop - below.start,
            )
            loading_bar[cells] *= gm.r[below][owner]
    kids = np.arange(1, tree.size)
    par = tree.parent[kids]
    vf_bar[kids] += r_bar[kids] / fam_s[par]
    s_bar += np.bincount(
        par, weights=-r_bar[kids] * vf[kids] / fam_s[par] ** 2, minlength=tree.size
    )
    lam_bar = np.zeros(tree.size)
    for d in range(tree.height):  # backwards through the upward pass, top-down
        here = levels[d]
        v = vf[here]
        lam_bar[here] = -vf_bar[here] * v * v
        with np.errstate(divide="ignore", invalid="ignore"):
            s_bar[here] += np.where(inner[here], vf_bar[here] * v * v / fam_s[here] ** 2, 0.0)
        if d + 1 < tree.height:
            below = levels[d + 1]
            vf_bar[below] += s_bar[tree.parent[below]]
    return ErrorGradient(float(error), lam_bar, lam_bar * eps)
