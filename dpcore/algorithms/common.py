"""What every algorithm shares: its inputs checked once, its result, and its workload."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.workload import Workload, listed_ranges

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

WorkloadSpec = str | ArrayLike
"""``"prefix"``, ``"all ranges"``, or an array of inclusive 0-based ``(lo, hi)`` ranges."""

MAX_RANGES = 100_000
"""Most ranges a listed workload may hold (DPBench draws 2,000)."""


@dataclass(frozen=True)
class Ranges:
    """A workload of range queries over ``n`` bins, each counted once.

    Attributes
    ----------
    kind : {"prefix", "all ranges", "listed"}
        ``[0, b]`` for every ``b``; every ``[a, b]``; or the ranges ``lo``, ``hi``.
    n : int
        Number of bins.
    lo, hi : ndarray of int64
        A listed workload's inclusive 0-based bounds (empty for the other kinds).
    """

    kind: Literal["prefix", "all ranges", "listed"]
    n: int
    lo: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    hi: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def size(self) -> int:
        """The number of queries."""
        if self.kind == "prefix":
            return self.n
        if self.kind == "all ranges":
            return self.n * (self.n + 1) // 2
        return int(self.lo.size)

    def bounds(self) -> tuple[IntArray, IntArray]:
        """Every query's ``(lo, hi)``; ``n (n + 1) / 2`` of them for ``"all ranges"``."""
        if self.kind == "prefix":
            return np.zeros(self.n, np.int64), np.arange(self.n, dtype=np.int64)
        if self.kind == "all ranges":
            lo, hi = np.triu_indices(self.n)
            return lo.astype(np.int64), hi.astype(np.int64)
        return self.lo, self.hi

    def answer(self, x: ArrayLike) -> FloatArray:
        """The workload's answers on the histogram ``x`` (prefix sums, ``O(n + m)``)."""
        prefix = np.concatenate(([0.0], np.cumsum(np.asarray(x, dtype=np.float64))))
        lo, hi = self.bounds()
        answers: FloatArray = prefix[hi + 1] - prefix[lo]
        return answers

    def for_closed_forms(self) -> Workload:
        """The same workload as :mod:`dpcore.hist`'s exact errors take it (``"uniform"``
        for all ranges; a listed workload of more than
        :data:`dpcore.hist.workload.MAX_LISTED_RANGES` ranges raises ValueError)."""
        if self.kind == "prefix":
            return Workload("prefix")
        if self.kind == "all ranges":
            return Workload("uniform")
        return listed_ranges(np.column_stack([self.lo, self.hi]).tolist(), self.n)


@dataclass(frozen=True)
class Release:
    """One run of an algorithm.

    Attributes
    ----------
    estimate : ndarray of float64, shape (n,) or (n1, n2)
        The estimated histogram (or grid).
    budget : dict of str to float
        How ``eps`` was split between the algorithm's steps (the parts sum to ``eps``).
    buckets : ndarray of int64, optional
        For partitioning algorithms: the first bin of every bucket, ascending, from 0; on
        a grid, one row ``(r0, c0, r1, c1)`` per box of the partition.
    """

    estimate: FloatArray
    budget: dict[str, float]
    buckets: IntArray | None = field(default=None)


class Algorithm(Protocol):
    """``(counts, eps, workload, rng) -> Release`` on checked inputs."""

    def __call__(
        self, counts: FloatArray, eps: float, workload: Ranges, rng: np.random.Generator
    ) -> Release: ...


def as_workload(spec: WorkloadSpec | Ranges, n: int) -> Ranges:
    """The workload ``spec`` over ``n`` bins, checked (ValueError naming what is accepted).

    >>> as_workload("all ranges", 4).size
    10
    >>> as_workload([(0, 1), (2, 3)], 4).hi.tolist()
    [1, 3]
    """
    if isinstance(spec, Ranges):
        if spec.n != n:
            raise ValueError(f"the workload is over {spec.n} bins, the histogram has {n}")
        return spec
    if isinstance(spec, str):
        if spec not in ("prefix", "all ranges"):
            raise ValueError(
                f"unknown workload {spec[:40]!r}; accepted: 'prefix', 'all ranges' "
                "or an array of (lo, hi) ranges"
            )
        return Ranges(spec, n)  # type: ignore[arg-type]
    pairs = np.asarray(spec)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not 1 <= pairs.shape[0] <= MAX_RANGES:
        raise ValueError(
            "workload must be 'prefix', 'all ranges' or an array of 1 to "
            f"{MAX_RANGES:,} (lo, hi) ranges, got an array of shape {pairs.shape}"
        )
    whole = np.issubdtype(pairs.dtype, np.integer) or (
        np.isfinite(pairs).all() and (pairs == np.round(pairs)).all()
    )
    if not whole:
        raise ValueError("workload ranges must be whole numbers (lo, hi)")
    lo, hi = _validate.ranges(n, pairs[:, 0], pairs[:, 1])
    return Ranges("listed", n, lo.copy(), hi.copy())


def checked_counts(counts: ArrayLike) -> FloatArray:
    """``counts`` as a non-empty 1-D float64 array of finite numbers ``>= 0``."""
    values = _validate.finite_array("counts", counts, nonnegative=True)
    if values.size == 0:
        raise ValueError("counts must hold at least one bin, got none")
    return values
