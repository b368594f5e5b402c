"""Budgets that minimise the error AFTER BLUE consistency, and the H_b root rule.

The per-node rule of LUE-DPTree (:func:`dpcore.hist.budget.optimal_budgets`) and the
per-level rule of Boost-UN minimise the error of the *raw* noisy tree. After
BLUE consistency the error is a different function of the budgets,

.. math:: f(\\lambda) = \\mathrm{tr}(G M^{-1}) / m, \\quad
          M = \\sum_x \\lambda_x a_x a_x^T, \\quad \\lambda_x = \\epsilon_x^2 / 2,
          \\quad G = W^T W,

(``a_x`` the 0/1 indicator of node ``x``'s bins, ``W`` the ``m`` workload
ranges), and its optimum is a different allocation. Its gradient is

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

H_b (Qardaji, Yang, Li, "Understanding hierarchical methods for differentially
private histograms", VLDB 2013): a ``b``-ary tree with ``b`` minimising their
average-error estimate, the root's total not released, every other level
``eps / (h - 1)``, then least squares (BLUE). The math is restated in the
team's notes on allocation and strategies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.optimize
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.hist import budget, consistency, coverage
from dpcore.hist.blue_error import GaussMarkovTree, blue_expected_error
from dpcore.hist.tree import MAX_FANOUT, Tree, kary_tree
from dpcore.hist.workload import Workload, parse_workload

FloatArray = NDArray[np.float64]
Granularity = Literal["level", "node"]

DENSE_GRADIENT_LIMIT = 1024
"""Largest ``n`` for the dense gradient (workloads other than all ranges and prefixes)."""

LISTED_GRADIENT_WORK = 20_000_000
"""Largest ``m * size`` (listed ranges times tree nodes) for the gradient of a list of
ranges, about 40 ns each (under a second): e.g. 1,000 ranges on an 8,192-bin binary tree
or 100 ranges on a 65,536-bin one."""

NODE_WORK = 3_000_000
"""Per-node search: at most ``NODE_WORK / size`` iterations (at least 20), so a
65,536-bin binary tree (131,071 nodes) stops after 22 gradient evaluations."""

DENSE_NODE_RATIO = 10_000
"""One dense gradient (ranges of one length, ``O(n^3)``) counts as ``n^3 / DENSE_NODE_RATIO``
nodes of :data:`NODE_WORK` (n = 1,024: 20 iterations)."""

LISTED_NODE_RATIO = 10
"""One gradient for ``m`` listed ranges counts as ``m * size / LISTED_NODE_RATIO`` nodes of
:data:`NODE_WORK` (measured: about 40 ns per range and node against about 400 ns per node
for the all-range gradient)."""

SKIP_STRIDES = (2, 3, 4)
"""Per-level search: also start from measuring every 2nd, 3rd or 4th level only (a
``k**stride``-ary tree inside the ``k``-ary one). The error after BLUE has many local
optima over level shares; at n = 65,536, k = 2 the best of these starts reaches 613.6
where the best of uniform, H_b and the raw rule stopped at 636.6."""

LEVEL_SEARCHES = 2
"""Per-level search: L-BFGS-B runs from this many of the best starts; the better wins."""

_LEAF_FLOOR = 1e-4
"""Smallest share of a level holding leaves (an unmeasured leaf makes the error infinite)."""
_SHARE_CAP = 1.0 - 1e-6
"""Largest share of its path's remaining budget an internal node may take."""


# ------------------------------------------------------------------------ H_b


def hb_variance_estimate(n: int, b: int) -> float:
    """Qardaji et al.'s average-error estimate (their eq. 3) of a ``b``-ary tree over ``n`` bins.

    .. math:: V(b) = (b - 1) h^3 - \\frac{2 (b + 1) h^2}{3}, \\quad h = \\lceil \\log_b n \\rceil

    Parameters
    ----------
    n : int
        Number of bins.
    b : int
        Fan-out (``>= 2``).

    Returns
    -------
    float
        ``V(b)`` (in the paper's units; only its order over ``b`` matters).

    Examples
    --------
    >>> hb_variance_estimate(4096, 16)
    303.0
    """
    h, size = 0, 1
    while size < n:  # integer ceil(log_b n): no floating-point log
        size *= b
        h += 1
    return (b - 1) * h**3 - 2.0 * (b + 1) * h**2 / 3.0


def hb_fanout(n: int, *, max_fanout: int = MAX_FANOUT) -> int:
    """H_b's fan-out: ``b`` in ``[2, max_fanout]`` minimising :func:`hb_variance_estimate`.

    The published rule searches ``b`` up to ``n``; the product's trees stop at
    :data:`dpcore.hist.tree.MAX_FANOUT`.

    Parameters
    ----------
    n : int
        Number of bins.
    max_fanout : int, default MAX_FANOUT (20)
        Largest fan-out tried.

    Returns
    -------
    int
        The minimising ``b`` (the smallest on ties); 2 when ``n < 2``.

    Examples
    --------
    >>> hb_fanout(4096), hb_fanout(65536)
    (16, 16)
    """
    if n < 2:
        return 2
    candidates = range(2, max(2, min(max_fanout, n)) + 1)
    return min(candidates, key=lambda b: hb_variance_estimate(n, b))


def hb_tree(n: int) -> Tree:
    """H_b's tree: :func:`hb_fanout`-ary over ``n`` bins.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    Tree
        The ``b``-ary tree over ``n`` bins.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    return kary_tree(n, hb_fanout(n))


# ------------------------------------------------------- the exact gradient


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


# --------------------------------------------------------------- optimising


def consistent_optimal_budgets(
    tree: Tree,
    eps: float,
    workload: str | Workload = "uniform",
    *,
    granularity: Granularity = "level",
    max_iter: int = 300,
    progress: Callable[[float], object] | None = None,
) -> FloatArray:
    """Budgets minimising the exact error AFTER BLUE, every root-to-leaf path summing to ``eps``.

    ``granularity="level"``: one share of ``eps`` per depth (any share may be
    0, e.g. the root's), optimised from the best two of uniform, H_b (root not
    measured), the per-level raw rule (Boost-UN) and measuring every 2nd, 3rd or
    4th level only (:data:`SKIP_STRIDES`). ``"node"``: one
    share of its path's remaining budget per internal node (leaves take what
    is left, so every path sums to ``eps``), optimised with the exact
    gradient (:func:`blue_error_gradient`) from the best of uniform, H_b,
    LUE-DPTree's per-node raw optimum and the consistent per-level result,
    for at most ``max_iter`` and ``NODE_WORK / size`` iterations.
    L-BFGS-B (scipy) finds a local optimum (the error is convex in the
    precisions but the privacy constraint is not), and the result is never
    worse than any of its starts. ``progress(fraction)`` is called after each
    iteration of the per-node search.

    ``workload``: ``"uniform"``, ``"prefix"``, ``"length:L"`` (``n <=``
    :data:`DENSE_GRADIENT_LIMIT`) or a list of ranges (``"ranges:a-b,..."`` or
    :func:`dpcore.hist.workload.listed_ranges`, 0-based inclusive; at most
    :data:`dpcore.hist.workload.MAX_LISTED_RANGES` ranges and ``m * size <=``
    :data:`LISTED_GRADIENT_WORK`); a ``ValueError`` says which limit is exceeded.

    .. math:: \\min_{\\epsilon} \\mathrm{tr}(G M(\\epsilon)^{-1}) / m \\ \\text{s.t.}
              \\sum_{x \\in \\mathrm{path}} \\epsilon_x = \\epsilon \\ \\forall\\ \\text{leaves}

    Parameters
    ----------
    tree : Tree
        The tree.
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    workload : str or Workload, default "uniform"
        The workload whose mean error is minimised.
    granularity : {"level", "node"}, default "level"
        One share per depth, or one per internal node.
    max_iter : int, default 300
        Iteration limit of each L-BFGS-B run.
    progress : callable, optional
        Called with the fraction done, in ``[0, 1]``.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per-node budgets whose release epsilon is exactly ``eps``.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number in ``[1e-300, inf)``, ``granularity`` is neither
        value, ``workload`` is invalid for ``tree.n_bins`` bins, or its gradient is over a
        limit (see :func:`blue_error_gradient`).
    """
    eps = _validate.positive("epsilon", eps)
    if granularity not in ("level", "node"):
        raise ValueError(f"granularity must be 'level' or 'node', got {granularity!r}")
    load = parse_workload(workload, tree.n_bins)
    if tree.size == 1:  # one bin: nothing to share
        return budget.uniform_budgets(tree, eps)
    p = coverage.coverage_probabilities(tree, load)
    if granularity == "level":
        search = _LevelSearch(tree, load)
        starts = [
            budget.uniform_budgets(tree, 1.0),
            budget.uniform_budgets(tree, 1.0, measure_root=False),
            budget.per_level_budgets(tree, 1.0, p),
            *(search.every_level(stride) for stride in SKIP_STRIDES if stride < tree.height - 1),
        ]
        for start in starts:
            if search.floored(start):  # keep the start itself as a candidate too
                search.offer(start)
        thetas = [search.weights_of(start) for start in starts]
        ranked = sorted(range(len(thetas)), key=lambda i: search(thetas[i])[0])
        for i in ranked[:LEVEL_SEARCHES]:
            search.run(thetas[i], max_iter)
        return _tight_paths(tree, eps, eps * search.best_budgets())
    candidates = [
        budget.uniform_budgets(tree, 1.0),
        budget.uniform_budgets(tree, 1.0, measure_root=False),
        budget.optimal_budgets(tree, 1.0, p),
        consistent_optimal_budgets(tree, 1.0, load, granularity="level", max_iter=max_iter),
    ]
    # each start as given, and with its leaves taking their paths' slack
    candidates += [budget.budgets_from_shares(tree, 1.0, _shares_of(tree, c)) for c in candidates]
    scored = [(blue_expected_error(tree, c, load), c) for c in candidates]
    start_error, start = min(scored, key=lambda c: c[0])
    work = tree.size
    if load.kind == "length":
        work = max(1, tree.n_bins**3 // DENSE_NODE_RATIO)
    elif load.kind == "ranges":
        work = max(1, len(load.ranges) * tree.size // LISTED_NODE_RATIO)
    iterations = int(min(max_iter, max(20, NODE_WORK // work)))
    error, found = _optimise_nodes(tree, _shares_of(tree, start), load, iterations, progress)
    chosen = budget.budgets_from_shares(tree, 1.0, found) if error <= start_error else start
    return _tight_paths(tree, eps, eps * chosen)


def _tight_paths(tree: Tree, eps: float, budgets: FloatArray) -> FloatArray:
    """Round the leaves of the (nearly) tight paths so the release epsilon is ``eps`` exactly.

    Floating-point products and sums leave path sums a few ulps off ``eps``;
    each such leaf becomes ``eps - (sum above it)``, then is stepped down
    (or the largest up) one ulp at a time until :func:`dpcore.hist.budget.release_epsilon`
    returns ``eps`` itself.
    """
    out = budgets.copy()
    leaves = np.flatnonzero(tree.is_leaf)
    above = (budget.path_sums(tree, out) - out)[leaves]
    tight = np.abs(above + out[leaves] - eps) <= 1e-9 * eps
    out[leaves[tight]] = eps - above[tight]
    for _ in range(64):
        total = budget.path_sums(tree, out)[leaves]
        over = total > eps
        if over.any():
            out[leaves[over]] = np.nextafter(out[leaves[over]], 0.0)
            continue
        top = int(np.argmax(total))
        if total[top] == eps:
            break
        out[leaves[top]] = np.nextafter(out[leaves[top]], np.inf)
    return out


class _LevelSearch:
    """The error after BLUE over level weights ``θ >= 0`` (level shares ``θ / sum θ``),
    minimised with L-BFGS-B; every evaluation is remembered, and the answer is the
    best one seen, so it is never worse than any start that was evaluated."""

    def __init__(self, tree: Tree, load: Workload) -> None:
        self.tree, self.load = tree, load
        self.leaf_level = np.bincount(tree.depth[tree.is_leaf], minlength=tree.height) > 0
        self._seen: dict[bytes, tuple[float, FloatArray]] = {}
        self._best: tuple[float, FloatArray] | None = None

    def every_level(self, stride: int) -> FloatArray:
        """Equal shares on every ``stride``-th level counted up from the deepest (root not
        measured) and on every level holding leaves: a ``k**stride``-ary tree's H_b budgets."""
        t = self.tree
        depth = np.arange(t.height)
        on = ((t.height - 1 - depth) % stride == 0) & (depth > 0) | self.leaf_level
        shares: FloatArray = on / on.sum()
        return shares[t.depth]

    def weights_of(self, budgets: FloatArray) -> FloatArray:
        """A per-level allocation's weights, each level holding leaves at least ``_LEAF_FLOOR``."""
        t = self.tree
        theta = np.bincount(t.depth, weights=budgets, minlength=t.height) / np.bincount(t.depth)
        return np.maximum(theta, np.where(self.leaf_level, _LEAF_FLOOR, 0.0))

    def floored(self, budgets: FloatArray) -> bool:
        """Whether :meth:`weights_of` raises a level of (per-level) ``budgets`` to the floor."""
        first_of_level = budgets[self.tree.level_ptr[:-1]]
        return bool(np.any(self.leaf_level & (first_of_level < _LEAF_FLOOR)))

    def offer(self, budgets: FloatArray) -> None:
        """A candidate scored by the exact error (which allows a determined unmeasured leaf)."""
        self._consider(blue_expected_error(self.tree, budgets, self.load), budgets)

    def _consider(self, error: float, budgets: FloatArray) -> None:
        if self._best is None or error < self._best[0]:
            self._best = (error, budgets)

    def __call__(self, theta: FloatArray) -> tuple[float, FloatArray]:
        key = theta.tobytes()
        if key not in self._seen:
            depth, height = self.tree.depth, self.tree.height
            total = theta.sum()
            shares = theta / total
            grad = blue_error_gradient(self.tree, shares[depth], self.load)
            d_shares = np.bincount(depth, weights=grad.d_budget, minlength=height)
            self._seen[key] = (grad.error, (d_shares - d_shares @ shares) / total)
            self._consider(grad.error, shares[depth])
        return self._seen[key]

    def run(self, theta0: FloatArray, max_iter: int) -> None:
        bounds = [(_LEAF_FLOOR if leaf else 0.0, 1.0) for leaf in self.leaf_level]
        options = {"maxiter": max_iter}
        scipy.optimize.minimize(
            self, theta0, jac=True, method="L-BFGS-B", bounds=bounds, options=options
        )

    def best_budgets(self) -> FloatArray:
        assert self._best is not None, "evaluate at least one start first"
        return self._best[1]


def _shares_of(tree: Tree, budgets: FloatArray) -> FloatArray:
    """Each internal node's share of its path's remaining budget (leaves: 1), eps = 1.

    Leaves then take all that remains, so slack on short paths goes to their
    leaves (which only lowers the error).
    """
    above = budget.path_sums(tree, budgets) - budgets
    remaining = np.maximum(1.0 - above, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.where(remaining > 0, budgets / remaining, 0.0)
    shares = np.clip(shares, 0.0, _SHARE_CAP)
    shares[tree.is_leaf] = 1.0
    return shares


def _optimise_nodes(
    tree: Tree,
    start: FloatArray,
    load: Workload,
    max_iter: int,
    progress: Callable[[float], object] | None = None,
) -> tuple[float, FloatArray]:
    """L-BFGS-B over the internal nodes' shares from ``start``; returns ``(error, shares)``.

    With ``rem_x`` the budget left on ``x``'s path, ``eps_x = rem_x σ_x``
    (leaves: ``rem_x``) and every strict descendant scales with ``1 - σ_x``:

    .. math:: \\frac{\\partial f}{\\partial σ_x} = rem_x f'_x
              - \\frac{1}{1 - σ_x} \\sum_{y \\in \\mathrm{desc}(x)} f'_y \\epsilon_y
    """
    inner = np.flatnonzero(~tree.is_leaf)
    levels = tree.levels()

    def objective(free: FloatArray) -> tuple[float, FloatArray]:
        shares = np.ones(tree.size)
        shares[inner] = free
        eps = budget.budgets_from_shares(tree, 1.0, shares)
        grad = blue_error_gradient(tree, eps, load)
        spent = grad.d_budget * eps
        below = spent.copy()  # subtree sums of f'_y eps_y, bottom-up
        for d in range(tree.height - 1, 0, -1):
            kids, up = levels[d], levels[d - 1]
            below[up] += np.bincount(
                tree.parent[kids] - up.start, weights=below[kids], minlength=up.stop - up.start
            )
        remaining = 1.0 - (budget.path_sums(tree, eps) - eps)[inner]
        d_free = remaining * grad.d_budget[inner] - (below[inner] - spent[inner]) / (1.0 - free)
        return grad.error, d_free

    done = [0]

    def step(_: FloatArray) -> None:
        done[0] += 1
        if progress is not None:
            progress(min(done[0] / max_iter, 1.0))

    result = scipy.optimize.minimize(
        objective,
        start[inner],
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, _SHARE_CAP)] * inner.size,
        callback=step,
        options={"maxiter": max_iter},
    )
    shares = np.ones(tree.size)
    shares[inner] = np.asarray(result.x, dtype=np.float64)
    return blue_expected_error(tree, budget.budgets_from_shares(tree, 1.0, shares), load), shares


# ------------------------------------------------- allocations and fan-outs

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
``consistent_*``: optimal after BLUE (:func:`consistent_optimal_budgets`)."""


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
        :func:`blue_error_gradient`).
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
