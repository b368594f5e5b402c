"""GreedyH: a binary tree whose per-node weights are chosen greedily for the workload.

Li, Hay, Miklau, Wang, "A Data- and Workload-Aware Algorithm for Range Queries Under
Differential Privacy", PVLDB 7(5), 2014, section 4 (DAWA's second step), with DPComp's
defaults (``dpcomp_core/algorithm/dawa/greedyH.py``): branching 2 (a node of ``s`` cells
splits into ``floor(s/2)`` and ``ceil(s/2)``), the root's weight searched like every
other node's, weights on the grid ``p = 1, 0.99, ..., 0.01`` (granularity 100) and a
cross-children decay ``2^(-depth/2)``.

Bottom-up, a node with children strategies of pseudo-inverse ``B`` (``u = B 1``,
``k = 1' B 1``) keeps weight ``1 - p`` for its own sum and scales its children by ``p``;
Sherman-Morrison gives ``inv = (B - c u u') / p^2`` with ``c = (1-p)^2 / (p^2 + k (1-p)^2)``
and ``p`` minimises DPComp's error proxy ``trace(G inv)`` with ``G = (Q'Q)^2`` restricted
to the node. ``inv 1`` is ``u`` times a scalar, so every node needs only a few numbers:
its error, ``k``, ``u' G u`` and the cross term ``u_L' G u_R`` of its children.

The cross term is where the workload comes in. Prefix and all-range workloads have
``(Q'Q)[t, i] = hl(min) hr(max)`` (prefix: ``hl = 1``, all ranges: ``hl(i) = i + 1``;
``hr(j) = n - j``), also after averaging over buckets (plus a diagonal correction), so
``Q'Q u`` is ``hl`` or ``hr`` times a constant outside a node and four moments per node
give the cross term in ``O(1)``: ``O(n log n)`` in all, never the ``n (n+1) / 2`` ranges.
A listed workload is applied per level through prefix sums, ``O((n + m))`` per node.
Every path's weights sum to 1, so the weighted strategy has sensitivity 1 and
``Lap(1/eps)`` per weighted query is ``eps``-DP; least squares is the tree BLUE with
node budgets ``eps * weight``.

The weights depend on the workload only, never on the data: GreedyH is data-independent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore.algorithms.common import FloatArray, IntArray, Ranges, Release
from dpcore.hist.consistency import blue
from dpcore.hist.release import laplace_release
from dpcore.hist.tree import Tree

GRANULARITY = 100
"""DPComp's grid for the child share ``p``: ``1, 0.99, ..., 0.01``."""

BoolArray = NDArray[np.bool_]
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True)
class Kernel:
    """``Q'Q`` of a workload over ``size`` cells (bins, or buckets of bins).

    Either semiseparable, ``(Q'Q)[t, i] = hl[min] hr[max]`` off the diagonal and
    ``diag`` on it (``listed`` is None), or a listed workload whose query ``q`` weighs
    1 on cells ``lo[q] + 1 .. hi[q] - 1``, ``wlo[q]`` on ``lo[q]`` and ``whi[q]`` on
    ``hi[q]`` (the covered share of a bucket it cuts; ``wlo`` alone when ``lo == hi``).
    """

    size: int
    hl: FloatArray
    hr: FloatArray
    diag: FloatArray
    lo: IntArray
    hi: IntArray
    wlo: FloatArray
    whi: FloatArray
    listed: bool

    def dense(self) -> FloatArray:
        """``Q'Q`` as a matrix (for tests on small sizes)."""
        if not self.listed:
            t = np.arange(self.size)
            lo, hi = np.minimum.outer(t, t), np.maximum.outer(t, t)
            full: FloatArray = self.hl[lo] * self.hr[hi]
            full[t, t] = self.diag
            return full
        rows = np.zeros((self.lo.size, self.size))
        for q, (a, b) in enumerate(zip(self.lo, self.hi, strict=True)):
            rows[q, a : b + 1] = 1.0
            rows[q, b] = self.whi[q]
            rows[q, a] = self.wlo[q]
        gram: FloatArray = rows.T @ rows
        return gram


def kernel(workload: Ranges, starts: IntArray | None = None) -> Kernel:
    """``Q'Q`` of ``workload``, over its bins or over buckets averaged as DPComp does.

    Parameters
    ----------
    workload : Ranges
        The workload over ``workload.n`` bins.
    starts : ndarray of int64, optional
        First bin of every bucket (ascending, from 0); None for single bins.

    Returns
    -------
    Kernel
        The workload matrix ``Q`` with each bucket's column the mean of its bins'
        columns, as ``Q'Q``.
    """
    n = workload.n
    first = np.arange(n, dtype=np.int64) if starts is None else np.asarray(starts, np.int64)
    last = np.append(first[1:], n) - 1
    width = (last - first + 1).astype(np.float64)
    empty = np.zeros(0)
    if workload.kind == "listed":
        bucket = np.searchsorted(first, np.arange(n), side="right") - 1
        lo, hi = workload.lo, workload.hi
        blo, bhi = bucket[lo], bucket[hi]
        wlo = (np.minimum(last[blo], hi) - lo + 1) / width[blo]
        whi = np.where(blo == bhi, wlo, (hi - first[bhi] + 1) / width[bhi])
        return Kernel(first.size, empty, empty, empty, blo, bhi, wlo, whi, True)
    bins = np.arange(n, dtype=np.float64)
    hl = bins + 1.0 if workload.kind == "all ranges" else np.ones(n)
    hr = n - bins
    # Buckets: means of hl and hr; the diagonal is the mean of hl(min) hr(max) over
    # the bucket's pairs, sum_i hl hr + 2 sum_{i<j} hl(i) hr(j), from prefix sums.
    cum = np.concatenate(([0.0], np.cumsum(hl)))
    pairs = np.concatenate(([0.0], np.cumsum(hr * cum[:-1])))
    own = np.concatenate(([0.0], np.cumsum(hl * hr)))
    sum_hr = np.concatenate(([0.0], np.cumsum(hr)))
    a, b = first, last + 1
    below = pairs[b] - pairs[a] - cum[a] * (sum_hr[b] - sum_hr[a])
    diag = (own[b] - own[a] + 2.0 * below) / width**2
    hl_b = (cum[b] - cum[a]) / width
    hr_b = (sum_hr[b] - sum_hr[a]) / width
    zero = np.zeros(0, np.int64)
    return Kernel(first.size, hl_b, hr_b, diag, zero, zero, empty, empty, False)


@dataclass(frozen=True)
class Strategy:
    """GreedyH's weighted tree: measure ``weight[v] * sum(node v)`` for every node.

    Attributes
    ----------
    tree : Tree
        Binary tree over the cells, breadth-first; a node the workload cannot tell
        apart (every query covers all of it or none) is a leaf over all its cells,
        given unmeasured single-cell children here so the tree's leaves are cells.
    weight : ndarray of float64, shape (tree.size,)
        Every node's weight (0: not measured); every root-to-leaf path sums to 1.
    """

    tree: Tree
    weight: FloatArray


def _uniform(k: Kernel, lo: IntArray, hi: IntArray) -> BoolArray:
    """Nodes every query covers wholly or not at all (DPComp: equal ``Q'Q`` columns)."""
    if not k.listed:
        single: BoolArray = lo == hi
        return single
    cut = np.zeros(k.size + 1)
    np.add.at(cut, k.lo, 1.0)
    np.add.at(cut, k.hi + 1, 1.0)
    part = np.zeros(k.size)
    np.add.at(part, k.lo, k.wlo < 1.0)
    np.add.at(part, k.hi, k.whi < 1.0)
    cuts = np.cumsum(cut[: k.size])
    parts = np.concatenate(([0.0], np.cumsum(part)))
    inside = (cuts[hi] - cuts[lo] > 0) | (parts[hi + 1] - parts[lo] > 0)
    result: BoolArray = (lo == hi) | ~inside
    return result


def _add_rows(out: FloatArray, index: IntArray, rows: FloatArray) -> None:
    """``out[index[q]] += rows[q]`` for every ``q`` (repeats add up): sorted, summed per
    index with ``reduceat`` (``np.add.at`` is unbuffered and many times slower)."""
    if index.size == 0:
        return
    order = np.argsort(index, kind="stable")
    keys = index[order]
    first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    out[keys[first]] += np.add.reduceat(rows[order], first, axis=0)


def _apply_listed(k: Kernel, u: FloatArray, lo: IntArray, hi: IntArray) -> FloatArray:
    """``Q'Q`` times each node's slice of ``u`` (columns: nodes ``[lo, hi]``), by prefix sums.

    ``Q u_v`` (one answer per query and node) comes from the prefix sums of ``u``; ``Q'``
    of the answers from their cumulative sums over the queries sorted by ``lo`` and by
    ``hi``: cell ``t`` gets the queries with ``lo <= t`` minus those with ``hi < t``.
    """
    prefix = np.concatenate(([0.0], np.cumsum(u)))
    a = np.maximum(k.lo[:, None], lo[None, :])
    b = np.minimum(k.hi[:, None], hi[None, :])
    answers = np.where(b >= a, prefix[np.maximum(b, a) + 1] - prefix[a], 0.0)
    single = k.lo == k.hi
    w_lo, w_hi = k.wlo - 1.0, np.where(single, 0.0, k.whi - 1.0)  # corrections at the ends
    for cell, w in ((k.lo, w_lo), (k.hi, w_hi)):
        cut = np.flatnonzero(w)
        if cut.size:
            within = (cell[cut, None] >= lo[None, :]) & (cell[cut, None] <= hi[None, :])
            answers[cut] += within * (w[cut] * u[cell[cut]])[:, None]
    cells = np.arange(k.size)
    by_lo, by_hi = np.argsort(k.lo, kind="stable"), np.argsort(k.hi, kind="stable")
    zero = np.zeros((1, lo.size))
    opened = np.concatenate((zero, np.cumsum(answers[by_lo], axis=0)))
    closed = np.concatenate((zero, np.cumsum(answers[by_hi], axis=0)))
    out: FloatArray = (
        opened[np.searchsorted(k.lo[by_lo], cells, side="right")]
        - closed[np.searchsorted(k.hi[by_hi], cells, side="left")]
    )
    for cell, w in ((k.lo, w_lo), (k.hi, w_hi)):
        cut = np.flatnonzero(w)
        _add_rows(out, cell[cut], w[cut, None] * answers[cut])
    return out


def _listed_moments(
    k: Kernel, u: FloatArray, left: tuple[IntArray, IntArray], right: tuple[IntArray, IntArray]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``u_L' G u_L``, ``u_R' G u_R`` and ``u_L' G u_R`` (``G = (Q'Q)^2``), in chunks."""
    pairs = left[0].size
    self_l, self_r, cross = np.zeros(pairs), np.zeros(pairs), np.zeros(pairs)
    step = max(1, _CHUNK_CELLS // max(k.size, k.lo.size))
    for s in range(0, pairs, step):
        part = slice(s, s + step)
        fl = _apply_listed(k, u, left[0][part], left[1][part])
        fr = _apply_listed(k, u, right[0][part], right[1][part])
        self_l[part] = np.einsum("ij,ij->j", fl, fl)
        self_r[part] = np.einsum("ij,ij->j", fr, fr)
        cross[part] = np.einsum("ij,ij->j", fl, fr)
    return self_l, self_r, cross


def _choose(
    sumerr: FloatArray, m: FloatArray, m1: FloatArray, kb: FloatArray, depth: int
) -> tuple[FloatArray, FloatArray]:
    """DPComp's grid search for the children's share ``p``: (error, p) per node."""
    g = GRANULARITY
    idx = np.arange(g, dtype=np.float64)
    decay = 1.0 / 2.0 ** (depth / 2.0)
    err1 = (g - idx) ** 2
    err2 = idx**2 * decay
    mixed = ((m - m1) * decay + m1)[:, None]
    total = (sumerr[:, None] - mixed * err2 / (err1 + err2 * kb[:, None])) / err1
    best = np.argmin(total, axis=1)
    return total[np.arange(best.size), best] * g**2, 1.0 - best / g


def greedy_strategy(k: Kernel) -> Strategy:
    """GreedyH's weights for the workload ``k`` (see the module docstring).

    Parameters
    ----------
    k : Kernel
        ``Q'Q`` of the workload over the cells.

    Returns
    -------
    Strategy
        The tree and every node's weight.
    """
    # Top-down: the binary tree, level by level (children: floor/ceil halves).
    los, his, leaves = [np.zeros(1, np.int64)], [np.array([k.size - 1])], []
    while True:
        lo, hi = los[-1], his[-1]
        leaf = _uniform(k, lo, hi)
        leaves.append(leaf)
        inner = ~leaf
        if not inner.any():
            break
        mid = lo[inner] + (hi[inner] - lo[inner] + 1) // 2
        los.append(np.column_stack([lo[inner], mid]).ravel())
        his.append(np.column_stack([mid - 1, hi[inner]]).ravel())
    # Bottom-up: every node's error, k, u'Gu and (semiseparable) moments.
    semi = not k.listed
    if semi:
        c_hl2 = np.concatenate(([0.0], np.cumsum(k.hl**2)))
        c_hr2 = np.concatenate(([0.0], np.cumsum(k.hr**2)))
        c_lr = np.concatenate(([0.0], np.cumsum(k.hl * k.hr)))
    u = np.zeros(k.size)
    share: list[FloatArray] = [np.ones(0)] * len(los)
    below: dict[str, FloatArray] = {}
    for d in range(len(los) - 1, -1, -1):
        lo, hi, leaf = los[d], his[d], leaves[d]
        n_nodes = lo.size
        err, kk, gself = np.zeros(n_nodes), np.ones(n_nodes), np.zeros(n_nodes)
        alpha, beta, a_l, a_r = (np.zeros(n_nodes) for _ in range(4))
        width = hi[leaf] - lo[leaf] + 1
        u[_spans(lo[leaf], hi[leaf])] = np.repeat(1.0 / width, width)  # leaves: u = 1/width
        if semi:
            i = np.asarray(lo[leaf], np.int64)
            alpha[leaf], beta[leaf] = k.hl[i], k.hr[i]
            a_l[leaf], a_r[leaf] = k.diag[i] * k.hl[i], k.diag[i] * k.hr[i]
            gself[leaf] = (
                c_hl2[i] * k.hr[i] ** 2 + k.diag[i] ** 2 + k.hl[i] ** 2 * (c_hr2[-1] - c_hr2[i + 1])
            )
            err[leaf] = gself[leaf]
        split = np.flatnonzero(~leaf)
        if split.size:
            li, ri = 2 * np.arange(split.size), 2 * np.arange(split.size) + 1
            llo, lhi, rlo, rhi = los[d + 1][li], his[d + 1][li], los[d + 1][ri], his[d + 1][ri]
            if semi:
                al, bl, ar_, br = (
                    below["alpha"][li],
                    below["beta"][li],
                    below["alpha"][ri],
                    below["beta"][ri],
                )
                cross = (
                    bl * br * c_hl2[llo]
                    + br * below["a_l"][li]
                    + al * below["a_r"][ri]
                    + al * ar_ * (c_hr2[-1] - c_hr2[rhi + 1])
                )
                m1 = below["gself"][li] + below["gself"][ri]
            else:
                gl, gr, cross = _listed_moments(k, u, (llo, lhi), (rlo, rhi))
                child_leaf = leaves[d + 1]
                below["err"] = below["err"].copy()
                below["err"][li] = np.where(child_leaf[li], gl, below["err"][li])
                below["err"][ri] = np.where(child_leaf[ri], gr, below["err"][ri])
                m1 = gl + gr
            m = m1 + 2.0 * cross
            kb = below["k"][li] + below["k"][ri]
            e, p = _choose(below["err"][li] + below["err"][ri], m, m1, kb, d)
            c = (1.0 - p) ** 2 / (p**2 + kb * (1.0 - p) ** 2)
            s = (1.0 - c * kb) / p**2
            err[split], kk[split], gself[split] = e, s * kb, s**2 * m
            share[d] = p
            u[_spans(llo, rhi)] *= np.repeat(s, rhi - llo + 1)
            if semi:
                sum_hlhr_r = c_lr[rhi + 1] - c_lr[rlo]
                sum_hl2_l = c_hl2[lhi + 1] - c_hl2[llo]
                sum_hr2_r = c_hr2[rhi + 1] - c_hr2[rlo]
                sum_hlhr_l = c_lr[lhi + 1] - c_lr[llo]
                alpha[split] = s * (al + ar_)
                beta[split] = s * (bl + br)
                a_l[split] = s * (
                    below["a_l"][li] + al * sum_hlhr_r + br * sum_hl2_l + below["a_l"][ri]
                )
                a_r[split] = s * (
                    below["a_r"][li] + al * sum_hr2_r + br * sum_hlhr_l + below["a_r"][ri]
                )
        below = {
            "err": err,
            "k": kk,
            "gself": gself,
            "alpha": alpha,
            "beta": beta,
            "a_l": a_l,
            "a_r": a_r,
        }
    return _assemble(los, his, leaves, share)


def _spans(lo: IntArray, hi: IntArray) -> IntArray:
    """The cells of the disjoint ranges ``[lo, hi]``, concatenated."""
    width = hi - lo + 1
    offsets = np.repeat(lo - (np.cumsum(width) - width), width)
    cells: IntArray = np.arange(int(width.sum()), dtype=np.int64) + offsets
    return cells


def _assemble(
    los: list[IntArray], his: list[IntArray], leaves: list[BoolArray], share: list[FloatArray]
) -> Strategy:
    """The greedy tree with its weights, multi-cell leaves given unmeasured cells below."""
    lo_all, hi_all, parent_all, weight_all = [], [], [], []
    mult = np.ones(1)
    parent = np.full(1, -1, np.int64)
    prev_position = np.zeros(0, np.int64)
    offset = 0
    for d in range(len(los) + 1):
        greedy = d < len(los)
        lo = los[d] if greedy else np.zeros(0, np.int64)
        hi = his[d] if greedy else np.zeros(0, np.int64)
        inner = ~leaves[d] if greedy else np.zeros(0, bool)
        weight = mult.copy()
        if greedy:
            weight[inner] = mult[inner] * (1.0 - share[d])
        if d > 0:  # the cells below the previous level's multi-cell leaves, unmeasured
            wide = leaves[d - 1] & (his[d - 1] > los[d - 1])
            width = (his[d - 1] - los[d - 1] + 1)[wide]
            cells = _spans(los[d - 1][wide], his[d - 1][wide])
            lo, hi = np.concatenate([lo, cells]), np.concatenate([hi, cells])
            parent = np.concatenate([parent, np.repeat(prev_position[wide], width)])
            weight = np.concatenate([weight, np.zeros(cells.size)])
        if lo.size == 0:
            break
        order = np.argsort(lo, kind="stable")
        lo_all.append(lo[order])
        hi_all.append(hi[order])
        parent_all.append(parent[order])
        weight_all.append(weight[order])
        position = np.empty(order.size, np.int64)
        position[order] = offset + np.arange(order.size)
        prev_position = position[: inner.size]
        offset += order.size
        if greedy:
            mult = np.repeat(mult[inner] * share[d], 2)
            parent = np.repeat(prev_position[inner], 2)
    lo_t, parent_t = np.concatenate(lo_all), np.concatenate(parent_all)
    n_child = np.bincount(parent_t[1:], minlength=lo_t.size).astype(np.int64)
    levels = np.array([a.size for a in lo_all], np.int64)
    tree = Tree(
        lo=lo_t,
        hi=np.concatenate(hi_all),
        parent=parent_t,
        depth=np.repeat(np.arange(levels.size, dtype=np.int64), levels),
        child_ptr=np.concatenate(([1], 1 + np.cumsum(n_child))).astype(np.int64),
        level_ptr=np.concatenate(([0], np.cumsum(levels))).astype(np.int64),
    )
    return Strategy(tree, np.concatenate(weight_all))


def greedy_release(
    counts: FloatArray, eps: float, k: Kernel, rng: np.random.Generator
) -> FloatArray:
    """GreedyH's least-squares estimate of ``counts`` (cells) for the workload ``k``.

    Parameters
    ----------
    counts : ndarray of float64, shape (k.size,)
        The cells' true counts.
    eps : float
        Budget: ``Lap(1/eps)`` on every weighted node sum (sensitivity 1).
    k : Kernel
        ``Q'Q`` of the workload over the cells.
    rng : numpy.random.Generator
        Source of the noise (one ``Laplace(0, 1)`` draw per tree node).

    Returns
    -------
    ndarray of float64, shape (k.size,)
        The weighted least-squares estimate (the tree BLUE with budgets ``eps * weight``).
    """
    strategy = greedy_strategy(k)
    budgets = eps * strategy.weight
    consistent = blue(strategy.tree, laplace_release(strategy.tree, counts, budgets, rng), budgets)
    cells: FloatArray = consistent[strategy.tree.leaf_of_bin]
    return cells


def greedy_h(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """GreedyH (Li, Hay, Miklau, Wang, PVLDB 2014): the workload-weighted binary tree.

    Adapts to the workload, not to the data (data-independent): see the module docstring.

    Parameters
    ----------
    counts : ndarray of float64, shape (n,)
        The histogram.
    eps : float
        Privacy budget, all spent on the weighted tree.
    workload : Ranges
        The workload the weights are chosen for.
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    Release
        The estimate and ``{"weighted tree": eps}``.
    """
    return Release(greedy_release(counts, eps, kernel(workload), rng), {"weighted tree": eps})
