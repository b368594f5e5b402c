"""Seeded simulation of a region tree's releases: the squared error of listed rectangles,
answered from the raw tree and after BLUE, to set against the exact expected errors
(:mod:`dpcore.spatial.error`).

Each release is the tree engine's own (:func:`dpcore.hist.release.release_sums`, unmeasured
nodes filled by their children, :func:`dpcore.hist.consistency.blue`); a rectangle is
answered by the sum of its canonical decomposition's nodes (after BLUE, any decomposition
gives the same answer). The errors are returned as :class:`~dpcore.hist.empirical.
EmpiricalErrors`, whose intervals treat the per-release means as the i.i.d. samples.

Randomness only through the injected ``rng`` (numpy's generator: fine for teaching and
exploration, not a hardened noise source).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

from dpcore import _validate
from dpcore.hist import consistency, queries, release
from dpcore.hist.empirical import EmpiricalErrors
from dpcore.spatial.rectangles import rectangle_workload
from dpcore.spatial.regions import BoxTree, canonical_decomposition, node_sums

FloatArray = NDArray[np.float64]


def decomposition_matrix(
    tree: BoxTree, lo: NDArray[np.int64], hi: NDArray[np.int64]
) -> sparse.csr_matrix:
    """The 0/1 matrix whose row ``q`` selects rectangle ``q``'s canonical decomposition.

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    lo, hi : ndarray of int64, shape (Q, tree.ndim)
        First and last cells of each rectangle (checked inside the grid).

    Returns
    -------
    scipy.sparse.csr_matrix, shape (Q, tree.size)
    """
    nodes = [canonical_decomposition(tree, a, b) for a, b in zip(lo, hi, strict=True)]
    rows = np.repeat(np.arange(len(nodes)), [n.size for n in nodes])
    cols = np.concatenate(nodes) if nodes else np.empty(0, np.int64)
    return sparse.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(len(nodes), tree.size))


def simulate_rectangle_errors(
    tree: BoxTree,
    budgets: ArrayLike,
    counts: ArrayLike,
    rectangles: ArrayLike,
    *,
    releases: int,
    rng: np.random.Generator,
    confidence: float = 0.95,
    progress: Callable[[float], None] | None = None,
) -> tuple[EmpiricalErrors, EmpiricalErrors]:
    """Squared errors of listed rectangles over ``releases`` seeded releases of ``tree``.

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``; every leaf measured.
    counts : array_like of float, shape tree.shape
        The true grid.
    rectangles : array_like of int, shape (Q, 2, tree.ndim)
        Each rectangle's first and last cell per axis (inclusive).
    releases : int
        Number of independent releases (``>= 2`` for an interval).
    rng : numpy.random.Generator
        Source of the noise.
    confidence : float, default 0.95
        Confidence level of the intervals, in ``(0, 1)``.
    progress : callable, optional
        Called with the fraction of releases done, every tenth of them.

    Returns
    -------
    raw, blue : EmpiricalErrors
        Squared errors (``releases x Q``) from the raw tree and after BLUE. Their ``a``
        is 0 and ``b`` each rectangle's area minus one, so that ``by_length`` groups the
        rectangles by area.

    Raises
    ------
    ValueError
        If an argument is invalid or a leaf is not measured.
    """
    releases = _validate.whole("releases", releases)
    confidence = _validate.fraction("confidence", confidence)
    load = rectangle_workload(rectangles, tree.shape)
    eps = np.asarray(budgets, dtype=np.float64)
    if eps.shape != (tree.size,) or np.any(eps[tree.is_leaf] <= 0):
        raise ValueError("budgets must have one value per node, every leaf measured (> 0)")
    select = decomposition_matrix(tree, load.lo, load.hi)
    truth_nodes = node_sums(tree, counts)
    truth = select @ truth_nodes
    raw = np.empty((releases, truth.size))
    blue = np.empty_like(raw)
    every = max(1, releases // 10)
    for t in range(releases):
        noisy = release.release_sums(truth_nodes, eps, rng)
        raw[t] = select @ queries.fill_unmeasured(tree, noisy) - truth
        blue[t] = select @ consistency.blue(tree, noisy, eps) - truth
        if progress is not None and ((t + 1) % every == 0 or t + 1 == releases):
            progress((t + 1) / releases)
    a = np.zeros(truth.size, dtype=np.int64)
    b = np.prod(load.hi - load.lo + 1, axis=1).astype(np.int64) - 1
    return (
        EmpiricalErrors(a, b, raw**2, confidence),
        EmpiricalErrors(a, b.copy(), blue**2, confidence),
    )
