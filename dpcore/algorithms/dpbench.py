"""DPBench's evaluation protocol for 1-D histograms.

Hay, Machanavajjhala, Miklau, Chen, Zhang, "Principled Evaluation of Differentially
Private Algorithms using DPBench", SIGMOD 2016, and its code (DPComp, ``dpcomp_core``):

- **data**: a dataset's *shape* ``p = x / sum(x)``; an input of *scale* ``m`` records is
  ``m`` draws from ``p`` (a multinomial sample), then reduced to the *domain size* by
  summing equal groups of adjacent bins;
- **workloads**: all prefix ranges, or random ranges: a length drawn uniformly from
  ``1..n``, then placed uniformly (2,000 of them in the paper);
- **error**: the scaled average per-query L1 error, and **regret**, an algorithm's error
  over the best algorithm's in the same setting.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from dpcore import _validate
from dpcore.algorithms.common import FloatArray, Ranges, checked_counts

RANDOM_RANGES = 2_000
"""How many random ranges DPBench's 1-D random-range workload holds."""

MAX_SCALE = 10**9
"""Largest number of records :func:`sample` draws (the page offers up to 10^8)."""


def reduce_domain(counts: ArrayLike, domain: int) -> FloatArray:
    """``counts`` summed over equal groups of adjacent bins into ``domain`` bins.

    Parameters
    ----------
    counts : array_like of float, shape (n,)
        The histogram.
    domain : int
        Bins wanted: a divisor of ``n``.

    Returns
    -------
    ndarray of float64, shape (domain,)
        Bin ``j`` holds bins ``j k .. (j + 1) k - 1`` of ``counts``, ``k = n / domain``.

    Raises
    ------
    ValueError
        If ``domain`` does not divide ``n``.

    Examples
    --------
    >>> reduce_domain([1, 2, 3, 4, 5, 6], 3).tolist()
    [3.0, 7.0, 11.0]
    """
    values = checked_counts(counts)
    size = _validate.whole("domain", domain, upper=values.size)
    if values.size % size:
        raise ValueError(
            f"domain {size} must divide the histogram's {values.size} bins "
            "(DPBench merges equal groups of adjacent bins)"
        )
    reduced: FloatArray = values.reshape(size, -1).sum(axis=1)
    return reduced


def sample(counts: ArrayLike, scale: int, domain: int, rng: np.random.Generator) -> FloatArray:
    """A DPBench input: ``scale`` records drawn from the shape of ``counts``, at ``domain`` bins.

    Parameters
    ----------
    counts : array_like of float, shape (n,)
        The histogram whose shape is kept: finite, ``>= 0``, not all zero.
    scale : int
        Number of records, in ``[1, MAX_SCALE]``.
    domain : int
        Number of bins of the result, a divisor of ``n``.
    rng : numpy.random.Generator
        The multinomial draw's randomness.

    Returns
    -------
    ndarray of float64, shape (domain,)
        Whole counts summing to ``scale``.

    Raises
    ------
    ValueError
        For an all-zero histogram, a scale outside ``[1, MAX_SCALE]`` or a domain that does
        not divide ``n``.
    """
    values = checked_counts(counts)
    total = values.sum()
    if not total > 0:
        raise ValueError("the histogram is all zeros: it has no shape to sample records from")
    records = _validate.whole("scale", scale, upper=MAX_SCALE)
    drawn = rng.multinomial(records, values / total).astype(np.float64)
    return reduce_domain(drawn, domain)


def random_ranges(domain: int, rng: np.random.Generator, size: int = RANDOM_RANGES) -> Ranges:
    """DPBench's random 1-D ranges: length uniform in ``1..domain``, start uniform where it fits.

    Parameters
    ----------
    domain : int
        Number of bins.
    rng : numpy.random.Generator
        The draws' randomness.
    size : int, default 2000
        Number of ranges.

    Returns
    -------
    Ranges
        A listed workload of ``size`` ranges.

    Examples
    --------
    >>> w = random_ranges(10, np.random.default_rng(0), size=4)
    >>> bool(((0 <= w.lo) & (w.lo <= w.hi) & (w.hi < 10)).all())
    True
    """
    n = _validate.whole("domain", domain)
    count = _validate.whole("size", size)
    length = rng.integers(1, n + 1, size=count)
    lo = rng.integers(0, n - length + 1)
    return Ranges("listed", n, lo.astype(np.int64), (lo + length - 1).astype(np.int64))


def scaled_l1_error(truth: ArrayLike, estimate: ArrayLike, workload: Ranges) -> float:
    """DPBench's error: the mean absolute error of the workload's answers over the scale.

    .. math:: \\frac{\\lVert W x - W \\hat x \\rVert_1}{|W| \\cdot \\lVert x \\rVert_1}

    Parameters
    ----------
    truth : array_like of float, shape (n,)
        The input the algorithm saw (its scale is its sum, which must be positive).
    estimate : array_like of float, shape (n,)
        The algorithm's estimate.
    workload : Ranges
        The queries.

    Returns
    -------
    float
        The scaled average per-query L1 error.

    Raises
    ------
    ValueError
        If the shapes differ from the workload's ``n`` or ``truth`` sums to zero.

    Examples
    --------
    >>> w = Ranges("prefix", 2)
    >>> scaled_l1_error([3, 1], [2, 1], w)
    0.25
    """
    x = _validate.finite_array("truth", truth, size=workload.n)
    x_hat = _validate.finite_array("estimate", estimate, size=workload.n)
    return scaled_error(workload.answer(x), workload.answer(x_hat), x.sum())


def scaled_error(
    true_answers: ArrayLike, estimated_answers: ArrayLike, scale: float, *, norm: int = 1
) -> float:
    """The workload's error over the number of queries and the scale, any dimension.

    .. math:: \\frac{\\lVert W x - W \\hat x \\rVert_p}{m \\cdot \\mathrm{scale}}

    Parameters
    ----------
    true_answers, estimated_answers : array_like of float, shape (m,)
        The ``m`` queries' answers on the input and on the estimate.
    scale : float
        The input's number of records, ``> 0``.
    norm : {1, 2}, default 1
        L1 (the project's comparisons) or L2 (DPBench's figures).

    Returns
    -------
    float
        The scaled per-query error.

    Raises
    ------
    ValueError
        If the answers differ in length or are not finite, ``scale`` is not positive, or
        ``norm`` is not 1 or 2.

    Examples
    --------
    >>> scaled_error([3, 4], [3, 1], 10)
    0.15
    >>> scaled_error([3, 4], [0, 0], 10, norm=2)
    0.25
    """
    truth = _validate.finite_array("true answers", true_answers)
    guess = _validate.finite_array("estimated answers", estimated_answers, size=truth.size)
    if not scale > 0:
        raise ValueError("the input holds no records: the scaled error is undefined")
    if norm not in (1, 2):
        raise ValueError(f"norm must be 1 or 2, got {norm!r}")
    if truth.size == 0:
        raise ValueError("the workload holds no queries")
    gap = float(np.linalg.norm(truth - guess, ord=norm))
    return gap / (truth.size * float(scale))


def regret(errors: Mapping[str, float]) -> dict[str, float]:
    """Each algorithm's error over the smallest error in the same setting (the best is 1).

    Examples
    --------
    >>> regret({"A": 0.02, "B": 0.01})
    {'A': 2.0, 'B': 1.0}
    """
    if not errors:
        raise ValueError("regret needs at least one algorithm's error")
    best = min(errors.values())
    if not best > 0:
        raise ValueError("regret is undefined when the best error is 0")
    return {name: error / best for name, error in errors.items()}
