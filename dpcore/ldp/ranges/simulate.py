"""Simulated collections: flat oracles, HH_B trees and HaarHRR, per user or in aggregate.

``per_user=False`` draws each level's group and each oracle's statistic from their exact laws
(:mod:`dpcore.ldp.ranges.aggregate`): level choices as one multinomial per item, so 10^8 users
cost what 10^3 do. ``per_user=True`` draws every user's level and report
(:mod:`dpcore.ldp.ranges.reports`): the reference the aggregate is tested against. OLH's
aggregate is the ideal-random-hash model; its per-user run hashes with a concrete
2-independent family. Each level estimates its own group's histogram (the estimand of the
closed forms), normalised by the group's actual size; against the whole population a random
partition into groups adds :func:`dpcore.ldp.ranges.population.sampling_variance`.
Cormode, Kulkarni, Srivastava, PVLDB 2019; the team's notes on LDP range queries.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.ldp.ranges.aggregate import aggregate_statistic, split_levels
from dpcore.ldp.ranges.consistency import norm_sub
from dpcore.ldp.ranges.haar import haar_levels, item_signs
from dpcore.ldp.ranges.hierarchy import LdpTree, node_estimates
from dpcore.ldp.ranges.oracles import ORACLES, checked_eps, estimate
from dpcore.ldp.ranges.population import group_sizes, partition_groups
from dpcore.ldp.ranges.reports import user_statistic

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

Groups = Literal["independent", "partition"]


def draw_histogram(
    frequencies: ArrayLike, users: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """``users`` i.i.d. users' items as a histogram: ``Multinomial(N, f)``.

    Parameters
    ----------
    frequencies : array_like of float, shape (d,)
        Item probabilities (finite, ``>= 0``, normalised here; not all 0).
    users : int
        ``N >= 1``.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (d,)
        Users per item.

    Raises
    ------
    ValueError
        If ``frequencies`` is invalid or sums to 0, or ``users < 1``.
    """
    f = _validate.finite_array("frequencies", frequencies, nonnegative=True)
    n = _validate.whole("users", users, lower=1)
    if not f.sum() > 0:
        raise ValueError("frequencies must have a positive sum")
    return np.asarray(rng.multinomial(n, f / f.sum()), dtype=np.int64)


def shuffled_users(histogram: IntArray, rng: np.random.Generator) -> IntArray:
    """Each user's item, users in random order (from the histogram)."""
    return rng.permutation(np.repeat(np.arange(histogram.size, dtype=np.int64), histogram))


def simulate_flat(
    oracle: str,
    histogram: ArrayLike,
    eps: float,
    *,
    rng: np.random.Generator,
    per_user: bool = False,
    normalise: bool = False,
) -> FloatArray:
    """Every user reports her item with one oracle; the collector's estimated fractions.

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle.
    histogram : array_like of int, shape (d,)
        Users per item (``d >= 2``).
    eps : float
        Each user's budget.
    rng : numpy.random.Generator
        Source of the randomness.
    per_user : bool, default False
        Draw every report instead of the aggregate.
    normalise : bool, default False
        Post-process by Norm-Sub (:func:`dpcore.ldp.ranges.consistency.norm_sub`):
        non-negative, summing to 1, biased -- the closed forms no longer apply.

    Returns
    -------
    ndarray of float64, shape (d,)
        Estimated fraction of each item (unbiased unless ``normalise``).

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    if oracle not in ORACLES:
        raise ValueError(f"oracle must be one of {ORACLES}, got {oracle!r}")
    e = checked_eps(eps)
    raw = np.asarray(histogram)
    if raw.ndim != 1 or raw.size < 2:
        raise ValueError(f"histogram must be a 1-D array of >= 2 counts, got shape {raw.shape}")
    n = _validate.counts("histogram", raw, size=raw.size)
    m = int(n.sum())
    if per_user:
        stat = user_statistic(oracle, shuffled_users(n, rng), e, n.size, rng=rng)
    else:
        stat = aggregate_statistic(oracle, n, e, rng=rng)
    out = estimate(oracle, stat, m, e, n.size)
    return norm_sub(out) if normalise else out


def simulate_tree(
    plan: LdpTree,
    histogram: ArrayLike,
    *,
    rng: np.random.Generator,
    per_user: bool = False,
    groups: Groups = "independent",
    normalise: bool = False,
) -> FloatArray:
    """One HH_B collection: every node's estimate (replicas combined, root 1, no consistency).

    Parameters
    ----------
    plan : LdpTree
        The collection (``plan.users`` users).
    histogram : array_like of int, shape (domain,)
        Users per item, summing to ``plan.users``.
    rng : numpy.random.Generator
        Source of the randomness.
    per_user : bool, default False
        Draw every user's level and report instead of the aggregates.
    groups : {"independent", "partition"}, default "independent"
        Sampled levels: each user draws her level independently (the CKS19 and AHEAD code),
        or users are split at random into groups of
        :func:`dpcore.ldp.ranges.population.group_sizes` (fewer than 10^9 users).
    normalise : bool, default False
        Post-process each level's estimates (a partition of the domain) by Norm-Sub, as AHEAD
        does (:func:`dpcore.ldp.ranges.consistency.norm_sub`): biased, outside the closed forms.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Node estimates; consistency is a separate step
        (:mod:`dpcore.ldp.ranges.consistency`).

    Raises
    ------
    ValueError
        If ``histogram`` is not ``domain`` whole numbers ``>= 0`` summing to ``plan.users``, or
        ``groups`` is unknown.
    """
    check_groups(groups)
    sampled = plan.levels_mode == "sample"
    n = _validate.counts("histogram", histogram, size=plan.tree.n_bins)
    if int(n.sum()) != plan.users:
        raise ValueError(f"histogram must sum to plan.users = {plan.users}, got {int(n.sum())}")
    h, eps = plan.levels, plan.level_eps
    estimates = []
    if per_user:
        items = shuffled_users(n, rng)
        level = user_levels(items.size, h, groups, rng) if sampled else None
        for depth, ((nodes, item_of_bin), name) in enumerate(
            zip(plan.level_items, plan.oracles, strict=True)
        ):
            mine = items if level is None else items[level == depth]
            stat = user_statistic(name, item_of_bin[mine], eps, nodes.size, rng=rng)
            estimates.append(estimate(name, stat, mine.size, eps, nodes.size))
    else:
        counts = level_counts(n, h, groups, rng) if sampled else None
        for depth, ((nodes, item_of_bin), name) in enumerate(
            zip(plan.level_items, plan.oracles, strict=True)
        ):
            group = n if counts is None else counts[depth]
            holders = np.bincount(item_of_bin, weights=group, minlength=nodes.size)
            stat = aggregate_statistic(name, holders.astype(np.int64), eps, rng=rng)
            estimates.append(estimate(name, stat, int(group.sum()), eps, nodes.size))
    return node_estimates(plan, [norm_sub(x) for x in estimates] if normalise else estimates)


def simulate_haar(
    histogram: ArrayLike,
    eps: float,
    *,
    rng: np.random.Generator,
    per_user: bool = False,
    groups: Groups = "independent",
) -> FloatArray:
    """One HaarHRR collection: the estimated coefficients (invert with
    :func:`dpcore.ldp.ranges.haar.haar_leaves`).

    Parameters
    ----------
    histogram : array_like of int, shape (domain,)
        Users per item; the domain a power of two, at least ``h = log2 D`` users.
    eps : float
        Each user's budget.
    rng : numpy.random.Generator
        Source of the randomness.
    per_user : bool, default False
        Draw every user's level and report instead of the aggregates.
    groups : {"independent", "partition"}, default "independent"
        Each user draws her level independently, or users are split at random into groups of
        :func:`dpcore.ldp.ranges.population.group_sizes` (as :func:`simulate_tree`).

    Returns
    -------
    ndarray of float64, shape (domain - 1,)
        Estimated coefficients, level ``k`` node ``u`` at index ``2^k - 1 + u``.

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    check_groups(groups)
    raw = np.asarray(histogram)
    h = haar_levels(raw.size)
    e = checked_eps(eps)
    n = _validate.counts("histogram", raw, size=raw.size)
    _validate.whole("users (the histogram's sum)", int(n.sum()), lower=h)
    index, sign = item_signs(n.size)
    out = []
    if per_user:
        items = shuffled_users(n, rng)
        level = user_levels(items.size, h, groups, rng)
    else:
        counts = level_counts(n, h, groups, rng)
    for k in range(h):
        node_of = index[k] - ((1 << k) - 1)
        if per_user:
            mine = items[level == k]
            stat = user_statistic("hrr", node_of[mine], e, 1 << k, rng=rng, signs=sign[k][mine])
            m = mine.size
        else:
            group = counts[k]
            pos = np.bincount(node_of, weights=group * (sign[k] > 0), minlength=1 << k)
            neg = np.bincount(node_of, weights=group * (sign[k] < 0), minlength=1 << k)
            stat = aggregate_statistic(
                "hrr", pos.astype(np.int64), e, rng=rng, negative=neg.astype(np.int64)
            )
            m = int(group.sum())
        out.append(estimate("hrr", stat, m, e, 1 << k))
    return np.concatenate(out)


def check_groups(groups: str) -> None:
    """ValueError unless ``groups`` is "independent" or "partition"."""
    if groups not in ("independent", "partition"):
        raise ValueError(f"groups must be 'independent' or 'partition', got {groups!r}")


def user_levels(users: int, levels: int, groups: str, rng: np.random.Generator) -> IntArray:
    """Each user's level, users in random order (consecutive blocks: a random partition)."""
    if groups == "partition":
        return np.repeat(np.arange(levels, dtype=np.int64), group_sizes(users, levels))
    return rng.integers(0, levels, size=users, dtype=np.int64)


def level_counts(
    histogram: IntArray, levels: int, groups: str, rng: np.random.Generator
) -> IntArray:
    """Per level, each item's users reporting it: their exact law (see :func:`user_levels`)."""
    if groups == "partition":
        return partition_groups(histogram, levels, rng=rng)
    return split_levels(histogram, levels, rng=rng)
