"""Data-independent algorithms: the noise they add does not depend on the data.

Each is a thin adapter over :mod:`dpcore.hist`, which also has their exact errors.
"""

from __future__ import annotations

import numpy as np

from dpcore.algorithms.common import FloatArray, Ranges, Release
from dpcore.hist import privelet
from dpcore.hist.budget import uniform_budgets
from dpcore.hist.consistency import blue
from dpcore.hist.consistent_budget import consistent_optimal_budgets
from dpcore.hist.hb import hb_tree
from dpcore.hist.release import laplace_release
from dpcore.hist.tree import Tree, best_fanout, kary_tree


def identity(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """Identity: every bin plus ``Lap(1/eps)`` (Dwork, McSherry, Nissim, Smith, TCC 2006)."""
    noisy = counts + rng.laplace(0.0, 1.0 / eps, size=counts.size)
    return Release(noisy, {"bins": eps})


def uniform(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """Uniform: the total plus ``Lap(1/eps)``, spread evenly over the bins (DPBench's
    baseline: an algorithm that loses to it learns nothing from the data's shape)."""
    total = counts.sum() + rng.laplace(0.0, 1.0 / eps)
    return Release(np.full(counts.size, total / counts.size), {"total": eps})


def _tree_release(
    tree: Tree, budgets: FloatArray, counts: FloatArray, rng: np.random.Generator
) -> FloatArray:
    consistent = blue(tree, laplace_release(tree, counts, budgets, rng), budgets)
    leaves: FloatArray = consistent[tree.leaf_of_bin]
    return leaves


def hb(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """HB (Qardaji, Yang, Li, VLDB 2013): a ``b``-ary tree with ``b`` from their error
    estimate, the root not measured, ``eps / (h - 1)`` per other level, least squares."""
    tree = hb_tree(counts.size)
    budgets = uniform_budgets(tree, eps, measure_root=False)
    return Release(_tree_release(tree, budgets, counts, rng), _per_level(tree, budgets))


def privelet_release(
    counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator
) -> Release:
    """Privelet (Xiao, Wang, Gehrke, ICDE 2010): Haar coefficients with weighted Laplace
    noise, inverted."""
    return Release(privelet.release(counts, eps, rng=rng), {"Haar coefficients": eps})


def lue_dptree(
    counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator
) -> Release:
    """LUE-DPTree: the ``b``-ary tree with the best fan-out and one budget per level
    minimising the workload's mean squared range error after BLUE (all ranges for a listed
    workload larger than :data:`dpcore.hist.workload.MAX_LISTED_RANGES`)."""
    tree = kary_tree(counts.size, best_fanout(counts.size))
    try:
        target = workload.for_closed_forms()
    except ValueError:
        target = Ranges("all ranges", workload.n).for_closed_forms()
    budgets = consistent_optimal_budgets(tree, eps, target)
    return Release(_tree_release(tree, budgets, counts, rng), _per_level(tree, budgets))


def _per_level(tree: Tree, budgets: FloatArray) -> dict[str, float]:
    """Budget per depth along the first root-to-leaf path (every path sums the same)."""
    split: dict[str, float] = {}
    node = int(tree.leaf_of_bin[0])
    path = []
    while node >= 0:
        path.append(node)
        node = int(tree.parent[node])
    for depth, x in enumerate(reversed(path)):
        split[f"level {depth}"] = float(budgets[x])
    return split
