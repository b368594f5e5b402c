"""Histograms: the data every central-DP page publishes, and their validated parsing.

Accepted CSV/TSV layouts (comma, tab or semicolon separated, optional header):

* ``counts``   -- one numeric column: the count of each bin, in bin order;
* ``labelled`` -- a label column and a count column (e.g. ``country,population``);
* ``values``   -- one numeric column of raw observations, histogrammed into
  ``bins`` equal-width bins (or bins of width ``bin_width``).

Every row must have the layout's number of columns (a ragged row is an error
naming its line). Whether the first row is a header is either given or
detected, and always reported (:attr:`Histogram.header_note`). Size limits
(bytes, rows, line length) are enforced by a vectorised pass over the bytes
before any parsing, so an over-size file is rejected in well under a second.

Every problem raises :class:`HistogramError`, whose message says what was
wrong and what is accepted; nothing else escapes :func:`parse_histogram`.
"""

from __future__ import annotations

import csv
import math
import re
from array import array
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from dpcore import _csv_input, _validate

Layout = Literal["auto", "counts", "labelled", "values"]

MAX_BINS = 2**22
MAX_ROWS = 2**22
"""Data rows accepted (bins, or raw values), besides one header row."""
MAX_BYTES = 64 * 2**20
MAX_LINE = 10_000
"""Longest line accepted, in bytes (also bounds the columns a row can have)."""
MAX_TOTAL = _validate.PERTURBABLE_RATIO
"""Largest total accepted: float64 keeps Laplace noise of scale 1 (a node budget of 1) on
every node sum up to ``2^32`` (see :mod:`dpcore._validate`); releases check their actual scale."""
_MAX_LABELLED_BINS = 100_000  # beyond this, bins of raw values are shown by index
ACCEPTED = (
    "Accepted: a CSV/TSV file with one column of non-negative counts, a label column plus a "
    "count column, or one column of raw numeric values with a bin count or width."
)


class HistogramError(ValueError):
    """A histogram input was rejected; the message says why and what is accepted."""


@dataclass(frozen=True, eq=False)
class Histogram:
    """Non-negative bin counts in bin order (0-based bins), with optional labels.

    Attributes
    ----------
    counts : ndarray of float64, shape (n_bins,)
        Finite, non-negative counts (not necessarily whole numbers).
    name : str
        Name of the dataset (shown on the pages).
    labels : tuple of str, optional
        One label per bin (a labelled file, or the ranges of binned raw values);
        ``None`` when bins are shown by index.
    notes : tuple of str, default ()
        Anything the parser changed or wants the user to know, e.g. that non-integer
        counts were accepted as they are.
    header_note : str, default ""
        How a parsed file's first row was read (empty for in-memory counts).
    unit : str, default ""
        What one count counts, from the count column's header where it names it (``people``
        from a header ``people`` or ``number of people``; see :func:`unit_of`), else empty.
    n_bins : int
        Number of bins (property).
    total : float
        Sum of the counts (property).
    """

    counts: NDArray[np.float64]
    name: str
    labels: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()
    header_note: str = ""
    unit: str = ""

    @property
    def n_bins(self) -> int:
        return int(self.counts.size)

    @property
    def total(self) -> float:
        return float(self.counts.sum())


def from_counts(
    counts: NDArray[np.float64] | list[float],
    name: str,
    labels: tuple[str, ...] | None = None,
    *,
    max_bins: int = MAX_BINS,
    max_total: float = MAX_TOTAL,
) -> Histogram:
    """Validate an in-memory count vector and wrap it as a :class:`Histogram`.

    Parameters
    ----------
    counts : ndarray of float64 or list of float, shape (n_bins,)
        Bin counts, finite and ``>= 0``.
    name : str
        Name of the dataset.
    labels : tuple of str, optional
        One label per bin (not checked against ``counts``).
    max_bins : int, default MAX_BINS
        Most bins accepted.
    max_total : float, default MAX_TOTAL
        Largest sum of the counts accepted.

    Returns
    -------
    Histogram
        The counts as float64, with a note if some are not whole numbers.

    Raises
    ------
    HistogramError
        If ``counts`` is not 1-D or empty, has more than ``max_bins`` bins, a NaN,
        infinite or negative count, or sums to more than ``max_total``.

    Examples
    --------
    >>> from_counts([1e20], "huge")
    Traceback (most recent call last):
    ...
    dpcore.histogram.HistogramError: The counts sum to 1e+20, more than the limit of \
4,294,967,296 (2^32): float64 would round Laplace noise away from node sums that large. \
Count in larger units (e.g. thousands).
    """
    array_ = np.asarray(counts, dtype=np.float64)
    if array_.ndim != 1 or array_.size == 0:
        raise HistogramError(f"A histogram needs at least one bin. {ACCEPTED}")
    if array_.size > max_bins:
        raise HistogramError(f"{array_.size:,} bins is more than the limit of {max_bins:,} bins.")
    bad = ~np.isfinite(array_)
    if bad.any():
        raise HistogramError(
            f"Bin {int(np.argmax(bad)) + 1} is {array_[bad][0]} (NaN/infinite); counts must be "
            "finite numbers."
        )
    if (array_ < 0).any():
        first = int(np.argmax(array_ < 0))
        raise HistogramError(
            f"Bin {first + 1} has the negative count {array_[first]:g}; counts must be >= 0."
        )
    if too_large := total_problem(array_, max_total):
        raise HistogramError(too_large)
    notes: tuple[str, ...] = ()
    if not np.array_equal(array_, np.round(array_)):
        notes = ("Some counts are not whole numbers; they are used as given.",)
    return Histogram(array_, name, labels, notes)


def total_problem(counts: NDArray[np.float64], max_total: float) -> str | None:
    """Why the sum of ``counts`` is too large to release (float64 would round the noise
    away), or None when it is within ``max_total``."""
    with np.errstate(over="ignore"):
        total = float(counts.sum())
    if total <= max_total:
        return None
    return (
        f"The counts sum to {total:.4g}, more than the limit of {max_total:,.0f} (2^32): "
        "float64 would round Laplace noise away from node sums that large. Count in larger "
        "units (e.g. thousands)."
    )


def parse_histogram(
    data: bytes,
    *,
    name: str = "uploaded",
    layout: Layout = "auto",
    header: bool | None = None,
    bins: int | None = None,
    bin_width: float | None = None,
    max_bins: int = MAX_BINS,
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
    max_total: float = MAX_TOTAL,
) -> Histogram:
    """Parse a CSV/TSV upload into a :class:`Histogram`.

    Parameters
    ----------
    data : bytes
        The raw file content (UTF-8, optionally with a BOM; any line endings).
    name : str, default "uploaded"
        Name of the dataset.
    layout : {"auto", "counts", "labelled", "values"}, default "auto"
        ``"auto"`` reads one column as counts and two columns as label +
        count; raw observations must be asked for with ``"values"``.
    header : bool, optional
        Whether the first row is a header; ``None`` detects it: the first row
        is a header when its count (or value) cell contains no digit, so
        ``count`` is a header while ``1,000`` or ``0x10`` are rejected data and
        ``country,2020`` is read as data. :attr:`Histogram.header_note` reports
        the decision.
    bins, bin_width : int or float, optional
        For ``layout="values"``: the number of equal-width bins over
        ``[min, max]``, or the width of each bin starting at ``min`` (one of
        the two is required; ``bin_width`` wins if both are given).
    max_bins, max_rows, max_bytes : int, default MAX_BINS, MAX_ROWS, MAX_BYTES
        Limits: bins, data rows (besides a header), file size in bytes.
    max_total : float, default MAX_TOTAL
        Largest sum of the counts (see :data:`MAX_TOTAL`).

    Returns
    -------
    Histogram
        The counts and the ``header_note``; labelled for a labelled file, and for
        binned values up to 100,000 bins.

    Raises
    ------
    HistogramError
        For empty, binary, undecodable or over-size content, too many rows or
        a too long line, ragged rows, a wrong number of columns, non-numeric
        cells, NaN/inf, negative counts, too many bins, a too large total; for
        ``"values"`` also a missing or non-positive bin count or width, or values
        too far apart (or bins too narrow) for float64.

    Examples
    --------
    >>> parse_histogram(b"count\\n3\\n0\\n5\\n").counts
    array([3., 0., 5.])
    >>> h = parse_histogram(b"a,1\\nb,2\\n")
    >>> h.labels, h.header_note
    (('a', 'b'), 'No header: the first row (a, 1) was read as data.')
    """
    try:
        data = _csv_input.normalised(data, max_bytes=max_bytes, accepted=ACCEPTED)
    except ValueError as err:
        raise HistogramError(str(err)) from None
    try:
        _validate.scan_lines(data, max_rows=max_rows, max_line=MAX_LINE)
    except ValueError as err:
        raise HistogramError(
            f"{err} Each line holds one bin (a count, or a label and a count), or one raw value."
        ) from None
    try:
        first, heading, rows = _read(data, layout, header, max_rows)
    except UnicodeDecodeError:
        raise HistogramError(f"The file is not UTF-8 text. {ACCEPTED}") from None
    if layout == "values":
        hist = _histogram_of_values(rows.numbers, name, bins, bin_width, max_bins, max_total)
    else:
        hist = from_counts(rows.numbers, name, rows.labels, max_bins=max_bins, max_total=max_total)
    unit = "" if layout == "values" else unit_of(heading)
    return replace(hist, header_note=first, unit=unit)


GENERIC_HEADERS = frozenset(
    {"count", "counts", "n", "number", "frequency", "freq", "total", "value", "values", "y"}
)
"""Count-column headers that name no unit (the counts are then of records)."""
MAX_UNIT = 40
"""Most characters of a unit kept from a header."""


def unit_of(header: str) -> str:
    """What the counts count, from the count column's header: the header itself, the part
    after "number of" / "count of", or the part in parentheses after a generic word; empty
    for a generic header (:data:`GENERIC_HEADERS`), none, one with no letter, or one with
    other characters than letters, digits, spaces and hyphens (so that the unit is plain
    text wherever a page writes it, markdown included).

    Parameters
    ----------
    header : str
        The header cell of the count column ("" when the file has no header).

    Returns
    -------
    str
        The unit, whitespace collapsed, at most :data:`MAX_UNIT` characters; or "".

    Examples
    --------
    >>> unit_of("people"), unit_of("Number of  patients"), unit_of("count (households)")
    ('people', 'patients', 'households')
    >>> unit_of("count"), unit_of(""), unit_of("#"), unit_of("[x](http://a.b)")
    ('', '', '', '')
    """
    text = " ".join(header.split())
    named = re.fullmatch(r"(?i)(?:number|count|counts)\s+of\s+(.+)", text)
    inside = re.fullmatch(r"(?i)(\w+)\s*\((.+)\)", text)
    if named:
        text = named.group(1)
    elif inside and inside.group(1).lower() in GENERIC_HEADERS:
        text = inside.group(2).strip()
    plain = all(ch.isalnum() or ch in " -" for ch in text)
    if text.lower() in GENERIC_HEADERS or not plain or not any(ch.isalpha() for ch in text):
        return ""
    return text[:MAX_UNIT].strip()


@dataclass
class _Rows:
    numbers: NDArray[np.float64]
    labels: tuple[str, ...] | None


def _read(
    data: bytes, layout: Layout, header: bool | None, max_rows: int
) -> tuple[str, str, _Rows]:
    """Stream the rows: check widths as they come, convert the numeric column on the fly.
    Returns how the first row was read, the count column's header ("" if none) and the rows."""
    first_ink = re.search(rb"\S", data)
    if first_ink is None:
        raise HistogramError(f"The file is empty. {ACCEPTED}")
    reader = _csv_input.reader(data)
    numbers = array("d")
    labels: list[str] = []
    width = 0
    first_row: list[str] | None = None
    note = heading = ""
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if len(cells) <= 1 and not any(cells):
                continue  # a blank line
            line = reader.line_num
            if first_row is None:
                width = _width(cells, line, layout)
                first_row = cells
                is_header = _is_header(cells[-1]) if header is None else header
                note = _csv_input.header_note(cells, is_header)
                if is_header:
                    heading = cells[-1]
                    continue
            elif len(cells) != width:
                raise HistogramError(
                    f"Line {line} has {len(cells)} column(s) but the first row has {width}; "
                    f"every row needs the same columns. {ACCEPTED}"
                )
            if len(numbers) >= max_rows:
                raise HistogramError(f"More than {max_rows:,} data rows; at most that many.")
            first_data = header is None and cells is first_row
            value = _number(cells[-1], line, layout, first_data)
            if layout != "values" and value < 0:  # the first bad cell in file order
                raise HistogramError(
                    f"Line {line}: the count '{cells[-1][:40]}' is negative; counts must be "
                    f">= 0. {ACCEPTED}"
                )
            numbers.append(value)
            if width == 2:
                labels.append(cells[0])
    except csv.Error as err:
        raise HistogramError(
            f"Line {reader.line_num} is not valid CSV ({err}). {ACCEPTED}"
        ) from None
    if first_row is None:
        raise HistogramError(f"The file is empty. {ACCEPTED}")
    if not numbers:
        raise HistogramError(f"The file has a header but no data rows. {ACCEPTED}")
    values = np.frombuffer(numbers, dtype=np.float64).copy()
    return note, heading, _Rows(values, tuple(labels) if width == 2 else None)


def _width(cells: list[str], line: int, layout: Layout) -> int:
    """The table's width from its first row, checked against the layout."""
    width = len(cells)
    needed = {"counts": 1, "values": 1, "labelled": 2}.get(layout)
    if needed is None and width <= 2:
        return width
    if width == needed:
        return width
    wanted = {1: "one column", 2: "a label column and a count column", None: "one or two columns"}
    raise HistogramError(
        f"Line {line} has {width} column(s); this layout needs {wanted[needed]}. {ACCEPTED}"
    )


def _is_header(cell: str) -> bool:
    """Auto-detection: a count cell with no digit at all (``count``, ``n``) names a column."""
    return not any(ch.isdigit() for ch in cell)


def _number(cell: str, line: int, layout: Layout, first_data_row: bool) -> float:
    try:
        return float(cell)
    except ValueError:
        what = "value" if layout == "values" else "count"
        hint = " If it is a header, set 'First row' to 'is a header'." if first_data_row else ""
        raise HistogramError(
            f"Line {line}: '{cell[:40] or '(empty)'}' is not a number; every {what} must be "
            f"numeric.{hint} {ACCEPTED}"
        ) from None


def _histogram_of_values(
    values: NDArray[np.float64],
    name: str,
    bins: int | None,
    bin_width: float | None,
    max_bins: int,
    max_total: float,
) -> Histogram:
    if not np.isfinite(values).all():
        raise HistogramError("Raw values must be finite numbers (found NaN or infinity).")
    low, high = float(values.min()), float(values.max())
    with np.errstate(over="ignore"):
        span = float(np.float64(high) - np.float64(low))
    if not math.isfinite(span):
        raise HistogramError(
            f"The values span [{low:.4g}, {high:.4g}], wider than float64 can bin; "
            "raw values must span less than 1.7e308."
        )
    if bin_width is not None:
        if not (math.isfinite(bin_width) and bin_width > 0):
            raise HistogramError("The bin width must be a positive number.")
        ratio = span / bin_width
        if not ratio < max_bins:
            raise HistogramError(
                f"A bin width of {bin_width:g} over [{low:.4g}, {high:.4g}] makes more than the "
                f"limit of {max_bins:,} bins."
            )
        count = max(1, math.ceil(ratio + 1e-12))
        if high >= low + count * bin_width:
            count += 1
    elif bins is not None:
        if bins < 1:
            raise HistogramError("The number of bins must be at least 1.")
        count = bins
    else:
        raise HistogramError("Raw values need a number of bins or a bin width.")
    if count > max_bins:
        raise HistogramError(f"{count:,} bins is more than the limit of {max_bins:,} bins.")
    if bin_width is not None:
        edges = low + bin_width * np.arange(count + 1)
    else:
        edges = np.linspace(low, high if high > low else low + 1.0, count + 1)
    if not (np.diff(edges) > 0).all():
        raise HistogramError(
            f"{count:,} bins over [{low:.6g}, {high:.6g}] are narrower than float64 can "
            "separate at that magnitude; use fewer bins."
        )
    counts, _ = np.histogram(values, bins=edges)
    labels = None
    if count <= _MAX_LABELLED_BINS:
        labels = tuple(f"[{edges[i]:.4g}, {edges[i + 1]:.4g})" for i in range(count))
    return from_counts(
        counts.astype(np.float64), name, labels, max_bins=max_bins, max_total=max_total
    )
