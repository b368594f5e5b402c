"""Consistency for HH_B under local DP: the exact BLUE with the root known, and the authors' map.

**Exact BLUE.** Node estimates are unbiased with (for OUE, OLH and HRR) uncorrelated errors
of variance ``sigma_x^2`` (:func:`dpcore.ldp.ranges.hierarchy.node_variances`, noise only:
what the collector knows), so the best linear unbiased estimate is the weighted least
squares of :mod:`dpcore.hist.consistency` -- the central trees' two passes -- fed the
precisions ``1/sigma_x^2``. That engine takes budgets ``eps_x`` with variance ``2/eps_x^2``,
so ``eps_x = sqrt(2)/sigma_x``. The root, known exactly (the whole population, 1), gets the
budget ``EXACT_BUDGET``: a variance of ``2e-300``, zero to float64, which pins it to 1 in the
downward pass (its upward weight rounds to exactly 1). Hay, Rastogi, Miklau, Suciu, PVLDB
2010; Cormode, Kulkarni, Srivastava (CKS19), PVLDB 2019.

A GRR level (cheaper than OUE where ``K < 3 e^eps + 2``: the top levels of a small-``B`` tree)
enters the same weighted least squares with its marginal variance; its estimates covary
(negatively), so the map is then a weighted least squares rather than the BLUE, and its exact
variance takes the covariance in full (:mod:`dpcore.ldp.ranges.variance`).

**The authors' variant** (``weighted_averaging_itr`` in the CKS19 code, Tejasvk/RangeQueries;
the team's notes on LDP range queries): the same two passes with the weights one level off,
``w = (B^(H-l) - B^(H-l-1)) / (B^(H-l) - 1)`` at depth ``l`` -- the leaves' parents are not
averaged and the root, known to be 1, is averaged with its noisy children. Kept to compare.

**Norm-Sub** (:func:`norm_sub`; Wang, Lopuhaä-Zwakenberg, Li, Skoric, Li, "Locally
differentially private frequency estimation with consistency", NDSS 2020): the estimates of
one partition of the domain made non-negative and summing to 1 by zeroing the negatives and
subtracting one common ``delta`` from the positive ones. AHEAD applies it per level; here it
is also an option of the flat and tree simulations. It is not linear: the estimates become
biased (up on empty items, down on large ones) and no closed form covers them; measure it by
simulation (``bench/bench_ldp_ranges.py``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.consistency import BlueSmoother
from dpcore.hist.tree import Tree
from dpcore.ldp.ranges.hierarchy import LdpTree, node_variances

FloatArray = NDArray[np.float64]

EXACT_BUDGET = 1e150
"""The engine's budget for a node known exactly: variance ``2 / EXACT_BUDGET^2 = 2e-300``."""


def blue_budgets(plan: LdpTree) -> FloatArray:
    """The central engine's per-node budgets equivalent to the LDP noise-only variances.

    .. math:: \\epsilon_x = \\sqrt{2} / \\sigma_x, \\qquad \\epsilon_{root} = 10^{150}

    Parameters
    ----------
    plan : LdpTree
        The collection.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Budgets for :mod:`dpcore.hist.consistency` and :mod:`dpcore.hist.blue_error`.
    """
    var = node_variances(plan)
    budgets = np.sqrt(2.0 / np.where(var > 0, var, 1.0))
    budgets[0] = EXACT_BUDGET
    return budgets


def blue_smoother(plan: LdpTree) -> BlueSmoother:
    """The consistency of ``plan`` as the engine's linear map (apply it, or run it transposed).

    The exact BLUE when no level uses GRR; with GRR levels, the weighted least squares above.

    Parameters
    ----------
    plan : LdpTree
        The collection.

    Returns
    -------
    BlueSmoother
        The two-pass map from node estimates to consistent node estimates.
    """
    return BlueSmoother.build(plan.tree, blue_budgets(plan))


def norm_sub(estimates: ArrayLike, *, total: float = 1.0) -> FloatArray:
    """Norm-Sub: zero the negative estimates, subtract one ``delta`` from the positive ones.

    .. math:: \\hat f'_v = \\max(\\hat f_v - \\delta, 0)\\,[\\hat f_v > 0],\\qquad
              \\sum_v \\hat f'_v = \\mathrm{total}

    Wang et al. (NDSS 2020) repeat "zero the negatives, shift the positives to sum ``total``"
    until nothing is negative; the fixed point is the formula above, whose left side falls in
    ``delta``, so ``delta`` is unique: with the positive estimates sorted down,
    ``delta = (S_k - total)/k`` for the largest ``k`` whose ``k``-th value exceeds it (``S_k``
    the sum of the ``k`` largest). A negative ``delta`` (positives summing under ``total``)
    raises the positives only. (AHEAD's code stops after one round, which can leave negatives.)
    Biased: see the module notes.

    Parameters
    ----------
    estimates : array_like of float, shape (..., k)
        Unbiased estimates of one partition's fractions (finite), one vector per last axis. A
        vector with no positive estimate has all its entries treated as positive (it becomes
        the Euclidean projection onto the simplex).
    total : float, default 1.0
        The sum to reach (``> 0``).

    Returns
    -------
    ndarray of float64, same shape as ``estimates``
        Non-negative values summing to ``total`` along the last axis.

    Raises
    ------
    ValueError
        If ``estimates`` is empty or not finite, or ``total`` is not a positive number.

    Examples
    --------
    >>> norm_sub([0.5, 0.4, 0.3, -0.2]).round(4).tolist()  # delta = (1.2 - 1)/3
    [0.4333, 0.3333, 0.2333, 0.0]
    >>> norm_sub([0.5, -0.1]).tolist()  # delta = -0.5, the negative stays 0
    [1.0, 0.0]
    """
    f = np.array(estimates, dtype=np.float64, ndmin=1)
    if f.shape[-1] == 0 or not np.isfinite(f).all():
        raise ValueError("estimates must be a non-empty array of finite numbers")
    t = _validate.positive("total", total)
    kept = (f > 0) | ~(f > 0).any(axis=-1, keepdims=True)
    down = -np.sort(-np.where(kept, f, -np.inf), axis=-1)  # the dropped ones last, at -inf
    k = np.arange(1, f.shape[-1] + 1)
    shift = (np.cumsum(down, axis=-1) - t) / k
    above = np.count_nonzero(down > shift, axis=-1)  # >= 1: the largest exceeds its shift
    delta = np.take_along_axis(shift, (above - 1)[..., None], axis=-1)
    return np.where(kept, np.maximum(f - delta, 0.0), 0.0)


def complete_levels(tree: Tree, fanout: int) -> int:
    """``H`` such that ``tree`` is the complete ``fanout``-ary tree over ``fanout^H`` items.

    Raises
    ------
    ValueError
        If the domain is not a power of ``fanout`` (the authors' variant needs equal levels).
    """
    levels = tree.height - 1
    if fanout**levels != tree.n_bins:
        raise ValueError(
            f"domain: the authors' consistency needs a domain that is a power of the fan-out "
            f"{fanout}, got {tree.n_bins}"
        )
    return levels


def authors_consistency(tree: Tree, fanout: int, values: ArrayLike) -> FloatArray:
    """The CKS19 code's consistency map on node values (one column or several).

    .. math:: z_x = w_l y_x + (1 - w_l) \\sum_{c} z_c,\\quad
              w_l = \\frac{B^{H-l} - B^{H-l-1}}{B^{H-l} - 1}\\ (l = H-1, \\dots, 0);
              \\qquad \\hat y_c = z_c + \\frac{\\hat y_x - \\sum_{c'} z_{c'}}{B}

    Parameters
    ----------
    tree : Tree
        The complete ``fanout``-ary tree (breadth-first, as :func:`dpcore.hist.tree.kary_tree`).
    fanout : int
        ``B``.
    values : array_like of float, shape (tree.size,) or (tree.size, k)
        Node estimates (the root's: 1).

    Returns
    -------
    ndarray of float64, same shape as ``values``
        The consistent node values (they sum up to the root's ``z``, not to 1).

    Raises
    ------
    ValueError
        If the tree is not complete or ``values`` has not ``tree.size`` rows.

    Examples
    --------
    >>> from dpcore.hist.tree import kary_tree
    >>> y = [1.0, 0.7, 0.5, 0.4, 0.2, 0.3, 0.3]  # by hand: z_root = 2/3 + (0.7 + 0.5)/3
    >>> authors_consistency(kary_tree(4, 2), 2, y).round(4).tolist()
    [1.0667, 0.6333, 0.4333, 0.4167, 0.2167, 0.2167, 0.2167]
    """
    height = complete_levels(tree, fanout)
    z = np.array(values, dtype=np.float64)
    if z.shape[:1] != (tree.size,):
        raise ValueError(f"values must have {tree.size} rows, got shape {z.shape}")
    y = z.copy()
    levels = tree.levels()
    shape = (-1, fanout, *z.shape[1:])
    for depth in range(height - 1, -1, -1):
        power = fanout ** (height - depth)
        w = (power - power // fanout) / (power - 1)
        kids = z[levels[depth + 1]].reshape(shape).sum(axis=1)
        z[levels[depth]] = w * y[levels[depth]] + (1 - w) * kids
    for depth in range(height):
        below = levels[depth + 1]
        gap = z[levels[depth]] - z[below].reshape(shape).sum(axis=1)
        z[below] += np.repeat(gap / fanout, fanout, axis=0)
    return z
