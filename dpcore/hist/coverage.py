"""Coverage probabilities: how often a node is used by a random range query (CNCP).

A range query is answered by its canonical decomposition, the maximal tree
nodes inside it; node ``x`` is used iff ``Q ⊇ x`` and ``Q ⊉ parent(x)``. So
its probability under a workload is the share of ranges containing ``x`` minus
the share containing its parent (LUE-DPTree eq. 3.5, generalised to any workload).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dpcore.hist.hierarchy import Hierarchy
from dpcore.hist.tree import Tree
from dpcore.hist.workload import Workload, parse_workload


def coverage_probabilities(tree: Tree, workload: str | Workload = "uniform") -> NDArray[np.float64]:
    """Per-node probability ``p_x`` that a random workload range uses node ``x``.

    .. math:: p_x = \\frac{c(x) - c(f)}{|W|}, \\qquad
              c_{uniform}(x) = L(x)\\,(n - R(x) + 1) \\text{ (1-based)}

    where ``c`` counts the workload ranges containing a node and ``f`` is the
    parent (``c(f) = 0`` for the root). Reference: LUE-DPTree, eq. 3.5.

    Parameters
    ----------
    tree : Tree
        The tree over ``n = tree.n_bins`` bins.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        ``p_x`` per node, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins.

    Examples
    --------
    >>> from dpcore.hist.tree import kary_tree
    >>> p = coverage_probabilities(kary_tree(5, 2))
    >>> round(float(p[0]), 6), round(float(p[5]), 6)   # root, bin [3,3] (1-based)
    (0.066667, 0.4)
    """
    n = tree.n_bins
    spec = parse_workload(workload, n)
    contained = spec.containing_count(n, tree.lo, tree.hi)
    return used_share(tree, contained) / spec.size(n)


def used_share(tree: Hierarchy, contained: NDArray[np.float64]) -> NDArray[np.float64]:
    """How often each node is used, from how often it is contained: ``c(x) - c(parent(x))``.

    The canonical decomposition uses node ``x`` iff ``Q ⊇ x`` and ``Q ⊉ parent(x)``, and
    ``Q ⊇ parent(x)`` implies ``Q ⊇ x``; so this holds for any tree, any geometry.

    Parameters
    ----------
    tree : Hierarchy
        The tree (an interval or a region tree).
    contained : ndarray of float64, shape (tree.size,)
        Per node, the count (or probability) of workload queries containing it.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per node, the count (or probability) of queries whose decomposition uses it.
    """
    parent_contained = np.where(tree.parent >= 0, contained[np.maximum(tree.parent, 0)], 0.0)
    return np.asarray(contained - parent_contained, dtype=np.float64)
