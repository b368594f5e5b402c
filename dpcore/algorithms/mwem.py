"""MWEM: multiplicative weights over the workload's worst-answered queries.

Hardt, Ligett, McSherry, "A simple and practical algorithm for differentially private
data release", NIPS 2012, with DPComp's defaults (``mwemND_engine`` in
dpcomp-org/dpcomp_core): ``T = 10`` rounds, half of ``eps`` for selection and half for
measurement, 100 passes of the multiplicative update over every measurement so far per
round, and the total number of records taken as public knowledge.
"""

from __future__ import annotations

import numpy as np

from dpcore.algorithms.common import FloatArray, IntArray, Ranges, Release
from dpcore.mechanisms.exponential import sample_categorical

ROUNDS = 10
"""DPComp's ``nrounds``: queries selected and measured."""

SELECTION_SHARE = 0.5
"""DPComp's ``ratio``: the share of ``eps`` spent selecting queries."""

UPDATE_PASSES = 100
"""DPComp's ``updateround``: passes of the update over all measurements, every round."""

_ROW_BLOCK = 256
"""Rows of the all-ranges score matrix scored at once (``256 (n + 1)`` floats)."""


def mwem(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """MWEM (Hardt, Ligett, McSherry, NIPS 2012) with DPComp's defaults.

    Starting from the uniform histogram of the true total, each of ``T = min(10, m)``
    rounds picks a workload query not yet picked by the exponential mechanism (score
    ``|q(x) - q(x_hat)|``, sensitivity 1, budget ``eps / (2T)``), measures it with
    ``Lap(2T / eps)`` and runs 100 passes of the multiplicative update over every
    measurement so far (:func:`multiplicative_weights`).

    As in DPComp the total ``sum(x)`` is assumed known and not protected: the budget
    lists it with 0 (an add/remove neighbour changes it, so strictly the release is
    private only among histograms of the same total).

    Parameters
    ----------
    counts : ndarray of float64, shape (n,)
        The histogram.
    eps : float
        Privacy budget.
    workload : Ranges
        The queries to choose from (``m`` of them).
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    Release
        The estimate and the split ``{"total (assumed public)": 0, "selection": eps/2,
        "measurement": eps/2}``.
    """
    total = float(counts.sum())
    n = counts.size
    rounds = min(ROUNDS, workload.size)
    eps_select = eps * SELECTION_SHARE
    eps_measure = eps - eps_select
    budget = {"total (assumed public)": 0.0, "selection": eps_select, "measurement": eps_measure}
    estimate = np.full(n, total / n)
    if total <= 0.0:
        return Release(estimate, budget)
    prefix = np.concatenate(([0.0], np.cumsum(counts)))
    chosen: list[int] = []
    lo = np.zeros(0, np.int64)
    hi = np.zeros(0, np.int64)
    measured = np.zeros(0)
    for _ in range(rounds):
        pick = select_query(counts - estimate, eps_select / rounds, workload, chosen, rng)
        chosen.append(pick)
        a, b = query_bounds(workload, pick)
        noisy = prefix[b + 1] - prefix[a] + rng.laplace(0.0, rounds / eps_measure)
        lo, hi = np.append(lo, a), np.append(hi, b)
        measured = np.append(measured, noisy)
        estimate = multiplicative_weights(estimate, lo, hi, measured, total, UPDATE_PASSES)
    return Release(estimate, budget)


def multiplicative_weights(
    estimate: FloatArray,
    lo: IntArray,
    hi: IntArray,
    measured: FloatArray,
    total: float,
    passes: int,
) -> FloatArray:
    """``passes`` sweeps of MWEM's update over the measured ranges, in order.

    For each range ``q = [lo, hi]`` with measurement ``m``:

    .. math:: \\hat x_i \\leftarrow \\hat x_i \\exp\\big(q_i (m - q(\\hat x)) / (2N)\\big),
              \\quad \\hat x \\leftarrow N \\hat x / \\textstyle\\sum_i \\hat x_i

    where ``N`` is the total (Hardt et al., alg. 1; DPComp's ``_update``).

    Parameters
    ----------
    estimate : ndarray of float64, shape (n,)
        The current estimate (positive entries, summing to ``total``).
    lo, hi : ndarray of int64, shape (k,)
        The measured ranges' inclusive bounds.
    measured : ndarray of float64, shape (k,)
        Their noisy answers.
    total : float
        ``N > 0``.
    passes : int
        Number of sweeps.

    Returns
    -------
    ndarray of float64, shape (n,)
        The updated estimate (a new array).
    """
    x = estimate.copy()
    bounds = list(zip(lo.tolist(), hi.tolist(), measured.tolist(), strict=True))
    for _ in range(passes):
        for a, b, m in bounds:
            step = (m - float(x[a : b + 1].sum())) / (2.0 * total)
            # q is 0/1, so the factor is e^step on the range and 1 elsewhere; after the
            # renormalisation that equals e^-step outside and 1 on it, the form used for a
            # positive step so that no factor overflows (a tiny eps makes |step| huge).
            if step > 0:
                x[:a] *= np.exp(-step)
                x[b + 1 :] *= np.exp(-step)
            else:
                x[a : b + 1] *= np.exp(step)
            mass = x.sum()
            if mass > 0:  # all mass underflowed away: the update cannot be represented
                x *= total / mass
    return x


def query_bounds(workload: Ranges, index: int) -> tuple[int, int]:
    """The inclusive ``(lo, hi)`` of query ``index`` in the order of ``workload.bounds()``.

    For ``"all ranges"`` the order is numpy's ``triu_indices``: row ``a`` holds
    ``n - a`` ranges, starting at ``a n - a (a - 1) / 2``.
    """
    if workload.kind == "prefix":
        return 0, index
    if workload.kind == "listed":
        return int(workload.lo[index]), int(workload.hi[index])
    n = workload.n
    starts = np.arange(n) * n - np.arange(n) * (np.arange(n) - 1) // 2
    a = int(np.searchsorted(starts, index, side="right")) - 1
    return a, a + index - int(starts[a])


def select_query(
    difference: FloatArray,
    eps: float,
    workload: Ranges,
    excluded: list[int],
    rng: np.random.Generator,
) -> int:
    """One run of the exponential mechanism over the workload's queries not in ``excluded``.

    Query ``q``'s score is ``|q(x - x_hat)|`` (sensitivity 1), so it is drawn with
    probability proportional to ``exp(eps |q(d)| / 2)`` (DPComp's ``_exponentialMechanism``).
    Every range's answer is a difference of two prefix sums ``D`` of ``d``; for
    ``"all ranges"`` the ``n (n + 1) / 2`` weights are formed in blocks of rows, a row
    is drawn by its total weight, then a range within it (the same distribution, exactly).

    Parameters
    ----------
    difference : ndarray of float64, shape (n,)
        ``x - x_hat``.
    eps : float
        This round's selection budget.
    workload : Ranges
        The candidates.
    excluded : list of int
        Indices (in the order of ``workload.bounds()``) already chosen.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    int
        The chosen query's index.
    """
    prefix = np.concatenate(([0.0], np.cumsum(difference)))
    scale = eps / 2.0
    if workload.kind != "all ranges":
        lo, hi = workload.bounds()
        log_weights = scale * np.abs(prefix[hi + 1] - prefix[lo])
        log_weights[excluded] = -np.inf
        return int(_sample_log(log_weights, rng))
    n = workload.n
    removed = [query_bounds(workload, k) for k in excluded]
    row_log_mass = np.concatenate(
        [
            _log_sum_rows(
                _row_log_weights(prefix, start, min(start + _ROW_BLOCK, n), scale, removed)
            )
            for start in range(0, n, _ROW_BLOCK)
        ]
    )
    a = _sample_log(row_log_mass, rng)
    b = a + _sample_log(_row_log_weights(prefix, a, a + 1, scale, removed)[0], rng)
    return a * n - a * (a - 1) // 2 + (b - a)


def _sample_log(log_weights: FloatArray, rng: np.random.Generator) -> int:
    """An index drawn with probability proportional to ``exp(log_weights)`` (``-inf``: never)."""
    return int(sample_categorical(np.exp(log_weights - log_weights.max()), size=1, rng=rng)[0])


def _log_sum_rows(log_weights: FloatArray) -> FloatArray:
    """``log sum_b exp(log_weights[:, b])`` per row, shifted by the row's maximum."""
    top = log_weights.max(axis=1)
    sums = np.full(top.size, -np.inf)
    live = np.isfinite(top)
    mass = np.exp(log_weights[live] - top[live, None]).sum(axis=1)
    sums[live] = np.log(mass) + top[live]
    return sums


def _row_log_weights(
    prefix: FloatArray, start: int, stop: int, scale: float, removed: list[tuple[int, int]]
) -> FloatArray:
    """``scale |D[b+1] - D[a]|`` for rows ``a`` in ``[start, stop)`` and ``b >= start``
    (``-inf`` where ``b < a`` or ``(a, b)`` was removed), shape ``(stop - start, n - start)``."""
    rows = np.arange(start, stop)
    log_weights = np.abs(prefix[None, start + 1 :] - prefix[rows, None])
    log_weights *= scale
    log_weights[np.arange(start, prefix.size - 1)[None, :] < rows[:, None]] = -np.inf
    for a, b in removed:
        if start <= a < stop:
            log_weights[a - start, b - start] = -np.inf
    return log_weights
