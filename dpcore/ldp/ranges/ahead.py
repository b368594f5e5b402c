"""AHEAD: an adaptive hierarchical decomposition for range queries under local DP.

Du, Zhang, Bai, Liu, Ji, Cheng, Chen, "AHEAD: Adaptive Hierarchical Decomposition for Range
Query under Local Differential Privacy", CCS 2021 (arXiv 2110.07505); restated from the
authors' code (link-zju/ccs21-AHEAD, ``ahead_1dim.py``) in the team's notes on LDP range
queries. ``D = B^h`` items:

1. **Users split into ``h`` groups**, one per level (each user draws hers uniformly, as the
   code does, or a random partition): each user reports once, at the full eps.
2. **The frontier grows level by level.** The root (known, 1) always splits into its ``B``
   children. At level ``l = 1..h`` group ``l`` reports with OUE over the current frontier:
   the nodes created at depth ``l`` and every earlier node that stopped (its users report it
   again, and its estimate is the running mean of its reports). A node created at depth
   ``l < h`` splits into ``B`` children iff its estimate reaches

   .. math:: \\theta = \\sqrt{(B + 1)\\, V(\\varepsilon)\\, h / N},\\qquad
             V = \\frac{4 e^\\varepsilon}{(e^\\varepsilon - 1)^2}

   (``theta_calculation``: ``(B+1)`` times one node's OUE variance with ``N/h`` users).
3. **Norm-Sub per level** (:func:`dpcore.ldp.ranges.consistency.norm_sub`): the frontier is
   a partition of the domain, its estimates made non-negative and summing to 1. (The code
   stops after one round of Norm-Sub, which can leave negatives; here it runs to its end.)
4. **Bottom-up weighted averaging**: each split node's estimate is averaged with the sum of
   its children's by inverse variance, a node averaging ``k`` reports having variance
   ``sigma^2/k`` (Hay et al.'s upward pass; no downward pass, as in the code). The code's
   weight, ``(1/k_x + sum 1/k_c) / (1/k_x + sum 1/k_c + 1)``, is not the inverse-variance one
   (3/4 where inverse variance gives 2/3 for a node and two children of one report each);
   the inverse-variance weights are used here. The root stays 1 (the code averages it too).
5. **Answers**: the maximal adaptive nodes inside the range, plus each frontier leaf that
   overlaps it in part pro rata (uniformity within a leaf).

Each step but the last makes the estimate non-linear in the reports (the decomposition
itself depends on the noise; Norm-Sub clips), so AHEAD's error depends on the data and has
no closed form: it is measured by simulation (``bench/bench_ldp_ranges.py``), against
HH_B's exact closed form in the same run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.ldp.ranges.aggregate import aggregate_statistic
from dpcore.ldp.ranges.consistency import norm_sub
from dpcore.ldp.ranges.hierarchy import MAX_DOMAIN
from dpcore.ldp.ranges.oracles import checked_eps, estimate, noise_constant
from dpcore.ldp.ranges.reports import user_statistic
from dpcore.ldp.ranges.simulate import (
    Groups,
    check_groups,
    level_counts,
    shuffled_users,
    user_levels,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class AheadRelease:
    """One AHEAD collection: the adaptive tree and its post-processed estimates.

    Depth ``d = 0..h`` holds the ``B^d`` nodes of the complete tree, node ``j`` covering items
    ``[j D/B^d, (j+1) D/B^d)``; the adaptive tree is the subset ``present``.

    Attributes
    ----------
    fanout : int
        ``B``.
    eps : float
        Each user's budget (each reports once, at ``eps``).
    theta : float
        The splitting threshold.
    present : tuple of ndarray of bool
        Per depth, the nodes of the adaptive tree.
    split : tuple of ndarray of bool
        Per depth, the nodes with children (the root always).
    values : tuple of ndarray of float64
        Per depth, the post-processed estimates (0 where absent; the root 1).
    created : tuple of ndarray of float64
        Per depth ``1..h`` (index 0: the root, 1), each node's estimate from the level that
        created it: the one compared with ``theta`` (0 where absent).
    group_sizes : ndarray of int64, shape (h,)
        The users who reported at each level ``1..h`` (their sum: ``N``).
    frontier_sizes : ndarray of int64, shape (h,)
        The items of each level's OUE report (the frontier).
    """

    fanout: int
    eps: float
    theta: float
    present: tuple[BoolArray, ...]
    split: tuple[BoolArray, ...]
    values: tuple[FloatArray, ...]
    created: tuple[FloatArray, ...]
    group_sizes: IntArray
    frontier_sizes: IntArray

    @property
    def levels(self) -> int:
        """``h``: the levels below the root."""
        return len(self.present) - 1

    @property
    def domain(self) -> int:
        """``D = B^h``."""
        return int(self.fanout**self.levels)


def ahead_levels(domain: int, fanout: int) -> int:
    """``h`` with ``D = B^h``; ValueError unless the domain is a power of the fan-out.

    Examples
    --------
    >>> ahead_levels(1024, 4)
    5
    """
    d = _validate.whole("domain", domain, lower=2, upper=MAX_DOMAIN)
    b = _validate.whole("fanout", fanout, lower=2, upper=d)
    h = round(math.log(d) / math.log(b))
    if b**h != d:
        raise ValueError(
            f"domain must be a power of the fan-out {b} for AHEAD, got {d}; pad the domain "
            f"to {b ** math.ceil(math.log(d) / math.log(b))} items (empty ones)"
        )
    return h


def ahead_threshold(domain: int, fanout: int, eps: float, users: int) -> float:
    """AHEAD's splitting threshold ``theta = sqrt((B + 1) V(eps) h / N)``.

    Parameters
    ----------
    domain : int
        ``D``, a power of ``fanout``.
    fanout : int
        ``B``.
    eps : float
        Each user's budget.
    users : int
        ``N`` (``>= h``).

    Returns
    -------
    float
        ``theta``.

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.

    Examples
    --------
    >>> round(ahead_threshold(2**10, 2, 1.0, 10**5), 5)  # the code's defaults
    0.03324
    """
    h = ahead_levels(domain, fanout)
    n = _validate.whole("users", users, lower=h)
    return math.sqrt((fanout + 1) * noise_constant("oue", checked_eps(eps), 2) * h / n)


def simulate_ahead(
    histogram: ArrayLike,
    eps: float,
    *,
    rng: np.random.Generator,
    fanout: int = 2,
    per_user: bool = False,
    groups: Groups = "independent",
    normalise: bool = True,
) -> AheadRelease:
    """One AHEAD collection from the users' items (module notes, steps 1-4).

    Parameters
    ----------
    histogram : array_like of int, shape (domain,)
        Users per item; ``domain`` a power of ``fanout``, at least ``h`` users.
    eps : float
        Each user's budget.
    rng : numpy.random.Generator
        Source of the randomness.
    fanout : int, default 2
        ``B`` (the authors' default).
    per_user : bool, default False
        Draw every user's level and OUE report; otherwise each level's group and report
        counts from their exact laws (:mod:`dpcore.ldp.ranges.aggregate`), any number of users.
    groups : {"independent", "partition"}, default "independent"
        Each user draws her level (the code), or users are split at random into equal groups.
    normalise : bool, default True
        Norm-Sub each level's frontier estimates (AHEAD does; False keeps them unbiased given
        the frontier, to measure what Norm-Sub does).

    Returns
    -------
    AheadRelease
        The adaptive tree and its estimates (answer ranges with :func:`ahead_answers`).

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    check_groups(groups)
    raw = np.asarray(histogram)
    h = ahead_levels(raw.size, fanout)
    e = checked_eps(eps)
    n = _validate.counts("histogram", raw, size=raw.size)
    users = _validate.whole("users (the histogram's sum)", int(n.sum()), lower=h)
    theta = ahead_threshold(raw.size, fanout, e, users)
    if per_user:
        items = shuffled_users(n, rng)
        level = user_levels(items.size, h, groups, rng)
    else:
        counts = level_counts(n, h, groups, rng)
    present = [np.ones(1, bool)]
    split = [np.ones(1, bool)]
    total, reports = [np.ones(1)], [np.ones(1)]
    created = [np.ones(1)]
    frontier_sizes, group_sizes = [], []
    for depth in range(1, h + 1):
        present.append(np.repeat(split[-1], fanout))
        total.append(np.zeros(present[-1].size))
        reports.append(np.zeros(present[-1].size))
        leaves, item_of_bin = _frontier(present, split, raw.size, fanout)
        k = sum(x.size for x in leaves)
        if per_user:
            mine = items[level == depth - 1]
            stat = user_statistic("oue", item_of_bin[mine], e, k, rng=rng)
            m = mine.size
        else:
            group = counts[depth - 1]
            holders = np.bincount(item_of_bin, weights=group, minlength=k)
            stat = aggregate_statistic("oue", holders.astype(np.int64), e, rng=rng)
            m = int(group.sum())
        found = estimate("oue", stat, m, e, k)
        if normalise:
            found = norm_sub(found)
        start = 0
        for d, nodes in enumerate(leaves):
            total[d][nodes] += found[start : start + nodes.size]
            reports[d][nodes] += 1
            start += nodes.size
        created.append(total[-1].copy())
        if depth < h:
            split.append(present[-1] & (created[-1] >= theta))
        frontier_sizes.append(k)
        group_sizes.append(m)
    split.append(np.zeros(present[-1].size, bool))
    values = _weighted_average(present, split, total, reports, fanout)
    return AheadRelease(
        fanout,
        e,
        theta,
        tuple(present),
        tuple(split),
        tuple(values),
        tuple(created),
        np.asarray(group_sizes, np.int64),
        np.asarray(frontier_sizes, np.int64),
    )


def _frontier(
    present: list[BoolArray], split: list[BoolArray], domain: int, fanout: int
) -> tuple[list[IntArray], IntArray]:
    """The frontier: per depth ``0..l`` its nodes (in that order, they number the report's
    items), and each item's frontier node (its deepest present ancestor)."""
    deepest = len(present) - 1
    leaves: list[IntArray] = [np.zeros(0, np.int64)]  # the root is never reported
    item_of_bin = np.zeros(domain, np.int64)
    bins = np.arange(domain)
    offset = 0
    for depth in range(1, deepest + 1):
        leaf = present[depth] if depth == deepest else present[depth] & ~split[depth]
        numbers = np.cumsum(leaf) - 1 + offset
        node_of_bin = bins // (domain // fanout**depth)
        item_of_bin = np.where(leaf[node_of_bin], numbers[node_of_bin], item_of_bin)
        leaves.append(np.flatnonzero(leaf))
        offset += leaves[-1].size
    return leaves, item_of_bin


def _weighted_average(
    present: list[BoolArray],
    split: list[BoolArray],
    total: list[FloatArray],
    reports: list[FloatArray],
    fanout: int,
) -> list[FloatArray]:
    """Step 4: bottom-up, a split node's mean estimate and its children's sum averaged by
    inverse variance (``k`` reports: variance ``1/k`` in units of one report's)."""
    values = [t / np.maximum(r, 1) for t, r in zip(total, reports, strict=True)]
    precision = [r.copy() for r in reports]
    for depth in range(len(present) - 2, 0, -1):
        nodes = np.flatnonzero(split[depth])
        kids = (nodes[:, None] * fanout + np.arange(fanout)).ravel()  # all present, reported
        kid_sum = values[depth + 1][kids].reshape(-1, fanout).sum(axis=1)
        kid_precision = 1.0 / (1.0 / precision[depth + 1][kids]).reshape(-1, fanout).sum(axis=1)
        own = precision[depth][nodes]
        values[depth][nodes] = (own * values[depth][nodes] + kid_precision * kid_sum) / (
            own + kid_precision
        )
        precision[depth][nodes] = own + kid_precision
    values[0] = np.ones(1)
    return values


def ahead_node_values(release: AheadRelease) -> list[FloatArray]:
    """Every node of the complete tree valued: its estimate if in the adaptive tree, else its
    share of the frontier leaf above it (``|x| / |leaf|`` of the leaf's estimate).

    Parameters
    ----------
    release : AheadRelease
        The collection.

    Returns
    -------
    list of ndarray of float64
        Per depth ``0..h``, ``B^d`` values; the last are the items' estimates.
    """
    out = [release.values[0]]
    for depth in range(1, release.levels + 1):
        spread = np.repeat(out[-1], release.fanout) / release.fanout
        out.append(np.where(release.present[depth], release.values[depth], spread))
    return out


def ahead_answers(release: AheadRelease, a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Each range's estimated fraction (module notes, step 5), ``O(h)`` per range.

    The maximal adaptive nodes inside ``[a, b]`` and the frontier leaves overlapping it in
    part are exactly the canonical nodes of the complete tree valued by
    :func:`ahead_node_values` (a canonical node below a frontier leaf stands for its share of
    that leaf; no leaf inside the range has a canonical node below it), so the answer sums
    those per depth from prefix sums.

    Parameters
    ----------
    release : AheadRelease
        The collection.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    ndarray of float64
        One answer per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < domain``.
    """
    d, fanout = release.domain, release.fanout
    first, last = _validate.ranges(d, a, b)
    out = np.zeros(first.shape)
    outer_lo = outer_hi = np.zeros(first.shape, np.int64)
    for depth, values in enumerate(ahead_node_values(release)):
        size = d // fanout**depth
        prefix = np.concatenate(([0.0], np.cumsum(values)))
        lo = -(-first // size)
        hi = np.maximum((last + 1) // size, lo)
        # nodes inside the range, less the children of the parents inside it
        out += prefix[hi] - prefix[lo] - prefix[fanout * outer_hi] + prefix[fanout * outer_lo]
        outer_lo, outer_hi = lo, hi
    return out
