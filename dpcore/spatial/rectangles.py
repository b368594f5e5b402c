"""Rectangle workloads on a grid, and how often a random rectangle uses each node of a tree.

Every workload here except a list draws its axes independently (DPBench's sampler does): an axis
interval ``[a, b]`` has probability ``K_d[a, b]``, so a rectangle contains the box
``I x J`` with probability ``C_1(I) C_2(J)``, and

.. math:: C_d([p, q]) = \\sum_{a \\le p} \\sum_{b \\ge q} K_d[a, b]

(two cumulative sums of ``K_d``). The same table is the axis Gram
``G_d[i, j] = C_d([\\min(i,j), \\max(i,j)]) = E[q_i q_j]``; the grid's Gram is
``G_1 ⊗ G_2``.

* ``"random rectangles"``: DPBench's ``RandomRange`` (``dpcomp_core/workload.py``): per
  axis a width uniform on ``1..n``, then a start uniform among the fitting ones:
  ``K[a, b] = 1 / (n (n - (b - a)))``;
* ``"all rectangles"``: every rectangle equally likely (HDMM's ``Range2D``):
  ``K[a, b] = 2 / (n (n + 1))``;
* a list of rectangles, equally likely (a rectangle listed twice counts twice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore.hist.coverage import used_share
from dpcore.spatial.regions import BoxTree, check_box

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

RectangleKind = Literal["random rectangles", "all rectangles", "listed"]
KINDS: tuple[RectangleKind, ...] = ("random rectangles", "all rectangles")

MAX_LISTED = 10_000
"""Most rectangles a listed workload may hold."""


@dataclass(frozen=True, eq=False)
class Rectangles:
    """A rectangle workload over a grid.

    Attributes
    ----------
    kind : {"random rectangles", "all rectangles", "listed"}
        DPBench's sampler, all rectangles equally likely, or a list.
    shape : tuple of int
        The grid's cells per axis.
    lo, hi : ndarray of int64, shape (m, ndim)
        A list's rectangles (first and last cell per axis, inclusive); empty otherwise.
    """

    kind: RectangleKind
    shape: tuple[int, ...]
    lo: IntArray
    hi: IntArray

    def axis_containment(self, axis: int) -> FloatArray:
        """``C[p, q] = P(Q_axis ⊇ [p, q])`` for ``p <= q`` (0 below the diagonal).

        Not defined for a list (its axes are not independent).
        """
        n = self.shape[axis]
        a, b = np.ogrid[:n, :n]
        if self.kind == "random rectangles":
            prob = np.where(b >= a, 1.0 / (n * (n - np.abs(b - a))), 0.0)
        elif self.kind == "all rectangles":
            prob = np.where(b >= a, 2.0 / (n * (n + 1)), 0.0)
        else:
            raise ValueError("a list of rectangles has no per-axis distribution")
        # sum over a <= p (down the rows) and b >= q (right to left along the columns)
        table = np.cumsum(np.cumsum(prob[:, ::-1], axis=1)[:, ::-1], axis=0)
        return np.where(b >= a, table, 0.0)

    def axis_gram(self, axis: int) -> FloatArray:
        """``G[i, j] = E[q_i q_j] = C([min(i, j), max(i, j)])`` on one axis."""
        table = self.axis_containment(axis)
        return np.asarray(np.triu(table) + np.triu(table, 1).T, dtype=np.float64)

    def expected_area(self) -> float:
        """Mean number of cells of a rectangle (``((n + 1) / 2)^2`` on DPBench's ``n x n``)."""
        if self.kind == "listed":
            return float(np.prod(self.hi - self.lo + 1, axis=1).mean())
        return float(np.prod([np.trace(self.axis_containment(d)) for d in range(len(self.shape))]))


def rectangle_workload(spec: str | Rectangles | ArrayLike, shape: Sequence[int]) -> Rectangles:
    """The workload named by ``spec`` over a grid of ``shape``.

    Parameters
    ----------
    spec : str, Rectangles or array_like of int
        ``"random rectangles"`` (DPBench), ``"all rectangles"``, a :class:`Rectangles`, or a
        list of rectangles of shape ``(m, 2, ndim)``: per rectangle its first and its last
        cell (inclusive), e.g. ``[((r0, c0), (r1, c1)), ...]``.
    shape : sequence of int
        The grid's cells per axis.

    Returns
    -------
    Rectangles
        The workload.

    Raises
    ------
    ValueError
        If a name is unknown, a workload is for another grid, or a listed rectangle is not
        inside the grid (naming the first bad one), or there are none or over
        :data:`MAX_LISTED`.
    """
    dims = tuple(int(s) for s in shape)
    if isinstance(spec, Rectangles):
        if spec.shape != dims:
            raise ValueError(f"the workload is for a grid {spec.shape}, not {dims}")
        return spec
    empty = np.zeros((0, len(dims)), dtype=np.int64)
    if isinstance(spec, str):
        if spec not in KINDS:
            raise ValueError(f"unknown workload '{spec}'; choose from {', '.join(KINDS)}")
        return Rectangles(spec, dims, empty, empty)
    corners = np.asarray(spec)
    if corners.ndim != 3 or corners.shape[1:] != (2, len(dims)):
        raise ValueError(
            f"list rectangles as (first cell, last cell) pairs of {len(dims)} numbers each, "
            f"got shape {corners.shape}"
        )
    if not 1 <= corners.shape[0] <= MAX_LISTED:
        raise ValueError(f"list 1 to {MAX_LISTED:,} rectangles, got {corners.shape[0]:,}")
    lo, hi = check_box(dims, corners[:, 0], corners[:, 1])
    return Rectangles("listed", dims, lo, hi)


def containment(tree: BoxTree, workload: Rectangles) -> FloatArray:
    """Per node, the probability that a random workload rectangle contains its box.

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    workload : Rectangles
        The workload, over ``tree.shape``.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        ``P(Q ⊇ x)``: ``prod_d C_d(x's range on axis d)``, or the listed share.
    """
    if workload.kind != "listed":
        prob = np.ones(tree.size)
        for d in range(tree.ndim):
            prob *= workload.axis_containment(d)[tree.lo[:, d], tree.hi[:, d]]
        return prob
    count = np.zeros(tree.size)
    chunk = max(1, tree.height // tree.ndim)  # queries per pass: temporaries <= nodes x height
    for s in range(0, workload.lo.shape[0], chunk):
        q_lo, q_hi = workload.lo[s : s + chunk, None, :], workload.hi[s : s + chunk, None, :]
        inside = ((q_lo <= tree.lo) & (q_hi >= tree.hi)).all(axis=2)
        count += inside.sum(axis=0)
    return np.asarray(count / workload.lo.shape[0], dtype=np.float64)


def coverage_probabilities(tree: BoxTree, workload: str | Rectangles | ArrayLike) -> FloatArray:
    """Per node, the probability ``p_x`` that a random workload rectangle's decomposition uses it.

    .. math:: p_x = C_1(I_x) C_2(J_x) - C_1(I_f) C_2(J_f), \\qquad f = parent(x)

    (the second term is 0 at the root).

    Parameters
    ----------
    tree : BoxTree
        The region tree.
    workload : str, Rectangles or array_like
        Any form :func:`rectangle_workload` accepts.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        ``p_x`` per node, in ``[0, 1]``.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for the grid.

    Examples
    --------
    >>> from dpcore.spatial.regions import quadtree
    >>> p = coverage_probabilities(quadtree((8, 8)), "random rectangles")
    >>> round(float(p[0]), 6)   # the whole grid: width 8 on both axes
    0.015625
    """
    load = rectangle_workload(workload, tree.shape)
    return used_share(tree, containment(tree, load))


def sample_rectangles(
    shape: Sequence[int], size: int, rng: np.random.Generator | np.random.RandomState
) -> tuple[IntArray, IntArray]:
    """Draw rectangles as DPBench's ``RandomRange`` does, in its order.

    Per rectangle: a width per axis uniform on ``1..n_d`` (axis 0 first), then a first
    cell per axis uniform on ``0..n_d - w_d``. With ``numpy.random.RandomState`` the draws
    are DPBench's own, one ``randint`` at a time in that order; a ``Generator`` draws the
    same distribution, vectorised.

    Parameters
    ----------
    shape : sequence of int
        The grid's cells per axis.
    size : int
        Number of rectangles.
    rng : numpy.random.Generator or numpy.random.RandomState
        The source of randomness.

    Returns
    -------
    lo, hi : ndarray of int64, shape (size, ndim)
        First and last cells per axis.

    Examples
    --------
    >>> lo, hi = sample_rectangles((128, 128), 1, np.random.RandomState(0))
    >>> lo[0].tolist(), hi[0].tolist()
    ([64, 67], [108, 114])
    """
    dims = np.asarray(shape, dtype=np.int64)
    if isinstance(rng, np.random.Generator):
        width = rng.integers(1, dims + 1, size=(size, dims.size))
        lo = rng.integers(0, dims - width + 1)
        return lo, lo + width - 1
    lo = np.empty((size, dims.size), dtype=np.int64)
    width = np.empty((size, dims.size), dtype=np.int64)
    for k in range(size):
        for d in range(dims.size):
            width[k, d] = rng.randint(1, dims[d] + 1)
        for d in range(dims.size):
            lo[k, d] = rng.randint(0, dims[d] - width[k, d] + 1)
    return lo, lo + width - 1


def lattice_rectangles(shape: Sequence[int], size: Sequence[int], most: int = 400) -> IntArray:
    """Rectangles of one ``size`` placed on a lattice of positions over the grid: per axis
    ``m`` first cells evenly spread from the first to the last that fits (all of them when
    fewer), ``m = floor(most^(1/ndim))``.

    Parameters
    ----------
    shape : sequence of int
        The grid's cells per axis.
    size : sequence of int
        Cells per axis of every rectangle, ``1..shape[d]``.
    most : int, default 400
        Most rectangles returned, ``>= 1``.

    Returns
    -------
    ndarray of int64, shape (m, 2, ndim)
        Each rectangle's first and last cell per axis (a listed workload).

    Raises
    ------
    ValueError
        If ``size`` does not fit the grid or ``most < 1``.

    Examples
    --------
    >>> lattice_rectangles((4, 4), (3, 3)).tolist()
    [[[0, 0], [2, 2]], [[0, 1], [2, 3]], [[1, 0], [3, 2]], [[1, 1], [3, 3]]]
    >>> lattice_rectangles((64, 64), (1, 1), most=100)[[0, 1, -1], 0].tolist()
    [[0, 0], [0, 7], [63, 63]]
    """
    dims = np.asarray(shape, dtype=np.int64)
    side = np.asarray(size, dtype=np.int64)
    if side.shape != dims.shape or np.any(side < 1) or np.any(side > dims):
        raise ValueError(
            f"size must have 1..n cells per axis of the grid {tuple(dims.tolist())}, got "
            f"{tuple(side.tolist())}"
        )
    if most < 1:
        raise ValueError(f"most must be at least 1, got {most}")
    per_axis = max(1, int(np.floor(most ** (1 / dims.size) + 1e-9)))
    axes = [
        np.unique(np.round(np.linspace(0, f - 1, min(per_axis, f))).astype(np.int64))
        for f in (dims - side + 1).tolist()
    ]
    first = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, dims.size)
    return np.stack([first, first + side - 1], axis=1).astype(np.int64)
