"""Range-query workloads: which ranges a user is assumed to ask, all equally likely.

Every error number in the product is an expectation over one of these; the UI
names it next to the number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

WorkloadKind = Literal["uniform", "prefix", "length", "ranges"]

MAX_LISTED_RANGES = 1_000
"""Most ranges a ``ranges`` workload may list (its exact errors cost ``O(m)`` range
evaluations, and the search after BLUE ``O(m * size)`` per step)."""


@dataclass(frozen=True)
class Workload:
    """``uniform``: all n(n+1)/2 ranges; ``prefix``: ranges [0, b]; ``length``: one length;
    ``ranges``: an explicit list of ranges ``(a, b)``, 0-based inclusive (a range listed
    twice counts twice).

    Attributes
    ----------
    kind : {"uniform", "prefix", "length", "ranges"}
        Which ranges the workload holds.
    length : int or None
        The range length of a ``"length"`` workload (``None`` otherwise).
    ranges : tuple of (int, int)
        The ``(a, b)`` pairs of a ``"ranges"`` workload (empty otherwise).
    """

    kind: WorkloadKind
    length: int | None = None
    ranges: tuple[tuple[int, int], ...] = ()

    def describe(self) -> str:
        if self.kind == "uniform":
            return "all ranges [a, b] equally likely"
        if self.kind == "prefix":
            return "prefix ranges [1, b] equally likely"
        if self.kind == "ranges":
            count = len(self.ranges)
            return f"{count} listed range{'s' if count != 1 else ''} equally likely"
        return f"all ranges of length {self.length} equally likely"

    def size(self, n: int) -> int:
        """The number of ranges in the workload over ``n`` bins."""
        if self.kind == "uniform":
            return n * (n + 1) // 2
        if self.kind == "prefix":
            return n
        if self.kind == "ranges":
            return len(self.ranges)
        assert self.length is not None
        return max(n - self.length + 1, 0)

    def bounds(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """A ``ranges`` workload's starts and ends (0-based inclusive) as two arrays."""
        pairs = np.array(self.ranges, dtype=np.int64).reshape(-1, 2)
        return pairs[:, 0].copy(), pairs[:, 1].copy()

    def containing_count(
        self, n: int, lo: NDArray[np.int64], hi: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """How many workload ranges contain ``[lo, hi]`` (0-based inclusive), vectorized.

        .. math:: c_{uniform}(L, R) = (L+1)(n-R), \\quad c_{prefix} = n - R,
                  \\quad c_{\\ell} = \\max(0, \\min(L, n-\\ell) - \\max(0, R-\\ell+1) + 1)

        and for listed ranges ``#{q : a_q <= L, b_q >= R}``, read from a table of
        dominance counts over the distinct starts and ends (``O(m^2 + size log m)``).
        """
        left = np.asarray(lo, dtype=np.float64)
        right = np.asarray(hi, dtype=np.float64)
        if self.kind == "uniform":
            return (left + 1.0) * (n - right)
        if self.kind == "prefix":
            return n - right
        if self.kind == "ranges":
            return self._listed_containing(np.asarray(lo), np.asarray(hi))
        assert self.length is not None
        ell = self.length
        first = np.maximum(0.0, right - ell + 1)
        last = np.minimum(left, float(n - ell))
        count: NDArray[np.float64] = np.maximum(0.0, last - first + 1)
        return count

    def _listed_containing(
        self, lo: NDArray[np.int64], hi: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        a, b = self.bounds()
        starts, a_slot = np.unique(a, return_inverse=True)
        ends, b_slot = np.unique(b, return_inverse=True)
        # table[i, j] = #{q : a_q <= starts[i - 1], b_q >= ends[j]} (row 0 and column -1: none)
        table = np.zeros((starts.size + 1, ends.size + 1))
        np.add.at(table, (a_slot + 1, b_slot), 1.0)
        table = np.cumsum(table, axis=0)
        table[:, :-1] = np.cumsum(table[:, :-1][:, ::-1], axis=1)[:, ::-1]
        row = np.searchsorted(starts, lo, side="right")
        col = np.searchsorted(ends, hi, side="left")
        count: NDArray[np.float64] = table[row, col]
        return count


def listed_ranges(ranges: object, n: int | None = None) -> Workload:
    """A ``ranges`` workload from pairs ``(a, b)``, 0-based inclusive, checked.

    At least one and at most :data:`MAX_LISTED_RANGES` ranges, whole numbers with
    ``0 <= a <= b`` (and ``b < n`` when ``n`` is given).

    Parameters
    ----------
    ranges : iterable of (int, int)
        The ranges ``(a, b)``, 0-based inclusive.
    n : int, optional
        Number of bins; when given, every ``b`` must be ``< n``.

    Returns
    -------
    Workload
        A ``"ranges"`` workload holding the pairs as given.

    Raises
    ------
    ValueError
        If an entry is not a pair of whole numbers, there are fewer than 1 or more than
        ``MAX_LISTED_RANGES`` ranges, a range has ``a < 0`` or ``b < a``, or ``b >= n``.

    Examples
    --------
    >>> listed_ranges([(0, 9), (4, 5)], 10).describe()
    '2 listed ranges equally likely'
    """
    try:
        pairs = tuple((int(a), int(b)) for a, b in ranges)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise ValueError("listed ranges must be pairs of whole numbers (a, b)") from None
    workload = Workload("ranges", ranges=pairs)
    _check_listed(workload, n)
    return workload


def _check_listed(workload: Workload, n: int | None) -> None:
    count = len(workload.ranges)
    if not 1 <= count <= MAX_LISTED_RANGES:
        raise ValueError(f"list between 1 and {MAX_LISTED_RANGES:,} ranges (got {count:,})")
    for a, b in workload.ranges:
        if a < 0 or b < a:
            raise ValueError(f"range ({a}, {b}): need 0 <= a <= b (0-based, inclusive)")
        if n is not None and b >= n:
            raise ValueError(f"range ({a}, {b}) ends beyond the last bin {n - 1} (0-based)")


def _parse_listed(spec: str) -> Workload:
    pairs = []
    for item in spec.split(":", 1)[1].split(","):
        start, sep, end = item.strip().partition("-")
        try:
            pairs.append((int(start), int(end if sep else start)))
        except ValueError:
            raise ValueError(
                f"bad range '{item.strip()}' in workload '{spec[:60]}': use a-b with whole "
                "numbers, 0-based inclusive"
            ) from None
        if len(pairs) > MAX_LISTED_RANGES:
            break  # _check_listed reports the count
    return Workload("ranges", ranges=tuple(pairs))


def parse_workload(spec: str | Workload, n: int | None = None) -> Workload:
    """Parse ``"uniform"``, ``"prefix"``, ``"length:L"`` or ``"ranges:a-b,a-b,..."``
    (0-based inclusive; ``"a"`` alone is ``a-a``); with ``n``, check ``1 <= L <= n``
    and that every listed range is inside ``[0, n)``.

    Parameters
    ----------
    spec : str or Workload
        The workload text, or a :class:`Workload` (checked and returned as is).
    n : int, optional
        Number of bins to check the length and listed ranges against.

    Returns
    -------
    Workload
        The parsed workload.

    Raises
    ------
    ValueError
        If ``spec`` is none of the forms above, ``L`` is not a whole number or outside
        ``[1, n]`` (``L >= 1`` without ``n``), or a listed range is malformed or invalid
        (as in :func:`listed_ranges`).

    Examples
    --------
    >>> parse_workload("length:16")
    Workload(kind='length', length=16, ranges=())
    >>> parse_workload("ranges:0-99, 49-59", 100).ranges
    ((0, 99), (49, 59))
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
    elif isinstance(spec, str) and spec.startswith("ranges:"):
        workload = _parse_listed(spec)
    else:
        raise ValueError(
            f"unknown workload '{str(spec)[:60]}'; use 'uniform', 'prefix', 'length:L' "
            "or 'ranges:a-b,...'"
        )
    if workload.kind == "length":
        assert workload.length is not None
        if workload.length < 1 or (n is not None and workload.length > n):
            raise ValueError(f"range length {workload.length} must be in [1, {n}]")
    if workload.kind == "ranges":
        _check_listed(workload, n)
    return workload


def workload_ranges(
    n: int, workload: str | Workload = "uniform"
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every range of a workload over ``n`` bins, as 0-based inclusive ``(a, b)`` arrays.

    Parameters
    ----------
    n : int
        Number of bins.
    workload : str or Workload, default "uniform"
        Any form :func:`parse_workload` accepts.

    Returns
    -------
    a, b : ndarray of int64, shape (m,)
        Starts and ends of the workload's ``m = workload.size(n)`` ranges (listed ranges in
        list order, repeats kept).

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins (see :func:`parse_workload`).

    Examples
    --------
    >>> [list(map(int, x)) for x in workload_ranges(3, "length:2")]
    [[0, 1], [1, 2]]
    """
    spec = parse_workload(workload, n)
    if spec.kind == "uniform":
        a, b = np.triu_indices(n)
        return a.astype(np.int64), b.astype(np.int64)
    if spec.kind == "prefix":
        return np.zeros(n, dtype=np.int64), np.arange(n, dtype=np.int64)
    if spec.kind == "ranges":
        return spec.bounds()
    assert spec.length is not None
    starts = np.arange(n - spec.length + 1, dtype=np.int64)
    return starts, starts + spec.length - 1


def mean_range_length(n: int, workload: str | Workload = "uniform") -> float:
    """``E[L]`` of a workload: ``(n+2)/3`` (uniform), ``(n+1)/2`` (prefix), ``L`` (length),
    the mean length of the listed ranges.

    Parameters
    ----------
    n : int
        Number of bins.
    workload : str or Workload, default "uniform"
        Any form :func:`parse_workload` accepts.

    Returns
    -------
    float
        The mean number of bins in a workload range.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``n`` bins (see :func:`parse_workload`).

    Examples
    --------
    >>> mean_range_length(4), mean_range_length(4, "prefix")
    (2.0, 2.5)
    """
    spec = parse_workload(workload, n)
    if spec.kind == "uniform":
        return (n + 2) / 3.0
    if spec.kind == "prefix":
        return (n + 1) / 2.0
    if spec.kind == "ranges":
        a, b = spec.bounds()
        return float(np.mean(b - a + 1))
    assert spec.length is not None
    return float(spec.length)
