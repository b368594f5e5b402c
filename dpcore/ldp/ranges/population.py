"""Sampled levels measured against the whole population: the extra terms of the groups.

With levels sampled, level ``l`` estimates the histogram ``g_l`` of its own group of ``m_l``
users; the closed forms of :mod:`dpcore.ldp.ranges.variance` and
:mod:`dpcore.ldp.ranges.haar` are the errors against those, with ``m_l = N/h``. Against the
whole population (CKS19's and AHEAD's experiments) two terms add. Write the answer as
``sum_l c_l . g^_l`` (``c_l(x)``: the weight, in the answer, of the level-``l`` item holding
``x`` -- for HaarHRR the signed weight of the coefficient ``x``'s users report at level ``l``),
and condition on the assignment of users to levels:

* **the groups' own deviation**, ``Var(sum_l mean_{group l} c_l)``. Given the sizes
  ``m_l``, a uniformly random assignment is a random partition, and sampling without
  replacement gives exactly

  .. math:: \\sum_l \\mathrm{Var}_{pop}(c_l) \\frac{N \\, E[1/m_l] - 1}{N - 1}
            - \\sum_{l \\ne l'} \\frac{\\mathrm{Cov}_{pop}(c_l, c_{l'})}{N - 1}

  (population moments over the users' items, divisor ``N``; the conditional mean is the
  population's answer whatever the sizes, so the sizes add nothing else);
* **the groups' sizes**: each level's oracle variance is ``(A_l + B_l . g_l) / m_l`` (OUE,
  OLH, HRR and HaarHRR: linear in the group's histogram), whose mean is
  ``(A_l + B_l . f) E[1/m_l]``: the closed form's level share times ``(N/h) E[1/m_l] - 1``
  more.

``groups="partition"`` (users split at random into groups of :func:`group_sizes`):
``E[1/m_l] = 1/m_l``. ``groups="independent"`` (each user draws her level uniformly, as the
CKS19 and AHEAD code do): ``(m_1..m_h)`` is multinomial and ``E[1/m_l]`` is taken given every
group non-empty (:func:`inverse_group_size`; a level nobody reported has no estimate, a chance
of ``(1 - 1/h)^N`` per level). Both terms are uncorrelated with the oracles' noise. The first is
at most ``0.25/m`` per node against ``V/m`` for the noise: visible at large eps or for big
nodes; the second is ``~(h-1)/N`` relative. Splitting eps has neither.

For GRR the variance's quadratic parts cancel to a linear one
(``(w.u)^2 - (w.g)^2`` in :class:`dpcore.ldp.ranges.oracles.Covariance`), so these terms are
exact for every oracle.
The team's notes on LDP range queries; Du et al., AHEAD, CCS 2021.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from dpcore import _validate
from dpcore.ldp.ranges.haar import (
    coefficient_fractions,
    coefficient_variances,
    haar_levels,
    level_sums,
)
from dpcore.ldp.ranges.hierarchy import LdpTree, replica_weights
from dpcore.ldp.ranges.variance import Consistency, answer_weights, level_variances

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

Groups = Literal["independent", "partition"]
MAX_PARTITION_USERS = 10**9 - 1
"""numpy's multivariate hypergeometric draws need fewer than 10^9 users."""
_WINDOW = 12.0  # standard deviations of a group's size summed over in E[1/m] (pmf < 1e-31 beyond)


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


def all_filled(users: ArrayLike, groups: int) -> FloatArray:
    """The chance that ``users`` uniform draws among ``groups`` leave none empty.

    .. math:: \\sum_{j=0}^{g} (-1)^j \\binom{g}{j} (1 - j/g)^n

    (inclusion-exclusion; rounding makes it exact to ~1e-16 times ``binom(g, g/2)``, clipped to
    ``[0, 1]``).

    Parameters
    ----------
    users : array_like of int
        ``n``, one or several.
    groups : int
        ``g >= 0``.

    Returns
    -------
    ndarray of float64, shaped like ``users``
        The chances.

    Examples
    --------
    >>> all_filled([3, 1], 2).tolist()  # 6 of the 8 ways; one user cannot fill two groups
    [0.75, 0.0]
    """
    n = np.asarray(users, dtype=np.float64)
    if groups <= 1:  # one group is filled iff anyone came; no group always is
        return np.asarray(np.where(n >= groups, 1.0, 0.0), dtype=np.float64)
    j = np.arange(groups + 1)
    signed = (-1.0) ** j * special.comb(groups, j)
    terms = signed * (1 - j / groups) ** n[..., None]
    return np.asarray(np.clip(terms.sum(axis=-1), 0.0, 1.0), dtype=np.float64)


def inverse_group_size(users: int, levels: int) -> float:
    """``E[1/m]`` for one level's group when each user draws one of ``levels`` uniformly,
    given that no group is empty.

    .. math:: E[1/m_1 \\mid \\text{all } m_l \\ge 1] = \\frac{\\sum_{k \\ge 1}
              \\mathrm{Bin}(k; N, 1/h)\\, \\Pr[\\text{the other } N-k \\text{ fill } h-1]
              / k}{\\Pr[N \\text{ fill } h]}

    summed within 12 standard deviations of ``N/h`` (all of ``1..N`` for small ``N``).

    Parameters
    ----------
    users : int
        ``N`` (``>= levels``).
    levels : int
        ``h`` (``>= 1``).

    Returns
    -------
    float
        ``E[1/m]``; about ``(h/N)(1 + (h-1)/N)``.

    Raises
    ------
    ValueError
        If ``users < levels`` or ``levels < 1``.

    Examples
    --------
    >>> round(inverse_group_size(3, 2), 12)  # sizes (1, 2) or (2, 1), equally likely
    0.75
    """
    h = _validate.whole("levels", levels, lower=1)
    n = _validate.whole("users", users, lower=h)
    if h == 1:
        return 1.0 / n
    p = 1.0 / h
    spread = _WINDOW * math.sqrt(n * p * (1 - p)) + 1
    k = np.arange(max(1, math.floor(n * p - spread)), min(n, math.ceil(n * p + spread)) + 1)
    rest = np.ones(k.size)
    few = n - k < 50 * h  # beyond, a group is left empty w.p. < (h-1) e^(-50) < 1e-20
    rest[few] = all_filled(n - k[few], h - 1)
    mass = stats.binom.pmf(k, n, p) * rest
    return float((mass / k).sum() / all_filled(n, h))


def inverse_sizes(users: int, levels: int, groups: str) -> FloatArray:
    """Per level, ``E[1/m_l]``: ``1/m_l`` for a random partition into :func:`group_sizes`,
    :func:`inverse_group_size` for independent draws.

    Raises
    ------
    ValueError
        If ``groups`` is unknown.
    """
    if groups == "partition":
        return np.asarray(1.0 / group_sizes(users, levels), dtype=np.float64)
    if groups == "independent":
        return np.full(levels, inverse_group_size(users, levels))
    raise ValueError(f"groups must be 'independent' or 'partition', got {groups!r}")


def groups_term(
    per_item: FloatArray, frequencies: FloatArray, users: int, inverse: FloatArray
) -> FloatArray:
    """The groups' own deviation: ``Var(sum_l mean_{group l} c_l)`` (see the module notes).

    Parameters
    ----------
    per_item : ndarray of float64, shape (answers, levels, d)
        ``c_l(x)``: per answer and level, the weight of item ``x``'s users.
    frequencies : ndarray of float64, shape (d,)
        The population's item fractions.
    users : int
        ``N`` (``>= 2``).
    inverse : ndarray of float64, shape (levels,)
        ``E[1/m_l]`` (:func:`inverse_sizes`).

    Returns
    -------
    ndarray of float64, shape (answers,)
        The term.
    """
    mean = per_item @ frequencies
    own = (per_item**2) @ frequencies - mean**2
    summed = per_item.sum(axis=1)
    # sum_{l != l'} Cov(c_l, c_l') = Var(sum_l c_l) - sum_l Var(c_l): O(levels), not levels^2
    cross = (summed**2) @ frequencies - (summed @ frequencies) ** 2 - own.sum(axis=1)
    return np.asarray((own @ (users * inverse - 1) - cross) / (users - 1), dtype=np.float64)


def sampling_variance(
    plan: LdpTree,
    a: ArrayLike,
    b: ArrayLike,
    *,
    frequencies: ArrayLike,
    consistency: Consistency = "none",
    groups: Groups = "partition",
) -> FloatArray:
    """The level groups' terms of each range's variance against the population.

    Add it to :func:`dpcore.ldp.ranges.variance.tree_range_variance` (with the same
    ``frequencies``) for the error against the whole population when levels are sampled
    (module notes: the groups' deviation and their sizes). ``O(ranges x (nodes + D h))``.

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
    groups : {"partition", "independent"}, default "partition"
        Users split at random into groups of :func:`group_sizes`, or each drawing her level
        (as :func:`dpcore.ldp.ranges.simulate_tree`'s ``groups``).

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
    inverse = inverse_sizes(plan.users, plan.levels, groups)
    if plan.levels_mode == "split":
        return np.zeros(first.shape)
    shares = replica_weights(plan)
    out = []
    for weights in answer_weights(plan, first.ravel(), last.ravel(), consistency):
        per_item = np.stack(
            [
                (weights[:, nodes] * share)[:, item_of_bin]
                for (nodes, item_of_bin), share in zip(plan.level_items, shares, strict=True)
            ],
            axis=1,
        )
        sizes = level_variances(plan, [weights], f) @ (plan.group_size * inverse - 1)
        out.append(groups_term(per_item, f, plan.users, inverse) + sizes)
    total = np.concatenate(out) if out else np.zeros(0)
    return np.asarray(total.reshape(first.shape), dtype=np.float64)


def haar_sampling_variance(
    domain: int,
    eps: float,
    users: int,
    a: ArrayLike,
    b: ArrayLike,
    *,
    frequencies: ArrayLike,
    groups: Groups = "independent",
) -> FloatArray:
    """HaarHRR's level groups' terms of each range's variance against the population.

    Add it to :func:`dpcore.ldp.ranges.haar.haar_range_variance` (same ``frequencies``). The
    level-``k`` weight of a user holding ``x`` is ``c_k(x) = s_k(x) w_v``: her sign (+1 in the
    left half of her node ``v``, -1 in the right) times the coefficient's weight in the answer,
    ``w_v = (|Q ∩ L_v| - |Q ∩ R_v|)/s_v``. So ``E_pop c_k = sum_v w_v c_v`` and
    ``E_pop c_k^2 = sum_v w_v^2 (f(L_v) + f(R_v))``, over the level's (at most two) nodes with
    ``w_v != 0``; and as the Haar synthesis of a point mass is exact,
    ``sum_k c_k(x) = 1[x in Q] - r/D``, so the cross-level covariances sum to
    ``F_Q (1 - F_Q) - sum_k Var_pop(c_k)`` (``F_Q`` the range's fraction). Then the module
    notes' two terms, in ``O(h)`` per range.

    Parameters
    ----------
    domain : int
        ``D``, a power of two.
    eps : float
        Each user's budget.
    users : int
        Number of users ``N`` (``>= h``).
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.
    frequencies : array_like of float, shape (domain,)
        The population's item fractions.
    groups : {"independent", "partition"}, default "independent"
        As :func:`dpcore.ldp.ranges.simulate_haar`'s ``groups``.

    Returns
    -------
    ndarray of float64
        One variance per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If an argument is invalid, naming it.
    """
    h = haar_levels(domain)
    first, last = _validate.ranges(domain, a, b)
    f = _validate.finite_array("frequencies", frequencies, size=domain, nonnegative=True)
    var = coefficient_variances(domain, eps, users, f)
    inverse = inverse_sizes(users, h, groups)
    coefficients, mass = coefficient_fractions(f, domain)
    mean = level_sums(domain, first, last, coefficients, power=1)
    own = level_sums(domain, first, last, mass, power=2) - mean**2
    prefix = np.concatenate(([0.0], np.cumsum(f)))
    inside = prefix[last + 1] - prefix[first]
    cross = inside * (1 - inside) - own.sum(axis=0)
    groups_part = (np.tensordot(users * inverse - 1, own, axes=1) - cross) / (users - 1)
    sizes = np.tensordot(users / h * inverse - 1, level_sums(domain, first, last, var, power=2), 1)
    return np.asarray(groups_part + sizes, dtype=np.float64)
