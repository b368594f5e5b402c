"""Parameters, cost and view of "Which algorithm for my data?" on a 2-D map: DPBench's 2-D
comparison (:mod:`dpcore.algorithms.dpbench_2d`) on a grid from the Spatial page's data.

Every trial samples ``scale`` records from the grid's shape and merges ``k x k`` blocks
into the chosen domain (:func:`dpcore.algorithms.dpbench_2d.sample_grid`); every 2-D
algorithm (:data:`dpcore.algorithms.NAMES_2D`) runs on the same sampled input with a
generator of its own, and its error is DPBench's scaled per-query L1 error on the
rectangles. The ranking's statistics are the 1-D page's (:mod:`dpui.algorithms.racing`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.algorithms import ALGORITHMS_2D, NAMES_2D
from dpcore.algorithms.cost import once_seconds_2d, run_bytes_2d, run_seconds_2d
from dpcore.algorithms.dpbench import scaled_error
from dpcore.algorithms.dpbench_2d import RANDOM_RECTANGLES, random_rectangles, sample_grid
from dpcore.algorithms.grid2d import release_2d
from dpcore.algorithms.grid2d.inputs import as_rectangles, rectangle_answers
from dpcore.hist.flat_error import flat_range_mean_abs
from dpcore.spatial.grid_data import Grid
from dpcore.spatial.rectangles import Rectangles
from dpui.algorithms.compare import SCALE, SEED, SLOW, SLOW_RUN, TRIALS, scale_of
from dpui.algorithms.racing import (
    FIRST_TRIALS,
    MOST_TRIALS,
    Rows,
    adaptive_seconds,
    race,
    rank,
    ranked_view,
    sparse_note,
    stream,
)
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import ChoiceParam, IntParam, TextParam
from dpui.kit.sidebar import EPSILON
from dpui.spatial import data

IntArray = NDArray[np.int64]

DIMENSIONS = {"1d": "1-D histogram (the sidebar's)", "2d": "2-D map"}
DATA = ChoiceParam("wa_data", "1d", tuple(DIMENSIONS))
"""Which data the page compares on: the sidebar's 1-D histogram or a 2-D map."""
MAP = ChoiceParam("wa_map", "stroke-32x32", data.SOURCES)
"""The 2-D map: a bundled grid of the Spatial page, or this session's upload there."""
ROWS = IntParam("wa_rows", 0, 0, 512)
"""Rows after merging ``k x k`` blocks (the columns shrink by the same ``k``); 0 keeps the
grid's own."""
RECTANGLE_WORKLOADS = {
    "random": f"{RANDOM_RECTANGLES:,} random rectangles (DPBench's draw)",
    "all": "all rectangles",
    "listed": "rectangles I list",
}
RECTANGLES = ChoiceParam("wa_rect_workload", "random", tuple(RECTANGLE_WORKLOADS))
LISTED = TextParam("wa_rect_list", "0 0 15 15; 4 4 27 27", 2_000)
"""Listed rectangles: ``r0 c0 r1 c1`` (first row, first column, last row, last column,
0-based, inclusive), separated by ``;``."""
SHOWN = ChoiceParam("wa_release_2d", "PrivTree", NAMES_2D)
PARAMS = (DATA, MAP, ROWS, RECTANGLES, LISTED, SHOWN)
PINNED = (DATA, MAP, ROWS, RECTANGLES, LISTED)
"""The 2-D parameters that define a comparable view (with the 1-D page's scale, trials,
seed and the shared ε)."""

UPLOADED_GRID = "grid"
"""``Inputs.extra`` key: the 2-D grid uploaded in this session (on either page), or None."""

ALL_MOST = 600_000
"""Most rectangles the "all rectangles" workload may hold (a 38 x 38 grid has 549,081)."""

PUBLIC_TOTAL_NOTE = (
    "No 2-D algorithm here reads the true number of records: Uniform spends ε on a noisy "
    "total, and UGrid, AGrid, AHP-2D and MWEM-2D spend a share of ε on one before sizing "
    "their grids or thresholds (DPComp's UGrid and AGrid read the true total, which is "
    "private only when the total is public)."
)


def compared(cells: int, queries: int, *, slow: bool) -> tuple[str, ...]:
    """The 2-D algorithms in the comparison: all, or (``slow`` False) those whose run is
    estimated at most :data:`dpui.algorithms.compare.SLOW_RUN` seconds."""
    return tuple(n for n in NAMES_2D if slow or run_seconds_2d(n, cells, queries) <= SLOW_RUN)


def domain_of(grid: Grid, rows: int) -> tuple[int, int]:
    """The domain asked for as ``(rows, columns)`` (0: the grid's own), or :class:`Refused`
    naming the accepted ones: ``k x k`` blocks merged, ``k`` dividing both sides."""
    n1, n2 = grid.shape
    if rows in (0, n1):
        return n1, n2
    if 0 < rows < n1 and n1 % rows == 0 and n2 % (n1 // rows) == 0:
        return rows, n2 // (n1 // rows)
    shown = ", ".join(f"{d1} × {d2}" for d1, d2 in domains(grid)[:8])
    raise Refused(
        f"A domain of {rows:,} rows cannot be made from '{grid.name}' ({n1} × {n2} cells): "
        f"DPBench merges k × k blocks of cells, so k = {n1} / rows must be a whole number "
        f"dividing {n2} too (accepted: {shown})."
    )


def domains(grid: Grid) -> list[tuple[int, int]]:
    """Every domain of ``grid`` by ``k x k`` blocks, its own first, then smaller ones."""
    n1, n2 = grid.shape
    return [(n1 // k, n2 // k) for k in range(1, min(n1, n2) + 1) if n1 % k == 0 == n2 % k]


def all_count(rows: int, cols: int) -> int:
    """How many rectangles a ``rows x cols`` grid holds."""
    return rows * (rows + 1) // 2 * (cols * (cols + 1) // 2)


RECTANGLE_TEXT = re.compile(r"\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)[\s,]+(\d+)\s*")


def parse_rectangles(text: str) -> NDArray[np.int64]:
    """Rectangles written ``r0 c0 r1 c1; ...`` as rows ``(r0, c0, r1, c1)``.

    Raises
    ------
    ValueError
        Naming the first part that is not four whole numbers.

    >>> parse_rectangles("0 0 3 4; 1,1,2,2").tolist()
    [[0, 0, 3, 4], [1, 1, 2, 2]]
    """
    rows = []
    for part in text.split(";"):
        if not part.strip():
            continue
        match = RECTANGLE_TEXT.fullmatch(part)
        if match is None:
            raise ValueError(
                f"'{part.strip()[:40]}' is not a rectangle: write four whole numbers, first "
                "row, first column, last row, last column (0-based, inclusive), and separate "
                "rectangles by ';', e.g. 0 0 15 15; 4 4 27 27"
            )
        rows.append([int(v) for v in match.groups()])
    if not rows:
        raise ValueError("no rectangle is listed; e.g. 0 0 15 15; 4 4 27 27")
    return np.array(rows, dtype=np.int64)


@dataclass(frozen=True)
class Setting2D:
    """One 2-D comparison's inputs, checked."""

    grid: Grid
    scale: int
    shape: tuple[int, int]
    """The domain: rows and columns after merging blocks."""
    workload: str
    listed: str
    eps: float
    trials: int
    """Trials per algorithm; 0: adaptive (:data:`dpui.algorithms.compare.TRIALS`)."""
    seed: int
    names: tuple[str, ...]
    own: bool = False
    """Whether ``scale`` is the data's own total, not a what-if."""
    cell = "cell"
    """What one of :attr:`domain` is called."""

    @property
    def domain(self) -> int:
        """Cells of the domain."""
        return self.shape[0] * self.shape[1]

    def unit(self) -> str:
        """What one record is."""
        return "records"

    def workload_words(self) -> str:
        """The workload, as the settings name it."""
        return RECTANGLE_WORKLOADS[self.workload]

    def data_name(self) -> str:
        """The map's name."""
        return self.grid.name

    def domain_words(self) -> str:
        """The domain, as rows x columns."""
        return f"{self.shape[0]} × {self.shape[1]}"

    def scale_words(self) -> str:
        """The scale ranked at, and whether it is the data's own."""
        if not self.own:
            return f"a what-if scale of {self.scale:,} records (your map holds {self.total()})"
        return f"your map's N = {self.scale:,} records"

    def total(self) -> str:
        """The grid's total, as a number of records."""
        return f"{round(self.grid.total):,}"

    def curve_trials(self) -> int:
        """Trials per algorithm at each scale of error vs scale."""
        return self.trials or FIRST_TRIALS

    def left_out(self) -> tuple[str, ...]:
        """The algorithms too slow to run at this domain unless asked for."""
        return tuple(n for n in NAMES_2D if n not in self.names)

    def key(self) -> tuple[object, ...]:
        """Everything the errors depend on: the grid by digest, every other field as is."""
        digest = hashlib.blake2b(self.grid.counts.tobytes(), digest_size=16).hexdigest()
        fields = dataclasses.fields(self)
        return (digest, self.grid.shape, *(getattr(self, f.name) for f in fields[1:]))

    def sparse_note(self) -> str:
        """What a scale below the number of cells means (DPBench includes such settings)."""
        return sparse_note(self, "10,000 records over 128 × 128 = 16,384 cells")

    def query_count(self) -> int:
        """Rectangles of the workload."""
        if self.workload == "all":
            return all_count(*self.shape)
        if self.workload == "listed":
            return len(parse_rectangles(self.listed))
        return RANDOM_RECTANGLES

    def rectangles(self) -> Rectangles:
        """The workload the algorithms adapt to: DPBench's random rectangles (the same in
        every trial, as DPBench draws them), all rectangles, or the listed ones."""
        if self.workload == "all":
            return as_rectangles("all rectangles", self.shape)
        if self.workload == "listed":
            return as_rectangles(parse_rectangles(self.listed), self.shape)
        return random_rectangles(self.shape)

    def corners(self) -> tuple[IntArray, IntArray]:
        """First and last cell of every rectangle evaluated (all of them for "all")."""
        if self.workload != "all":
            workload = self.rectangles()
            return workload.lo, workload.hi
        rows = _intervals(self.shape[0])
        cols = _intervals(self.shape[1])
        r = np.repeat(np.arange(len(rows[0])), len(cols[0]))
        c = np.tile(np.arange(len(cols[0])), len(rows[0]))
        lo = np.stack([rows[0][r], cols[0][c]], axis=1)
        hi = np.stack([rows[1][r], cols[1][c]], axis=1)
        return lo, hi


def _intervals(n: int) -> tuple[IntArray, IntArray]:
    """Every interval ``[a, b]`` of ``0..n-1``: its first and its last index."""
    a, b = np.triu_indices(n)
    return a.astype(np.int64), b.astype(np.int64)


def grid_for(inputs: Inputs) -> Grid:
    """The chosen grid; :class:`Refused` when it is an upload this session does not have."""
    grid = data.grid_of(str(inputs[MAP]), inputs.extra.get(UPLOADED_GRID))
    if grid is None:
        raise Refused(data.NO_UPLOAD.replace("in Settings", "in the settings (2-D map)"))
    return grid


def setting(inputs: Inputs) -> Setting2D:
    """The checked inputs, or :class:`Refused` saying what to change."""
    grid = grid_for(inputs)
    if not grid.total > 0:
        raise Refused(
            f"'{grid.name}' holds no records (every cell is 0): there is no shape to sample "
            "from. Choose a bundled map or upload a grid with at least one positive count."
        )
    shape = domain_of(grid, int(inputs[ROWS]))
    workload = str(inputs[RECTANGLES])
    if workload == "all" and all_count(*shape) > ALL_MOST:
        raise Refused(
            f"All rectangles of a {shape[0]} × {shape[1]} grid are "
            f"{all_count(*shape):,} queries; the page evaluates at most {ALL_MOST:,} "
            "(a 38 × 38 grid). Choose a smaller domain or DPBench's random rectangles."
        )
    scale = scale_of(grid, int(inputs[SCALE]))
    chosen = Setting2D(
        grid,
        scale,
        shape,
        workload,
        str(inputs[LISTED]),
        float(inputs[EPSILON]),
        int(inputs[TRIALS]),
        int(inputs[SEED]),
        (),
        own=int(inputs[SCALE]) == 0,
    )
    if workload == "listed":
        try:
            chosen.rectangles()
        except ValueError as err:
            raise Refused(f"The listed rectangles: {err}.") from None
    names = compared(chosen.domain, chosen.query_count(), slow=bool(inputs[SLOW]))
    return dataclasses.replace(chosen, names=names)


def trial_seconds(names: tuple[str, ...], cells: int, queries: int) -> float:
    """Estimated seconds of one trial of every 2-D algorithm in ``names``."""
    return sum(run_seconds_2d(name, cells, queries) for name in names)


def page_cost(names: tuple[str, ...], cells: int, queries: int, runs: int) -> limits.Cost:
    """``runs`` trials of every algorithm in ``names`` on ``cells`` cells and ``queries``
    rectangles, and what they spend once per grid shape."""
    seconds = runs * trial_seconds(names, cells, queries) + once_seconds_2d(names)
    peak = max((run_bytes_2d(name, cells, queries) for name in names), default=0.0)
    return limits.Cost(0.01 + seconds, peak / limits.MB)


def cost(inputs: Inputs) -> Estimate | None:
    """The 2-D ranking's estimate (as the 1-D page's, :func:`dpui.algorithms.compare.cost`);
    None when the inputs are refused (the view says why)."""
    try:
        s = setting(inputs)
    except Refused:
        return None
    where = f"at {s.domain_words()} cells"
    smaller = "choose fewer trials, a smaller domain or DPBench's random rectangles"
    if s.trials:
        return Estimate(
            f"{len(s.names)} 2-D algorithms × {s.trials} trials {where}",
            page_cost(s.names, s.domain, s.query_count(), s.trials),
            smaller=smaller,
            library="dpcore.algorithms.estimate",
        )
    first = page_cost(s.names, s.domain, s.query_count(), FIRST_TRIALS)
    return Estimate(
        f"{len(s.names)} 2-D algorithms × {FIRST_TRIALS} to {MOST_TRIALS} adaptive trials " + where,
        limits.Cost(adaptive_seconds(first.seconds), first.megabytes),
        smaller=smaller,
        library="dpcore.algorithms.estimate",
    )


def release_cost(s: Setting2D, name: str) -> Estimate:
    """One run of ``name`` on the setting's first trial, and the heatmaps' drawing."""
    run = page_cost((name,), s.domain, s.query_count(), 1)
    return Estimate(
        f"one release of {name} at {s.domain_words()} cells",
        limits.Cost(run.seconds + DRAW_SECONDS, run.megabytes),
        smaller="choose a faster algorithm (the ranking says which are slow) or a smaller domain",
        library="dpcore.algorithms.grid2d.release_2d",
    )


DRAW_SECONDS = 0.8
"""Seconds to build and serialize two heatmaps and one path of cells (at most 512 x 512
cells): 0.43-0.75 s of wall time measured for PrivTree's and AGrid's releases at 128 x 128
and 512 x 512 on the 2-core server at a load of 15 (``bench/bench_algorithms_2d.py
--page``)."""


def scale_cost(s: Setting2D) -> Estimate:
    """The error-vs-scale curves: :meth:`Setting2D.curve_trials` of every algorithm at every
    scale of :data:`dpui.algorithms.compare.SCALES`."""
    return Estimate(
        f"{len(s.names)} 2-D algorithms × {s.curve_trials()} trials at {len(SCALES)} scales",
        page_cost(s.names, s.domain, s.query_count(), s.curve_trials() * len(SCALES)),
        smaller="choose fewer trials or a smaller domain",
        library="dpcore.algorithms.estimate",
    )


SCALES = tuple(10**k for k in range(2, 9))
"""The scales of the 2-D error-vs-scale lines (as the 1-D page's)."""


def sample(s: Setting2D, trial: int) -> tuple[NDArray[np.float64], np.random.Generator]:
    """The input of ``trial`` (seeded by ``(seed, trial)``) and the generator after it."""
    rng = np.random.default_rng([s.seed, trial])
    return sample_grid(s.grid.counts, s.scale, s.shape, rng), rng


def noise(s: Setting2D, trial: int, name: str) -> np.random.Generator:
    """The generator of ``name``'s run in ``trial``."""
    return np.random.default_rng([s.seed, trial, stream(name)])


def run_trials(s: Setting2D, names: tuple[str, ...], trials: range) -> Rows:
    """``(algorithm, trial, scaled L1 error, scaled squared error)`` of every algorithm in
    ``names`` in every trial of ``trials``: every algorithm of a trial sees the same input."""
    rows: Rows = []
    workload = s.rectangles()
    lo, hi = s.corners()
    for trial in trials:
        truth, _ = sample(s, trial)
        true_answers = rectangle_answers(truth, lo, hi)
        for name in names:
            run = release_2d(name, truth, s.eps, workload=workload, rng=noise(s, trial, name))
            answers = rectangle_answers(run.estimate, lo, hi)
            squared = float(np.mean(((true_answers - answers) / s.scale) ** 2))
            rows.append((name, trial, scaled_error(true_answers, answers, s.scale), squared))
    return rows


def exact_errors(s: Setting2D) -> dict[str, float]:
    """Identity's exact expected scaled error: ``E|sum of k Laplace(1/eps) draws|`` for a
    rectangle of ``k`` cells (:func:`dpcore.hist.flat_error.flat_range_mean_abs`), averaged
    over the workload, over the scale."""
    if "Identity" not in s.names:
        return {}
    lo, hi = s.corners()
    areas = np.prod(hi - lo + 1, axis=1)
    mean = flat_range_mean_abs(s.eps, np.zeros_like(areas), areas - 1).mean()
    return {"Identity": float(mean) / s.scale}


@st.cache_data(max_entries=32, show_spinner="Running every 2-D algorithm…")
def errors(_setting: Setting2D, key: tuple[object, ...]) -> pd.DataFrame:
    """Scaled L1 error of every 2-D algorithm in every trial it ran, cached by ``key``
    (:meth:`Setting2D.key`): a fixed number of trials, or adaptive
    (:func:`dpui.algorithms.racing.race`); Identity is ranked at its exact value."""
    s = _setting
    count = s.query_count()
    return race(
        s.names,
        exact_errors(s),
        fixed=s.trials,
        run=lambda names, trials: run_trials(s, names, trials),
        each=lambda names: trial_seconds(names, s.domain, count),
        ranked=lambda runs: summary(runs, s),
    )


def summary(runs: pd.DataFrame, s: Setting2D) -> pd.DataFrame:
    """The ranking table (:func:`dpui.algorithms.racing.rank`): Identity exact, the others by
    their trials (no 2-D closed forms here)."""
    return rank(
        runs,
        exact_errors(s),
        known=lambda name: math.nan,
        closed=lambda name: math.nan,
        dependent=lambda name: ALGORITHMS_2D[name].data_dependent,
        seed=s.seed,
    )


def view(inputs: Inputs) -> View:
    """The 2-D ranking's view."""
    s = setting(inputs)
    return ranked_view(s, summary(errors(s, s.key()), s), algorithms="2-D algorithms")
