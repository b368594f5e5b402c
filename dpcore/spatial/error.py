"""Exact expected squared error of a random rectangle from a region tree, raw and after BLUE.

Raw (canonical decomposition): ``sum_x p_x Var(h~_x)`` with the coverage of
:mod:`dpcore.spatial.rectangles` for any tree.

After BLUE: ``E[Var(q^T v^)] = tr(G Σ)``, ``G = E[q q^T] = G_1 ⊗ G_2`` and ``Σ`` the
covariance of the consistent cells. BLUE's estimates form a Gaussian Markov tree
(:class:`dpcore.hist.blue_error.GaussMarkovTree`): a child is ``h_c = r_c h_x + η_c``
with ``Cov(η) = K_x = diag(V) - V V^T / S``, ``r_c = V_c / S``, independent across
families. With ``A_x`` the loading of node ``x`` on its cells (the product of ``r`` down
the path; ``A_x = sum_c r_c A_c``) and ``Q_x = A_x^T G A_x``,

.. math:: tr(G Σ) = \\mathrm{Var}(\\hat h_{root})\\, Q_{root} + \\sum_{x\\ internal}
          \\Big(\\sum_{c \\in ch(x)} V_c Q_c - S_x Q_x\\Big)

since ``sum_c V_c A_c = S_x A_x`` (derived here). ``Q_x`` is the quadratic form of the
node's block of ``A`` with the blocks of the axis Grams, one batched matrix product per
axis: ``O(cells * (n_1 + n_2))`` per level, and no matrix larger than a level's blocks.
The dense ``tr(G (A^T W A)^{-1})`` is the test oracle only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.blue_error import GaussMarkovTree
from dpcore.hist.consistency import BlueSmoother
from dpcore.hist.raw_error import effective_raw_variances
from dpcore.spatial.rectangles import Rectangles, coverage_probabilities, rectangle_workload
from dpcore.spatial.regions import BoxTree, box_cells, box_sums, check_box, summed_area_table

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def raw_expected_error(
    tree: BoxTree, budgets: ArrayLike, workload: str | Rectangles | ArrayLike
) -> float:
    """Mean squared error of a workload rectangle answered from the raw noisy tree.

    .. math:: E[Err] = \\sum_x p_x \\mathrm{Var}(\\tilde h_x)

    (an unmeasured node answered by its children's sum).

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    workload : str, Rectangles or array_like
        Any form :func:`dpcore.spatial.rectangles.rectangle_workload` accepts.

    Returns
    -------
    float
        The expected squared error (count units squared); ``inf`` if a used node's answer is
        undefined.

    Raises
    ------
    ValueError
        If ``budgets`` or ``workload`` is invalid.
    """
    p = coverage_probabilities(tree, workload)
    var = effective_raw_variances(tree, budgets)
    used = p > 0
    return float(np.sum(p[used] * var[used]))


def blue_expected_error(
    tree: BoxTree, budgets: ArrayLike, workload: str | Rectangles | ArrayLike
) -> float:
    """Exact mean squared error of a workload rectangle after BLUE consistency (module docstring).

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``; every node's sum must be
        determined by the measurements of its subtree (for example: every leaf measured).
    workload : str, Rectangles or array_like
        Any form :func:`dpcore.spatial.rectangles.rectangle_workload` accepts.

    Returns
    -------
    float
        ``tr(G Σ)`` (count units squared).

    Raises
    ------
    ValueError
        If ``budgets`` or ``workload`` is invalid, or an unmeasured subtree leaves a node's
        sum undetermined.
    """
    load = rectangle_workload(workload, tree.shape)
    gm = GaussMarkovTree.build(tree, budgets)
    if gm.has_undetermined:
        raise ValueError(
            "some node's sum is not determined by its subtree (an unmeasured leaf): "
            "measure every leaf"
        )
    forms = loading_forms(tree, gm.r, load)
    inner = ~tree.is_leaf
    total = gm.vf[0] * forms[0] + np.sum(gm.vf[1:] * forms[1:])
    return float(total - np.sum(gm.fam_s[inner] * forms[inner]))


def loading_forms(tree: BoxTree, r: FloatArray, workload: Rectangles) -> FloatArray:
    """``Q_x = A_x^T G A_x`` for every node, ``A_x`` the products of ``r`` down to each cell.

    Level by level from the leaves up, one grid holds every cell's ``A`` for its node at
    the current depth (multiplied by the ``r`` of the nodes one level down).

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    r : ndarray of float64, shape (tree.size,)
        Each node's share of its parent's sum (root: 1).
    workload : Rectangles
        The workload: its axis Grams, or its listed rectangles.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        ``Q_x`` per node.
    """
    loading = np.ones(int(np.prod(tree.shape)))
    forms = np.empty(tree.size)
    levels = tree.levels()
    grams = [workload.axis_gram(d) for d in range(tree.ndim)] if workload.kind != "listed" else []
    for d in range(tree.height - 1, -1, -1):
        if d + 1 < tree.height:
            below = levels[d + 1]
            owner, cells = box_cells(tree.lo[below], tree.hi[below], tree.shape)
            loading[cells] *= r[below][owner]
        here = levels[d]
        lo, hi = tree.lo[here], tree.hi[here]
        if grams:
            forms[here] = gram_forms(lo, hi, loading, grams, tree.shape)
        else:
            cap = tree.size * tree.height // tree.ndim  # (query, node, axis) entries at most
            forms[here] = _listed_forms(lo, hi, loading.reshape(tree.shape), workload, cap)
    return forms


def gram_forms(
    lo: IntArray,
    hi: IntArray,
    loading: FloatArray,
    grams: list[FloatArray],
    shape: tuple[int, ...],
    images: FloatArray | None = None,
) -> FloatArray:
    """``a^T (G_1 ⊗ ... ) a`` for each box's block ``a`` of ``loading`` (boxes grouped by extent,
    one batched matrix product per axis).

    Parameters
    ----------
    lo, hi : ndarray of int64, shape (k, ndim)
        The boxes (inclusive), disjoint.
    loading : ndarray of float64, shape (cells,)
        A value per cell, row-major.
    grams : list of ndarray of float64, shape (n_d, n_d)
        The axis Grams.
    shape : tuple of int
        The grid's cells per axis.
    images : ndarray of float64, shape (cells,), optional
        Receives ``G a`` on each box's cells (the form's half-gradient).

    Returns
    -------
    ndarray of float64, shape (k,)
        The quadratic form of every box.
    """
    out = np.empty(lo.shape[0])
    extent = hi - lo + 1
    kinds, which = np.unique(extent, axis=0, return_inverse=True)
    for g, ext in enumerate(kinds):
        rows = np.flatnonzero(which.ravel() == g)
        _, cells = box_cells(lo[rows], hi[rows], shape)
        block = loading[cells].reshape(rows.size, *ext)
        image = block
        for d, gram in enumerate(grams):  # apply each axis' Gram block in turn
            index = lo[rows, d, None] + np.arange(ext[d])
            sub = gram[index[:, :, None], index[:, None, :]]  # (k, e_d, e_d)
            moved = np.moveaxis(image, 1 + d, -1)  # (k, ..., e_d); G blocks are symmetric
            product = moved.reshape(rows.size, -1, int(ext[d])) @ sub
            image = np.moveaxis(product.reshape(moved.shape), -1, 1 + d)
        out[rows] = (block * image).reshape(rows.size, -1).sum(axis=1)
        if images is not None:
            images[cells] = image.ravel()
    return out


def _listed_forms(
    lo: IntArray, hi: IntArray, loading: FloatArray, workload: Rectangles, cap: int
) -> FloatArray:
    """``mean over listed q of (A_x . q)^2``: each term a box sum of the loading grid; queries
    in chunks of at most ``cap`` (query, node) pairs."""
    table = summed_area_table(loading)
    out = np.zeros(lo.shape[0])
    chunk = max(1, cap // lo.shape[0])
    for s in range(0, workload.lo.shape[0], chunk):
        q_lo = np.maximum(workload.lo[s : s + chunk, None, :], lo)  # intersections (m, k, ndim)
        q_hi = np.minimum(workload.hi[s : s + chunk, None, :], hi)
        meets = (q_lo <= q_hi).all(axis=2)
        m_idx, k_idx = np.nonzero(meets)
        sums = box_sums(table, q_lo[m_idx, k_idx], q_hi[m_idx, k_idx])
        out += np.bincount(k_idx, weights=sums * sums, minlength=lo.shape[0])
    return np.asarray(out / workload.lo.shape[0], dtype=np.float64)


def identity_error(
    shape: tuple[int, ...], eps: float, workload: str | Rectangles | ArrayLike
) -> float:
    """Identity (every cell ``+ Lap(1/eps)``): ``2 E[area] / eps^2`` per rectangle.

    Parameters
    ----------
    shape : tuple of int
        The grid's cells per axis.
    eps : float
        The privacy budget, in ``[1e-300, inf)``.
    workload : str, Rectangles or array_like
        Any form :func:`dpcore.spatial.rectangles.rectangle_workload` accepts.

    Returns
    -------
    float
        The expected squared error of one rectangle.

    Raises
    ------
    ValueError
        If ``eps`` or ``workload`` is invalid.
    """
    eps = _validate.positive("epsilon", eps)
    return 2.0 * rectangle_workload(workload, shape).expected_area() / eps**2


def blue_rectangle_weights(
    tree: BoxTree, budgets: ArrayLike, lo: ArrayLike, hi: ArrayLike
) -> FloatArray:
    """Weight of every node's measurement in the BLUE-consistent answer to one rectangle.

    The consistent answer (the sum of the consistent cells in ``[lo, hi]``) is
    ``sum_x c_x h~_x``; ``c`` is returned (0 on unmeasured nodes), in ``O(nodes)`` by the
    tree engine's smoother (:class:`dpcore.hist.consistency.BlueSmoother`), as for an
    interval tree's range. Its error is ``sum_x c_x^2 2 / eps_x^2``.

    Parameters
    ----------
    tree : BoxTree
        A region tree whose leaves are single cells.
    budgets : array_like of float, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    lo, hi : array_like of int
        The rectangle's first and last cell per axis (inclusive, inside the grid).

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        The weights ``c``.

    Raises
    ------
    ValueError
        If the rectangle is not inside the grid, a leaf is not a single cell, or
        ``budgets`` is invalid.
    """
    q_lo, q_hi = check_box(tree.shape, lo, hi)
    leaves = tree.is_leaf
    if np.any(tree.lo[leaves] != tree.hi[leaves]):
        raise ValueError("every leaf must be a single cell")
    inside = (tree.lo >= q_lo.reshape(-1)).all(axis=1) & (tree.hi <= q_hi.reshape(-1)).all(axis=1)
    inside &= leaves
    return BlueSmoother.build(tree, budgets).transpose(inside.astype(np.float64))
