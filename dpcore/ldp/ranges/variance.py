"""Exact variances of range answers under local DP: flat oracles and HH_B trees.

A range ``[a, b]``'s estimated fraction is linear in the levels' item estimates, whose
covariance is ``diag(d) - u u^T`` per level (:mod:`dpcore.ldp.ranges.oracles`), so its
variance is exact given the linear map. Averages over a workload of ranges use two identities:

* a node's share of the ranges whose decomposition uses it is its coverage probability
  (:func:`dpcore.hist.coverage.coverage_probabilities`, LUE-DPTree eq. 3.5);
* with the prefix functionals ``P_0 = 0, P_1, .., P_D`` (``P_j`` sums the first ``j`` items),
  ``sum_{i<j} ||P_j - P_i||^2 = (D+1) sum_j ||P_j||^2 - ||sum_j P_j||^2`` (any inner product).

Consistent trees reuse the central engine's exact errors (:mod:`dpcore.hist.blue_error`) for
the noise-only part; data terms under consistency need the estimator's weights on every
node (:meth:`dpcore.hist.consistency.BlueSmoother.transpose`), ``O(D x nodes)``.
Cormode, Kulkarni, Srivastava, PVLDB 2019; Wang et al., USENIX Security 2017; the team's
notes on LDP range queries.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.blue_error import blue_expected_error, blue_range_errors
from dpcore.hist.coverage import coverage_probabilities
from dpcore.ldp.ranges.consistency import authors_consistency, blue_budgets, blue_smoother
from dpcore.ldp.ranges.hierarchy import (
    MAX_DOMAIN,
    LdpTree,
    level_covariances,
    node_variances,
    replica_weights,
)
from dpcore.ldp.ranges.oracles import (
    ORACLES,
    Covariance,
    check_range_set,
    checked_eps,
    covariance_factors,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

Consistency = Literal["none", "blue", "authors"]
RangeSet = Literal["all", "prefix"]
MAX_DENSE_CELLS = 2**25
"""Largest ``domain x nodes`` for closed forms that need every node's weight in every prefix
(data terms under BLUE, the authors' map): at ``2^25`` a few seconds and ~0.3 GB."""
_BLOCK = 2**22  # cells per block of ranges or prefixes


def all_range_sum(prefix: FloatArray, weights: FloatArray) -> float:
    """``sum_{i<j} sum_x w_x (P_jx - P_ix)^2`` over the rows ``P_0..P_D`` of ``prefix``.

    Examples
    --------
    >>> all_range_sum(np.array([[0.0], [1.0], [2.0]]), np.array([1.0]))  # ranges 1, 1, 2
    6.0
    """
    total = prefix.sum(axis=0)
    rows = prefix.shape[0]
    return float(rows * ((prefix**2) @ weights).sum() - (total**2) @ weights)


# ----------------------------------------------------------------------------- flat


def flat_range_variance(
    oracle: str,
    *,
    eps: float,
    users: int,
    a: ArrayLike,
    b: ArrayLike,
    domain: int,
    frequencies: ArrayLike | None = None,
) -> FloatArray:
    """Variance of each range's estimated fraction, all ``N`` users reporting the items.

    .. math:: \\mathrm{Var}[\\hat Q] = \\sum_{v \\in Q} d_v - \\Big(\\sum_{v \\in Q} u_v\\Big)^2
              + \\Big(\\sum_{v \\in Q} g_v\\Big)^2

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle.
    eps : float
        Each user's budget.
    users : int
        Number of users ``N``.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.
    domain : int
        Number of items ``D``.
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.

    Returns
    -------
    ndarray of float64
        One variance per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < domain`` or ``frequencies`` is invalid.
    """
    first, last = _validate.ranges(domain, a, b)
    cov = _flat_factors(oracle, eps, users, domain, frequencies)
    d_sum, u_sum, g_sum = (np.concatenate(([0.0], np.cumsum(x))) for x in (cov.d, cov.u, cov.g))
    out = d_sum[last + 1] - d_sum[first] - (u_sum[last + 1] - u_sum[first]) ** 2
    out += (g_sum[last + 1] - g_sum[first]) ** 2
    return np.asarray(out, dtype=np.float64)


def flat_average_variance(
    oracle: str,
    *,
    eps: float,
    users: int,
    domain: int,
    frequencies: ArrayLike | None = None,
    ranges: RangeSet = "all",
) -> float:
    """The average of :func:`flat_range_variance` over all ranges or all prefixes, ``O(D)``.

    .. math:: \\frac{1}{D(D+1)/2} \\Big(\\sum_v d_v (v+1)(D-v)
              - (D+1) \\sum_j U_j^2 + \\big(\\sum_j U_j\\big)^2
              + (D+1) \\sum_j G_j^2 - \\big(\\sum_j G_j\\big)^2 \\Big),\\quad
              U_j = \\sum_{v<j} u_v,\\ G_j = \\sum_{v<j} g_v

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle.
    eps : float
        Each user's budget.
    users : int
        Number of users ``N``.
    domain : int
        Number of items ``D``.
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.
    ranges : {"all", "prefix"}, default "all"
        Average over the ``D(D+1)/2`` ranges or the ``D`` prefixes ``[0, b]``.

    Returns
    -------
    float
        The average variance.

    Raises
    ------
    ValueError
        If ``frequencies`` or ``ranges`` is invalid.
    """
    cov = _flat_factors(oracle, eps, users, domain, frequencies)
    domain = cov.d.size
    u_prefix, g_prefix = (np.concatenate(([0.0], np.cumsum(x))) for x in (cov.u, cov.g))
    if ranges == "prefix":
        return float((np.cumsum(cov.d) - u_prefix[1:] ** 2 + g_prefix[1:] ** 2).mean())
    check_range_set(ranges)
    v = np.arange(domain, dtype=np.float64)
    total = cov.d @ ((v + 1) * (domain - v)) - all_range_sum(u_prefix[:, None], np.ones(1))
    total += all_range_sum(g_prefix[:, None], np.ones(1))
    return float(total / (domain * (domain + 1) / 2))


def _flat_factors(
    oracle: str, eps: float, users: int, domain: int, frequencies: ArrayLike | None
) -> Covariance:
    if oracle not in ORACLES:
        raise ValueError(f"oracle must be one of {ORACLES}, got {oracle!r}")
    d = _validate.whole("domain", domain, lower=2, upper=MAX_DOMAIN)
    n = _validate.whole("users", users, lower=1)
    f = None
    if frequencies is not None:
        f = _validate.finite_array("frequencies", frequencies, size=d, nonnegative=True)
    return covariance_factors(oracle, checked_eps(eps), d, float(n), f)


# ----------------------------------------------------------------------------- trees


def used_nodes(plan: LdpTree, a: IntArray, b: IntArray) -> NDArray[np.bool_]:
    """Per range (row), which nodes its canonical decomposition uses (the root never does
    a job: the full range uses it and costs 0).

    Parameters
    ----------
    plan : LdpTree
        The collection.
    a, b : ndarray of int64, shape (r,)
        Valid range starts and ends.

    Returns
    -------
    ndarray of bool, shape (r, tree.size)
        ``Q ⊇ x`` and ``Q ⊉ parent(x)``.
    """
    t = plan.tree
    inside = (t.lo >= a[:, None]) & (t.hi <= b[:, None])
    used = inside.copy()
    used[:, 1:] &= ~inside[:, t.parent[1:]]
    return used


def tree_range_variance(
    plan: LdpTree,
    a: ArrayLike,
    b: ArrayLike,
    *,
    consistency: Consistency = "none",
    frequencies: ArrayLike | None = None,
) -> FloatArray:
    """Variance of each range's estimated fraction from an HH_B collection.

    Without consistency the answer sums the decomposition's node estimates (a node reported
    at several levels combines them: :func:`dpcore.ldp.ranges.hierarchy.replica_weights`);
    with it, the sum of the consistent leaves (``"blue"``: the exact BLUE, root known -- a
    weighted least squares when GRR levels covary;
    ``"authors"``: the CKS19 code's map).

    .. math:: \\mathrm{Var}[\\hat Q] = \\sum_l \\Big(\\sum_x c_{lx}^2 d_{lx}
              - \\big(\\sum_x c_{lx} u_{lx}\\big)^2 + \\big(\\sum_x c_{lx} g_{lx}\\big)^2\\Big)

    Parameters
    ----------
    plan : LdpTree
        The collection.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.
    consistency : {"none", "blue", "authors"}, default "none"
        The post-processing.
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.

    Returns
    -------
    ndarray of float64
        One variance per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is invalid, ``consistency`` is unknown, or the authors' map meets a domain
        that is not a power of the fan-out.
    """
    first, last = _validate.ranges(plan.tree.n_bins, a, b)
    shape = first.shape
    first, last = first.ravel(), last.ravel()
    if consistency == "blue" and frequencies is None and "grr" not in plan.oracles:
        out = blue_range_errors(plan.tree, blue_budgets(plan), first, last)
        return np.asarray(out.reshape(shape), dtype=np.float64)
    weights = answer_weights(plan, first, last, consistency)
    return _variance_of(plan, weights, frequencies).reshape(shape)


def answer_weights(
    plan: LdpTree, first: IntArray, last: IntArray, consistency: str
) -> list[FloatArray]:
    """The weight of every node's estimate in each range's answer, in blocks of ranges.

    Parameters
    ----------
    plan : LdpTree
        The collection.
    first, last : ndarray of int64, shape (r,)
        Valid range starts and ends.
    consistency : {"none", "blue", "authors"}
        The post-processing.

    Returns
    -------
    list of ndarray of float64
        Blocks of rows (ranges, in order) by ``tree.size`` columns (node estimates; a node
        reported at several levels is weighted further by
        :func:`dpcore.ldp.ranges.hierarchy.replica_weights`).

    Raises
    ------
    ValueError
        If ``consistency`` is unknown, or the authors' map meets an incomplete tree or more
        than ``MAX_DENSE_CELLS`` node pairs.
    """
    t = plan.tree
    if consistency == "blue":
        smoother = blue_smoother(plan)
    elif consistency == "authors":
        _check_cells(t.size, t.size, "node")
        fanout = int(t.n_children[0])
        leaf_map = authors_consistency(t, fanout, np.eye(t.size))[t.leaf_of_bin]
    elif consistency != "none":
        raise ValueError(f"consistency must be 'none', 'blue' or 'authors', got {consistency!r}")
    step = max(1, _BLOCK // t.size)
    blocks = []
    for start in range(0, first.size, step):
        a, b = first[start : start + step], last[start : start + step]
        if consistency == "none":
            blocks.append(used_nodes(plan, a, b).astype(np.float64))
            continue
        bins = np.arange(t.n_bins)
        picked = ((bins >= a[:, None]) & (bins <= b[:, None])).astype(np.float64)
        if consistency == "authors":
            blocks.append(picked @ leaf_map)
            continue
        on_nodes = np.zeros((t.size, a.size))
        on_nodes[t.leaf_of_bin] = picked.T
        blocks.append(smoother.transpose(on_nodes).T)
    return blocks


def _variance_of(
    plan: LdpTree, blocks: list[FloatArray], frequencies: ArrayLike | None
) -> FloatArray:
    """Variances of the linear answers with node weights ``blocks`` (rows: answers)."""
    return np.asarray(level_variances(plan, blocks, frequencies).sum(axis=1), dtype=np.float64)


def level_variances(
    plan: LdpTree, blocks: list[FloatArray], frequencies: ArrayLike | None
) -> FloatArray:
    """Each level's share of the variance of linear answers (the levels are independent).

    Parameters
    ----------
    plan : LdpTree
        The collection.
    blocks : list of ndarray of float64
        Blocks of rows (answers) by ``tree.size`` columns: the weight of every node's estimate
        (as :func:`answer_weights` returns them).
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.

    Returns
    -------
    ndarray of float64, shape (answers, levels)
        ``sum_x c_lx^2 d_lx - (sum_x c_lx u_lx)^2 + (sum_x c_lx g_lx)^2`` per answer and
        level ``1..h``.
    """
    covariances = level_covariances(plan, frequencies)
    replicas = replica_weights(plan)
    out = []
    for weights in blocks:
        var = np.zeros((weights.shape[0], plan.levels))
        levels = zip(plan.level_items, covariances, replicas, strict=True)
        for depth, ((nodes, _), cov, share) in enumerate(levels):
            var[:, depth] = cov.of(weights[:, nodes] * share)
        out.append(var)
    return np.concatenate(out) if out else np.zeros((0, plan.levels))


def tree_average_variance(
    plan: LdpTree,
    *,
    consistency: Consistency = "none",
    frequencies: ArrayLike | None = None,
    ranges: RangeSet = "all",
) -> float:
    """The average of :func:`tree_range_variance` over all ranges or all prefixes.

    No consistency, uncorrelated levels: ``sum_x sigma_x^2 p_x`` (``p_x`` the coverage
    probability), ``O(nodes)``. Exact BLUE, noise only: the central engine's
    :func:`dpcore.hist.blue_error.blue_expected_error`, ``O(D h)``. Otherwise (data terms or GRR
    levels under consistency, the authors' map) every prefix's node weights, ``O(D x nodes)``;
    GRR levels
    without consistency (not a consistent estimator: no prefix identity) every range's,
    ``O(D^2 x nodes)``; both up to ``MAX_DENSE_CELLS``.

    Parameters
    ----------
    plan : LdpTree
        The collection.
    consistency : {"none", "blue", "authors"}, default "none"
        The post-processing.
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions for the data terms; None: noise only.
    ranges : {"all", "prefix"}, default "all"
        Average over the ``D(D+1)/2`` ranges or the ``D`` prefixes ``[0, b]``.

    Returns
    -------
    float
        The average variance.

    Raises
    ------
    ValueError
        If an argument is invalid, or the dense route is needed beyond ``MAX_DENSE_CELLS``
        (naming ``domain``).
    """
    check_range_set(ranges)
    t = plan.tree
    workload = "uniform" if ranges == "all" else "prefix"
    correlated = "grr" in plan.oracles
    if consistency == "none" and not correlated:
        return float(node_variances(plan, frequencies) @ coverage_probabilities(t, workload))
    if consistency == "blue" and frequencies is None and not correlated:
        return blue_expected_error(t, blue_budgets(plan), workload)
    if consistency == "none":  # GRR levels: not consistent, so every range is enumerated
        first, last = _workload(t.n_bins, ranges)
        _check_cells(first.size, t.size, "range")
        blocks = answer_weights(plan, first, last, consistency)
        return float(_variance_of(plan, blocks, frequencies).mean())
    _check_cells(t.n_bins, t.size, "prefix")
    ends = np.arange(t.n_bins, dtype=np.int64)
    prefix_weights = answer_weights(plan, np.zeros_like(ends), ends, consistency)
    if ranges == "prefix":
        return float(_variance_of(plan, prefix_weights, frequencies).mean())
    total = _prefix_pair_sum(plan, np.concatenate(prefix_weights), frequencies)
    return total / (t.n_bins * (t.n_bins + 1) / 2)


def _workload(n: int, ranges: str) -> tuple[IntArray, IntArray]:
    if ranges == "prefix":
        ends = np.arange(n, dtype=np.int64)
        return np.zeros_like(ends), ends
    first, last = np.triu_indices(n)
    return first.astype(np.int64), last.astype(np.int64)


def _check_cells(rows: int, nodes: int, what: str) -> None:
    if rows * nodes > MAX_DENSE_CELLS:
        raise ValueError(
            f"domain: this average needs every {what}'s weights on every node, "
            f"{rows} x {nodes} > {MAX_DENSE_CELLS:,} cells; use a smaller domain, noise only, "
            "no consistency or no GRR level"
        )


def _prefix_pair_sum(
    plan: LdpTree, prefix_weights: FloatArray, frequencies: ArrayLike | None
) -> float:
    """``sum_{i<j} Var(P_j - P_i)`` over the prefixes ``P_0 = 0, .., P_D``, level by level."""
    rows = prefix_weights.shape[0] + 1
    total = 0.0
    covariances = level_covariances(plan, frequencies)
    levels = zip(plan.level_items, covariances, replica_weights(plan), strict=True)
    for (nodes, _), cov, share in levels:
        w = prefix_weights[:, nodes] * share
        total += rows * ((w**2) @ cov.d).sum() - (w.sum(axis=0) ** 2) @ cov.d
        wu, wg = (np.concatenate(([0.0], w @ x)) for x in (cov.u, cov.g))
        total += all_range_sum(wg[:, None], np.ones(1)) - all_range_sum(wu[:, None], np.ones(1))
    return float(total)
