"""Sampled levels measured against the whole population: the random partition's extra term.

With levels sampled, level ``l`` estimates the histogram ``g_l`` of its own group; the closed
forms of :mod:`dpcore.ldp.ranges.variance` are the errors against those. Against the whole
population (CKS19's and AHEAD's experiments) the group's own deviation adds: for users split
at random into groups of fixed sizes ``m_l`` (a random partition; AHEAD's code, like
CKS19's, draws each user's group independently instead) and an answer
``sum_l c_l . g_l`` (``c_l(x)``: the weight of the level-``l`` item holding ``x``), sampling
without replacement gives exactly

.. math:: \\sum_l \\mathrm{Var}_{pop}(c_l) \\frac{N - m_l}{m_l (N - 1)}
          - \\sum_{l \\ne l'} \\frac{\\mathrm{Cov}_{pop}(c_l, c_{l'})}{N - 1}

(population moments over the users' items, divisor ``N``), uncorrelated with the oracles'
noise. It is at most ``0.25/m`` per node against ``V/m`` for the noise: visible at large eps
or for big nodes. Splitting eps has no such term. The team's notes on LDP range queries;
Du et al., AHEAD, CCS 2021.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.ldp.ranges.hierarchy import LdpTree, replica_weights
from dpcore.ldp.ranges.variance import Consistency, answer_weights

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

MAX_PARTITION_USERS = 10**9 - 1
"""numpy's multivariate hypergeometric draws need fewer than 10^9 users."""


def group_sizes(users: int, levels: int) -> IntArray:
    """Sizes of a partition of ``users`` into ``levels`` groups as equal as possible, larger
    first (``numpy.array_split``'s).

    Examples
    --------
    >>> group_sizes(10, 3).tolist()
    [4, 3, 3]
    """
    base, extra = divmod(users, levels)
    return np.asarray(base + (np.arange(levels) < extra), dtype=np.int64)


def partition_groups(
    histogram: ArrayLike, levels: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Users split at random into ``levels`` groups of :func:`group_sizes`: per item, how many
    land in each, drawn group by group without replacement (multivariate hypergeometric).

    Parameters
    ----------
    histogram : array_like of int, shape (d,)
        Users per item (fewer than 10^9 in all).
    levels : int
        Number of groups ``h`` (``>= 1``).
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (levels, d)
        Row ``l``: each item's users in group ``l``.

    Raises
    ------
    ValueError
        If ``histogram`` is not whole numbers ``>= 0`` or holds ``10^9`` users or more.
    """
    raw = np.asarray(histogram)
    left = _validate.counts("histogram", raw, size=raw.size)
    _validate.whole("users (the histogram's sum)", int(left.sum()), upper=MAX_PARTITION_USERS)
    out = np.zeros((levels, left.size), dtype=np.int64)
    for group, size in enumerate(group_sizes(int(left.sum()), levels)[:-1]):
        out[group] = rng.multivariate_hypergeometric(left, int(size), method="marginals")
        left = left - out[group]
    out[-1] = left
    return out


def sampling_variance(
    plan: LdpTree,
    a: ArrayLike,
    b: ArrayLike,
    *,
    frequencies: ArrayLike,
    consistency: Consistency = "none",
) -> FloatArray:
    """The random partition's term of each range's variance against the population.

    Add it to :func:`dpcore.ldp.ranges.variance.tree_range_variance` (with the same
    ``frequencies``) for the error against the whole population when levels are sampled by a
    random partition into groups of :func:`group_sizes`. ``O(ranges x (nodes + D h))``.

    Parameters
    ----------
    plan : LdpTree
        The collection (levels sampled; with eps split the term is 0).
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.
    frequencies : array_like of float, shape (domain,)
        The population's item fractions (``histogram / N``).
    consistency : {"none", "blue", "authors"}, default "none"
        The post-processing.

    Returns
    -------
    ndarray of float64
        One variance per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    t = plan.tree
    first, last = _validate.ranges(t.n_bins, a, b)
    f = _validate.finite_array("frequencies", frequencies, size=t.n_bins, nonnegative=True)
    if plan.levels_mode == "split":
        return np.zeros(first.shape)
    n = plan.users
    sizes = group_sizes(n, plan.levels).astype(np.float64)
    shares = replica_weights(plan)
    out = []
    for weights in answer_weights(plan, first.ravel(), last.ravel(), consistency):
        # per level, each item's weight in each answer (rows: answers, columns: items)
        per_item = np.stack(
            [
                (weights[:, nodes] * share)[:, item_of_bin]
                for (nodes, item_of_bin), share in zip(plan.level_items, shares, strict=True)
            ],
            axis=1,
        )
        mean = per_item @ f
        second = np.einsum("rld,rkd->rlk", per_item * f, per_item)
        cov = second - mean[:, :, None] * mean[:, None, :]
        own = np.einsum("rll->rl", cov) @ ((n - sizes) / (sizes * (n - 1)))
        cross = (cov.sum(axis=(1, 2)) - np.einsum("rll->r", cov)) / (n - 1)
        out.append(own - cross)
    total = np.concatenate(out) if out else np.zeros(0)
    return np.asarray(total.reshape(first.shape), dtype=np.float64)
