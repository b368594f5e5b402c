"""Histograms: the data every central-DP page publishes, and their validated parsing.

Accepted CSV/TSV layouts (comma, tab or semicolon separated, optional header):

* ``counts``   -- one numeric column: the count of each bin, in bin order;
* ``labelled`` -- a label column and a count column (e.g. ``country,population``);
* ``values``   -- one numeric column of raw observations, histogrammed into
  ``bins`` equal-width bins (or bins of width ``bin_width``).

Every problem raises :class:`HistogramError`, whose message says what was
wrong and what is accepted; nothing else escapes :func:`parse_histogram`.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Layout = Literal["auto", "counts", "labelled", "values"]

MAX_BINS = 2**22
MAX_BYTES = 64 * 2**20
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

    ``notes`` records anything the parser changed or wants the user to know,
    e.g. that non-integer counts were accepted as they are.
    """

    counts: NDArray[np.float64]
    name: str
    labels: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()

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
) -> Histogram:
    """Validate an in-memory count vector and wrap it as a :class:`Histogram`."""
    array = np.asarray(counts, dtype=np.float64)
    if array.ndim != 1 or array.size == 0:
        raise HistogramError(f"A histogram needs at least one bin. {ACCEPTED}")
    if array.size > max_bins:
        raise HistogramError(f"{array.size:,} bins is more than the limit of {max_bins:,} bins.")
    bad = ~np.isfinite(array)
    if bad.any():
        raise HistogramError(
            f"Bin {int(np.argmax(bad)) + 1} is {array[bad][0]} (NaN/infinite); counts must be "
            "finite numbers."
        )
    if (array < 0).any():
        first = int(np.argmax(array < 0))
        raise HistogramError(
            f"Bin {first + 1} has the negative count {array[first]:g}; counts must be >= 0."
        )
    notes: tuple[str, ...] = ()
    if not np.array_equal(array, np.round(array)):
        notes = ("Some counts are not whole numbers; they are used as given.",)
    return Histogram(array, name, labels, notes)


def parse_histogram(
    data: bytes,
    *,
    name: str = "uploaded",
    layout: Layout = "auto",
    bins: int | None = None,
    bin_width: float | None = None,
    max_bins: int = MAX_BINS,
    max_bytes: int = MAX_BYTES,
) -> Histogram:
    """Parse a CSV/TSV upload into a :class:`Histogram`.

    Parameters
    ----------
    data
        The raw file content.
    layout
        ``"auto"`` reads one numeric column as counts and a text column
        followed by a numeric column as labelled counts; raw observations must
        be asked for with ``"values"``.
    bins, bin_width
        For ``layout="values"``: the number of equal-width bins over
        ``[min, max]``, or the width of each bin starting at ``min`` (one of
        the two is required).

    Raises
    ------
    HistogramError
        For empty, binary, undecodable or over-size content, missing or
        non-numeric columns, NaN/inf, negative counts, too many bins.

    Examples
    --------
    >>> parse_histogram(b"count\\n3\\n0\\n5\\n").counts
    array([3., 0., 5.])
    >>> parse_histogram(b"a,1\\nb,2\\n").labels
    ('a', 'b')
    """
    rows = _rows(data, max_bytes)
    header, rows = _split_header(rows)
    width = max(len(row) for row in rows)
    if layout == "values" or (layout == "auto" and width == 1):
        column = _numeric_column(rows, -1, header, what="value" if layout == "values" else "count")
        if layout == "values":
            return _histogram_of_values(column, name, bins, bin_width, max_bins)
        return from_counts(column, name, max_bins=max_bins)
    if layout == "counts":
        return from_counts(_numeric_column(rows, -1, header, what="count"), name, max_bins=max_bins)
    if width < 2:
        raise HistogramError(f"A labelled histogram needs a label and a count column. {ACCEPTED}")
    if width > 2:
        raise HistogramError(
            f"Found {width} columns; expected one count column or label + count. {ACCEPTED}"
        )
    if any(len(row) != 2 for row in rows):
        line = next(i for i, row in enumerate(rows) if len(row) != 2)
        raise HistogramError(f"Row {line + 1 + bool(header)} does not have 2 columns. {ACCEPTED}")
    counts = _numeric_column(rows, 1, header, what="count")
    labels = tuple(row[0].strip() for row in rows)
    return from_counts(counts, name, labels, max_bins=max_bins)


def _rows(data: bytes, max_bytes: int) -> list[list[str]]:
    if len(data) > max_bytes:
        raise HistogramError(
            f"The file is {len(data) / 2**20:.1f} MiB; at most {max_bytes / 2**20:.0f} MiB "
            "is accepted."
        )
    if b"\x00" in data:
        raise HistogramError(f"The file looks binary (it contains NUL bytes). {ACCEPTED}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HistogramError(f"The file is not UTF-8 text. {ACCEPTED}") from None
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise HistogramError(f"The file is empty. {ACCEPTED}")
    delimiter = next((d for d in ("\t", ";", ",") if d in lines[0]), ",")
    return [
        [cell.strip() for cell in row]
        for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    ]


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _split_header(rows: list[list[str]]) -> tuple[list[str] | None, list[list[str]]]:
    """The first row is a header when none of its cells in the last column is a number."""
    first = rows[0]
    if first and not _is_number(first[-1]):
        if len(rows) == 1:
            raise HistogramError(f"The file has a header but no data rows. {ACCEPTED}")
        return first, rows[1:]
    return None, rows


def _numeric_column(
    rows: list[list[str]], index: int, header: list[str] | None, *, what: str
) -> NDArray[np.float64]:
    cells = [row[index] if row else "" for row in rows]
    try:
        return np.array(cells, dtype=np.float64)
    except ValueError:
        line = next(i for i, cell in enumerate(cells) if not _is_number(cell))
        shown = cells[line][:40] or "(empty)"
        raise HistogramError(
            f"Row {line + 1 + bool(header)}: '{shown}' is not a number; every {what} must be "
            f"numeric. {ACCEPTED}"
        ) from None


def _histogram_of_values(
    values: NDArray[np.float64],
    name: str,
    bins: int | None,
    bin_width: float | None,
    max_bins: int,
) -> Histogram:
    if not np.isfinite(values).all():
        raise HistogramError("Raw values must be finite numbers (found NaN or infinity).")
    low, high = float(values.min()), float(values.max())
    if bin_width is not None:
        if not (math.isfinite(bin_width) and bin_width > 0):
            raise HistogramError("The bin width must be a positive number.")
        count = max(1, math.ceil((high - low) / bin_width + 1e-12))
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
    counts, _ = np.histogram(values, bins=edges)
    labels = None
    if count <= _MAX_LABELLED_BINS:
        labels = tuple(f"[{edges[i]:.4g}, {edges[i + 1]:.4g})" for i in range(count))
    return from_counts(counts.astype(np.float64), name, labels, max_bins=max_bins)
