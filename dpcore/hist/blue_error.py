"""Exact errors of a BLUE-consistent tree release: any tree, any per-node budgets (budget 0 =
not measured), ``w^T (A^T W A)^{-1} w`` with ``W = diag(eps_x^2 / 2)`` for a query ``w``.

The BLUE error uses two facts (derived here; not in the papers). (1) Given a
node's true sum its subtree is independent of the rest, so the least-squares
estimates of node sums form a Gaussian Markov tree: with ``V_c`` the variance
of child ``c``'s estimate from its own subtree and ``S = sum_c V_c``,

.. math:: h_c = r_c h_x + \\eta_c, \\quad r_c = V_c / S, \\quad
          \\mathrm{Cov}(\\eta) = K_x = \\mathrm{diag}(V) - V V^T / S .

A partial sum inside node ``x`` is then ``β h_x + ξ`` with ``ξ`` independent of
everything outside ``x``; walking up from a leaf composes ``(β, γ = Var ξ)`` in
``O(1)`` per level, so a range costs ``O(height)`` and all ``n`` prefixes
``O(n height)``. (2) With prefix sums ``P_a``, the sum over all ranges is

.. math:: \\sum_{l \\le r} \\mathrm{Var}[l, r] = (n + 1) \\sum_a \\mathrm{Var}(P_a)
          - \\mathrm{Var}\\Big(\\sum_a P_a\\Big).

A child with infinite ``V`` (its subtree cannot determine it alone) takes the
limit ``V -> ∞``; when two or more siblings are undetermined only their sum
is, and a query splitting them has infinite error (no unbiased estimate exists).
The dense :mod:`dpcore.hist.matrix_mechanism` is the test oracle.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Generic, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.hierarchy import Hierarchy
from dpcore.hist.tree import Tree
from dpcore.hist.workload import Workload, parse_workload, workload_ranges

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

TreeT = TypeVar("TreeT", bound=Hierarchy)

_SNAP = 1e-9  # weights of undetermined siblings closer than this count as equal


@dataclass(frozen=True, eq=False)
class GaussMarkovTree(Generic[TreeT]):
    """The Gaussian Markov tree of a BLUE-consistent release (variances in count units).

    Per node (as a child in its family): ``vf`` its upward variance (0 where
    infinite, flagged by ``inf``), ``r`` its share of the parent's sum, and
    exclusive sums over its earlier (``*_before``) and later (``*_after``)
    siblings. Per node as a parent: ``fam_s`` (sum of finite children ``V``)
    and ``fam_inf`` (number of undetermined children). ``var_h``: the final
    variance of each node's consistent estimate.

    Attributes
    ----------
    tree : Hierarchy
        The tree (an interval tree, or a region tree: nothing here uses the geometry).
    vf : ndarray of float64, shape (tree.size,)
        Upward variance of each node's estimate from its own subtree (0 where ``inf``).
    inf : ndarray of bool, shape (tree.size,)
        Whether that estimate is undetermined (infinite variance).
    r : ndarray of float64, shape (tree.size,)
        Each node's share of its parent's sum (root: 1).
    fam_s : ndarray of float64, shape (tree.size,)
        Per parent, the sum of its finite children's ``vf``.
    fam_inf : ndarray of int64, shape (tree.size,)
        Per parent, the number of undetermined children.
    """

    tree: TreeT
    vf: FloatArray
    inf: BoolArray
    r: FloatArray
    fam_s: FloatArray
    fam_inf: IntArray

    @staticmethod
    def build(t: TreeT, budgets: ArrayLike) -> GaussMarkovTree[TreeT]:
        eps = _validate.budgets("budgets", budgets, size=t.size)
        precision = eps**2 / 2.0
        vf = np.zeros(t.size)
        inf = np.zeros(t.size, dtype=bool)
        leaf = t.is_leaf
        vf[leaf] = np.where(precision[leaf] > 0, 1.0 / np.maximum(precision[leaf], 1e-300), 0.0)
        inf[leaf] = precision[leaf] == 0
        fam_s = np.zeros(t.size)
        fam_inf = np.zeros(t.size, dtype=np.int64)
        levels = t.levels()
        for d in range(t.height - 2, -1, -1):
            here, below = levels[d], levels[d + 1]
            slot = t.parent[below] - here.start
            width = here.stop - here.start
            fam_s[here] = np.bincount(slot, weights=vf[below], minlength=width)
            fam_inf[here] = np.bincount(slot, weights=inf[below], minlength=width).astype(np.int64)
            idx = np.arange(here.start, here.stop)[~leaf[here]]
            determined = (fam_inf[idx] == 0) & (fam_s[idx] > 0)
            child_precision = np.where(determined, 1.0 / np.where(determined, fam_s[idx], 1.0), 0.0)
            total = precision[idx] + child_precision
            inf[idx] = total == 0
            vf[idx] = np.where(total > 0, 1.0 / np.where(total > 0, total, 1.0), 0.0)
        r = np.ones(t.size)
        kids = np.arange(1, t.size)
        par = t.parent[kids]
        if not inf.any():  # every family determined: the common case, without the limits
            r[kids] = vf[kids] / fam_s[par]
            return GaussMarkovTree(t, vf, inf, r, fam_s, fam_inf)
        undetermined_family = fam_inf[par] > 0
        r[kids] = np.where(
            undetermined_family,
            inf[kids] / np.maximum(fam_inf[par], 1),
            vf[kids] / np.where(undetermined_family, 1.0, fam_s[par]),
        )
        return GaussMarkovTree(t, vf, inf, r, fam_s, fam_inf)

    def _sibling_sums(self, values: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Exclusive sums of ``values`` over each node's earlier and later siblings."""
        first, last = self.tree.sibling_span
        cum = np.concatenate(([0.0], np.cumsum(values)))
        return cum[:-1] - cum[first], cum[last] - cum[1:]

    @cached_property
    def has_undetermined(self) -> bool:
        """Whether some node's subtree cannot determine its sum on its own."""
        return bool(self.inf.any())

    @cached_property
    def r_before(self) -> FloatArray:
        return self._sibling_sums(self.r)[0]

    @cached_property
    def r_after(self) -> FloatArray:
        return self._sibling_sums(self.r)[1]

    @cached_property
    def v_before(self) -> FloatArray:
        return self._sibling_sums(self.vf)[0]

    @cached_property
    def v_after(self) -> FloatArray:
        return self._sibling_sums(self.vf)[1]

    @cached_property
    def inf_before(self) -> FloatArray:
        return self._sibling_sums(self.inf.astype(np.float64))[0]

    @cached_property
    def inf_after(self) -> FloatArray:
        return self._sibling_sums(self.inf.astype(np.float64))[1]

    @cached_property
    def var_h(self) -> FloatArray:
        """Final variance of every node's consistent estimate (top-down)."""
        t = self.tree
        var = np.empty(t.size)
        var[0] = np.inf if self.inf[0] else self.vf[0]
        levels = t.levels()
        if not self.has_undetermined:  # the common case, without the limits
            for kids in levels[1:]:
                par, r, vf = t.parent[kids], self.r[kids], self.vf[kids]
                var[kids] = r * r * var[par] + (vf - vf**2 / self.fam_s[par])
            return var
        for d in range(1, t.height):
            kids = levels[d]
            par = t.parent[kids]
            r = self.r[kids]
            inherited = np.where(r > 0, r * r * np.where(r > 0, var[par], 0.0), 0.0)
            fam_undetermined = self.fam_inf[par]
            own = np.where(
                fam_undetermined == 0,
                self.vf[kids]
                - self.vf[kids] ** 2 / np.where(fam_undetermined == 0, self.fam_s[par], 1.0),
                np.where(
                    ~self.inf[kids],
                    self.vf[kids],
                    np.where(fam_undetermined == 1, self.fam_s[par], np.inf),
                ),
            )
            var[kids] = inherited + own
        return var


def _common_value(
    values: list[FloatArray], present: list[BoolArray]
) -> tuple[FloatArray, BoolArray, BoolArray]:
    """The value shared by all present entries: ``(value, any present, consistent)``."""
    lo = np.full(values[0].shape, np.inf)
    hi = np.full(values[0].shape, -np.inf)
    for value, mask in zip(values, present, strict=True):
        lo = np.where(mask, np.minimum(lo, value), lo)
        hi = np.where(mask, np.maximum(hi, value), hi)
    anything = np.isfinite(lo)
    return np.where(anything, lo, 0.0), anything, ~anything | (hi - lo <= _SNAP)


def _family_term(
    gm: GaussMarkovTree[Tree],
    parent: IntArray,
    a1: FloatArray,
    a2: FloatArray,
    inf_values: list[FloatArray],
    inf_present: list[BoolArray],
) -> FloatArray:
    """``u^T K u`` for weights ``u`` on one family's children.

    ``a1 = sum u_i V_i`` and ``a2 = sum u_i^2 V_i`` over the finite children;
    the undetermined children's weights are listed in ``inf_values`` (where
    ``inf_present``). Finite family: ``a2 - a1^2 / S``; otherwise the limit
    ``sum_i V_i (u_i - ū)^2`` with ``ū`` the undetermined children's common
    weight (``inf`` if they differ).
    """
    s = gm.fam_s[parent]
    common, undetermined, consistent = _common_value(inf_values, inf_present)
    mean = np.where(undetermined, common, a1 / np.where(s > 0, s, 1.0))
    term = np.maximum(a2 - 2.0 * mean * a1 + mean * mean * s, 0.0)
    return np.where(consistent, term, np.inf)


def _step_up(
    gm: GaussMarkovTree[Tree], child: IntArray, beta: FloatArray, gamma: FloatArray, *, prefix: bool
) -> tuple[FloatArray, FloatArray]:
    """Move a partial sum from node ``child`` to its parent.

    Prefix side (the sum ends inside ``child``): ``Q_x = sum of earlier
    siblings + Q_child``, weights ``u = (1, .., 1, β, 0, .., 0)``; suffix side
    mirrored.
    """
    parent = gm.tree.parent[child]
    vf, r = gm.vf[child], gm.r[child]
    full_v = gm.v_before[child] if prefix else gm.v_after[child]
    full_r = gm.r_before[child] if prefix else gm.r_after[child]
    a1 = full_v + beta * vf
    a2 = full_v + beta * beta * vf
    if not gm.has_undetermined:
        return full_r + beta * r, gamma + np.maximum(a2 - a1 * a1 / gm.fam_s[parent], 0.0)
    full_inf = (gm.inf_before[child] if prefix else gm.inf_after[child]) > 0
    none_inf = (gm.inf_after[child] if prefix else gm.inf_before[child]) > 0
    ones, zeros = np.ones_like(beta), np.zeros_like(beta)
    term = _family_term(
        gm, parent, a1, a2, [ones, beta, zeros], [full_inf, gm.inf[child], none_inf]
    )
    return full_r + beta * r, gamma + term


def _walk_to(
    gm: GaussMarkovTree[Tree], start: IntArray, stop_parent: IntArray, *, prefix: bool
) -> tuple[IntArray, FloatArray, FloatArray]:
    """Walk partial sums up from ``start`` until the node's parent is ``stop_parent``."""
    node = start.copy()
    beta = np.ones(node.shape)
    gamma = np.zeros(node.shape)
    parent = gm.tree.parent
    active = np.flatnonzero(parent[node] != stop_parent)
    while active.size:
        beta[active], gamma[active] = _step_up(
            gm, node[active], beta[active], gamma[active], prefix=prefix
        )
        node[active] = parent[node[active]]
        active = active[parent[node[active]] != stop_parent[active]]
    return node, beta, gamma


def _scaled_variance(coefficient: FloatArray, var: FloatArray) -> FloatArray:
    """``coefficient^2 * var`` with ``0 * inf = 0`` (coefficients below 1e-9 count as 0)."""
    safe = np.where(np.abs(coefficient) > _SNAP, var, 0.0)
    return np.asarray(coefficient * coefficient * safe, dtype=np.float64)


def _prefix_variances(gm: GaussMarkovTree[Tree]) -> FloatArray:
    leaves = gm.tree.leaf_of_bin
    _, beta, gamma = _walk_to(gm, leaves, np.full(leaves.shape, -1), prefix=True)
    return _scaled_variance(beta, np.full(beta.shape, gm.var_h[0])) + gamma


def blue_linear_query_variance(t: Tree, budgets: ArrayLike, weights: ArrayLike) -> float:
    """``Var(w^T v^)`` of one linear query over the bins, BLUE-consistent tree, ``O(size)``.

    Bottom-up, ``F_x = sum_{i in x} w_i v_i = β_x h_x + ξ_x`` with
    ``β_x = sum_c β_c r_c`` and ``Var ξ_x = sum_c Var ξ_c + β^T K_x β``.

    Parameters
    ----------
    t : Tree
        The tree.
    budgets : array_like of float, shape (t.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    weights : array_like of float, shape (t.n_bins,)
        The query's finite weight on every bin.

    Returns
    -------
    float
        The variance (count units squared); ``inf`` if the query is not estimable.

    Raises
    ------
    ValueError
        If ``weights`` is not ``t.n_bins`` finite numbers or ``budgets`` is invalid.
    """
    w = _validate.finite_array("weights", weights, size=t.n_bins)
    gm = GaussMarkovTree.build(t, budgets)
    return _linear_query_variance(gm, w)


def _group_sum(slot: IntArray, values: FloatArray, width: int) -> FloatArray:
    return np.asarray(np.bincount(slot, weights=values, minlength=width), dtype=np.float64)


def _linear_query_variance(gm: GaussMarkovTree[Tree], weights: FloatArray) -> float:
    t = gm.tree
    beta = np.zeros(t.size)
    gamma = np.zeros(t.size)
    beta[t.leaf_of_bin] = weights
    levels = t.levels()
    for d in range(t.height - 2, -1, -1):
        here, below = levels[d], levels[d + 1]
        slot = t.parent[below] - here.start
        width = here.stop - here.start
        kid_beta = beta[below]
        finite = ~gm.inf[below]
        a1 = _group_sum(slot, kid_beta * gm.vf[below], width)  # vf is 0 where undetermined
        a2 = _group_sum(slot, kid_beta**2 * gm.vf[below], width)
        lo = np.full(width, np.inf)
        hi = np.full(width, -np.inf)
        undetermined = ~finite
        np.minimum.at(lo, slot[undetermined], kid_beta[undetermined])
        np.maximum.at(hi, slot[undetermined], kid_beta[undetermined])
        idx = np.arange(here.start, here.stop)
        term = _family_term(gm, idx, a1, a2, [lo, hi], [np.isfinite(lo), np.isfinite(hi)])
        inner = ~t.is_leaf[here]
        beta[here] = np.where(
            inner, np.bincount(slot, weights=kid_beta * gm.r[below], minlength=width), beta[here]
        )
        gamma[here] = np.where(
            inner, np.bincount(slot, weights=gamma[below], minlength=width) + term, gamma[here]
        )
    root = _scaled_variance(beta[:1], gm.var_h[:1])
    return float(root[0] + gamma[0])


def blue_range_errors(t: Tree, budgets: ArrayLike, a: ArrayLike, b: ArrayLike) -> FloatArray:
    """BLUE-consistent MSE ``w^T (A^T W A)^{-1} w`` of each range, ``O(height)`` per range.

    The range splits at ``m``, the lowest node containing it, into a suffix of
    child ``c_l``, the whole children between, and a prefix of child ``c_r``;
    with ``u`` the children's weights (``β_l, 1, .., 1, β_r``),

    .. math:: \\mathrm{Var} = (u^T r)^2 \\mathrm{Var}(\\hat h_m) + u^T K_m u
              + γ_l + γ_r .

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
        MSE per range (count units squared; ``inf`` where not estimable), shaped like the
        broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < t.n_bins``, ``a`` and ``b`` do not broadcast, or
        ``budgets`` is invalid.
    """
    a_arr, b_arr = _validate.ranges(t.n_bins, a, b)
    gm = GaussMarkovTree.build(t, budgets)
    return _range_variances(gm, a_arr.ravel(), b_arr.ravel()).reshape(a_arr.shape)


def _range_variances(gm: GaussMarkovTree[Tree], a: IntArray, b: IntArray) -> FloatArray:
    t = gm.tree
    out = np.empty(a.shape)
    single = a == b
    out[single] = gm.var_h[t.leaf_of_bin[a[single]]]
    multi = np.flatnonzero(~single)
    if multi.size == 0:
        return out
    a, b = a[multi], b[multi]
    top = t.leaf_of_bin[a]
    climbing = np.flatnonzero(t.hi[top] < b)
    while climbing.size:
        top[climbing] = t.parent[top[climbing]]
        climbing = climbing[t.hi[top[climbing]] < b[climbing]]
    left, beta_l, gamma_l = _walk_to(gm, t.leaf_of_bin[a], top, prefix=False)
    right, beta_r, gamma_r = _walk_to(gm, t.leaf_of_bin[b], top, prefix=True)
    between_v = gm.v_before[right] - gm.v_before[left] - gm.vf[left]
    between_r = gm.r_before[right] - gm.r_before[left] - gm.r[left]
    between_inf = (gm.inf_before[right] - gm.inf_before[left] - gm.inf[left]) > 0
    share = beta_l * gm.r[left] + between_r + beta_r * gm.r[right]
    ones, zeros = np.ones_like(beta_l), np.zeros_like(beta_l)
    term = _family_term(
        gm,
        top,
        beta_l * gm.vf[left] + between_v + beta_r * gm.vf[right],
        beta_l**2 * gm.vf[left] + between_v + beta_r**2 * gm.vf[right],
        [zeros, beta_l, ones, beta_r, zeros],
        [
            gm.inf_before[left] > 0,
            gm.inf[left],
            between_inf,
            gm.inf[right],
            gm.inf_after[right] > 0,
        ],
    )
    out[multi] = _scaled_variance(share, gm.var_h[top]) + term + gamma_l + gamma_r
    return out


def blue_expected_error(t: Tree, budgets: ArrayLike, workload: str | Workload = "uniform") -> float:
    """Exact mean range MSE of the BLUE-consistent tree over a workload, ``O(n height)``.

    Uniform: the prefix-sum identity (module docstring); prefix: the mean of
    the prefix variances; fixed length and listed ranges: every range by
    :func:`blue_range_errors` (``O(m height)``).

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
        Mean MSE over the workload's ranges (``inf`` if one is not estimable).

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``t.n_bins`` bins or ``budgets`` is invalid.
    """
    n = t.n_bins
    spec = parse_workload(workload, n)
    gm = GaussMarkovTree.build(t, budgets)
    if spec.kind == "prefix":
        return float(_prefix_variances(gm).mean())
    if spec.kind in ("length", "ranges"):
        a, b = workload_ranges(n, spec)
        return float(_range_variances(gm, a, b).mean())
    prefix = _prefix_variances(gm)
    of_sum = _linear_query_variance(gm, (n - np.arange(n)).astype(np.float64))
    return float(((n + 1) * prefix.sum() - of_sum) / (n * (n + 1) / 2))
