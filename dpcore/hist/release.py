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
    """True value ``h_x = sum of counts[lo_x..hi_x]`` of every node (prefix sums, O(n))."""
    counts = _validate.finite_array("counts", counts, size=tree.n_bins)
    prefix = np.concatenate(([0.0], np.cumsum(counts)))
    return prefix[tree.hi + 1] - prefix[tree.lo]


def laplace_release(
    tree: Tree, counts: FloatArray, budgets: FloatArray, rng: np.random.Generator
) -> FloatArray:
    """Noisy node values ``h_x + Lap(1/eps_x)``; NaN for unmeasured nodes (``eps_x = 0``).

    ``rng`` is numpy's generator: fine for teaching and exploration, not a
    hardened noise source for real releases.

    Raises ValueError for counts that are not finite, budgets outside ``{0} ∪
    [1e-300, inf)``, and a measured node sum too large for float64 to keep its
    noise (``|h_x| > 2^32 / eps_x``, see :mod:`dpcore._validate`).
    """
    budgets = _validate.budgets("budgets", budgets, size=tree.size)
    sums = node_sums(tree, counts)
    measured = budgets > 0
    scale = np.full(tree.size, np.inf)
    scale[measured] = 1.0 / budgets[measured]
    _validate.perturbable("A node sum", sums, scale)
    noise = rng.laplace(0.0, 1.0, size=tree.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        noisy = sums + noise / budgets
    noisy[~measured] = np.nan
    return noisy


def laplace_variance(budgets: FloatArray) -> FloatArray:
    """Per-node noise variance ``2 / eps_x^2`` (inf where unmeasured)."""
    checked = _validate.finite_array("budgets", budgets, nonnegative=True)
    with np.errstate(divide="ignore"):
        return 2.0 / checked**2
