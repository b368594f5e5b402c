"""The v-optimal dynamic program, exact, with branch and bound (StructureFirst's structure step).

``T[b, i]``, the least sum of squared errors (SSE) of ``x[0..i]`` split into ``b + 1``
contiguous buckets, obeys

.. math:: T[b, i] = \\min_{b-1 \\le j < i} T[b-1, j] + \\mathrm{SSE}(j+1..i),

``O(k n^2)`` work in full (Jagadish et al., VLDB 1998): 3.4e9 terms at ``n = 4,096``,
``k = 410``. The SSE of a sequence is not Monge (``[0, 10, 0]`` breaks the quadrangle
inequality), so the usual monotone-argmin speed-ups would be heuristics here. Three exact
lower bounds prune instead, for the candidates ``j`` in a range ``[lo, hi]``:

* ``T[b-1, .]`` never decreases and ``SSE(j+1..i)`` never grows as ``j`` moves right, so
  every candidate scores at least ``T[b-1, lo] + SSE(hi+1..i)``;
* splitting a bucket never raises the SSE, so for ``j < hi``
  ``T[b-1, j] + SSE(j+1..i) >= T[b-1, j] + SSE(j+1..hi) + SSE(hi+1..i) >= T[b, hi] + SSE(hi+1..i)``
  (``T[b, hi]``, on the row being filled, is already known): once that reaches the best
  score found, no candidate at or left of ``hi`` can beat it;
* with prefix sums ``P`` and ``Q`` of ``x`` and ``x**2``, a candidate scores
  ``A_j + Q_{i+1} - (P_{i+1} - P_{j+1})^2 / (i - j)`` with ``A_j = T[b-1, j] - Q_{j+1}``;
  for ``x >= 0`` the last term is at most ``(P_{i+1} - P_{lo+1})^2 / (i - hi)`` on the
  range, so every candidate scores at least ``min A + Q_{i+1} - (P_{i+1} - P_{lo+1})^2 /
  (i - hi)``, the minimum of ``A`` over the range read from a sparse table built once per
  row. The first two bounds lose the squares of ``x[lo+1..hi]``; this one keeps them, and
  halves the terms evaluated where long, sparse buckets score within a few units of each
  other (MEDCOST at 100,000 records, 4,096 bins: 126 terms a cell without it, about 60
  with it; StructureFirst's run 0.89 -> 0.48 s of CPU).

Candidates are searched right to left, ranges halved depth first, starting from the
previous ``i``'s optimum. No bound separates candidates that score alike: on a noisy flat
stretch (the bundled zipf-4096's tail, counts of about 10) about 170 terms a cell are still
evaluated (1.3 s of CPU at 4,096 bins). The loop is sequential along a row (each
``T[b, i]`` uses ``T[b, j < i]``), so it is compiled with numba; its result is the full
program's up to rounding (tested against the plain recursion and against enumeration of
every partition).
"""

from __future__ import annotations

import numba
import numpy as np

from dpcore import _validate
from dpcore.algorithms.common import FloatArray

LEAF = 16
"""Ranges of at most this many candidates are scanned one by one (fastest on DPBench's data)."""

SLACK = 1e-9
"""The third bound is lowered by this times ``sum(x**2)``: it subtracts large prefix sums,
whose rounding (about ``1e-16`` of them) must never prune the true optimum."""


@numba.njit(cache=True, inline="always", error_model="numpy")
def _sse(p: FloatArray, pp: FloatArray, lo: int, hi: int) -> float:
    """SSE of the bins ``lo..hi`` (inclusive) from prefix sums, clipped at 0 (rounding)."""
    total = p[hi + 1] - p[lo]
    value: float = pp[hi + 1] - pp[lo] - total * total / (hi - lo + 1)
    return value if value > 0.0 else 0.0


@numba.njit(cache=True, error_model="numpy")
def _range_minima(values: FloatArray, minima: FloatArray) -> None:
    """``minima[l, j] = min(values[j : j + 2**l])`` where the block fits (a sparse table)."""
    n = values.size
    minima[0, :n] = values
    for level in range(1, minima.shape[0]):
        half = 1 << (level - 1)
        for j in range(n - (1 << level) + 1):
            a, c = minima[level - 1, j], minima[level - 1, j + half]
            minima[level, j] = a if a < c else c


@numba.njit(cache=True, error_model="numpy")
def _fill(p: FloatArray, pp: FloatArray, table: FloatArray, slack: float) -> None:
    """Rows ``1..k-1`` of ``table`` (row 0 filled) by branch and bound (see the module)."""
    k, n = table.shape
    # a depth-first stack of candidate ranges; halving keeps it under 2 log2 n entries
    stack_lo = np.empty(128, np.int64)
    stack_hi = np.empty(128, np.int64)
    log2 = np.zeros(n + 1, np.int64)
    for m in range(2, n + 1):
        log2[m] = log2[m // 2] + 1
    minima = np.empty((log2[n] + 1, n))
    for b in range(1, k):
        prev = table[b - 1]
        cur = table[b]
        _range_minima(prev - pp[1:], minima)  # A_j of the third bound
        cur[b] = 0.0
        guess = b - 1
        for i in range(b + 1, n):
            best = prev[i - 1]  # the last bucket being bin i alone
            arg = i - 1
            if guess < i - 1:
                value = prev[guess] + _sse(p, pp, guess + 1, i)
                if value < best:
                    best, arg = value, guess
            top = 0
            if i - 2 >= b - 1:
                stack_lo[0], stack_hi[0], top = b - 1, i - 2, 1
            while top > 0:
                top -= 1
                lo, hi = stack_lo[top], stack_hi[top]
                # the third bound first: it needs no division (i - hi >= 2)
                level = log2[hi - lo + 1]
                a, c = minima[level, lo], minima[level, hi - (1 << level) + 1]
                rise = p[i + 1] - p[lo + 1]
                if (min(a, c) + pp[i + 1] - slack - best) * (i - hi) >= rise * rise:
                    continue
                tail = _sse(p, pp, hi + 1, i)
                # min: at hi = b - 1, T[b, hi] is inf and hi is the only candidate left
                if min(cur[hi], prev[hi]) + tail >= best:
                    break  # no candidate <= hi can win, and the stack holds only those
                if prev[lo] + tail >= best:
                    continue
                if hi - lo < LEAF:
                    for j in range(hi, lo - 1, -1):
                        tail = _sse(p, pp, j + 1, i)
                        value = prev[j] + tail
                        if value < best:
                            best, arg = value, j
                        if min(cur[j], prev[j]) + tail >= best:
                            top = 0
                            break
                else:
                    mid = (lo + hi) // 2
                    stack_lo[top], stack_hi[top] = lo, mid
                    stack_lo[top + 1], stack_hi[top + 1] = mid + 1, hi
                    top += 2
            cur[i] = best
            guess = arg


def vopt_table(x: FloatArray, k: int) -> FloatArray:
    """The least SSE of every prefix of ``x`` in ``1..k`` buckets (the v-optimal program).

    Parameters
    ----------
    x : ndarray of float64, shape (n,)
        The values, ``>= 0`` (counts; the third bound of the module needs it).
    k : int
        Most buckets, ``1 <= k <= n``.

    Returns
    -------
    ndarray of float64, shape (k, n)
        ``T[b, i]``: least SSE of ``x[0..i]`` in exactly ``b + 1`` buckets (``inf`` when
        ``i < b``).

    Raises
    ------
    ValueError
        If ``x`` is not 1-D or holds a negative or non-finite value.
    """
    x = np.ascontiguousarray(_validate.finite_array("x", x, nonnegative=True))
    zero = np.zeros(1)
    p = np.concatenate((zero, np.cumsum(x)))
    pp = np.concatenate((zero, np.cumsum(x * x)))
    table = np.full((k, x.size), np.inf)
    ends = np.arange(x.size)
    table[0] = np.maximum(pp[ends + 1] - p[ends + 1] ** 2 / (ends + 1), 0.0)
    _fill(p, pp, table, SLACK * pp[-1])
    return table
