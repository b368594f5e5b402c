"""Range-query workloads: which ranges a user is assumed to ask, all equally likely.

Every error number in the product is an expectation over one of these; the UI
names it next to the number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

WorkloadKind = Literal["uniform", "prefix", "length"]


@dataclass(frozen=True)
class Workload:
    """``uniform``: all n(n+1)/2 ranges; ``prefix``: ranges [0, b]; ``length``: one length."""

    kind: WorkloadKind
    length: int | None = None

    def describe(self) -> str:
        if self.kind == "uniform":
            return "all ranges [a, b] equally likely"
        if self.kind == "prefix":
            return "prefix ranges [1, b] equally likely"
        return f"all ranges of length {self.length} equally likely"

    def size(self, n: int) -> int:
        """The number of ranges in the workload over ``n`` bins."""
        if self.kind == "uniform":
            return n * (n + 1) // 2
        if self.kind == "prefix":
            return n
        assert self.length is not None
        return max(n - self.length + 1, 0)

    def containing_count(
        self, n: int, lo: NDArray[np.int64], hi: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """How many workload ranges contain ``[lo, hi]`` (0-based inclusive), vectorized.

        .. math:: c_{uniform}(L, R) = (L+1)(n-R), \\quad c_{prefix} = n - R,
                  \\quad c_{\\ell} = \\max(0, \\min(L, n-\\ell) - \\max(0, R-\\ell+1) + 1)
        """
        left = np.asarray(lo, dtype=np.float64)
        right = np.asarray(hi, dtype=np.float64)
        if self.kind == "uniform":
            return (left + 1.0) * (n - right)
        if self.kind == "prefix":
            return n - right
        assert self.length is not None
        ell = self.length
        first = np.maximum(0.0, right - ell + 1)
        last = np.minimum(left, float(n - ell))
        count: NDArray[np.float64] = np.maximum(0.0, last - first + 1)
        return count


def parse_workload(spec: str | Workload, n: int | None = None) -> Workload:
    """Parse ``"uniform"``, ``"prefix"`` or ``"length:L"``; with ``n``, check ``1 <= L <= n``.

    >>> parse_workload("length:16")
    Workload(kind='length', length=16)
    """
    if isinstance(spec, Workload):
        workload = spec
    elif spec in ("uniform", "prefix"):
        workload = Workload(spec)  # type: ignore[arg-type]
    elif isinstance(spec, str) and spec.startswith("length:"):
        try:
            length = int(spec.split(":", 1)[1])
        except ValueError:
            raise ValueError(f"bad workload '{spec}': the length must be a whole number") from None
        workload = Workload("length", length)
    else:
        raise ValueError(f"unknown workload '{spec}'; use 'uniform', 'prefix' or 'length:L'")
    if workload.kind == "length":
        assert workload.length is not None
        if workload.length < 1 or (n is not None and workload.length > n):
            raise ValueError(f"range length {workload.length} must be in [1, {n}]")
    return workload
