"""AHP: noisy counts, thresholded and sorted, greedily clustered, one noisy mean per cluster.

Zhang, Chen, Xu, Meng, Xie, "Towards accurate histogram publication under differential
privacy", SDM 2014, with DPComp's defaults (``ahp_engine`` in dpcomp-org/dpcomp_core):
``ratio = 0.85`` of ``eps`` for the noisy counts, threshold factor ``eta = 0.35``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpcore.algorithms.common import FloatArray, IntArray, Ranges, Release

RATIO = 0.85
"""DPComp's ``ratio``: the share of ``eps`` spent on the noisy counts that drive clustering."""

ETA = 0.35
"""DPComp's ``eta``: noisy counts ``<= eta ln(n) / eps_1`` are set to 0."""

_FIRST_WINDOW = 64
"""Cluster lengths first tried at once for every start (then 4 times more, and so on)."""

_MAX_CELLS = 1 << 20
"""Most (start, length) pairs :func:`extension_costs` holds at once."""


def extension_costs(values: FloatArray, eps: float) -> FloatArray:
    """AHP's ``err*``: the cheapest cost of a cluster starting at each sorted value.

    For the cluster of sorted values ``j .. j + L - 1`` (``L >= 1``) the cost of value
    ``j`` is ``(v_j - mean)^2 + 2 / (eps^2 L^2)``; lengths are tried in order and the scan
    stops at the first ``L`` whose squared-error increase reaches the previous length's
    noise term minus ``2 / (eps^2 (m - j + 1)^2)`` (the paper's early termination, p. 6,
    as in DPComp's ``err_star``).

    While the cluster stays within ``j``'s run of equal values (the zeros left by the
    threshold, often thousands) its squared error is 0 and the noise term falls with
    ``L``: the scan cannot stop there (``0 < 2/(eps^2 (L-1)^2) - 2/(eps^2 (m-j+1)^2)``)
    and the run's last length is its best, so the scan starts there. This turns the
    ``O(z^2)`` work of a run of ``z`` zeros into ``O(z)`` times the short scan beyond it.

    Parameters
    ----------
    values : ndarray of float64, shape (m,)
        Sorted noisy counts.
    eps : float
        The budget of the cluster means, ``eps_2``.

    Returns
    -------
    ndarray of float64, shape (m,)
        ``err*`` per start (entry 0 is never used by the clustering; it is computed alike).
    """
    m = values.size
    prefix = np.concatenate(([0.0], np.cumsum(values)))
    out = np.empty(m)
    # skip[j]: lengths 1 .. skip[j] stay within j's run of equal values and are passed over.
    ends = np.append(np.flatnonzero(values[1:] != values[:-1]) + 1, m)
    skip = ends[np.searchsorted(ends, np.arange(m), side="right")] - np.arange(m) - 1
    undecided = np.arange(m)
    window = _FIRST_WINDOW
    while undecided.size:
        width = min(window, int((m - undecided - skip[undecided]).max()))
        rows = max(1, _MAX_CELLS // width)
        done = np.concatenate(
            [
                _scan(values, prefix, undecided[k : k + rows], skip, width, eps, out)
                for k in range(0, undecided.size, rows)
            ]
        )
        undecided = undecided[~done]
        window *= 4
    return out


def _scan(
    values: FloatArray,
    prefix: FloatArray,
    starts: IntArray,
    skip: IntArray,
    width: int,
    eps: float,
    out: FloatArray,
) -> NDArray[np.bool_]:
    """:func:`extension_costs` for ``starts`` over lengths ``skip + 1 .. skip + width``: fills
    ``out`` where the scan ended (it stopped early or ran out of values) and says where."""
    m = values.size
    noise = 2.0 / (eps * eps)
    start = starts[:, None]
    length = skip[starts][:, None] + np.arange(1, width + 1)[None, :]
    valid = length <= (m - start)
    mean = (prefix[np.minimum(start + length, m)] - prefix[start]) / length
    gap = values[start] - mean
    fit = gap * gap
    spread = noise / (length * length)
    bound = noise / ((m - start + 1) * (m - start + 1))
    # The scan stops at the first L >= 2 with fit[L] - fit[L-1] >= spread[L-1] - bound.
    stop = np.zeros_like(valid)
    stop[:, 1:] = (fit[:, 1:] - fit[:, :-1] >= spread[:, :-1] - bound) & valid[:, 1:]
    stopped = stop.any(axis=1)
    first_stop = np.where(stopped, stop.argmax(axis=1), width)
    usable = valid & (np.arange(width)[None, :] < first_stop[:, None])
    best = np.where(usable, fit + spread, np.inf).min(axis=1)
    done: NDArray[np.bool_] = stopped | (skip[starts] + width >= m - starts)
    out[starts[done]] = best[done]
    return done


def greedy_clusters(values: FloatArray, eps: float) -> IntArray:
    """AHP's greedy clustering of sorted values: where each contiguous cluster starts.

    A cluster ``[i, j)`` costs its sum of squared deviations from its mean plus
    ``2 / (eps^2 (j - i))`` (the variance its noisy mean spreads over its bins). Value
    ``j`` opens a new cluster when adding it to the current one costs at least
    :func:`extension_costs`'s ``err*`` of ``j`` (DPComp's ``greedy_cluster``).

    Parameters
    ----------
    values : ndarray of float64, shape (m,)
        Sorted noisy counts.
    eps : float
        ``eps_2``.

    Returns
    -------
    ndarray of int64
        The clusters' first positions, ascending, from 0.
    """
    m = values.size
    padded = np.concatenate(([0.0], values))
    sums = np.cumsum(padded).tolist()
    squares = np.cumsum(padded**2).tolist()
    noise = 2.0 / (eps * eps)
    best = extension_costs(values, eps).tolist()

    def cost(i: int, j: int) -> float:
        # 1-based, inclusive: the padded values i .. j.
        length = j - i + 1
        mean = (sums[j] - sums[i - 1]) / length
        return float(squares[j] - squares[i - 1] - length * (mean * mean) + noise / length)

    starts = [0]
    i = 1
    last = cost(1, 1)
    for j in range(2, m + 1):
        now = cost(i, j)
        if now >= last + best[j - 1]:
            starts.append(j - 1)
            i = j
            last = cost(i, j)
        else:
            last = now
    return np.array(starts, dtype=np.int64)


def ahp(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """AHP (Zhang, Chen, Xu, Meng, Xie, SDM 2014) with DPComp's defaults.

    ``eps_1 = 0.85 eps`` buys ``x + Lap(1/eps_1)``; values ``<= 0.35 ln(n) / eps_1`` become
    0; the noisy values are sorted and clustered by :func:`greedy_clusters` (post-processing);
    ``eps_2 = 0.15 eps`` buys each cluster's true total plus ``Lap(1/eps_2)``, spread evenly
    over its bins (clusters are disjoint). Clusters of sorted bins are not contiguous in the
    domain, so no buckets are returned.

    Parameters
    ----------
    counts : ndarray of float64, shape (n,)
    eps : float
    workload : Ranges
        Not used (AHP is workload-independent).
    rng : numpy.random.Generator

    Returns
    -------
    Release
        The estimate and ``{"noisy counts": 0.85 eps, "cluster totals": 0.15 eps}``.
    """
    n = counts.size
    eps_counts = eps * RATIO
    eps_totals = eps - eps_counts
    noisy = counts + rng.laplace(0.0, 1.0 / eps_counts, size=n)
    noisy = np.where(noisy <= ETA * math.log(n) / eps_counts, 0.0, noisy)
    order = np.argsort(noisy, kind="stable")
    starts = greedy_clusters(noisy[order], eps_totals)
    sizes = np.diff(np.append(starts, n))
    totals = np.add.reduceat(counts[order], starts) + rng.laplace(
        0.0, 1.0 / eps_totals, size=starts.size
    )
    estimate = np.empty(n)
    estimate[order] = np.repeat(totals / sizes, sizes)
    return Release(estimate, {"noisy counts": eps_counts, "cluster totals": eps_totals})
