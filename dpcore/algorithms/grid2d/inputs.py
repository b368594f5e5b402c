"""What every 2-D algorithm shares: the grid checked once, the rectangle workload, and the
answers of rectangles from any grid (a summed-area table, ``O(1)`` per rectangle)."""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.algorithms.common import Release
from dpcore.spatial.rectangles import Rectangles, rectangle_workload
from dpcore.spatial.regions import MAX_CELLS, box_sums, summed_area_table

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

RectangleSpec = str | ArrayLike
"""``"random rectangles"``, ``"all rectangles"`` or an array of inclusive ``(r0, c0, r1, c1)``."""


class GridAlgorithm(Protocol):
    """``(grid, eps, workload, rng) -> Release`` on checked inputs."""

    def __call__(
        self, grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
    ) -> Release: ...


def checked_grid(counts: ArrayLike) -> FloatArray:
    """``counts`` as a 2-D float64 grid of finite numbers ``>= 0`` with at least one cell.

    Raises
    ------
    ValueError
        Naming ``counts`` and what is accepted.

    Examples
    --------
    >>> checked_grid([[1, 2], [3, 4]]).shape
    (2, 2)
    """
    grid = np.asarray(counts, dtype=np.float64)
    if grid.ndim != 2 or grid.size == 0:
        raise ValueError(
            f"counts must be a 2-D grid with at least one cell, got shape {grid.shape}"
        )
    if grid.size > MAX_CELLS:
        raise ValueError(f"counts has {grid.size:,} cells; accepted: at most {MAX_CELLS:,}")
    _validate.finite_array("counts", grid.ravel(), nonnegative=True)
    return grid


def as_rectangles(spec: RectangleSpec | Rectangles, shape: tuple[int, int]) -> Rectangles:
    """The rectangle workload ``spec`` over a grid of ``shape``, checked.

    Parameters
    ----------
    spec : str, Rectangles or array_like of int, shape (m, 4)
        ``"random rectangles"`` (DPBench's sampler), ``"all rectangles"``, a
        :class:`~dpcore.spatial.rectangles.Rectangles`, or rectangles as rows
        ``(r0, c0, r1, c1)``: first and last row, first and last column, inclusive, 0-based.
    shape : tuple of int
        The grid's rows and columns.

    Returns
    -------
    Rectangles
        The workload.

    Raises
    ------
    ValueError
        For an unknown name, rows that are not four whole numbers, or a rectangle outside
        the grid (naming it).

    Examples
    --------
    >>> as_rectangles([(0, 1, 2, 3)], (4, 4)).hi.tolist()
    [[2, 3]]
    """
    if isinstance(spec, (str, Rectangles)):
        return rectangle_workload(spec, shape)
    rows = np.asarray(spec)
    if rows.ndim != 2 or rows.shape[1] != 4:
        raise ValueError(
            "workload must be 'random rectangles', 'all rectangles' or an array of "
            f"(r0, c0, r1, c1) rectangles, got an array of shape {rows.shape}"
        )
    return rectangle_workload(rows.reshape(-1, 2, 2), shape)


def rectangle_answers(grid: ArrayLike, lo: IntArray, hi: IntArray) -> FloatArray:
    """Each rectangle's sum on ``grid`` from its summed-area table.

    .. math:: Q = S[r_1+1][c_1+1] - S[r_0][c_1+1] - S[r_1+1][c_0] + S[r_0][c_0]

    Parameters
    ----------
    grid : array_like of float, shape (n1, n2)
        Any grid (an estimate may be negative).
    lo, hi : ndarray of int64, shape (m, 2)
        First and last cell of each rectangle (inside the grid).

    Returns
    -------
    ndarray of float64, shape (m,)

    Examples
    --------
    >>> g = np.arange(6.0).reshape(2, 3)
    >>> rectangle_answers(g, np.array([[0, 1]]), np.array([[1, 2]])).tolist()
    [12.0]
    """
    table = summed_area_table(np.asarray(grid, dtype=np.float64))
    return box_sums(table, lo, hi)
