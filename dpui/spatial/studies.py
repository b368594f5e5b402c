"""The Spatial data page's studies below the main view, cached, with their cost estimates:
the expected error against the rectangle's size (where a tree starts to beat Identity) and
against the fan-out, and one simulation set against the exact errors.

Every error here is DPBench's noise-only expected squared error of one rectangle; the size
study averages rectangles of one size placed on a lattice of positions (exact for those
rectangles), the fan-out study DPBench's random rectangles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore import spatial
from dpcore.spatial import error as spatial_error
from dpcore.spatial import rectangles, simulate
from dpui.kit import byte_cache, limits
from dpui.spatial.view import Release

SIZES = 10
"""Rectangle sizes in the size study, from one cell to the whole grid (geometric)."""
PER_SIZE = 200
"""Rectangles per size: positions on a lattice over the grid."""
FANOUTS = range(2, 9)
"""Fan-outs b (b x b) in the fan-out study."""
SIMULATED_RECTANGLES = 500
"""DPBench random rectangles scored in every simulated release."""

# Seconds per (rectangle x tree node) of an exact listed error, raw and BLUE together, and
# per tree node of one release with BLUE: measured on the 2-core machine, November 2026
# (64 x 64 quadtree: 200 rectangles 0.05 s, one release + BLUE 0.4 ms; 128 x 128 about 4x).
_PER_RECTANGLE_NODE = 6e-8
_PER_RELEASE_NODE = 8e-8
_PER_DECOMPOSED_NODE = 5e-8


def sizes(shape: tuple[int, ...]) -> list[tuple[int, int]]:
    """Rectangle sizes (rows, columns) from one cell to the whole grid, each side the same
    fraction of the grid's, geometric in that fraction."""
    rows, cols = shape
    fractions = np.geomspace(1 / max(rows, cols), 1.0, SIZES)
    out = {(max(1, round(f * rows)), max(1, round(f * cols))) for f in fractions}
    return sorted(out)


def size_cost(shape: tuple[int, ...], nodes: int) -> limits.Cost:
    """The size study's exact errors: every size's lattice, raw and after BLUE."""
    seconds = 0.05 + len(sizes(shape)) * PER_SIZE * nodes * _PER_RECTANGLE_NODE
    return limits.Cost(seconds, (2e6 + PER_SIZE * nodes * 24) / limits.MB)


@st.cache_data(max_entries=32, show_spinner="Computing the errors by rectangle size…")
def errors_by_size(_rel: Release, key: tuple[object, ...], eps: float) -> pd.DataFrame:
    """Identity's, the raw tree's and BLUE's exact error for every size of :func:`sizes`,
    on the release's tree and budgets (``key`` identifies them for the cache), with the
    smallest size where BLUE beats Identity marked (``crossover``)."""
    rows = []
    for size in sizes(_rel.tree.shape):
        listed = rectangles.lattice_rectangles(_rel.tree.shape, size, PER_SIZE)
        rows.append(
            {
                "rows x columns": f"{size[0]} x {size[1]}",
                "area": size[0] * size[1],
                "Identity": 2.0 * size[0] * size[1] / eps**2,
                "raw tree": spatial_error.raw_expected_error(_rel.tree, _rel.budgets, listed),
                "after BLUE": spatial_error.blue_expected_error(_rel.tree, _rel.budgets, listed),
            }
        )
    frame = pd.DataFrame(rows)
    wins = frame["after BLUE"] < frame["Identity"]
    frame["crossover"] = wins & ~wins.shift(1, fill_value=False)
    return frame


def fanout_cost(page_seconds: float) -> limits.Cost:
    """The fan-out study: two exact errors per fan-out, each about an eighth of the page's
    own exact errors (which compute eight of them; :func:`dpui.spatial.view.page_cost`)."""
    return limits.Cost(len(FANOUTS) * 2 * page_seconds / 8, 50)


@st.cache_data(max_entries=32, show_spinner="Computing the errors by fan-out…")
def errors_by_fanout(shape: tuple[int, int], rule: str, eps: float) -> pd.DataFrame:
    """The exact error of a DPBench random rectangle for every fan-out of :data:`FANOUTS`
    that fits the grid, raw and after BLUE under ``rule``, beside Identity; the best fan-out
    after BLUE marked (``best``)."""
    identity = spatial.expected_error(shape, budgets="identity", eps=eps)
    rows = []
    for b in FANOUTS:
        if b > max(shape):
            break
        kwargs: dict[str, Any] = {"fanout": (b, b), "budgets": rule, "eps": eps}
        rows.append(
            {
                "fan-out b": b,
                "Identity": identity,
                "raw tree": spatial.expected_error(shape, consistent=False, **kwargs),
                "after BLUE": spatial.expected_error(shape, **kwargs),
            }
        )
    frame = pd.DataFrame(rows)
    frame["best"] = frame["after BLUE"] == frame["after BLUE"].min()
    return frame


def simulation_cost(nodes: int, releases: int) -> limits.Cost:
    """The simulation: each rectangle's decomposition, the releases with BLUE, and the exact
    errors of the same rectangles."""
    seconds = 0.05 + SIMULATED_RECTANGLES * nodes * (_PER_DECOMPOSED_NODE + _PER_RECTANGLE_NODE)
    seconds += releases * nodes * _PER_RELEASE_NODE
    memory = 2e6 + releases * SIMULATED_RECTANGLES * 16 + nodes * 200
    return limits.Cost(seconds, memory / limits.MB)


# not st.cache_data: it records the progress bar's calls (a block made outside) and fails
# replaying them on the next session's hit (CacheReplayClosureError)
@byte_cache.cache_by_bytes(max_entries=16)
def simulated(
    _rel: Release,
    key: tuple[object, ...],
    counts: np.ndarray,
    releases: int,
    seed: int,
    _progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """``releases`` seeded releases of the release's tree on :data:`SIMULATED_RECTANGLES`
    DPBench rectangles: the mean squared error with its 95 % interval beside the exact
    error of the same rectangles, raw and after BLUE."""
    shape = _rel.tree.shape
    lo, hi = rectangles.sample_rectangles(shape, SIMULATED_RECTANGLES, np.random.default_rng(seed))
    listed = np.stack([lo, hi], axis=1)
    raw, blue = simulate.simulate_rectangle_errors(
        _rel.tree,
        _rel.budgets,
        counts,
        listed,
        releases=releases,
        rng=np.random.default_rng(seed + 1),
        progress=_progress,
    )
    exact = {
        "raw tree": spatial_error.raw_expected_error(_rel.tree, _rel.budgets, listed),
        "after BLUE": spatial_error.blue_expected_error(_rel.tree, _rel.budgets, listed),
    }
    rows = []
    for answer, got in (("raw tree", raw), ("after BLUE", blue)):
        mean, half = got.overall()
        rows.append(
            {"answer": answer, "exact": exact[answer], "simulated": mean, "half-width": half}
        )
    return pd.DataFrame(rows)
