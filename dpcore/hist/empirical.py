"""Empirical evaluation: run an algorithm's real release pipeline many times and measure.

``T`` independent releases, each answering the same ``Q`` ranges (0-based,
inclusive), give a ``T x Q`` matrix of squared errors. Reported per query,
per group of queries (e.g. by range length) and overall: the mean squared
error with a Student-t confidence interval. For a group, the ``T`` per-release
means over its queries are the i.i.d. samples (queries of one release share
its noise, so they are not independent of each other).

Randomness only through the injected ``rng`` (numpy's generator: fine for
teaching and exploration, not a hardened noise source).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from dpcore import _validate
from dpcore.hist import consistency, privelet, queries, release
from dpcore.hist.plans import Plan
from dpcore.hist.workload import Workload, parse_workload, workload_ranges

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

ProgressCallback = Callable[[float], None]


def random_ranges(
    n: int, count: int, rng: np.random.Generator, workload: str | Workload = "uniform"
) -> tuple[IntArray, IntArray]:
    """``count`` ranges drawn uniformly (with replacement) from a workload's ranges.

    Uniform: every one of the ``n(n+1)/2`` ranges is equally likely (the
    start ``a`` is chosen with probability proportional to ``n - a``); listed
    ranges: each entry of the list equally likely.

    Parameters
    ----------
    n : int
        Number of bins.
    count : int
        Number of ranges to draw (``>= 1``).
    rng : numpy.random.Generator
        Source of the draws.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    a, b : ndarray of int64, shape (count,)
        Starts and ends (0-based, inclusive).

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins or ``count`` is not a whole number ``>= 1``.
    """
    spec = parse_workload(workload, n)
    count = _validate.whole("count", count)
    if spec.kind == "prefix":
        return np.zeros(count, dtype=np.int64), rng.integers(0, n, size=count, dtype=np.int64)
    if spec.kind == "length":
        assert spec.length is not None
        start = rng.integers(0, n - spec.length + 1, size=count, dtype=np.int64)
        return start, start + spec.length - 1
    if spec.kind == "ranges":
        a, b = spec.bounds()
        pick = rng.integers(0, a.size, size=count)
        return a[pick], b[pick]
    before = np.cumsum(np.arange(n, 0, -1, dtype=np.int64))  # ranges starting at <= a
    k = rng.integers(0, n * (n + 1) // 2, size=count, dtype=np.int64)
    a = np.searchsorted(before, k, side="right").astype(np.int64)
    offset = k - np.concatenate(([0], before))[a]
    return a, a + offset


def _prefix_sums(values: FloatArray) -> FloatArray:
    out = np.zeros((*values.shape[:-1], values.shape[-1] + 1))
    np.cumsum(values, axis=-1, out=out[..., 1:])
    return out


def _answers(
    plan: Plan,
    counts: FloatArray,
    a: IntArray,
    b: IntArray,
    releases: int,
    rng: np.random.Generator,
) -> FloatArray:
    """``releases x Q`` noisy answers from the algorithm's own release functions."""
    kind = plan.spec.kind
    if kind == "flat":
        noisy = counts + rng.laplace(0.0, 1.0 / plan.eps, size=(releases, plan.n))
        prefix = _prefix_sums(noisy)
        return prefix[:, b + 1] - prefix[:, a]
    if kind == "privelet":
        prefix = _prefix_sums(privelet.release(counts, plan.eps, rng=rng, releases=releases))
        return prefix[:, b + 1] - prefix[:, a]
    assert plan.tree is not None and plan.budgets is not None
    out = np.empty((releases, a.size))
    for t in range(releases):
        noisy = release.laplace_release(plan.tree, counts, plan.budgets, rng)
        if plan.spec.consistent:
            values = consistency.blue(plan.tree, noisy, plan.budgets)
            out[t] = queries.answer_from_leaves(plan.tree, values, a, b)
        else:
            out[t] = queries.answer_raw(plan.tree, noisy, a, b)
    return out


@dataclass(frozen=True, eq=False)
class EmpiricalErrors:
    """Squared errors of ``T`` releases on ``Q`` ranges, with summaries.

    Attributes
    ----------
    a, b : ndarray of int64, shape (Q,)
        The ranges scored (0-based, inclusive).
    squared_errors : ndarray of float64, shape (T, Q)
        Squared error of every range in every release.
    confidence : float
        Confidence level of the intervals, in ``(0, 1)``.
    releases : int
        ``T``.
    """

    a: IntArray
    b: IntArray
    squared_errors: FloatArray  # (T, Q)
    confidence: float

    @property
    def releases(self) -> int:
        return int(self.squared_errors.shape[0])

    def _interval(self, samples: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Mean over axis 0 and the CI half-width (Student t, ``T - 1`` dof)."""
        t = samples.shape[0]
        mean = samples.mean(axis=0)
        if t < 2:
            return mean, np.full(mean.shape, np.nan)
        quantile = stats.t.ppf(0.5 + self.confidence / 2, t - 1)
        half = quantile * samples.std(axis=0, ddof=1) / np.sqrt(t)
        return np.asarray(mean, np.float64), np.asarray(half, np.float64)

    def per_query(self) -> tuple[FloatArray, FloatArray]:
        """Per-range MSE and CI half-width."""
        return self._interval(self.squared_errors)

    def overall(self) -> tuple[float, float]:
        """MSE over all ranges and its CI half-width (per-release means as samples)."""
        mean, half = self._interval(self.squared_errors.mean(axis=1, keepdims=True))
        return float(mean[0]), float(half[0])

    def by_group(self, labels: ArrayLike) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
        """Per group of ranges (``labels`` per range): group ids, MSE, CI half-width."""
        lab = np.asarray(labels)
        groups, inverse = np.unique(lab, return_inverse=True)
        counts = np.bincount(inverse)
        per_release = np.stack(
            [np.bincount(inverse, weights=row) / counts for row in self.squared_errors]
        )
        mean, half = self._interval(per_release)
        return np.asarray(groups, dtype=np.int64), mean, half

    def by_length(self) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
        """Per range length: lengths, MSE, CI half-width."""
        return self.by_group(self.b - self.a + 1)


def simulate_range_errors(
    plan: Plan,
    counts: ArrayLike,
    a: ArrayLike,
    b: ArrayLike,
    *,
    releases: int,
    rng: np.random.Generator,
    confidence: float = 0.95,
    progress: ProgressCallback | None = None,
    chunk: int = 10,
) -> EmpiricalErrors:
    """Run ``releases`` independent releases of ``plan`` on ``counts`` and score ranges.

    ``progress(fraction)`` is called after every chunk of releases.

    Parameters
    ----------
    plan : Plan
        A prepared algorithm (:func:`dpcore.hist.plans.prepare`).
    counts : array_like of float, shape (plan.n,)
        The true histogram, finite.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), flattened, then broadcast together.
    releases : int
        Number of independent releases ``T`` (``>= 1``).
    rng : numpy.random.Generator
        Source of the noise.
    confidence : float, default 0.95
        Confidence level of the intervals, in ``(0, 1)``.
    progress : callable, optional
        Called with the fraction of releases done.
    chunk : int, default 10
        Releases computed per step.

    Returns
    -------
    EmpiricalErrors
        The ``T x Q`` squared errors.

    Raises
    ------
    ValueError
        If ``counts`` is not ``plan.n`` finite numbers, ``releases`` is not a whole number
        ``>= 1``, ``confidence`` is outside ``(0, 1)``, there is no range, a range is not
        ``0 <= a <= b < plan.n``, ``a`` and ``b`` do not broadcast, or a release rejects the
        counts as too large for its noise.
    """
    data = _validate.finite_array("counts", counts, size=plan.n)
    releases = _validate.whole("releases", releases)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    starts, ends = _validate.ranges(plan.n, np.ravel(a), np.ravel(b), nonempty=True)
    a_arr, b_arr = starts.copy(), ends.copy()  # writable, owned by the result
    truth_prefix = _prefix_sums(data)
    truth = truth_prefix[b_arr + 1] - truth_prefix[a_arr]
    squared = np.empty((releases, a_arr.size))
    done = 0
    while done < releases:
        step = min(chunk, releases - done)
        answers = _answers(plan, data, a_arr, b_arr, step, rng)
        squared[done : done + step] = (answers - truth) ** 2
        done += step
        if progress is not None:
            progress(done / releases)
    return EmpiricalErrors(a_arr, b_arr, squared, confidence)


def simulate_workload_error(
    plan: Plan,
    counts: ArrayLike,
    *,
    releases: int,
    rng: np.random.Generator,
    workload: str | Workload | None = None,
    sample: int | None = None,
    confidence: float = 0.95,
    progress: ProgressCallback | None = None,
) -> tuple[float, float]:
    """Mean MSE over a workload (default: the plan's) and its CI half-width.

    ``sample=None`` scores every range of the workload in every release.
    ``sample=Q`` draws ``Q`` fresh random workload ranges for each release:
    each release's mean is then an unbiased estimate of the workload average
    and the ``T`` releases are i.i.d., so the interval covers both the noise
    and the choice of ranges.

    Parameters
    ----------
    plan : Plan
        A prepared algorithm (:func:`dpcore.hist.plans.prepare`).
    counts : array_like of float, shape (plan.n,)
        The true histogram, finite.
    releases : int
        Number of independent releases ``T`` (``>= 1``).
    rng : numpy.random.Generator
        Source of the noise and of sampled ranges.
    workload : str or Workload, optional
        Any form :func:`dpcore.hist.workload.parse_workload` accepts; ``plan.workload`` if
        omitted.
    sample : int, optional
        Ranges drawn per release (``>= 1``); every range of the workload if omitted.
    confidence : float, default 0.95
        Confidence level of the interval, in ``(0, 1)``.
    progress : callable, optional
        Called with the fraction of releases done.

    Returns
    -------
    mse : float
        The mean squared error.
    half_width : float
        Half-width of its Student-t interval (NaN for one release).

    Raises
    ------
    ValueError
        If ``workload`` is invalid, ``releases`` or ``sample`` is not a whole number
        ``>= 1``, or as :func:`simulate_range_errors` raises.
    """
    load = plan.workload if workload is None else parse_workload(workload, plan.n)
    if sample is None:
        a, b = workload_ranges(plan.n, load)
        result = simulate_range_errors(
            plan,
            counts,
            a,
            b,
            releases=releases,
            rng=rng,
            confidence=confidence,
            progress=progress,
        )
        return result.overall()
    releases = _validate.whole("releases", releases)
    per_release = np.empty((releases, 1))
    for t in range(releases):
        a, b = random_ranges(plan.n, sample, rng, load)
        one = simulate_range_errors(plan, counts, a, b, releases=1, rng=rng, confidence=confidence)
        per_release[t, 0] = one.squared_errors.mean()
        if progress is not None and (t + 1) % max(1, releases // 20) == 0:
            progress((t + 1) / releases)
    summary = EmpiricalErrors(np.zeros(1, np.int64), np.zeros(1, np.int64), per_release, confidence)
    return summary.overall()
