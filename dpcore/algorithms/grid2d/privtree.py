"""PrivTree: a data-dependent quadtree split by noisy *biased* counts, no height limit.

Zhang, Xiao, Xie, "PrivTree: A Differentially Private Algorithm for Hierarchical
Decompositions", SIGMOD 2016 (arXiv 1601.03229). From the root (depth 0), a node ``v``
with ``c(v)`` records has the biased count

.. math:: b(v) = \\max\\big(\\theta - \\delta,\\; c(v) - \\mathrm{depth}(v)\\, \\delta\\big)

and splits (into its quadtree children) iff ``b(v) + Lap(lambda) > theta``; a one-cell
node cannot split. The structure costs

.. math:: \\epsilon_s = \\frac{1}{\\lambda} \\cdot \\frac{2 e^{\\delta/\\lambda} - 1}
          {e^{\\delta/\\lambda} - 1},

which with ``delta = lambda ln(beta)`` (``beta = 4``) gives
``lambda = (2 beta - 1) / ((beta - 1) eps_s) = 7 / (3 eps_s)``. The leaves partition the
grid and publish ``c + Lap(1/eps_c)`` each, spread evenly over their cells. As the two
independent third-party implementations the spec cites: ``theta = 0``,
``eps_s = eps_c = eps / 2``.

The decisions run level by level on the full quadtree of the grid
(:func:`dpcore.spatial.regions.quadtree`): a node is reached iff its parent was reached and
split. Noise is drawn for every node; only reached nodes' draws are used (a draw that
decides nothing reveals nothing).
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d.inputs import FloatArray
from dpcore.algorithms.grid2d.tiles import boxes_as_rows, spread
from dpcore.hist.release import release_sums
from dpcore.spatial.rectangles import Rectangles
from dpcore.spatial.regions import BoxTree, node_sums, quadtree

FANOUT = 4
"""``beta``: children of a split (the quadtree's; an axis of one cell halves only the other)."""
THRESHOLD = 0.0
"""``theta``."""
STRUCTURE_SHARE = 0.5
"""Share of ``eps`` spent on the splits (``eps_s``); the leaves get the rest."""


def structure_epsilon(lam: float, delta: float) -> float:
    """PrivTree's privacy cost of the splits.

    .. math:: \\epsilon_s = \\frac{1}{\\lambda} \\cdot
              \\frac{2 e^{\\delta/\\lambda} - 1}{e^{\\delta/\\lambda} - 1}

    Examples
    --------
    >>> round(structure_epsilon(7 / 3, (7 / 3) * math.log(4)), 12)
    1.0
    """
    ratio = math.exp(delta / lam)
    return (2.0 * ratio - 1.0) / (ratio - 1.0) / lam


def noise_scale(eps_s: float, beta: int = FANOUT) -> float:
    """``lambda = (2 beta - 1) / ((beta - 1) eps_s)``, the scale that spends ``eps_s`` with
    ``delta = lambda ln(beta)``.

    Examples
    --------
    >>> round(noise_scale(1.0), 6)
    2.333333
    """
    return (2.0 * beta - 1.0) / ((beta - 1.0) * eps_s)


def split_decisions(
    tree: BoxTree,
    counts: FloatArray,
    lam: float,
    delta: float,
    noise: FloatArray,
    theta: float = THRESHOLD,
) -> tuple[np.ndarray, np.ndarray]:
    """Which nodes PrivTree reaches and which it splits, given every node's ``Lap(1)`` draw.

    Parameters
    ----------
    tree : BoxTree
        The full quadtree.
    counts : ndarray of float64, shape (tree.size,)
        True node sums.
    lam, delta, theta : float
        PrivTree's noise scale, decay and threshold.
    noise : ndarray of float64, shape (tree.size,)
        Standard Laplace draws, scaled by ``lam`` here.

    Returns
    -------
    reached, split : ndarray of bool, shape (tree.size,)
        The published leaves are ``reached & ~split``.
    """
    biased = np.maximum(theta - delta, counts - tree.depth * delta)
    split = (biased + lam * noise > theta) & ~tree.is_leaf
    reached = np.zeros(tree.size, dtype=bool)
    reached[0] = True
    for level in tree.levels()[1:]:
        parents = tree.parent[level]
        reached[level] = reached[parents] & split[parents]
    return reached, split & reached


def privtree(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """PrivTree on the grid's quadtree: noisy biased splits, then Laplace on the leaves.

    Budget: ``"structure"`` ``= eps_s = eps / 2`` (``lambda = 7 / (3 eps_s)``,
    ``delta = lambda ln 4``, ``theta = 0``) and ``"leaves"`` ``= eps_c = eps / 2`` (the
    leaves are disjoint). ``buckets``: the leaves as ``(r0, c0, r1, c1)``.
    """
    eps_s = STRUCTURE_SHARE * eps
    eps_c = eps - eps_s
    lam = noise_scale(eps_s)
    delta = lam * math.log(FANOUT)
    tree = quadtree(grid.shape)
    sums = node_sums(tree, grid)
    reached, split = split_decisions(tree, sums, lam, delta, rng.laplace(0.0, 1.0, tree.size))
    leaves = np.flatnonzero(reached & ~split)
    totals = release_sums(sums[leaves], np.full(leaves.size, eps_c), rng)
    lo, hi = tree.lo[leaves], tree.hi[leaves]
    shape = (int(grid.shape[0]), int(grid.shape[1]))
    return Release(
        spread(shape, lo, hi, totals), {"structure": eps_s, "leaves": eps_c}, boxes_as_rows(lo, hi)
    )
