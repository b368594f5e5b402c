"""Data-independent region trees on the shared tree engine: HB-2D and the quadtree.

Both build a :class:`~dpcore.spatial.regions.BoxTree`, give every node a Laplace
measurement under per-level budgets (:mod:`dpcore.hist.budget`), release the node sums
(:func:`dpcore.hist.release.release_sums`) and make them consistent with the exact BLUE
(:func:`dpcore.hist.consistency.blue`, equal to dense weighted least squares); the
leaves are single cells.

- HB-2D: Qardaji, Yang, Li, "Understanding hierarchical methods for differentially
  private histograms", PVLDB 2013, with DPComp's ``HB2D`` branching (:func:`dpcore.spatial.
  regions.hb_fanout`); Hay, Rastogi, Miklau, Suciu, PVLDB 2010 for consistency.
- QuadTree: Cormode, Procopiuc, Srivastava, Shen, Yu, "Differentially private spatial
  decompositions", ICDE 2012: geometric budgets (ratio ``2^{1/3}``, the leaves get the
  most) and least squares.

Neither pads the grid: the engine's near-equal splits (the first parts get the extra
cell) stand in for DPComp's zero padding to ``b^h`` and ``2^h``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from dpcore import _validate
from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d.inputs import FloatArray
from dpcore.hist.budget import geometric_budgets, uniform_budgets
from dpcore.hist.consistency import blue
from dpcore.hist.release import release_sums
from dpcore.spatial.error import blue_expected_error
from dpcore.spatial.rectangles import Rectangles
from dpcore.spatial.regions import BoxTree, hb_fanout, node_sums, quadtree


def tree_estimate(
    tree: BoxTree, grid: FloatArray, budgets: FloatArray, rng: np.random.Generator
) -> FloatArray:
    """Laplace on every measured node, BLUE, the leaves (single cells) as the grid.

    Parameters
    ----------
    tree : BoxTree
        A region tree whose leaves are single cells.
    grid : ndarray of float64, shape tree.shape
        The counts.
    budgets : ndarray of float64, shape (tree.size,)
        Per-node budgets (0: not measured).
    rng : numpy.random.Generator
        The noise.

    Returns
    -------
    ndarray of float64, shape tree.shape
        The consistent cell estimates.
    """
    noisy = release_sums(node_sums(tree, grid), budgets, rng)
    smoothed = blue(tree, noisy, budgets)
    leaves = np.flatnonzero(tree.is_leaf)
    estimate = np.empty(tree.shape)
    estimate[tuple(tree.lo[leaves].T)] = smoothed[leaves]
    return estimate


def per_depth(tree: BoxTree, budgets: FloatArray) -> dict[str, float]:
    """Budget per depth along a deepest root-to-leaf path (each such path sums the same)."""
    node = tree.size - 1  # breadth-first: the last node is on the deepest level
    path = []
    while node >= 0:
        path.append(node)
        node = int(tree.parent[node])
    return {f"level {d}": float(budgets[x]) for d, x in enumerate(reversed(path))}


def hb2d_plan(shape: tuple[int, int], eps: float) -> tuple[BoxTree, FloatArray]:
    """HB-2D's strategy: the ``b x b`` grid tree (``b`` from
    :func:`~dpcore.spatial.regions.hb_fanout`: 12 at 128², 7 at 256²) and its budgets, the
    root not measured and ``eps / h`` on every other level (``h`` = levels below the root).

    Examples
    --------
    >>> tree, budgets = hb2d_plan((16, 16), 1.0)
    >>> tree.height, budgets[[0, 1, -1]].tolist()
    (3, [0.0, 0.5, 0.5])
    """
    b, _ = hb_fanout(shape)
    tree = quadtree(shape, (b, b))
    return tree, uniform_budgets(tree, eps, measure_root=False)


def quadtree_plan(shape: tuple[int, int], eps: float) -> tuple[BoxTree, FloatArray]:
    """QuadTree's strategy: the full quadtree to single cells and Cormode et al.'s geometric
    budget of each depth (``eps_d ∝ 2^{d/3}``, :func:`dpcore.hist.budget.geometric_budgets`)."""
    tree = quadtree(shape)
    return tree, geometric_budgets(tree, eps)


def expected_error(
    name: Literal["HB-2D", "QuadTree"], shape: tuple[int, int], eps: float, workload: Rectangles
) -> float:
    """Exact mean squared error of one workload rectangle after BLUE
    (:func:`dpcore.spatial.error.blue_expected_error` of the algorithm's tree and budgets).

    Parameters
    ----------
    name : {"HB-2D", "QuadTree"}
        The algorithm.
    shape : tuple of int
        The grid's rows and columns.
    eps : float
        The budget, in ``[1e-300, inf)``.
    workload : Rectangles
        Over ``shape``.

    Returns
    -------
    float
        Count units squared.

    Examples
    --------
    >>> from dpcore.spatial.rectangles import rectangle_workload
    >>> round(expected_error("QuadTree", (64, 64), 1.0,
    ...                      rectangle_workload("random rectangles", (64, 64))))
    1837
    """
    plan = hb2d_plan if name == "HB-2D" else quadtree_plan
    tree, budgets = plan(shape, _validate.positive("eps", eps))
    return blue_expected_error(tree, budgets, workload)


def hb2d(grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator) -> Release:
    """HB-2D: :func:`hb2d_plan`'s tree and budgets, a Laplace release, BLUE.

    Budget: ``{"level 0": 0, "level 1": eps / h, ..., "level h": eps / h}``.
    """
    tree, budgets = hb2d_plan(grid.shape, eps)
    return Release(tree_estimate(tree, grid, budgets, rng), per_depth(tree, budgets))


def quadtree_release(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """QuadTree (Cormode et al., ICDE 2012): :func:`quadtree_plan`'s full quadtree with
    geometric budgets, every node measured, then the exact least squares (BLUE) -- not
    DPComp's approximate weighted averaging.

    Budget: ``{"level 0": eps_0, ..., "level h": eps_h}``, summing to ``eps`` along the
    deepest paths (at 128², root to leaf: 0.0486, ..., 0.2449 times ``eps``).
    """
    tree, budgets = quadtree_plan(grid.shape, eps)
    return Release(tree_estimate(tree, grid, budgets, rng), per_depth(tree, budgets))
