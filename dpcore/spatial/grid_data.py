"""2-D histograms (grids of counts) and their validated parsing from CSV/TSV.

Accepted layouts (comma, tab or semicolon separated, optional header row):

* ``grid``   -- one line per row of the grid, one count per column (the same number of
  columns on every line);
* ``long``   -- three columns ``x,y,count``: a cell's 0-based row, its 0-based column and
  its count; cells not listed are 0 and the grid ends at the largest row and column listed;
* ``points`` -- two numeric columns, one point per line (e.g. longitude, latitude), binned
  to a grid of ``bins`` rows and columns within ``bounds``.

In every layout the first coordinate indexes the grid's rows (axis 0) and the second its
columns (axis 1), as :mod:`dpcore.spatial` does. Counts must be finite whole numbers
``>= 0``; a grid needs at least 2 rows and 2 columns (one row or one column is a 1-D
histogram: :mod:`dpcore.histogram`). Every problem raises :class:`GridError`, whose
message names the first bad line, cell or point and says what is accepted.
"""

from __future__ import annotations

import csv
import math
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _csv_input, _validate
from dpcore.histogram import MAX_BYTES, MAX_ROWS, MAX_TOTAL, total_problem
from dpcore.spatial.regions import MAX_CELLS

FloatArray = NDArray[np.float64]
GridLayout = Literal["auto", "grid", "long", "points"]
LAYOUTS: tuple[GridLayout, ...] = ("auto", "grid", "long", "points")

MAX_LINE = 65_536
"""Longest line accepted, in bytes (a grid row of a few thousand counts)."""
ACCEPTED = (
    "Accepted: a CSV/TSV grid of whole counts >= 0 (one line per row, the same number of "
    "columns on every line, at least 2 x 2), the long form x,y,count (a cell's 0-based row and "
    "column, then its count), or raw points (two numeric columns, binned to a chosen grid "
    "within given bounds)."
)


class GridError(ValueError):
    """A 2-D histogram input was rejected; the message says why and what is accepted."""


@dataclass(frozen=True, eq=False)
class Grid:
    """A 2-D histogram: whole non-negative counts, axis 0 = rows.

    Attributes
    ----------
    counts : ndarray of float64, shape (n_rows, n_cols)
        Finite whole counts ``>= 0``; at least 2 x 2.
    name : str
        Name of the dataset.
    notes : tuple of str, default ()
        How the input was read (header, inferred extent, bounds used).
    """

    counts: FloatArray
    name: str
    notes: tuple[str, ...] = ()

    @property
    def shape(self) -> tuple[int, int]:
        rows, cols = self.counts.shape
        return int(rows), int(cols)

    @property
    def total(self) -> float:
        return float(self.counts.sum())


def from_grid(
    counts: ArrayLike,
    name: str,
    *,
    notes: tuple[str, ...] = (),
    max_cells: int = MAX_CELLS,
    max_total: float = MAX_TOTAL,
) -> Grid:
    """Validate an in-memory grid of counts and wrap it as a :class:`Grid`.

    Parameters
    ----------
    counts : array_like of float, shape (n_rows, n_cols)
        The counts: finite whole numbers ``>= 0``, at least 2 x 2.
    name : str
        Name of the dataset.
    notes : tuple of str, default ()
        Notes to keep with the grid.
    max_cells : int, default MAX_CELLS
        Most cells accepted.
    max_total : float, default MAX_TOTAL
        Largest sum of the counts (float64 must keep unit Laplace noise on every node sum).

    Returns
    -------
    Grid
        The counts as float64.

    Raises
    ------
    GridError
        Naming the first bad cell (0-based row, column), or the shape or total not accepted.

    Examples
    --------
    >>> from_grid([[1, 2], [3, 4]], "tiny").total
    10.0
    >>> from_grid([[1, 2], [3, -4]], "bad")
    Traceback (most recent call last):
    ...
    dpcore.spatial.grid_data.GridError: Cell (row 1, column 1) has the count -4, which is \
negative; counts must be whole numbers >= 0.
    """
    grid = np.asarray(counts, dtype=np.float64)
    _check_shape(grid.shape, max_cells)
    cols = grid.shape[1]
    _check_counts(
        grid.ravel(), lambda k: f"Cell (row {k // cols}, column {k % cols}) has the count"
    )
    _check_total(grid, max_total)
    return Grid(grid, name, notes)


def _check_shape(shape: tuple[int, ...], max_cells: int) -> None:
    if len(shape) != 2:
        raise GridError(f"A 2-D histogram is a table of rows and columns. {ACCEPTED}")
    rows, cols = shape
    if rows < 2 or cols < 2:
        raise GridError(
            f"The grid has {rows} row(s) and {cols} column(s); a 2-D histogram needs at least "
            "2 rows and 2 columns (one row or one column is a 1-D histogram: upload it in the "
            f"sidebar). {ACCEPTED}"
        )
    if rows * cols > max_cells:
        raise GridError(
            f"The grid has {rows:,} x {cols:,} = {rows * cols:,} cells, more than the limit of "
            f"{max_cells:,} cells; coarsen it (sum blocks of cells) or choose fewer bins."
        )


def _check_counts(values: FloatArray, where: Callable[[int], str]) -> None:
    """Raise for the first count (in order) that is not a finite whole number ``>= 0``;
    ``where(k)`` starts the message about value ``k``."""
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(values) | (values < 0) | (values != np.round(values))
    if not bad.any():
        return
    k = int(np.argmax(bad))
    v = float(values[k])
    if not math.isfinite(v):
        why = "not a finite number"
    elif v < 0:
        why = "negative"
    else:
        why = "not a whole number"
    raise GridError(f"{where(k)} {v:g}, which is {why}; counts must be whole numbers >= 0.")


def _check_total(grid: FloatArray, max_total: float) -> None:
    if too_large := total_problem(grid, max_total):
        raise GridError(too_large)


def parse_grid(
    data: bytes,
    *,
    name: str = "uploaded",
    layout: GridLayout = "auto",
    header: bool | None = None,
    bins: Sequence[int] = (64, 64),
    bounds: Sequence[Sequence[float]] | None = None,
    max_cells: int = MAX_CELLS,
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
    max_total: float = MAX_TOTAL,
) -> Grid:
    """Parse a CSV/TSV upload into a :class:`Grid`.

    Parameters
    ----------
    data : bytes
        The raw file content (UTF-8, optionally with a BOM; any line endings).
    name : str, default "uploaded"
        Name of the dataset.
    layout : {"auto", "grid", "long", "points"}, default "auto"
        ``"auto"`` reads three columns under a header (such as ``x,y,count``) as the long
        form and anything else as a grid; raw points must be asked for with ``"points"``.
    header : bool, optional
        Whether the first row is a header; ``None`` detects it: the first row is a header
        when none of its cells (long form: its count cell) contains a digit.
    bins : sequence of two int, default (64, 64)
        For ``"points"``: the grid's rows and columns (each ``>= 2``).
    bounds : ((float, float), (float, float)), optional
        For ``"points"``: the closed ranges of the first and the second coordinate that the
        grid covers (each ``low < high``); a point outside them is an error. ``None``: the
        points' own smallest and largest values (said in :attr:`Grid.notes`).
    max_cells, max_rows, max_bytes : int
        Limits: cells of the grid, data lines (besides a header), file size in bytes.
    max_total : float, default MAX_TOTAL
        Largest sum of the counts.

    Returns
    -------
    Grid
        The counts, with notes on how the file was read.

    Raises
    ------
    GridError
        For empty, binary, undecodable or over-size content; ragged rows; non-numeric cells;
        NaN, negative or fractional counts; fewer than 2 rows or columns or more than
        ``max_cells`` cells; a cell listed twice; NaN coordinates or points outside
        ``bounds``; bad ``bins`` or ``bounds``; a too large total.

    Examples
    --------
    >>> parse_grid(b"1,2,3\\n4,5,6\\n").counts
    array([[1., 2., 3.],
           [4., 5., 6.]])
    >>> parse_grid(b"x,y,count\\n0,1,7\\n1,0,2\\n").counts
    array([[0., 7.],
           [2., 0.]])
    """
    if layout not in LAYOUTS:
        raise GridError(f"Unknown layout '{layout}'; choose from {', '.join(LAYOUTS)}.")
    rows = _rows(data, max_rows=max_rows, max_bytes=max_bytes)
    first = next(rows, None)
    if first is None:
        raise GridError(f"The file is empty. {ACCEPTED}")
    if layout == "auto":
        titled = not any(ch.isdigit() for cell in first[1] for ch in cell)
        layout = "long" if len(first[1]) == 3 and titled else "grid"
    table = _Table(first, rows, header, layout)
    if layout == "points":
        return _binned_points(table, name, bins, bounds, (max_cells, max_rows), max_total)
    if layout == "long":
        return _long_form(table, name, max_cells, max_total)
    return _grid_rows(table, name, max_cells, max_total)


Row = tuple[int, list[str]]


def _rows(data: bytes, *, max_rows: int, max_bytes: int) -> Iterator[Row]:
    """Non-blank rows as (line number, stripped cells), after the size checks."""
    try:
        data = _csv_input.normalised(data, max_bytes=max_bytes, accepted=ACCEPTED)
    except ValueError as err:
        raise GridError(str(err)) from None
    try:
        _validate.scan_lines(data, max_rows=max_rows, max_line=MAX_LINE)
    except ValueError as err:
        raise GridError(f"{err} {ACCEPTED}") from None
    reader = _csv_input.reader(data)
    try:
        for row in reader:
            cells = [cell.strip() for cell in row]
            if any(cells):
                yield reader.line_num, cells
    except UnicodeDecodeError:
        raise GridError(f"The file is not UTF-8 text. {ACCEPTED}") from None
    except csv.Error as err:
        raise GridError(f"Line {reader.line_num} is not valid CSV ({err}). {ACCEPTED}") from None


class _Table:
    """A file's data rows: the first row's width for all, numeric cells, a header skipped."""

    def __init__(self, first: Row, rest: Iterator[Row], header: bool | None, layout: str) -> None:
        self.first, self.rest, self.layout = first, rest, layout
        self.width = len(first[1])
        needed = {"long": 3, "points": 2}.get(layout)
        if needed is not None and self.width != needed:
            raise GridError(
                f"Line {first[0]} has {self.width} column(s); the {layout} layout needs "
                f"{needed}. {ACCEPTED}"
            )
        looked_at = first[1][-1:] if layout == "long" else first[1]
        self.header = (
            not any(ch.isdigit() for cell in looked_at for ch in cell) if header is None else header
        )
        self.note = _csv_input.header_note(first[1], self.header)

    def numbers(self) -> Iterator[tuple[int, list[float]]]:
        """Each data row's numbers, checking widths and that every cell is a number."""
        rows = self.rest if self.header else _chain(self.first, self.rest)
        for line, cells in rows:
            if len(cells) != self.width:
                raise GridError(
                    f"Line {line} has {len(cells)} column(s) but the first row has "
                    f"{self.width}; every line needs the same number of columns (the file is "
                    f"ragged). {ACCEPTED}"
                )
            try:
                yield line, [float(cell) for cell in cells]
            except ValueError:
                col = next(k for k, cell in enumerate(cells) if not _is_number(cell))
                hint = (
                    " If it is a header, say that the first row is a header."
                    if line == self.first[0]
                    else ""
                )
                raise GridError(
                    f"Line {line}, column {col + 1}: '{cells[col][:40] or '(empty)'}' is not a "
                    f"number; every cell must be numeric.{hint} {ACCEPTED}"
                ) from None


def _chain(first: Row, rest: Iterator[Row]) -> Iterator[Row]:
    yield first
    yield from rest


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _columns(table: _Table, max_values: int) -> tuple[FloatArray, NDArray[np.int64]]:
    """Every data row's numbers (rows x width) and their line numbers; over ``max_values``
    numbers in all is a :class:`GridError`."""
    values = array("d")
    lines = array("q")
    for line, numbers in table.numbers():
        values.extend(numbers)
        lines.append(line)
        if len(values) > max_values:
            raise GridError(
                f"Line {line}: the file holds more than the limit of {max_values:,} values "
                "(cells or coordinates); coarsen the grid or upload fewer points."
            )
    if not lines:
        raise GridError(f"The file has a header but no data rows. {ACCEPTED}")
    data = np.frombuffer(values, dtype=np.float64).reshape(len(lines), table.width)
    return data, np.frombuffer(lines, dtype=np.int64)


def _grid_rows(table: _Table, name: str, max_cells: int, max_total: float) -> Grid:
    grid, lines = _columns(table, max_cells)
    _check_shape(grid.shape, max_cells)
    cols = grid.shape[1]
    _check_counts(
        grid.ravel(), lambda k: f"Line {lines[k // cols]}, column {k % cols + 1}: the count"
    )
    _check_total(grid, max_total)
    return Grid(grid.copy(), name, (table.note,))


def _long_form(table: _Table, name: str, max_cells: int, max_total: float) -> Grid:
    cells, lines = _columns(table, 3 * max_cells)
    for axis, what in ((0, "row"), (1, "column")):
        index = cells[:, axis]
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(index) | (index < 0) | (index != np.round(index))
        if bad.any():
            k = int(np.argmax(bad))
            raise GridError(
                f"Line {lines[k]}: the {what} {index[k]:g} is not a whole number >= 0; x and y "
                f"are a cell's 0-based row and column. {ACCEPTED}"
            )
    _check_counts(cells[:, 2], lambda k: f"Line {lines[k]}: the count")
    if cells[:, :2].max() >= max_cells:
        raise GridError(
            f"The grid would have more than the limit of {max_cells:,} cells (a row or column "
            f"index of {cells[:, :2].max():,.0f}); coarsen the grid."
        )
    x, y = cells[:, 0].astype(np.int64), cells[:, 1].astype(np.int64)
    shape = (int(x.max()) + 1, int(y.max()) + 1)
    _check_shape(shape, max_cells)
    flat = x * shape[1] + y
    order = np.argsort(flat, kind="stable")
    repeated = np.flatnonzero(np.diff(flat[order]) == 0)
    if repeated.size:
        again = int(order[repeated + 1].min())  # the first repeat in file order
        once = int(order[np.searchsorted(flat[order], flat[again])])
        raise GridError(
            f"Line {lines[again]} lists cell ({x[again]}, {y[again]}) again (first at line "
            f"{lines[once]}); list each cell once. {ACCEPTED}"
        )
    grid = np.zeros(shape)
    grid[x, y] = cells[:, 2]
    _check_total(grid, max_total)
    note = (
        f"Long form: {len(lines):,} cells listed; the grid is {shape[0]} x {shape[1]} (the "
        "largest row and column listed), cells not listed are 0."
    )
    return Grid(grid, name, (table.note, note))


def _binned_points(
    table: _Table,
    name: str,
    bins: Sequence[int],
    bounds: Sequence[Sequence[float]] | None,
    limits: tuple[int, int],
    max_total: float,
) -> Grid:
    max_cells, max_rows = limits
    if len(bins) != 2:
        raise GridError("Points are binned to a grid: give its rows and columns (two numbers).")
    try:
        shape = tuple(_validate.whole("bins", b, lower=2) for b in bins)
    except ValueError as err:
        raise GridError(f"{err}: a grid needs at least 2 rows and 2 columns.") from None
    _check_shape(shape, max_cells)
    points, lines = _columns(table, 2 * max_rows)
    finite = np.isfinite(points).all(axis=1)
    if not finite.all():
        k = int(np.argmin(finite))
        raise GridError(
            f"Line {lines[k]}: the point ({points[k, 0]:g}, {points[k, 1]:g}) has a NaN or "
            "infinite coordinate; every point needs two finite numbers."
        )
    box = _bounds(points, bounds)
    inside = ((points >= box[:, 0]) & (points <= box[:, 1])).all(axis=1)
    if not inside.all():
        k = int(np.argmin(inside))
        raise GridError(
            f"Line {lines[k]}: the point ({points[k, 0]:g}, {points[k, 1]:g}) is outside the "
            f"bounds [{box[0, 0]:g}, {box[0, 1]:g}] x [{box[1, 0]:g}, {box[1, 1]:g}]; widen the "
            "bounds or leave the point out."
        )
    edges = [np.linspace(box[d, 0], box[d, 1], shape[d] + 1) for d in range(2)]
    if not all((np.diff(e) > 0).all() for e in edges):
        raise GridError(
            f"{shape[0]} x {shape[1]} bins over these bounds are narrower than float64 can "
            "separate at that magnitude; use fewer bins or wider bounds."
        )
    counts, _, _ = np.histogram2d(points[:, 0], points[:, 1], bins=edges)
    _check_total(counts, max_total)
    note = (
        f"{len(lines):,} points binned to {shape[0]} x {shape[1]} cells: the first coordinate "
        f"[{box[0, 0]:g}, {box[0, 1]:g}] along the rows, the second [{box[1, 0]:g}, "
        f"{box[1, 1]:g}] along the columns."
    )
    return Grid(counts, name, (table.note, note))


def _bounds(points: FloatArray, bounds: Sequence[Sequence[float]] | None) -> FloatArray:
    """The checked bounds, shape (2, 2); the points' own range when ``bounds`` is None."""
    if bounds is None:
        low, high = points.min(axis=0), points.max(axis=0)
        return np.stack([low, np.where(high > low, high, low + 1.0)], axis=1)
    box = np.asarray(bounds, dtype=np.float64)
    if box.shape != (2, 2) or not np.isfinite(box).all() or not (box[:, 0] < box[:, 1]).all():
        raise GridError(
            "Bounds are two ranges, low < high, finite: one for each coordinate, e.g. "
            f"((-122.5, -122.3), (37.7, 37.8)); got {np.asarray(bounds).tolist()}."
        )
    return box


def grid_csv(counts: ArrayLike, *, layout: Literal["grid", "long"] = "grid") -> bytes:
    """A grid as CSV that :func:`parse_grid` reads back: rows of counts, or ``x,y,count``
    for the non-zero cells and the last one (which keeps the extent), with a header.

    Parameters
    ----------
    counts : array_like of float, shape (n_rows, n_cols)
        The grid (whole counts are written without a decimal point).
    layout : {"grid", "long"}, default "grid"
        The layout written.

    Returns
    -------
    bytes
        UTF-8 CSV text.

    Examples
    --------
    >>> grid_csv([[0, 1], [2, 0]], layout="long")
    b'x,y,count\\n0,1,1\\n1,0,2\\n1,1,0\\n'
    """
    grid = np.asarray(counts, dtype=np.float64)
    if layout == "long":
        listed = grid != 0
        listed[-1, -1] = True  # the last cell keeps the grid's extent
        x, y = np.nonzero(listed)
        lines = ["x,y,count", *(f"{i},{j},{grid[i, j]:.17g}" for i, j in zip(x, y, strict=True))]
    else:
        lines = [",".join(f"{v:.17g}" for v in row) for row in grid]
    return ("\n".join(lines) + "\n").encode()
