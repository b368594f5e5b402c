"""Central differential privacy on grids (2-D histograms): region trees and their errors.

The tree engine is :mod:`dpcore.hist`'s (budgets, Laplace release, BLUE, the Gauss-Markov
error model run on any :class:`~dpcore.hist.hierarchy.Hierarchy`); this package adds the
geometry: region trees (:mod:`.regions`), rectangle workloads and coverage
(:mod:`.rectangles`), and the exact errors (:mod:`.error`).
"""

from __future__ import annotations

from collections.abc import Sequence

from numpy.typing import ArrayLike

from dpcore import _validate
from dpcore.spatial.error import blue_expected_error, identity_error, raw_expected_error
from dpcore.spatial.rectangles import Rectangles, coverage_probabilities, rectangle_workload
from dpcore.spatial.regions import quadtree
from dpcore.spatial.rules import SpatialBudgets, tree_budgets


def expected_error(
    shape: Sequence[int],
    *,
    fanout: Sequence[int] = (2, 2),
    budgets: SpatialBudgets = "per-node",
    consistent: bool = True,
    eps: float = 1.0,
    workload: str | Rectangles | ArrayLike = "random rectangles",
) -> float:
    """Expected squared error (noise only) of one random rectangle, exact.

    A full region tree (:func:`dpcore.spatial.regions.quadtree` with ``fanout``), its
    budgets, a Laplace release, and answers from the raw tree's canonical decomposition or
    after BLUE consistency; or Identity, every cell ``+ Lap(1/eps)`` (no tree).

    Parameters
    ----------
    shape : sequence of int
        The grid's cells per axis.
    fanout : sequence of int, default (2, 2)
        Parts per axis of every split ((2, 2): the quadtree; (b, b): HB-2D's grid tree).
    budgets : {"per-node", "per-level", "geometric", "uniform", "identity"}
        Per-node LUE optimum (raw error), per-level ``eps_t ∝ N_t^{1/3}``, Cormode et al.'s
        geometric levels, ``eps / height`` everywhere, or Identity (a flat grid).
    consistent : bool, default True
        After BLUE (True) or from the raw tree (False); Identity ignores it.
    eps : float, default 1.0
        The privacy budget of every root-to-leaf path, in ``[1e-300, inf)``.
    workload : str, Rectangles or array_like, default "random rectangles"
        ``"random rectangles"`` (DPBench's sampler), ``"all rectangles"`` or a list of
        rectangles (:func:`dpcore.spatial.rectangles.rectangle_workload`).

    Returns
    -------
    float
        The expected squared error of one rectangle (count units squared).

    Raises
    ------
    ValueError
        If ``budgets`` is unknown, or ``shape``, ``fanout``, ``eps`` or ``workload`` is invalid.

    Examples
    --------
    >>> round(expected_error((64, 64), budgets="identity"), 1)
    2112.5
    """
    eps = _validate.positive("epsilon", eps)
    if budgets == "identity":
        return identity_error(tuple(int(s) for s in shape), eps, workload)
    tree = quadtree(shape, fanout)
    load = rectangle_workload(workload, tree.shape)
    p = coverage_probabilities(tree, load)
    eps_x = tree_budgets(tree, budgets, eps, p)
    if consistent:
        return blue_expected_error(tree, eps_x, load)
    return raw_expected_error(tree, eps_x, load)
