"""DPBench's evaluation protocol for 2-D histograms (grids).

Hay, Machanavajjhala, Miklau, Chen, Zhang, "Principled Evaluation of Differentially
Private Algorithms using DPBench", SIGMOD 2016, and its code (``dpcomp_core``'s
``DatasetSampledFromFile`` and ``RandomRange``):

- **data**: a grid's *shape* ``p = x / sum(x)``; an input of *scale* ``m`` records is ``m``
  draws from ``p`` over the full grid (a multinomial sample, as the 1-D
  :func:`dpcore.algorithms.dpbench.sample`), then reduced to the *domain* by summing
  ``k x k`` blocks (2 x 2 from 256² to 128²);
- **workload**: 2,000 random rectangles drawn as ``RandomRange`` draws them, from a
  ``numpy.random.RandomState`` (per rectangle a width per axis, then a first cell per axis);
- **error**: the scaled per-query L1 or L2 error
  (:func:`dpcore.algorithms.dpbench.scaled_error`), and regret
  (:func:`dpcore.algorithms.dpbench.regret`), shared with 1-D.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpcore import _validate
from dpcore.algorithms.dpbench import sample, scaled_error
from dpcore.algorithms.grid2d.inputs import FloatArray, checked_grid, rectangle_answers
from dpcore.spatial.rectangles import Rectangles, rectangle_workload, sample_rectangles

RANDOM_RECTANGLES = 2_000
"""How many random rectangles DPBench's 2-D workload holds."""
WORKLOAD_SEED = 0
"""The ``RandomState`` seed of DPBench's 2-D workload."""


def _domain(domain: int | tuple[int, int]) -> tuple[int, int]:
    sides = (domain, domain) if isinstance(domain, int | np.integer) else tuple(domain)
    if len(sides) != 2:
        raise ValueError(f"domain must be one side or (rows, columns), got {domain!r}")
    return (_validate.whole("domain", sides[0]), _validate.whole("domain", sides[1]))


def _dividing_domain(shape: tuple[int, int], domain: int | tuple[int, int]) -> tuple[int, int]:
    """``domain`` as ``(d1, d2)``, checked to divide ``shape`` axis by axis."""
    d1, d2 = _domain(domain)
    if shape[0] % d1 or shape[1] % d2:
        raise ValueError(
            f"domain ({d1}, {d2}) must divide the grid's {shape} cells per axis "
            "(DPBench sums k x k blocks)"
        )
    return d1, d2


def reduce_grid(counts: ArrayLike, domain: int | tuple[int, int]) -> FloatArray:
    """``counts`` summed over equal blocks of adjacent cells into ``domain`` cells per axis.

    Parameters
    ----------
    counts : array_like of float, shape (n1, n2)
        The grid.
    domain : int or tuple of int
        Cells per axis wanted (one number: a square); each must divide the grid's side.

    Returns
    -------
    ndarray of float64, shape (d1, d2)
        Cell ``(i, j)`` holds the block ``i k1 .. (i+1) k1 - 1`` x ``j k2 .. (j+1) k2 - 1``.

    Raises
    ------
    ValueError
        If ``domain`` does not divide the grid's sides (or the grid is invalid).

    Examples
    --------
    >>> reduce_grid(np.arange(16.0).reshape(4, 4), 2).tolist()
    [[10.0, 18.0], [42.0, 50.0]]
    """
    grid = checked_grid(counts)
    n1, n2 = grid.shape
    d1, d2 = _dividing_domain((n1, n2), domain)
    reduced: FloatArray = grid.reshape(d1, n1 // d1, d2, n2 // d2).sum(axis=(1, 3))
    return reduced


def sample_grid(
    counts: ArrayLike, scale: int, domain: int | tuple[int, int], rng: np.random.Generator
) -> FloatArray:
    """A DPBench 2-D input: ``scale`` records drawn from the shape of ``counts``, at ``domain``.

    Parameters
    ----------
    counts : array_like of float, shape (n1, n2)
        The grid whose shape is kept: finite, ``>= 0``, not all zero.
    scale : int
        Number of records, in ``[1, MAX_SCALE]`` (fewer records than cells is allowed:
        DPBench runs 10^4 records on 128² = 16,384 cells).
    domain : int or tuple of int
        Cells per axis of the result, dividing the grid's sides.
    rng : numpy.random.Generator
        The multinomial draw's randomness.

    Returns
    -------
    ndarray of float64, shape (d1, d2)
        Whole counts summing to ``scale``.

    Raises
    ------
    ValueError
        For an empty or all-zero grid, a scale outside ``[1, MAX_SCALE]`` or a domain that
        does not divide the grid.
    """
    grid = checked_grid(counts)
    _dividing_domain((int(grid.shape[0]), int(grid.shape[1])), domain)  # before any draw
    drawn = sample(grid.ravel(), scale, grid.size, rng).reshape(grid.shape)
    return reduce_grid(drawn, domain)


def random_rectangles(
    shape: tuple[int, int], size: int = RANDOM_RECTANGLES, seed: int = WORKLOAD_SEED
) -> Rectangles:
    """DPBench's random rectangles, drawn in its order from ``RandomState(seed)``.

    Parameters
    ----------
    shape : tuple of int
        The grid's rows and columns.
    size : int, default 2000
        Number of rectangles, in ``[1, 10000]``.
    seed : int, default 0
        The ``RandomState`` seed (DPBench's is 0).

    Returns
    -------
    Rectangles
        A listed workload.

    Examples
    --------
    >>> w = random_rectangles((128, 128), size=3)
    >>> w.lo.tolist(), w.hi.tolist()
    ([[64, 67], [1, 19], [36, 7]], [[108, 114], [124, 86], [57, 121]])
    """
    dims = _domain(shape)
    count = _validate.whole("size", size, upper=10_000)
    lo, hi = sample_rectangles(dims, count, np.random.RandomState(seed))
    return rectangle_workload(np.stack([lo, hi], axis=1), dims)


def scaled_errors(
    truth: ArrayLike, estimate: ArrayLike, workload: Rectangles
) -> tuple[float, float]:
    """DPBench's scaled per-query L1 and L2 errors of an estimate on listed rectangles.

    .. math:: \\frac{\\lVert W x - W \\hat x \\rVert_1}{m \\lVert x \\rVert_1}, \\qquad
              \\frac{\\lVert W x - W \\hat x \\rVert_2}{m \\lVert x \\rVert_1}

    Parameters
    ----------
    truth : array_like of float, shape (n1, n2)
        The input the algorithm saw (its scale is its sum, which must be positive).
    estimate : array_like of float, shape (n1, n2)
        The algorithm's estimate.
    workload : Rectangles
        Listed rectangles over the grid (:func:`random_rectangles`).

    Returns
    -------
    tuple of float
        ``(L1, L2)``.

    Raises
    ------
    ValueError
        If the grids differ in shape from the workload's, the workload is not a list, or
        ``truth`` holds no records.

    Examples
    --------
    >>> w = rectangle_workload([((0, 0), (0, 1)), ((1, 0), (1, 1))], (2, 2))
    >>> scaled_errors([[1, 1], [2, 0]], [[1, 1], [0, 0]], w)
    (0.25, 0.25)
    """
    x = checked_grid(truth)
    x_hat = np.asarray(estimate, dtype=np.float64)
    if x.shape != workload.shape or x_hat.shape != workload.shape:
        raise ValueError(
            f"truth and estimate must have the workload's shape {workload.shape}, got "
            f"{x.shape} and {x_hat.shape}"
        )
    if workload.kind != "listed":
        raise ValueError("the scaled error needs listed rectangles (random_rectangles)")
    exact = rectangle_answers(x, workload.lo, workload.hi)
    guess = rectangle_answers(x_hat, workload.lo, workload.hi)
    total = float(x.sum())
    return scaled_error(exact, guess, total), scaled_error(exact, guess, total, norm=2)
