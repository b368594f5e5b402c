"""EFPA and P-HP: the two algorithms of Ács, Castelluccia and Chen.

Ács, Castelluccia, Chen, "Differentially private histogram publishing through lossy
compression", ICDM 2012, with DPComp's defaults (``efpa_engine`` and ``php_engine`` in
dpcomp-org/dpcomp_core, which wrap the authors' code).

Why EFPA here loses to Identity on DPBench's data while DPBench found it competitive
(checked; numbers at n = 4,096, eps = 1, prefix workload, full data). Ours follows the
paper: the score's tail term is the norm of the dropped orthonormal coefficients
(sensitivity 1), the kept ones get Laplace noise covering their L1 sensitivity
(:func:`efpa_noise_scale`, ``k / sqrt(n)``, at most the paper's ``sqrt(k)``; checked by
brute force in the tests). On spiky histograms with large counts every truncation drops
more than the noise of keeping all (ADULTFRANK: N = 17,665, ``||x||_2 = 16,837``, noise
norm at ``k = n`` is ``sqrt(2) n / (sqrt(n) eps_2) = 11,585``), so the selection keeps
``k = n`` with probability about 1 (also BIDS-ALL, LC-REQ-ALL). Then every coefficient
gets ``Lap(sqrt(n) / eps_2) = Lap(128)`` (the paper's ``sqrt(k) / eps_2`` is the same at
``k = n``): one record moves the full orthonormal basis by about ``0.9 sqrt(n)`` in L1,
a bin by 1. Scaled prefix error 0.27 against Identity's 0.0015 on ADULTFRANK.

DPComp runs the authors' ``EFPA.py``, which is not eps-DP, so its numbers are not a
target: (1) it transforms with the unnormalised FFT (``scipy.fftpack.rfft``) yet uses
sensitivity 1, while its tail term ``sqrt(s - d)`` is ``sqrt(n)`` times the orthonormal
one and moves by up to ``sqrt(n - k)`` for one record (63.99 measured on ADULTFRANK's
neighbours), so the selection is about 64 times too sharp; (2) it adds
``Lap(sqrt(k) / eps_2)`` to each kept complex coefficient's magnitude and keeps its
phase exactly: the released coefficients lie on the true ones' lines through 0, which
one record turns (coefficient 1 of ADULTFRANK by ``8.7e-6`` rad for a record in bin
100), an event of probability 1 against 0 that no eps covers; the magnitudes' L1
sensitivity is ``(k + 1) / 2``, not ``sqrt(k)``. In orthonormal units its noise at
``k = n`` is ``Lap(2)`` (radial) per coefficient, hence its 0.004 on ADULTFRANK
(re-derived with numpy's FFT; Identity 0.002).

P-HP follows the authors' ``Clustering.py`` as DPComp runs it (``php_engine``: budget
``eps / 2`` each to the clustering and the counts, sensitivity 1, depth
``int(log2 n)``, at most 2,000 clusters) step for step: the cost of a cluster is its
absolute deviation from its *mean* plus ``b = 1 / eps_count`` (``Cluster.update_error``);
a split at ``p`` scores ``-err + cluster.error - split_error[p] - 2b`` and "no split"
``-err``, drawn with ``eps_cluster / 2 / d`` and sensitivity 2 (``Clustering.split``); the
first cluster not final is split, children appended (first in, first out); every
partition met is a candidate, repeats included (``topDown``), one drawn with
``eps_cluster / 2`` and sensitivity 2; each bucket gets its true mean plus
``Lap(b) / size``, clipped at 0 (``Cluster.perturb``). The one departure is where splitting
stops (:func:`php`). Checked against issue 36's held-out cell (MEDCOST, 100,000 records,
4,096 bins, prefix, eps = 1), where DPComp's 5-trial mean was about 1/1.5 of ours: 400
trials of :func:`php` gave a mean scaled L1 error of 6.60e-4 +- 0.19e-4, 120 of a
line-by-line transcription of ``Clustering.py`` 6.42e-4 +- 0.30e-4, and the two
distributions do not differ (two-sample KS p = 0.87). A mean of 5 trials falls below 1/1.5
of the mean about 6 % of the time (``bench/bench_acs.py --php-cell``): the gap is the
spread of DPComp's 5 trials.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from dpcore.algorithms.common import FloatArray, IntArray, Ranges, Release
from dpcore.mechanisms.exponential import sample_exponential

PHP_MAX_CLUSTERS = 2000
"""DPComp's ``max_cl_num``: P-HP stops splitting once it holds more clusters than this."""

_DIRECT_LIMIT = 256
"""Below this length :func:`prefix_abs_deviation` compares all pairs directly."""


# ------------------------------------------------------------------------------ EFPA


def real_fourier(x: FloatArray) -> FloatArray:
    """``x``'s coefficients in the orthonormal real Fourier basis, lowest frequency first.

    The order is the DC term, then ``sqrt(2) Re`` and ``sqrt(2) Im`` of each unitary DFT
    coefficient ``1 <= j < n/2``, then the Nyquist term for even ``n``: the basis is
    orthonormal, so ``sum(c**2) == sum(x**2)`` and keeping the first ``k`` coefficients is
    the best ``k``-term approximation by low frequencies.

    Parameters
    ----------
    x : ndarray of float64, shape (n,)

    Returns
    -------
    ndarray of float64, shape (n,)
    """
    n = x.size
    y = np.fft.rfft(x, norm="ortho")
    pairs = np.sqrt(2.0) * np.column_stack([y.real, y.imag])[1 : (n + 1) // 2].ravel()
    tail = [y[n // 2].real] if n % 2 == 0 and n > 1 else []
    return np.concatenate(([y[0].real], pairs, tail))


def from_real_fourier(coefficients: FloatArray) -> FloatArray:
    """The inverse of :func:`real_fourier` (the histogram whose coefficients these are)."""
    n = coefficients.size
    y = np.zeros(n // 2 + 1, dtype=np.complex128)
    y[0] = coefficients[0]
    inner = coefficients[1 : 1 + 2 * ((n - 1) // 2)].reshape(-1, 2) / np.sqrt(2.0)
    y[1 : 1 + inner.shape[0]] = inner[:, 0] + 1j * inner[:, 1]
    if n % 2 == 0 and n > 1:
        y[n // 2] = coefficients[-1]
    x: FloatArray = np.fft.irfft(y, n, norm="ortho")
    return x


def efpa_kept_sizes(n: int) -> IntArray:
    """The candidate numbers of kept real coefficients: 1, 3, 5, ... and finally ``n``
    (a DFT coefficient's real and imaginary parts are kept together)."""
    return np.unique(np.minimum(np.arange(1, n + 2, 2), n)).astype(np.int64)


def efpa_noise_scale(k: int, n: int, eps_noise: float) -> float:
    """The Laplace scale for ``k`` of the ``n`` orthonormal real Fourier coefficients.

    One record moves a bin by 1, hence the DC and Nyquist coefficients by at most
    ``1/sqrt(n)`` and each (cosine, sine) pair by at most ``sqrt(2/n) (|cos| + |sin|)
    <= 2/sqrt(n)``: the L1 sensitivity of the first ``k`` is at most ``k / sqrt(n)``, never
    above the paper's ``sqrt(k)`` (L2 sensitivity 1 times ``sqrt(k)``).
    """
    return k / math.sqrt(n) / eps_noise


def efpa_scores(coefficients: FloatArray, eps_noise: float) -> FloatArray:
    """EFPA's score of keeping each of :func:`efpa_kept_sizes` coefficients (higher is better).

    .. math:: u(k) = -\\Big(\\sqrt{\\textstyle\\sum_{i \\ge k} c_i^2}
              + \\sqrt{2k}\\,\\lambda_k\\Big)

    the norm of what truncation drops plus the expected norm of ``k`` draws of
    ``Lap(lambda_k)`` (:func:`efpa_noise_scale`; the paper's ``sqrt(2) k / eps_2`` for its
    ``lambda_k = sqrt(k) / eps_2``). The first term has sensitivity 1 (the norm of a
    projection of an orthonormal transform), the second does not depend on the data.
    """
    n = coefficients.size
    kept = efpa_kept_sizes(n)
    tail_energy = np.concatenate((np.cumsum((coefficients**2)[::-1])[::-1], [0.0]))
    noise = np.sqrt(2.0 * kept) * kept / math.sqrt(n) / eps_noise
    scores: FloatArray = -(np.sqrt(tail_energy[kept]) + noise)
    return scores


def efpa(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """EFPA (Ács, Castelluccia, Chen, ICDM 2012): low Fourier frequencies, their number
    chosen by the exponential mechanism, with Laplace noise.

    DPComp's defaults: ``eps / 2`` to choose ``k`` (score :func:`efpa_scores`, sensitivity
    1) and ``eps / 2`` for ``Lap(lambda_k)`` on each of the ``k`` kept coefficients in the
    orthonormal real Fourier basis (:func:`real_fourier`); the rest are set to 0 and the
    basis inverted.

    Departures from the code DPComp runs (not eps-DP; see the module docstring): the
    transform is orthonormal, every real coefficient gets its own noise (no exact
    phase), and ``lambda_k = k / (sqrt(n) eps_2)`` (:func:`efpa_noise_scale`, below the
    paper's ``sqrt(k) / eps_2``; equal to DPComp's effective noise at ``k = 1``).

    Parameters
    ----------
    counts : ndarray of float64, shape (n,)
    eps : float
    workload : Ranges
        Not used (EFPA is workload-independent).
    rng : numpy.random.Generator

    Returns
    -------
    Release
        The estimate and ``{"number of coefficients": eps/2, "coefficients": eps/2}``.
    """
    eps_select = eps_noise = eps / 2.0
    coefficients = real_fourier(counts)
    scores = efpa_scores(coefficients, eps_noise)
    pick = int(sample_exponential(scores, eps_select, 1.0, size=1, rng=rng)[0])
    k = int(efpa_kept_sizes(counts.size)[pick])
    kept = np.zeros_like(coefficients)
    noise = efpa_noise_scale(k, counts.size, eps_noise)
    kept[:k] = coefficients[:k] + rng.laplace(0.0, noise, size=k)
    budget = {"number of coefficients": eps_select, "coefficients": eps_noise}
    return Release(from_real_fourier(kept), budget)


# ------------------------------------------------------------------------------- P-HP


def prefix_abs_deviation(values: FloatArray) -> FloatArray:
    """``sum_{i < p} |v_i - mean(v[:p])|`` for every ``p = 1 .. m``.

    Since deviations from the mean sum to 0, this is ``2 sum_{i<p, v_i > mu_p} (v_i - mu_p)``:
    a count and a sum of the prefix's values above its own mean. Short inputs compare all
    pairs; longer ones split ``[0, p)`` into aligned blocks of ``2^l`` (one per set bit of
    ``p``) and search each block's values sorted by rank, ``O(m log^2 m)``.

    Parameters
    ----------
    values : ndarray of float64, shape (m,)

    Returns
    -------
    ndarray of float64, shape (m,)
    """
    m = values.size
    p = np.arange(1, m + 1)
    sums = np.cumsum(values)
    means = sums / p
    if m <= _DIRECT_LIMIT:
        within = np.arange(m)[None, :] < p[:, None]
        above = within & (values[None, :] > means[:, None])
        count_above = above.sum(axis=1)
        sum_above = (above * values[None, :]).sum(axis=1)
    else:
        count_le, sum_le = _dominance(values, means)
        count_above = p - count_le
        sum_above = sums - sum_le
    deviation: FloatArray = 2.0 * np.maximum(sum_above - count_above * means, 0.0)
    return deviation


def _dominance(values: FloatArray, thresholds: FloatArray) -> tuple[IntArray, FloatArray]:
    """For each ``p = 1 .. m``: how many of ``values[:p]`` are ``<= thresholds[p-1]``, and
    their sum."""
    m = values.size
    order = np.argsort(values, kind="stable")
    rank = np.empty(m, np.int64)
    rank[order] = np.arange(m)
    # v_i <= t  <=>  rank_i < (number of values <= t), ranks being a stable sort's positions.
    below = np.searchsorted(values[order], thresholds, side="right").astype(np.int64)
    p = np.arange(1, m + 1, dtype=np.int64)
    count = np.zeros(m, np.int64)
    total = np.zeros(m)
    level = 0
    while (1 << level) <= m:
        keys = (np.arange(m, dtype=np.int64) >> level) * m + rank
        by_key = np.argsort(keys, kind="stable")
        sorted_keys = keys[by_key]
        cumulative = np.concatenate(([0.0], np.cumsum(values[by_key])))
        has = ((p >> level) & 1).astype(bool)
        block = (p[has] >> level) - 1
        first = np.searchsorted(sorted_keys, block * m, side="left")
        last = np.searchsorted(sorted_keys, block * m + below[has], side="left")
        count[has] += last - first
        total[has] += cumulative[last] - cumulative[first]
        level += 1
    return count, total


def php_split_parts(values: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The L1 costs of the parts of ``values`` split before position ``p``, ``p = 1 .. m - 1``.

    Returns
    -------
    left, right : ndarray of float64, shape (m - 1,)
        The absolute deviation of ``values[:p]`` and of ``values[p:]`` from their own means.
    """
    left = prefix_abs_deviation(values)[:-1]
    right = prefix_abs_deviation(values[::-1])[::-1][1:]
    return left, right


def php_split_costs(values: FloatArray) -> FloatArray:
    """The L1 cost of splitting ``values`` before position ``p``, for ``p = 1 .. m - 1``:
    each part's absolute deviation from its own mean, summed."""
    left, right = php_split_parts(values)
    costs: FloatArray = left + right
    return costs


def php(counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator) -> Release:
    """P-HP (Ács, Castelluccia, Chen, ICDM 2012): hierarchical bisection by the exponential
    mechanism, then one Laplace count per bucket.

    DPComp's defaults: ``eps_cluster = eps_count = eps / 2``, depth ``d = floor(log2 n)``,
    at most 2,000 clusters. A cluster's cost is its absolute deviation from its mean plus
    the noise scale ``b = 1 / eps_count``. Clusters are visited first in, first out; each
    is split at a position drawn by the exponential mechanism (budget
    ``eps_cluster / (2 d)``, sensitivity 2) among every split point and "no split",
    scored by minus the partition's total cost; children at depth ``d`` or of one bin are
    final. Every partition met on the way is a candidate (repeats included, as in the
    authors' code) and one is chosen by the exponential mechanism (budget
    ``eps_cluster / 2``, sensitivity 2). Each bucket then gets its mean plus
    ``Lap(b) / size``, clipped at 0.

    Splitting stops once every cluster is final (the authors' loop would then split the
    last cluster past depth ``d``, beyond what the budget covers).

    Parameters
    ----------
    counts : ndarray of float64, shape (n,)
    eps : float
    workload : Ranges
        Not used (P-HP is workload-independent).
    rng : numpy.random.Generator

    Returns
    -------
    Release
        The estimate, ``{"splits": eps/4, "partition": eps/4, "bucket counts": eps/2}``
        and the buckets' first bins.
    """
    n = counts.size
    eps_cluster = eps_count = eps / 2.0
    scale = 1.0 / eps_count
    depth = max(1, int(math.log2(n)))
    eps_split = eps_cluster / 2.0 / depth
    cost_of = {(0, n): float(prefix_abs_deviation(counts)[-1]) + scale}
    total = cost_of[(0, n)]
    pending = deque([(0, n, 1)])
    cuts: list[int] = []
    candidates = [(-total, 0)]  # (score, number of cuts made)
    clusters = 1
    while clusters < n and clusters <= PHP_MAX_CLUSTERS and pending:
        lo, hi, level = pending[0]
        parent = cost_of.pop((lo, hi))
        left, right = php_split_parts(counts[lo:hi])
        scores = np.concatenate(([-total], -total + parent - (left + right) - 2.0 * scale))
        choice = int(sample_exponential(scores, eps_split, 2.0, size=1, rng=rng)[0])
        pending.popleft()
        if choice == 0:
            cost_of[(lo, hi)] = parent
            if pending:
                candidates.append((-total, len(cuts)))
            continue
        cut = lo + choice
        cuts.append(cut)
        clusters += 1
        total -= parent
        # The parts' deviations come from the split scan (equal to recomputing them for
        # integer counts, whose sums are exact; within rounding otherwise).
        parts = ((lo, cut, left[choice - 1]), (cut, hi, right[choice - 1]))
        for a, b, deviation in parts:
            cost_of[(a, b)] = float(deviation) + scale
            total += cost_of[(a, b)]
            if b - a > 1 and level + 1 < depth:
                pending.append((a, b, level + 1))
        candidates.append((-total, len(cuts)))
    scores = np.array([score for score, _ in candidates])
    chosen = candidates[int(sample_exponential(scores, eps_cluster / 2.0, 2.0, size=1, rng=rng)[0])]
    starts = np.unique(np.array([0, *cuts[: chosen[1]]], dtype=np.int64))
    sizes = np.diff(np.append(starts, n))
    means = np.add.reduceat(counts, starts) / sizes
    noisy = np.maximum(means + rng.laplace(0.0, scale, size=starts.size) / sizes, 0.0)
    budget = {
        "splits": eps_cluster / 2.0,
        "partition": eps_cluster / 2.0,
        "bucket counts": eps_count,
    }
    return Release(np.repeat(noisy, sizes), budget, starts)
