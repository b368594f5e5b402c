"""A sweep file: its grid of settings, checked, and the datasets it names, loaded.

A sweep is a small TOML file (read with the standard library's :mod:`tomllib`)::

    name = "dpbench_1d"            # letters, digits, "_", "-", "."
    seed = 2016                    # base seed: every cell's seed derives from it
    trials = 5
    datasets = "all"               # or ["ADULTFRANK", "data/mine.csv", ...]
    scales = [1_000, 100_000, 10_000_000]
    domains = [4096]               # bins; or [[128, 128]]: rows and columns of a grid
    epsilons = [1.0, 0.1]
    workloads = ["prefix"]         # "prefix" and/or "random ranges"; 2-D: "random rectangles"
    algorithms = "all"             # or a list of names from dpcore.algorithms.NAMES

A dataset is a bundled histogram's name (the part of a ``*.csv`` file name before the
first dot, in the data directory) or a path to a CSV histogram (relative to the sweep
file; column ``count``, or its only column). Every message about a bad file names the
line and the key, and an unknown name lists the accepted ones.

A sweep whose domains are ``[rows, columns]`` pairs is a 2-D sweep (DPBench's 2-D
protocol, :mod:`dpcore.algorithms.dpbench_2d`): its datasets are grids (bundled in the
data directory's ``2d`` folder, or CSV files of rows of counts, see
:mod:`dpcore.sweep.grid_files`), its workload ``"random rectangles"``, its algorithms those
of :data:`dpcore.algorithms.NAMES_2D`. One sweep is 1-D or 2-D, never both.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from dpcore import _validate
from dpcore.algorithms.common import FloatArray, checked_counts
from dpcore.algorithms.dpbench import MAX_SCALE
from dpcore.algorithms.grid2d import NAMES_2D
from dpcore.algorithms.registry import NAMES
from dpcore.histogram import MAX_BINS
from dpcore.sweep.grid_files import (
    Domain,
    as_domain,
    check_size,
    divides,
    grid_dir,
    label,
    read_grid,
)

DATA_ENV = "DP_EXPLORER_DATA"
"""Environment variable naming the directory of bundled datasets."""

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
"""The bundled datasets' directory when neither an option nor :data:`DATA_ENV` names one."""

WORKLOADS = ("prefix", "random ranges")
"""The workloads a sweep may name (DPBench's two 1-D workloads)."""
WORKLOADS_2D = ("random rectangles",)
"""The workloads a 2-D sweep may name (DPBench's 2,000 random rectangles)."""

KEYS = ("name", "seed", "trials", "datasets", "scales", "domains", "epsilons", "workloads")
KEYS_ALL = (*KEYS, "algorithms")
MAX_CELLS = 10_000_000
"""Most cells one sweep may hold (DPBench's 1-D grid is about 10^5)."""

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,80}")


class SweepFileError(ValueError):
    """A sweep file that cannot be run: the message names the line and the key."""


@dataclass(frozen=True)
class Dataset:
    """A histogram a sweep samples its inputs from.

    Attributes
    ----------
    name : str
        What the store calls it.
    counts : ndarray of float64, shape (n,) or (rows, columns)
        Its bins or its grid (only its shape matters: inputs are sampled from it).
    fingerprint : str
        SHA-256 of its bins, to notice a dataset changed between runs of one sweep.
    """

    name: str
    counts: FloatArray
    fingerprint: str


@dataclass(frozen=True)
class Sweep:
    """A checked sweep: the grid of settings and its loaded datasets.

    Attributes
    ----------
    name : str
        The sweep's name in the store.
    seed : int
        Base seed.
    trials : int
        Inputs sampled per (dataset, scale, domain).
    datasets : tuple of Dataset
    scales : tuple of int
    domains : tuple of int, or tuple of (int, int)
        Bins, or (rows, columns) of a 2-D sweep.
    epsilons : tuple of float
    workloads : tuple of str
    algorithms : tuple of str
    """

    name: str
    seed: int
    trials: int
    datasets: tuple[Dataset, ...]
    scales: tuple[int, ...]
    domains: tuple[Domain, ...]
    epsilons: tuple[float, ...]
    workloads: tuple[str, ...]
    algorithms: tuple[str, ...]

    @property
    def size(self) -> int:
        """Number of cells in the grid."""
        return (
            len(self.datasets)
            * len(self.scales)
            * len(self.domains)
            * len(self.epsilons)
            * len(self.workloads)
            * len(self.algorithms)
            * self.trials
        )

    def settings(self) -> dict[str, Any]:
        """The sweep as plain values (what the store records of it)."""
        return {
            "seed": self.seed,
            "trials": self.trials,
            "datasets": {d.name: d.fingerprint for d in self.datasets},
            "scales": list(self.scales),
            "domains": [list(d) if isinstance(d, tuple) else d for d in self.domains],
            "epsilons": list(self.epsilons),
            "workloads": list(self.workloads),
            "algorithms": list(self.algorithms),
        }


def data_dir(option: str | os.PathLike[str] | None = None) -> Path:
    """Where the bundled datasets are: ``option``, else ``$DP_EXPLORER_DATA``, else
    ``../shared/data`` beside the repository.

    Parameters
    ----------
    option : path, optional
        A directory given on the command line.

    Returns
    -------
    Path
        The directory (it may not exist; :func:`bundled` then finds no dataset).
    """
    if option is not None:
        return Path(option)
    env = os.environ.get(DATA_ENV)
    return Path(env) if env else DEFAULT_DATA


def bundled(directory: Path) -> dict[str, Path]:
    """The bundled datasets in ``directory``: name (file name up to its first dot) -> path."""
    if not directory.is_dir():
        return {}
    return {p.name.split(".")[0]: p for p in sorted(directory.glob("*.csv"))}


def read_histogram(path: Path) -> FloatArray:
    """A CSV histogram's bins: its ``count`` column, or its only column.

    The file's size is checked before it is read (at most :data:`dpcore.histogram.MAX_BYTES`),
    and at most :data:`dpcore.histogram.MAX_BINS` rows are read, so that a huge file is
    refused without being loaded.

    Parameters
    ----------
    path : Path
        The CSV file.

    Returns
    -------
    ndarray of float64
        The bins.

    Raises
    ------
    ValueError
        If the file is too large, has too many rows, cannot be read, or its bins are not
        finite numbers ``>= 0``.
    """
    check_size(path, f"a dataset CSV ({MAX_BINS:,} bins, one count per line) holds")
    try:
        table = pd.read_csv(path, nrows=MAX_BINS + 1)
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read {path}: {error}") from None
    if len(table) > MAX_BINS:
        raise ValueError(f"{path} has more than {MAX_BINS:,} rows (bins); at most {MAX_BINS:,}")
    if "count" in table.columns:
        column = table["count"]
    elif len(table.columns) == 1:
        column = table.iloc[:, 0]
    else:
        raise ValueError(f"{path} has no 'count' column and more than one column")
    try:
        return checked_counts(pd.to_numeric(column).to_numpy(np.float64))
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def _line_of(text: str, key: str) -> int | None:
    match = re.search(rf"^\s*{re.escape(key)}\s*=", text, flags=re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


class _Checker:
    """Turns one key's bad value into a SweepFileError naming the file, line and key."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def fail(self, key: str, message: str) -> SweepFileError:
        line = _line_of(self.text, key)
        where = f"{self.path}, line {line}" if line else str(self.path)
        return SweepFileError(f"{where}, key {key!r}: {message}")

    def missing(self, key: str) -> SweepFileError:
        return SweepFileError(f"{self.path}: missing key {key!r} (a sweep needs {', '.join(KEYS)})")

    def scalar(self, table: dict[str, Any], key: str, checker: Any) -> Any:
        if key not in table:
            raise self.missing(key)
        if isinstance(table[key], list):
            raise self.fail(key, f"must be one value, got a list {table[key]!r}")
        return self.check(key, [table[key]], checker)[0]

    def items(self, table: dict[str, Any], key: str) -> list[Any]:
        if key not in table:
            raise self.missing(key)
        value = table[key]
        values = value if isinstance(value, list) else [value]
        if not values:
            raise self.fail(key, "needs at least one value, got an empty list")
        if len(set(map(repr, values))) != len(values):
            raise self.fail(key, f"lists a value twice: {value!r}")
        return values

    def check(self, key: str, values: list[Any], checker: Any) -> tuple[Any, ...]:
        try:
            checked = tuple(checker(key, v) for v in values)
        except ValueError as error:
            raise self.fail(key, str(error)) from None
        if len(set(checked)) != len(checked):  # 1 and 1.0 are one value, run twice
            repeated = next(v for v in checked if checked.count(v) > 1)
            raise self.fail(key, f"lists the value {repeated!r} twice: {values!r}")
        return checked

    def choose(
        self, key: str, values: list[Any], accepted: tuple[str, ...], *, every: bool = False
    ) -> tuple[str, ...]:
        """The names in ``values``, each one of ``accepted``; ``["all"]`` means every one
        where ``every`` is True (elsewhere "all" is refused: it would silently mean both)."""
        if every and values == ["all"]:
            return accepted
        unknown = [v for v in values if v not in accepted]
        if unknown:
            raise self.fail(key, f"unknown {unknown[0]!r}; accepted: {', '.join(accepted)}")
        return tuple(values)


def _whole_scale(key: str, value: Any) -> int:
    return _whole(key, value, upper=MAX_SCALE)


def _whole(key: str, value: Any, *, upper: int | None = None) -> int:
    if isinstance(value, bool):  # TOML's true would count as 1
        raise ValueError(f"{key} must be a whole number, got {value!r}")
    return _validate.whole(key, value, upper=upper)


def _epsilon(key: str, value: Any) -> float:
    if isinstance(value, bool | str):
        raise ValueError(f"{key} must be a positive number, got {value!r}")
    return _validate.positive(key, value)


def _load_dataset(
    entry: Any, base: Path, known: dict[str, Path], other: dict[str, Path], *, two_d: bool
) -> Dataset:
    if not isinstance(entry, str) or not entry:
        raise ValueError(f"a dataset is a name or a path to a CSV file, got {entry!r}")
    if entry in known:
        path = known[entry]
    elif "/" in entry or entry.lower().endswith(".csv"):
        path = (base / entry).resolve()
        if not path.is_file():
            raise ValueError(f"no file {entry!r} (paths are relative to the sweep file)")
    else:
        kind = "2-D " if two_d else ""
        names = ", ".join(known) or "none found: set DP_EXPLORER_DATA or --data-dir"
        hint = ""
        if entry in other:
            hint = (
                f" ({entry} is a 1-D dataset: a 1-D sweep's domains are numbers of bins)"
                if two_d
                else f" ({entry} is a 2-D dataset: a 2-D sweep's domains are [rows, columns])"
            )
        raise ValueError(
            f"unknown {kind}dataset {entry!r}{hint}; bundled: {names}; or a path to a CSV file"
        )
    counts = read_grid(path) if two_d else read_histogram(path)
    digest = hashlib.sha256(counts.tobytes()).hexdigest()
    return Dataset(path.name.split(".")[0], counts, digest)


def parse(text: str, *, path: Path, data: Path) -> Sweep:
    """A sweep from the text of a sweep file.

    Parameters
    ----------
    text : str
        The TOML text.
    path : Path
        Where the text comes from: named in messages; dataset paths are relative to it.
    data : Path
        The bundled datasets' directory (see :func:`data_dir`).

    Returns
    -------
    Sweep
        The checked grid, datasets loaded.

    Raises
    ------
    SweepFileError
        For malformed TOML (with its line and column), an unknown or missing key, or a bad
        value (with its line and key; unknown names list the accepted ones).
    """
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise SweepFileError(f"{path}: not valid TOML: {error}") from None
    check = _Checker(path, text)
    for key in table:
        if key not in KEYS_ALL:
            raise check.fail(key, f"unknown key; accepted: {', '.join(KEYS_ALL)}")
    name = table.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise check.fail("name", f"must be 1-80 letters, digits, '_', '-' or '.', got {name!r}")
    first = table.get("domains", [None])
    two_d = isinstance(first[0] if isinstance(first, list) and first else first, list)
    folders = (grid_dir(data), data) if two_d else (data, grid_dir(data))
    known, other = bundled(folders[0]), bundled(folders[1])
    entries = check.items(table, "datasets")
    if entries == ["all"]:
        entries = list(known)
        if not entries:
            raise check.fail("datasets", f"'all' found no CSV file in {folders[0]}")
    try:
        datasets = tuple(
            _load_dataset(entry, path.parent, known, other, two_d=two_d) for entry in entries
        )
    except ValueError as error:
        raise check.fail("datasets", str(error)) from None
    if len({d.name for d in datasets}) != len(datasets):
        raise check.fail("datasets", "two datasets have one name (a file name up to its dot)")
    domains = check.check("domains", check.items(table, "domains"), as_domain)
    if any(isinstance(d, tuple) != two_d for d in domains):
        raise check.fail(
            "domains",
            f"mixes bins and [rows, columns]: {table['domains']!r}; a sweep is 1-D (numbers "
            "of bins) or 2-D ([rows, columns] pairs), run the others as another sweep",
        )
    for d in datasets:
        for domain in domains:
            if not divides(domain, d.counts.shape):
                shape = " x ".join(map(str, d.counts.shape))
                cells = "cells per axis" if two_d else "bins"
                message = f"{label(domain)} does not divide dataset {d.name}'s {shape} {cells}"
                raise check.fail("domains", message)
    algorithms = check.choose(
        "algorithms",
        check.items(table, "algorithms") if "algorithms" in table else ["all"],
        NAMES_2D if two_d else NAMES,
        every=True,
    )
    sweep = Sweep(
        name=name,
        seed=check.scalar(table, "seed", _whole_seed),
        trials=check.scalar(table, "trials", _whole),
        datasets=datasets,
        scales=check.check("scales", check.items(table, "scales"), _whole_scale),
        domains=domains,
        epsilons=check.check("epsilons", check.items(table, "epsilons"), _epsilon),
        workloads=check.choose(
            "workloads", check.items(table, "workloads"), WORKLOADS_2D if two_d else WORKLOADS
        ),
        algorithms=algorithms,
    )
    if sweep.size > MAX_CELLS:
        raise SweepFileError(f"{path}: {sweep.size:,} cells; a sweep holds at most {MAX_CELLS:,}")
    return sweep


def _whole_seed(key: str, value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"{key} must be a whole number, got {value!r}")
    return _validate.whole(key, value, lower=0, upper=2**63 - 1)


def _toml_value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return json.dumps(value)  # JSON's string escapes are TOML's
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return repr(value)
    raise ValueError(f"a sweep file holds strings and finite numbers, got {value!r}")


def to_toml(settings: Mapping[str, Any]) -> str:
    """The text of a sweep file (for a page that queues a setting it refused to run).

    Parameters
    ----------
    settings : mapping
        Key (see the module's docstring) -> a string, a number or a list of them;
        ``algorithms`` may be left out (every algorithm).

    Returns
    -------
    str
        TOML that :func:`parse` reads back to these settings.

    Raises
    ------
    ValueError
        For an unknown or missing key, or a value TOML cannot hold here.

    Examples
    --------
    >>> print(to_toml({"name": "q", "seed": 1, "trials": 2, "datasets": ["MEDCOST"],
    ...                "scales": [1000], "domains": [64], "epsilons": [0.1],
    ...                "workloads": ["prefix"]}).splitlines()[3])
    datasets = ["MEDCOST"]
    """
    unknown = [key for key in settings if key not in KEYS_ALL]
    missing = [key for key in KEYS if key not in settings]
    if unknown or missing:
        raise ValueError(f"unknown keys {unknown}, missing keys {missing}; a sweep has {KEYS_ALL}")
    return "".join(f"{key} = {_toml_value(settings[key])}\n" for key in KEYS_ALL if key in settings)


def load(path: str | os.PathLike[str], *, data: Path | None = None) -> Sweep:
    """The sweep in the file ``path``; see :func:`parse`.

    Parameters
    ----------
    path : path
        The sweep file.
    data : Path, optional
        The bundled datasets' directory; default :func:`data_dir`.

    Returns
    -------
    Sweep

    Raises
    ------
    SweepFileError
        If the file cannot be read or does not hold a valid sweep.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SweepFileError(f"cannot read sweep file {file}: {error}") from None
    return parse(text, path=file, data=data if data is not None else data_dir())
