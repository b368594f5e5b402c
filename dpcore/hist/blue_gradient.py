"""The exact mean range error after BLUE consistency and its gradient in every node's budget.

After BLUE consistency the error of a tree release is a function of the per-node budgets,

.. math:: f(\\lambda) = \\mathrm{tr}(G M^{-1}) / m, \\quad
          M = \\sum_x \\lambda_x a_x a_x^T, \\quad \\lambda_x = \\epsilon_x^2 / 2,
          \\quad G = W^T W,

(``a_x`` the 0/1 indicator of node ``x``'s bins, ``W`` the ``m`` workload
ranges). Its gradient is

.. math:: \\frac{\\partial f}{\\partial \\lambda_x} = -\\frac{\\|W M^{-1} a_x\\|^2}{m},
          \\qquad \\frac{\\partial f}{\\partial \\epsilon_x}
          = \\epsilon_x \\frac{\\partial f}{\\partial \\lambda_x},

computed here for every node at once in ``O(size)`` from the tree's Gaussian
Markov structure (:class:`dpcore.hist.blue_error.GaussMarkovTree`): ``M^{-1} a_x`` is the
covariance of the bins' BLUE errors with node ``x``'s, which is piecewise a
scaled "profile" of the subtrees hanging off ``x``'s root path; the prefix sums
of such a vector give ``||W M^{-1} a_x||^2`` for the all-range and prefix
workloads (``r^T G r = (n+1) \\sum_a R_a^2 - (\\sum_a R_a)^2`` resp.
``\\sum_a R_a^2`` with ``R`` the prefix sums of ``r``). By homogeneity
``f = \\sum_x \\lambda_x \\|W M^{-1} a_x\\|^2 / m``, so the error comes free.
Ranges of one length use a dense ``O(n^3)`` computation, limited to
:data:`DENSE_GRADIENT_LIMIT` bins. A list of ``m`` ranges uses each range's
BLUE measurement weights (:meth:`dpcore.hist.consistency.BlueSmoother.transpose`,
``O(size)`` per range): at a leaf ``l`` of bin ``i`` the weight is
``c_l = λ_l (M^{-1} w)_i``, so the prefix sums of ``M^{-1} w`` give every
``a_x^T M^{-1} w`` at once; ``O(m * size)`` per gradient, limited to
:data:`LISTED_GRADIENT_WORK`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.hist import consistency
from dpcore.hist.blue_error import GaussMarkovTree
from dpcore.hist.tree import Tree
from dpcore.hist.workload import Workload, parse_workload

FloatArray = NDArray[np.float64]

DENSE_GRADIENT_LIMIT = 1024
"""Largest ``n`` for the dense gradient (workloads other than all ranges and prefixes)."""

LISTED_GRADIENT_WORK = 20_000_000
"""Largest ``m * size`` (listed ranges times tree nodes) for the gradient of a list of
ranges, about 40 ns each (under a second): e.g. 1,000 ranges on an 8,192-bin binary tree
or 100 ranges on a 65,536-bin one."""


@dataclass(frozen=True)
class ErrorGradient:
    """The exact mean range MSE after BLUE and its gradient.

    ``d_precision[x] = d error / d lambda_x`` (``lambda_x = eps_x^2 / 2``) and
    ``d_budget[x] = d error / d eps_x``.

    Attributes
    ----------
    error : float
        Mean range MSE after BLUE over the workload.
    d_precision, d_budget : ndarray of float64, shape (tree.size,)
        Its partial derivatives per node.
    """

    error: float
    d_precision: FloatArray
    d_budget: FloatArray


def blue_error_gradient(
    tree: Tree, budgets: FloatArray, workload: str | Workload = "uniform"
) -> ErrorGradient:
    """Exact error after BLUE and its gradient with respect to every node's budget.

    .. math:: \\frac{\\partial f}{\\partial \\lambda_x} = -\\|W M^{-1} a_x\\|^2 / m

    ``O(size)`` for the all-range and prefix workloads; a dense ``O(n^3)``
    computation for ranges of one length (``n <= DENSE_GRADIENT_LIMIT``);
    ``O(m * size)`` for ``m`` listed ranges (``m * size <= LISTED_GRADIENT_WORK``).
    Every leaf must be measured (budget > 0).

    Parameters
    ----------
    tree : Tree
        The tree.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``; leaves ``> 0``.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    ErrorGradient
        The error and its gradients.

    Raises
    ------
    ValueError
        If ``budgets`` is invalid or leaves a leaf unmeasured, ``workload`` is invalid for
        ``tree.n_bins`` bins, the workload is a fixed length and ``n`` is above
        :data:`DENSE_GRADIENT_LIMIT`, or it lists ranges and ``m * size`` is above
        :data:`LISTED_GRADIENT_WORK`.
    """
    eps = _validate.budgets("budgets", budgets, size=tree.size)
    if np.any(eps[tree.is_leaf] <= 0):
        raise ValueError("every leaf must be measured (budget > 0) for a finite error")
    n = tree.n_bins
    spec = parse_workload(workload, n)
    if spec.kind == "length":
        influence = _dense_influence_norms(tree, eps, spec)
    elif spec.kind == "ranges":
        influence = _listed_influence_norms(tree, eps, spec)
    else:
        influence = _tree_influence_norms(tree, eps, all_ranges=spec.kind == "uniform")
    m = spec.size(n)
    precision = eps**2 / 2.0
    d_precision = -influence / m
    return ErrorGradient(
        error=float(np.sum(precision * influence) / m),
        d_precision=d_precision,
        d_budget=eps * d_precision,
    )


def _tree_influence_norms(tree: Tree, eps: FloatArray, *, all_ranges: bool) -> FloatArray:
    """``||W M^{-1} a_x||^2`` for every node, all-range or prefix workload, ``O(size)``.

    ``M^{-1} a_x`` is ``Cov(bin errors, e_x)``. With ``φ_c`` node ``c``'s profile
    (the product of the shares ``r`` from ``c`` down to each of its bins), it
    equals ``var_h[x] φ_x`` on ``x`` and ``Cov(e_c, e_x) φ_c`` on every subtree
    ``c`` hanging off ``x``'s root path. For a child ``x`` of ``w`` that covariance
    is ``r_x (r_c var_h[w] - V_c)`` for a sibling ``c`` and ``r_x`` times ``w``'s
    for the pieces outside ``w``; so the prefix sums ``R`` of ``M^{-1} a_x`` are
    assembled top-down from each piece's ``L_c = sum Φ_c`` and ``Q_c = sum Φ_c^2``
    (``Φ_c`` the running sum of ``φ_c``), with left/right running totals.
    """
    gm = GaussMarkovTree.build(tree, eps)
    if gm.has_undetermined:
        raise ValueError("every bin must be determined by the measured nodes")
    size = tree.widths
    r, vf, var_h = gm.r, gm.vf, gm.var_h
    levels = tree.levels()
    # bottom-up: L_c and Q_c of every node's profile
    sum_phi = np.ones(tree.size)
    sum_phi_sq = np.ones(tree.size)
    r_before = gm.r_before
    for d in range(tree.height - 1, 0, -1):
        kids, above = levels[d], levels[d - 1]
        slot = tree.parent[kids] - above.start
        width = above.stop - above.start
        offset, share = r_before[kids], r[kids]
        lin = size[kids] * offset + share * sum_phi[kids]
        quad = (
            size[kids] * offset**2
            + 2.0 * offset * share * sum_phi[kids]
            + share**2 * sum_phi_sq[kids]
        )
        inner = ~tree.is_leaf[above]
        sum_phi[above] = np.where(inner, np.bincount(slot, lin, width), sum_phi[above])
        sum_phi_sq[above] = np.where(inner, np.bincount(slot, quad, width), sum_phi_sq[above])
    # per child: amplitude beta_c = Cov(e_c, e_parent) - V_c, pieces in the parent's frame
    parent = np.maximum(tree.parent, 0)
    beta = r * var_h[parent] - vf
    beta[0] = 0.0
    b_before, b_after = gm._sibling_sums(beta)
    a1 = size * b_before + beta * sum_phi
    a2 = size * b_before**2 + 2.0 * b_before * beta * sum_phi + beta**2 * sum_phi_sq
    n_before, n_after = tree.bins_around  # families tile the parent
    a1_before, a1_after = gm._sibling_sums(a1)
    a2_before, a2_after = gm._sibling_sums(a2)
    # top-down: left region (offset, sum R, sum R^2) and right region relative to its start
    left_mass = np.zeros(tree.size)
    left1 = np.zeros(tree.size)
    left2 = np.zeros(tree.size)
    right_count = np.zeros(tree.size)
    right1 = np.zeros(tree.size)
    right2 = np.zeros(tree.size)
    start = b_before + beta
    sib1 = a1_after - start * n_after
    sib2 = a2_after - 2.0 * start * a1_after + start**2 * n_after
    for x in levels[1:]:  # contiguous slices: only the parents' values are gathered
        w = tree.parent[x]
        rx, mw = r[x], left_mass[w]
        left_mass[x] = rx * (mw + b_before[x])
        left1[x] = rx * (left1[w] + a1_before[x] + mw * n_before[x])
        left2[x] = rx**2 * (left2[w] + a2_before[x] + 2.0 * mw * a1_before[x] + mw**2 * n_before[x])
        after, count_w, right1_w = b_after[x], right_count[w], right1[w]
        right_count[x] = n_after[x] + count_w
        right1[x] = rx * (sib1[x] + right1_w + count_w * after)
        right2[x] = rx**2 * (sib2[x] + right2[w] + 2.0 * after * right1_w + count_w * after**2)
    own_offset, amp = left_mass, var_h
    own1 = size * own_offset + amp * sum_phi
    own2 = size * own_offset**2 + 2.0 * own_offset * amp * sum_phi + amp**2 * sum_phi_sq
    tail = own_offset + amp
    total1 = left1 + own1 + right_count * tail + right1
    total2 = left2 + own2 + right2 + 2.0 * tail * right1 + right_count * tail**2
    if not all_ranges:
        return total2
    n = tree.n_bins
    return np.maximum((n + 1) * total2 - total1**2, 0.0)


def _dense_influence_norms(tree: Tree, eps: FloatArray, spec: Workload) -> FloatArray:
    """``||W M^{-1} a_x||^2`` by dense algebra, for a fixed-length workload (small ``n``)."""
    n = tree.n_bins
    if n > DENSE_GRADIENT_LIMIT:
        raise ValueError(
            f"the exact gradient for ranges of one length is computed densely, up to "
            f"n = {DENSE_GRADIENT_LIMIT:,} bins (got {n:,}); use all ranges or prefixes"
        )
    assert spec.length is not None
    precision = eps**2 / 2.0
    # M_ij = sum of precisions of the nodes containing both bins i and j
    bins = np.arange(n)
    member = (bins >= tree.lo[:, None]) & (bins <= tree.hi[:, None])
    a = member.astype(np.float64)
    covariance = np.linalg.inv(a.T @ (a * precision[:, None]))
    influence = covariance @ a.T  # n x size: M^-1 a_x per column
    prefix = np.vstack((np.zeros((1, tree.size)), np.cumsum(influence, axis=0)))
    windows = prefix[spec.length :] - prefix[: n - spec.length + 1]
    return np.asarray(np.sum(windows**2, axis=0), dtype=np.float64)


def listed_gradient_unavailable(size: int, workload: Workload) -> str | None:
    """Why the gradient for a list of ranges on a tree of ``size`` nodes is over its work
    limit (``None`` if it is not, or the workload is not a list).

    Parameters
    ----------
    size : int
        Number of tree nodes.
    workload : Workload
        A parsed workload.

    Returns
    -------
    str or None
        The reason (lower-case, for a message), or ``None``.
    """
    work = len(workload.ranges) * size
    if workload.kind != "ranges" or work <= LISTED_GRADIENT_WORK:
        return None
    return (
        f"the exact gradient for {len(workload.ranges):,} listed ranges on {size:,} nodes "
        f"costs {work:,} range-node steps, above the limit of {LISTED_GRADIENT_WORK:,}; "
        "list fewer ranges or use a smaller tree"
    )


_LISTED_CHUNK = 2_000_000
"""Batch size of :func:`_listed_influence_norms`: at most this many (node, range) entries."""


def _listed_influence_norms(tree: Tree, eps: FloatArray, spec: Workload) -> FloatArray:
    """``||W M^{-1} a_x||^2`` for every node and a list of ranges, ``O(m * size)``.

    The BLUE weights ``c = Λ A M^{-1} w`` of a range (``Λ = diag(ε^2)``, so
    ``M^{-1} = 2 (A^T Λ A)^{-1}``) give ``(M^{-1} w)_i = 2 c_l / ε_l^2`` at the
    leaf ``l`` of bin ``i``; node ``x`` then has ``a_x^T M^{-1} w = U[hi_x + 1] - U[lo_x]``
    with ``U`` the prefix sums over the bins.
    """
    reason = listed_gradient_unavailable(tree.size, spec)
    if reason is not None:
        raise ValueError(reason[0].upper() + reason[1:])
    smoother = consistency.BlueSmoother.build(tree, eps)
    leaf = tree.leaf_of_bin
    bins = np.arange(tree.n_bins)
    a, b = spec.bounds()
    influence = np.zeros(tree.size)
    step = max(1, _LISTED_CHUNK // tree.size)
    for first in range(0, a.size, step):
        lo, hi = a[first : first + step], b[first : first + step]
        picked = np.zeros((tree.size, lo.size))
        picked[leaf] = (bins[:, None] >= lo) & (bins[:, None] <= hi)
        weights = smoother.transpose(picked)
        solved = 2.0 * weights[leaf] / (eps[leaf] ** 2)[:, None]  # M^{-1} w, per bin
        prefix = np.vstack((np.zeros((1, lo.size)), np.cumsum(solved, axis=0)))
        influence += np.sum((prefix[tree.hi + 1] - prefix[tree.lo]) ** 2, axis=1)
    return influence
