"""The "Spatial data" page's parameters, cached computations, cost estimate and pure view.

A full region tree over the grid (each axis of a node split in ``b`` near-equal parts),
budgets by a named rule (:func:`dpcore.spatial.rules.tree_budgets`), one seeded Laplace
release of every node, BLUE consistency, and a typed rectangle answered three ways; beside
them the exact expected error of DPBench's random rectangle for every rule
(:func:`dpcore.spatial.expected_error`). The release is simulated (one draw); every expected
error is exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore import spatial
from dpcore.hist import consistency, queries, raw_error, release
from dpcore.spatial import error as spatial_error
from dpcore.spatial import rectangles, regions
from dpcore.spatial.grid_data import Grid
from dpcore.spatial.rules import SPATIAL_BUDGETS, SpatialBudgets, tree_budgets
from dpui.kit import byte_cache, limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import ChoiceParam, IntParam
from dpui.kit.sidebar import EPSILON
from dpui.spatial import data, figures

FloatArray = NDArray[np.float64]

MAX_INDEX = 4095
"""Largest row or column a link may name (the view checks it against the grid)."""
SOURCE = ChoiceParam("sp_data", "stroke-32x32", data.SOURCES)
FANOUT = IntParam("sp_fanout", 2, 2, 16)
BUDGETS = ChoiceParam("sp_budgets", "per-node", SPATIAL_BUDGETS)
X0 = IntParam("sp_x0", 8, 0, MAX_INDEX)
X1 = IntParam("sp_x1", 19, 0, MAX_INDEX)
Y0 = IntParam("sp_y0", 4, 0, MAX_INDEX)
Y1 = IntParam("sp_y1", 27, 0, MAX_INDEX)
SEED = IntParam("sp_seed", 0, 0, 2**31 - 1)
PARAMS = (SOURCE, FANOUT, BUDGETS, X0, X1, Y0, Y1, SEED)
PINNED = (*PARAMS, EPSILON)
"""A view: the data, the tree, its budgets, the rectangle, the noise seed and the shared ε."""

UPLOADED_GRID = "grid"
"""``Inputs.extra`` key: the grid uploaded in this session, or None."""

RULES = {
    "per-node": "per-node (LUE optimum)",
    "per-level": "per-level (N_t^(1/3))",
    "geometric": "geometric levels (Cormode et al.)",
    "uniform": "uniform (ε / height)",
    "identity": "Identity (cells only)",
}


def grid_for(inputs: Inputs) -> Grid:
    """The view's grid; :class:`Refused` when it is an upload this session does not have."""
    grid = data.grid_of(str(inputs[SOURCE]), inputs.extra.get(UPLOADED_GRID))
    if grid is None:
        raise Refused(data.NO_UPLOAD)
    return grid


def rectangle_problem(shape: tuple[int, int], box: tuple[int, int, int, int]) -> str | None:
    """Why rows ``x0..x1``, columns ``y0..y1`` is not a rectangle of the grid, or None."""
    x0, x1, y0, y1 = box
    rows, cols = shape
    if x0 > x1 or y0 > y1:
        return (
            f"The rectangle's first row or column is after its last (rows {x0}..{x1}, columns "
            f"{y0}..{y1}); need x0 <= x1 and y0 <= y1."
        )
    if x1 >= rows or y1 >= cols:
        return (
            f"The rectangle (rows {x0}..{x1}, columns {y0}..{y1}) is not inside the grid of "
            f"{rows} rows and {cols} columns: rows are 0..{rows - 1}, columns 0..{cols - 1}."
        )
    return None


def box_from_selection(
    selection: Mapping[str, Any], shape: tuple[int, ...]
) -> tuple[int, int, int, int] | None:
    """The rectangle (``x0, x1, y0, y1``: rows, then columns) a box dragged on the heatmaps
    selects: the cells it touches, inside the grid; None without a box.

    >>> box_from_selection({"box": [{"x": [3.6, 9.2], "y": [12.1, 4.7]}]}, (32, 32))
    (5, 12, 4, 9)
    >>> box_from_selection({"box": [{"x": [-3, 0.2], "y": [30.6, 40]}]}, (32, 32))
    (31, 31, 0, 0)
    >>> box_from_selection({"box": []}, (32, 32)) is None
    True
    """
    for box in selection.get("box", []):
        xs, ys = box.get("x", []), box.get("y", [])
        numbers = [*xs, *ys]
        if len(xs) != 2 or len(ys) != 2 or not all(isinstance(v, int | float) for v in numbers):
            continue
        (r0, r1), (c0, c1) = (_cells(ys, shape[0]), _cells(xs, shape[1]))
        return r0, r1, c0, c1
    return None


def _cells(ends: Sequence[float], n: int) -> tuple[int, int]:
    """The cells ``0..n-1`` from the one holding the interval's lower end to the one
    holding its upper end (cell ``c`` spans ``c - 0.5 .. c + 0.5``)."""
    lo, hi = sorted(float(v) for v in ends)
    return (
        min(max(int(np.floor(lo + 0.5)), 0), n - 1),
        min(max(int(np.floor(hi + 0.5)), 0), n - 1),
    )


def select_box(chart_key: str, shape: tuple[int, ...]) -> None:
    """``on_select`` callback of the heatmaps: a dragged box sets the rectangle."""
    event = st.session_state.get(chart_key)
    chosen = box_from_selection(event["selection"], shape) if event else None
    if chosen is not None:
        for param, value in zip((X0, X1, Y0, Y1), chosen, strict=True):
            st.session_state[param.name] = value


@dataclass(frozen=True)
class Release:
    """One release of a region tree: its budgets, each node's coverage probability (DPBench's
    random rectangles), the true, noisy (unmeasured nodes filled by their children) and
    BLUE-consistent node values, and each node's raw variance."""

    tree: regions.BoxTree
    budgets: FloatArray
    coverage: FloatArray
    truth: FloatArray
    noisy: FloatArray
    consistent: FloatArray
    raw_variance: FloatArray

    def cells(self, values: FloatArray) -> FloatArray:
        """The leaves' values as the grid (leaves are single cells)."""
        leaves = np.flatnonzero(self.tree.is_leaf)
        out = np.full(self.tree.shape, np.nan)
        out[self.tree.lo[leaves, 0], self.tree.lo[leaves, 1]] = values[leaves]
        return out


@byte_cache.cache_by_bytes(max_entries=8, spinner="Adding noise and making it consistent…")
def released(counts: FloatArray, fanout: int, rule: str, eps: float, seed: int) -> Release:
    """Budgets by ``rule`` on the ``fanout x fanout`` tree, one seeded release, BLUE."""
    tree = regions.quadtree(counts.shape, (fanout, fanout))
    coverage = rectangles.coverage_probabilities(tree, "random rectangles")
    budgets = tree_budgets(tree, budget_rule(rule), eps, coverage)
    truth = regions.node_sums(tree, counts)
    noisy = release.release_sums(truth, budgets, np.random.default_rng(seed))
    return Release(
        tree,
        budgets,
        coverage,
        truth,
        queries.fill_unmeasured(tree, noisy),
        consistency.blue(tree, noisy, budgets),
        raw_error.effective_raw_variances(tree, budgets),
    )


@st.cache_data(max_entries=64, show_spinner="Computing the exact errors…")
def error_table(shape: tuple[int, int], fanout: int, eps: float) -> pd.DataFrame:
    """The exact expected squared error of one DPBench random rectangle for every rule, from
    the raw tree and after BLUE (:func:`dpcore.spatial.expected_error`)."""
    rows = []
    for rule in SPATIAL_BUDGETS:
        kwargs: dict[str, Any] = {"fanout": (fanout, fanout), "budgets": rule, "eps": eps}
        raw = spatial.expected_error(shape, consistent=False, **kwargs)
        blue = raw if rule == "identity" else spatial.expected_error(shape, **kwargs)
        rows.append({"budgets": RULES[rule], "raw tree": raw, "after BLUE": blue})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Answers:
    """A rectangle answered from the true grid, the raw tree and BLUE, with its canonical
    decomposition and the exact expected squared errors of the two noisy answers."""

    true: float
    raw: float
    blue: float
    nodes: int
    unmeasured: int
    raw_error: float
    blue_error: float


def answers(rel: Release, box: tuple[int, int, int, int]) -> Answers:
    """``box`` (rows ``x0..x1``, columns ``y0..y1``) answered from ``rel``."""
    x0, x1, y0, y1 = box
    nodes = regions.canonical_decomposition(rel.tree, (x0, y0), (x1, y1))
    listed = np.array([[[x0, y0], [x1, y1]]])
    return Answers(
        true=float(rel.truth[nodes].sum()),
        raw=float(rel.noisy[nodes].sum()),
        blue=float(rel.consistent[nodes].sum()),
        nodes=int(nodes.size),
        unmeasured=int(np.count_nonzero(rel.budgets[nodes] == 0)),
        raw_error=float(rel.raw_variance[nodes].sum()),
        blue_error=spatial_error.blue_expected_error(rel.tree, rel.budgets, listed),
    )


# --- the page's cost and view --------------------------------------------------------------


def page_cost(shape: tuple[int, int]) -> limits.Cost:
    """The tree, its budgets, the release, BLUE, the exact errors of eight trees (four after
    BLUE, each ``O(cells (n_1 + n_2))``) and the heatmaps' figure: 0.15 s, then 14 µs per
    cell and 4 ns per cell and side; 600 bytes per cell at the peak (measured by CPU time and
    ``tracemalloc``, November 2026: 1.4 s and 34 MB at 256 x 256, 4.4 s and 137 MB at
    512 x 512, quadtree, per-node budgets)."""
    cells = shape[0] * shape[1]
    seconds = 0.15 + cells * 14e-6 + cells * sum(shape) * 4e-9
    return limits.Cost(seconds, (2e6 + cells * 600) / limits.MB)


def cost(inputs: Inputs) -> Estimate | None:
    """What the view set by ``inputs`` is estimated to cost (None without an upload)."""
    grid = data.grid_of(str(inputs[SOURCE]), inputs.extra.get(UPLOADED_GRID))
    if grid is None:
        return None
    rows, cols = grid.shape
    return Estimate(
        f"a region tree over {rows:,} x {cols:,} cells, its release and exact errors",
        page_cost(grid.shape),
        smaller="upload a coarser grid (sum blocks of cells) or bin the points to fewer cells",
        library="dpcore.spatial.expected_error",
    )


@dataclass(frozen=True, eq=False)
class Detail:
    """What the page's body draws. Equal and hashed by what identifies the view (the data,
    the tree, its budgets, ε, the rectangle and the noise seed): a section's "Run it" request is
    kept under it (:func:`dpui.kit.limits.allow_or_offer`)."""

    grid: Grid
    rule: str
    fanout: int
    eps: float
    nodes: int
    box: tuple[int, int, int, int]
    problem: str | None
    answers: Answers | None
    errors: pd.DataFrame
    release: Release
    seed: int

    def _identity(self) -> tuple[object, ...]:
        grid = self.grid
        return (
            grid.name,
            grid.shape,
            grid.total,
            self.rule,
            self.fanout,
            self.eps,
            self.box,
            self.seed,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Detail) and self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())


def view(inputs: Inputs) -> View:
    """The true, noisy and consistent grids on one colour scale, the rectangle's answers and
    the exact expected errors of every rule."""
    grid = grid_for(inputs)
    fanout, rule, seed = int(inputs[FANOUT]), str(inputs[BUDGETS]), int(inputs[SEED])
    eps = float(inputs[EPSILON])
    box = (int(inputs[X0]), int(inputs[X1]), int(inputs[Y0]), int(inputs[Y1]))
    problem = rectangle_problem(grid.shape, box)
    rel = released(grid.counts, fanout, rule, eps, seed)
    got = None if problem else answers(rel, box)
    errors = error_table(grid.shape, fanout, eps)
    figure = figures.grid_heatmaps(
        [
            ("true", grid.counts),
            ("noisy", rel.cells(rel.noisy)),
            ("BLUE", rel.cells(rel.consistent)),
        ],
        title=f"{grid.name}: true, noisy, consistent",
        box=None if problem else box,
    )
    chosen = errors.iloc[SPATIAL_BUDGETS.index(rule)]
    numbers = {
        "cells": float(grid.counts.size),
        "tree nodes": float(rel.tree.size),
        "ε": eps,
        "E[error²] of a random rectangle, raw tree": float(chosen["raw tree"]),
        "E[error²] of a random rectangle, after BLUE": float(chosen["after BLUE"]),
    }
    if got is not None:
        numbers |= {
            "rectangle: true answer": got.true,
            "rectangle: raw answer": got.raw,
            "rectangle: BLUE answer": got.blue,
            "rectangle: nodes in its decomposition": float(got.nodes),
        }
    stamp = {"data": grid.name, "tree": f"{fanout}x{fanout}", "budgets": rule, "ε": eps}
    stamp |= {"seed": seed}
    described = f"{grid.name}, {fanout}×{fanout} tree, {RULES[rule]} budgets, ε = {eps:g}"
    return View(
        described,
        figure,
        stamp,
        numbers,
        detail=Detail(grid, rule, fanout, eps, rel.tree.size, box, problem, got, errors, rel, seed),
        share="",
        kind="grids",
        note="Expected errors are exact (DPBench's random rectangles); answers are one release.",
    )


def budget_rule(name: str) -> SpatialBudgets:
    """``name`` as a rule (one of :data:`dpcore.spatial.rules.SPATIAL_BUDGETS`)."""
    return SPATIAL_BUDGETS[SPATIAL_BUDGETS.index(name)]
