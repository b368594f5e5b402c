"""One cell of a sweep: one algorithm on one sampled input, one trial; a pure function.

Every seed derives from the sweep's base seed and a stable hash (SHA-256 of the JSON of
the key, never Python's salted ``hash``), so a cell's result is the same bit for bit on any
machine, in any order, in any worker:

- the **input** depends on ``(dataset, scale, domain, trial)`` only, so every algorithm,
  epsilon and workload of a trial sees the same sampled histogram (DPBench's protocol,
  :func:`dpcore.algorithms.dpbench.sample`); so do the random ranges of that trial;
- the **algorithm's noise** depends on the whole cell key.

A 2-D cell (its domain ``(rows, columns)``) runs DPBench's 2-D protocol
(:mod:`dpcore.algorithms.dpbench_2d`): its input is sampled over the dataset's grid and
reduced to the domain, its workload is the trial's 2,000 random rectangles (drawn as
DPBench draws them, from a ``RandomState`` seeded by the trial's derived seed), its error
the scaled L1 error on them.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import astuple, dataclass
from datetime import UTC, datetime

import numpy as np

from dpcore.algorithms.common import FloatArray, Ranges, as_workload
from dpcore.algorithms.dpbench import random_ranges, sample, scaled_l1_error
from dpcore.algorithms.dpbench_2d import random_rectangles, sample_grid, scaled_errors
from dpcore.algorithms.registry import estimate
from dpcore.spatial.rectangles import Rectangles
from dpcore.sweep.grid_files import Domain
from dpcore.sweep.spec import Sweep


@dataclass(frozen=True, order=True)
class Cell:
    """The parameters of one cell (the store's primary key, with the sweep's name).

    Attributes
    ----------
    dataset : str
    scale : int
        Records sampled.
    domain : int or tuple of int
        Bins of the sampled input, or its (rows, columns) for a 2-D cell.
    trial : int
        0-based trial: which sampled input.
    eps : float
    workload : str
        ``"prefix"``, ``"random ranges"`` or (2-D) ``"random rectangles"``.
    algorithm : str
    """

    dataset: str
    scale: int
    domain: Domain
    trial: int
    eps: float
    workload: str
    algorithm: str

    @property
    def input_key(self) -> tuple[str, int, Domain, int]:
        """What the sampled input depends on."""
        return (self.dataset, self.scale, self.domain, self.trial)


@dataclass(frozen=True)
class Result:
    """A finished cell.

    Attributes
    ----------
    cell : Cell
    seed : int
        Seed of the algorithm's generator (``numpy.random.default_rng(seed)``).
    scaled_l1_error : float
        DPBench's scaled average per-query L1 error.
    seconds : float
        The algorithm's wall time.
    finished_at : datetime
        When the cell finished (UTC, the worker's clock).
    """

    cell: Cell
    seed: int
    scaled_l1_error: float
    seconds: float
    finished_at: datetime


@dataclass(frozen=True)
class Failure:
    """A cell that raised: its parameters and the error, one line."""

    cell: Cell
    error: str


def derive_seed(base: int, *key: str | int | float) -> int:
    """A seed in ``[0, 2^63)`` from the base seed and a key, stable across runs and machines.

    Parameters
    ----------
    base : int
        The sweep's base seed.
    *key : str, int or float
        What this seed is for.

    Returns
    -------
    int
        The first 63 bits of SHA-256 of the JSON of ``[base, *key]``.

    Examples
    --------
    >>> derive_seed(1, "input", "A", 100, 64, 0) == derive_seed(1, "input", "A", 100, 64, 0)
    True
    >>> derive_seed(1, "x") != derive_seed(2, "x")
    True
    """
    text = json.dumps([base, *key], separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def cell_seed(base: int, cell: Cell) -> int:
    """Seed of ``cell``'s algorithm noise."""
    key = astuple(cell)
    return derive_seed(base, "cell", *_flat(key[:4]), *key[4:])


def sampled_input(base: int, cell: Cell, counts: FloatArray) -> FloatArray:
    """The input of ``cell``'s trial: the same for every algorithm, epsilon and workload.

    Parameters
    ----------
    base : int
        The sweep's base seed.
    cell : Cell
        Any cell of the trial: only its :attr:`Cell.input_key` is used.
    counts : ndarray of float64, shape (n,) or (n1, n2)
        The dataset whose shape is sampled (a grid for a 2-D cell).

    Returns
    -------
    ndarray of float64, shape (domain,) or domain
        ``scale`` records sampled from the dataset's shape, reduced to ``domain`` bins (or
        ``(rows, columns)`` cells).
    """
    rng = np.random.default_rng(derive_seed(base, "input", *_flat(cell.input_key)))
    if isinstance(cell.domain, tuple):
        return sample_grid(counts, cell.scale, cell.domain, rng)
    return sample(counts, cell.scale, cell.domain, rng)


def _flat(key: tuple[str, int, Domain, int]) -> tuple[str | int, ...]:
    """An input key as the key of a derived seed: a 2-D domain as its two sides (a 1-D key
    unchanged, so 1-D seeds are those of stores written before 2-D sweeps)."""
    dataset, scale, domain, trial = key
    sides = domain if isinstance(domain, tuple) else (domain,)
    return (dataset, scale, *sides, trial)


def trial_workload(base: int, cell: Cell) -> Ranges | Rectangles:
    """The workload of ``cell``: all prefixes, or the trial's 2,000 random ranges (the same
    for every algorithm and epsilon of the trial), or, for a 2-D cell, the trial's 2,000
    random rectangles."""
    seed = derive_seed(base, "ranges", *_flat(cell.input_key))
    if isinstance(cell.domain, tuple):
        return random_rectangles(cell.domain, seed=seed % 2**32)  # RandomState's seeds
    if cell.workload == "prefix":
        return as_workload("prefix", cell.domain)
    return random_ranges(cell.domain, np.random.default_rng(seed))


def run_cell(base: int, cell: Cell, x: FloatArray, workload: Ranges | Rectangles) -> Result:
    """Run ``cell`` on its trial's input and workload.

    Parameters
    ----------
    base : int
        The sweep's base seed.
    cell : Cell
    x : ndarray of float64
        The trial's input, from :func:`sampled_input`.
    workload : Ranges or Rectangles
        The cell's workload, from :func:`trial_workload`.

    Returns
    -------
    Result

    Raises
    ------
    ValueError
        If the algorithm refuses the input.
    """
    seed = cell_seed(base, cell)
    start = time.perf_counter()
    estimated = estimate(
        cell.algorithm, x, cell.eps, workload=workload, rng=np.random.default_rng(seed)
    )
    seconds = time.perf_counter() - start
    if isinstance(workload, Rectangles):
        error = scaled_errors(x, estimated, workload)[0]
    else:
        error = scaled_l1_error(x, estimated, workload)
    return Result(cell, seed, error, seconds, datetime.now(UTC))


def run_chunk(
    base: int, cells: Sequence[Cell], datasets: Mapping[str, FloatArray]
) -> tuple[list[Result], list[Failure]]:
    """Run several cells in one task (a trial's input sampled once for its cells).

    Parameters
    ----------
    base : int
        The sweep's base seed.
    cells : sequence of Cell
        Sorted by input key, so a trial's input is sampled once.
    datasets : mapping
        Dataset name -> its bins.

    Returns
    -------
    results : list of Result
    failures : list of Failure
        The cells that raised, each with its error: the others still run.
    """
    results: list[Result] = []
    failures: list[Failure] = []
    key: tuple[str, int, Domain, int] | None = None
    x = np.zeros(0)
    workloads: dict[str, Ranges | Rectangles] = {}
    for cell in cells:
        try:
            if cell.input_key != key:
                key, workloads = None, {}
                x = sampled_input(base, cell, datasets[cell.dataset])
                key = cell.input_key
            if cell.workload not in workloads:
                workloads[cell.workload] = trial_workload(base, cell)
            results.append(run_cell(base, cell, x, workloads[cell.workload]))
        except Exception as error:  # one failed cell must not lose the others
            failures.append(Failure(cell, f"{type(error).__name__}: {error}"))
    return results, failures


def cells(sweep: Sweep) -> Iterator[Cell]:
    """Every cell of ``sweep``, a trial's cells together (sorted by input key).

    Parameters
    ----------
    sweep : Sweep

    Yields
    ------
    Cell
    """
    for dataset in sweep.datasets:
        for scale in sweep.scales:
            for domain in sweep.domains:
                for trial in range(sweep.trials):
                    for eps in sweep.epsilons:
                        for workload in sweep.workloads:
                            for algorithm in sweep.algorithms:
                                yield Cell(
                                    dataset.name, scale, domain, trial, eps, workload, algorithm
                                )
