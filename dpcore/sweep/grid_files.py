"""2-D datasets of a sweep: grids of counts read from CSV files, and the domains they take.

A 2-D dataset is a CSV file of rows of comma-separated counts, no header (the format of
``../shared/data/2d/``: 256 lines of 256 counts); its bundled ones live in the ``2d``
folder of the data directory. A 2-D domain is ``[rows, columns]``, each dividing the grid's
side (DPBench sums blocks of adjacent cells, :func:`dpcore.algorithms.dpbench_2d.reduce_grid`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dpcore import _validate
from dpcore.algorithms.common import FloatArray
from dpcore.algorithms.grid2d.inputs import checked_grid
from dpcore.histogram import MAX_BYTES

GRID_FOLDER = "2d"
"""The data directory's folder of bundled 2-D datasets."""

Domain = int | tuple[int, int]
"""A sweep's domain: bins of a 1-D histogram, or ``(rows, columns)`` of a grid."""


def grid_dir(data: Path) -> Path:
    """The folder of bundled 2-D datasets in the data directory ``data``."""
    return data / GRID_FOLDER


def read_grid(path: Path) -> FloatArray:
    """A 2-D dataset's grid: a CSV of rows of comma-separated counts, no header.

    The file's size is checked before it is read (at most
    :data:`dpcore.histogram.MAX_BYTES`).

    Parameters
    ----------
    path : Path
        The CSV file.

    Returns
    -------
    ndarray of float64, shape (rows, columns)

    Raises
    ------
    ValueError
        If the file is too large, cannot be read, is not a rectangle of numbers (a header,
        rows of different lengths), or holds a count that is not a finite number ``>= 0``.
    """
    check_size(path, "a 2-D dataset CSV holds")
    try:
        grid = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64)
    except (OSError, ValueError) as error:
        raise ValueError(
            f"{path} is not a 2-D dataset ({error}); accepted: rows of comma-separated "
            "counts, no header, every row as long"
        ) from None
    bad = np.argwhere(~(np.isfinite(grid) & (grid >= 0)))
    if bad.size:
        row, column = (int(i) for i in bad[0])
        raise ValueError(
            f"{path}: line {row + 1}, column {column + 1} holds {grid[row, column]:g}; "
            "accepted: counts, finite numbers >= 0"
        )
    try:
        return checked_grid(grid)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def as_domain(key: str, value: Any) -> Domain:
    """A sweep's domain: a whole number of bins, or ``[rows, columns]`` of whole numbers.

    Parameters
    ----------
    key : str
        The key, named in messages.
    value : object
        The value read from the file.

    Returns
    -------
    int or tuple of int

    Raises
    ------
    ValueError
        For anything else (naming what is accepted).

    Examples
    --------
    >>> as_domain("domains", 64), as_domain("domains", [128, 64])
    (64, (128, 64))
    """
    if isinstance(value, list):
        if len(value) != 2:
            raise ValueError(
                f"a 2-D domain is [rows, columns], got {len(value)} numbers: {value!r}"
            )
        rows, columns = (_side(key, side) for side in value)
        return (rows, columns)
    return _side(key, value)


def _side(key: str, value: Any) -> int:
    if isinstance(value, bool):  # TOML's true would count as 1
        raise ValueError(f"{key} must be whole numbers, got {value!r}")
    return _validate.whole(key, value)


def divides(domain: Domain, shape: tuple[int, ...]) -> bool:
    """Whether ``domain`` divides a dataset of ``shape`` (bins, or rows and columns) and has
    its number of axes."""
    sides = domain if isinstance(domain, tuple) else (domain,)
    if len(sides) != len(shape):
        return False
    return all(n % d == 0 for n, d in zip(shape, sides, strict=True))


def label(domain: Domain) -> str:
    """``domain`` in words: ``"4096"`` or ``"128x128"``."""
    return "x".join(map(str, domain)) if isinstance(domain, tuple) else str(domain)


def check_size(path: Path, holds: str) -> None:
    """Refuse a dataset file over :data:`dpcore.histogram.MAX_BYTES` before reading it.

    Parameters
    ----------
    path : Path
        The file.
    holds : str
        What the message says holds at most that much (``"a dataset CSV holds"``).

    Raises
    ------
    ValueError
        If the file cannot be read or is too large; the message gives both sizes.
    """
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error}") from None
    if size > MAX_BYTES:
        raise ValueError(
            f"{path} is {size / 2**20:,.0f} MiB; {holds} at most {MAX_BYTES / 2**20:,.0f} MiB"
        )
