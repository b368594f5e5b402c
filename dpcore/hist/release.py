"""The measurement step: true node sums, and their Laplace release under given budgets.

Each node's sum changes by at most 1 when one record changes, so node ``x``
released with ``Lap(1/eps_x)`` is ``eps_x``-DP; the whole release's epsilon is
:func:`dpcore.hist.budget.release_epsilon` of the budgets.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.hist.tree import Tree

FloatArray = NDArray[np.float64]


def node_sums(tree: Tree, counts: FloatArray) -> FloatArray:
    """True value ``h_x = sum of counts[lo_x..hi_x]`` of every node (prefix sums, O(n)).

    Parameters
    ----------
    tree : Tree
        The tree.
    counts : array_like of float, shape (tree.n_bins,)
        The histogram, finite.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Every node's true sum.

    Raises
    ------
    ValueError
        If ``counts`` is not ``tree.n_bins`` finite numbers.
    """
    counts = _validate.finite_array("counts", counts, size=tree.n_bins)
    prefix = np.concatenate(([0.0], np.cumsum(counts)))
    return prefix[tree.hi + 1] - prefix[tree.lo]


def laplace_release(
    tree: Tree, counts: FloatArray, budgets: FloatArray, rng: np.random.Generator
) -> FloatArray:
    """Noisy node values ``h_x + Lap(1/eps_x)``; NaN for unmeasured nodes (``eps_x = 0``).

    The node sums of :func:`node_sums` released by :func:`release_sums`.

    Parameters
    ----------
    tree : Tree
        The tree.
    counts : array_like of float, shape (tree.n_bins,)
        The histogram, finite.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    rng : numpy.random.Generator
        Source of the Laplace noise.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Noisy node values; NaN where unmeasured.

    Raises
    ------
    ValueError
        As :func:`release_sums`, or if ``counts`` is not ``tree.n_bins`` finite numbers.
    """
    budgets = _validate.budgets("budgets", budgets, size=tree.size)
    return _perturb(node_sums(tree, counts), budgets, rng)


def release_sums(sums: FloatArray, budgets: FloatArray, rng: np.random.Generator) -> FloatArray:
    """Noisy values ``h_x + Lap(1/eps_x)`` of any tree's true node sums; NaN where ``eps_x = 0``.

    Any tree: interval trees (:func:`laplace_release`) and region trees alike.
    ``rng`` is numpy's generator: fine for teaching and exploration, not a
    hardened noise source for real releases.

    Parameters
    ----------
    sums : array_like of float, shape (size,)
        True node sums, finite.
    budgets : array_like of float, shape (size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    rng : numpy.random.Generator
        Source of the Laplace noise.

    Returns
    -------
    ndarray of float64, shape (size,)
        Noisy node values; NaN where unmeasured.

    Raises
    ------
    ValueError
        If ``sums`` are not finite, ``budgets`` are not as many values in ``{0} ∪
        [1e-300, inf)``, or a measured node sum is too large for float64 to keep its noise
        (``|h_x| > 2^32 / eps_x``, see :mod:`dpcore._validate`).
    """
    sums = _validate.finite_array("node sums", sums)
    return _perturb(sums, _validate.budgets("budgets", budgets, size=sums.size), rng)


def _perturb(sums: FloatArray, budgets: FloatArray, rng: np.random.Generator) -> FloatArray:
    """:func:`release_sums` on checked finite sums and budgets."""
    measured = budgets > 0
    scale = np.full(sums.size, np.inf)
    scale[measured] = 1.0 / budgets[measured]
    _validate.perturbable("A node sum", sums, scale)
    noise = rng.laplace(0.0, 1.0, size=sums.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        noisy = sums + noise / budgets
    noisy[~measured] = np.nan
    return noisy


def largest_count(eps: float) -> float:
    """The largest node sum a Laplace release can perturb at budget ``eps`` (sensitivity 1).

    Noise of scale ``b = 1/eps`` added to a value beyond ``2^32 b`` would be rounded away in
    float64 (:func:`laplace_release` refuses it), so data whose total exceeds this cannot be
    released at ``eps``: a smaller ε, or the counts in larger units, can.

    Parameters
    ----------
    eps : float
        The largest budget of any node, > 0.

    Returns
    -------
    float
        ``2^32 / eps``.

    Raises
    ------
    ValueError
        If ``eps`` is not a positive finite number.

    Examples
    --------
    >>> largest_count(1.0) == 2.0**32
    True
    """
    return _validate.PERTURBABLE_RATIO / _validate.positive("epsilon", eps)


def laplace_variance(budgets: FloatArray) -> FloatArray:
    """Per-node noise variance ``2 / eps_x^2`` (inf where unmeasured).

    Parameters
    ----------
    budgets : array_like of float, shape (size,)
        Per-node budgets, finite and ``>= 0``.

    Returns
    -------
    ndarray of float64, shape (size,)
        ``2 / eps_x^2`` (count units squared); ``inf`` where ``eps_x = 0``.

    Raises
    ------
    ValueError
        If ``budgets`` is not a 1-D array of finite numbers ``>= 0``.
    """
    checked = _validate.finite_array("budgets", budgets, nonnegative=True)
    with np.errstate(divide="ignore"):
        return 2.0 / checked**2
