"""Budgets that minimise the error AFTER BLUE consistency: the per-level and per-node searches.

The per-node rule of LUE-DPTree (:func:`dpcore.hist.budget.optimal_budgets`) and the
per-level rule of Boost-UN minimise the error of the *raw* noisy tree. After
BLUE consistency the error is a different function of the budgets,

.. math:: f(\\lambda) = \\mathrm{tr}(G M^{-1}) / m, \\quad
          M = \\sum_x \\lambda_x a_x a_x^T, \\quad \\lambda_x = \\epsilon_x^2 / 2,
          \\quad G = W^T W,

(``a_x`` the 0/1 indicator of node ``x``'s bins, ``W`` the ``m`` workload
ranges), and its optimum is a different allocation. The searches here follow its exact
gradient (:func:`dpcore.hist.blue_gradient.blue_error_gradient`) with L-BFGS-B, one
share per level or one per internal node. H_b's tree is :mod:`dpcore.hist.hb`; every
named allocation rule and the fan-out scan are :mod:`dpcore.hist.allocation_rules`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import scipy.optimize
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.hist import budget, coverage
from dpcore.hist.blue_error import blue_expected_error
from dpcore.hist.blue_gradient import ErrorGradient, blue_error_gradient
from dpcore.hist.hierarchy import Hierarchy
from dpcore.hist.tree import Tree
from dpcore.hist.workload import Workload, parse_workload

FloatArray = NDArray[np.float64]
Granularity = Literal["level", "node"]

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
    gradient (:func:`dpcore.hist.blue_gradient.blue_error_gradient`) from the best of
    uniform, H_b, LUE-DPTree's per-node raw optimum and the consistent per-level result,
    for at most ``max_iter`` and ``NODE_WORK / size`` iterations.
    L-BFGS-B (scipy) finds a local optimum (the error is convex in the
    precisions but the privacy constraint is not), and the result is never
    worse than any of its starts. ``progress(fraction)`` is called after each
    iteration of the per-node search.

    ``workload``: ``"uniform"``, ``"prefix"``, ``"length:L"`` (``n <=``
    :data:`dpcore.hist.blue_gradient.DENSE_GRADIENT_LIMIT`) or a list of ranges
    (``"ranges:a-b,..."`` or :func:`dpcore.hist.workload.listed_ranges`, 0-based inclusive;
    at most :data:`dpcore.hist.workload.MAX_LISTED_RANGES` ranges and ``m * size <=``
    :data:`dpcore.hist.blue_gradient.LISTED_GRADIENT_WORK`); a ``ValueError`` says which
    limit is exceeded.

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
        limit (see :func:`dpcore.hist.blue_gradient.blue_error_gradient`).
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
    candidates += [budget.budgets_from_shares(tree, 1.0, shares_of(tree, c)) for c in candidates]
    scored = [(blue_expected_error(tree, c, load), c) for c in candidates]
    start_error, start = min(scored, key=lambda c: c[0])
    work = tree.size
    if load.kind == "length":
        work = max(1, tree.n_bins**3 // DENSE_NODE_RATIO)
    elif load.kind == "ranges":
        work = max(1, len(load.ranges) * tree.size // LISTED_NODE_RATIO)
    iterations = int(min(max_iter, max(20, NODE_WORK // work)))
    error, found = optimise_node_shares(
        tree,
        shares_of(tree, start),
        lambda b: blue_error_gradient(tree, b, load),
        lambda b: blue_expected_error(tree, b, load),
        iterations,
        progress,
    )
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


def shares_of(tree: Hierarchy, budgets: FloatArray) -> FloatArray:
    """Each internal node's share of its path's remaining budget (leaves: 1), eps = 1.

    Leaves then take all that remains, so slack on short paths goes to their
    leaves (which only lowers the error).

    Parameters
    ----------
    tree : Hierarchy
        Any tree.
    budgets : ndarray of float64, shape (tree.size,)
        Per-node budgets whose paths sum to at most 1.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        The shares, in ``[0, 1 - 1e-6]`` (leaves: 1).
    """
    above = budget.path_sums(tree, budgets) - budgets
    remaining = np.maximum(1.0 - above, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.where(remaining > 0, budgets / remaining, 0.0)
    shares = np.clip(shares, 0.0, _SHARE_CAP)
    shares[tree.is_leaf] = 1.0
    return shares


def optimise_node_shares(
    tree: Hierarchy,
    start: FloatArray,
    gradient_of: Callable[[FloatArray], ErrorGradient],
    error_of: Callable[[FloatArray], float],
    max_iter: int,
    progress: Callable[[float], object] | None = None,
) -> tuple[float, FloatArray]:
    """L-BFGS-B over the internal nodes' shares from ``start``; returns ``(error, shares)``.

    With ``rem_x`` the budget left on ``x``'s path, ``eps_x = rem_x σ_x``
    (leaves: ``rem_x``) and every strict descendant scales with ``1 - σ_x``:

    .. math:: \\frac{\\partial f}{\\partial σ_x} = rem_x f'_x
              - \\frac{1}{1 - σ_x} \\sum_{y \\in \\mathrm{desc}(x)} f'_y \\epsilon_y

    Parameters
    ----------
    tree : Hierarchy
        Any tree (interval or region).
    start : ndarray of float64, shape (tree.size,)
        Starting shares (:func:`shares_of`).
    gradient_of : callable
        Budgets (paths summing to 1) to the error after BLUE and its gradient.
    error_of : callable
        Budgets to the error alone (scores the end point).
    max_iter : int
        L-BFGS-B iterations at most.
    progress : callable, optional
        Called with the fraction of ``max_iter`` done after each iteration.

    Returns
    -------
    error : float
        The error at the shares found.
    shares : ndarray of float64, shape (tree.size,)
        The shares found (leaves: 1).
    """
    inner = np.flatnonzero(~tree.is_leaf)
    levels = tree.levels()

    def objective(free: FloatArray) -> tuple[float, FloatArray]:
        shares = np.ones(tree.size)
        shares[inner] = free
        eps = budget.budgets_from_shares(tree, 1.0, shares)
        grad = gradient_of(eps)
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
    return error_of(budget.budgets_from_shares(tree, 1.0, shares)), shares
