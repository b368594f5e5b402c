"""The 2-D parts of "Which algorithm for my data?": the map and its domain and rectangles in
the settings, the notes under the ranking, and the sections below it (one release drawn
as heatmaps against its input, error vs scale)."""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpcore.algorithms import ALGORITHMS_2D, NAMES_2D
from dpcore.algorithms.cost import run_seconds_2d
from dpcore.algorithms.dpbench_2d import RANDOM_RECTANGLES
from dpcore.algorithms.grid2d import release_2d
from dpcore.spatial.grid_data import Grid
from dpui.algorithms import figures, map2d, scale_lines
from dpui.algorithms.map2d import (
    LISTED,
    MAP,
    RECTANGLE_WORKLOADS,
    RECTANGLES,
    ROWS,
    SHOWN,
    Setting2D,
)
from dpui.algorithms.release_section import release_section
from dpui.kit import present, state
from dpui.kit.page import Section
from dpui.kit.params import ChoiceParam
from dpui.spatial import data


def current_grid() -> Grid | None:
    """The map chosen in the settings (None: an upload this session does not have)."""
    return data.grid_of(str(state.get(MAP)), data.uploaded())


def map_controls(where: DeltaGenerator, grid: Grid | None) -> None:
    """The map and its domain (``k x k`` blocks merged)."""
    where.selectbox(
        "2-D map",
        data.SOURCES,
        key=MAP.name,
        format_func=lambda s: data.DESCRIPTIONS.get(s, "upload a CSV (grid, x,y,count, points)"),
        help="The Spatial page's maps: bundled grids coarsened from DPBench's, or your upload "
        "(shared with the Spatial page in this session).",
    )
    options = [0] if grid is None else [0, *(rows for rows, _ in map2d.domains(grid)[1:12])]
    if int(state.get(ROWS)) not in options:
        options.append(int(state.get(ROWS)))  # a linked value: the view says what is wrong
    n1, n2 = grid.shape if grid is not None else (0, 0)
    where.selectbox(
        "Domain (cells)",
        options,
        format_func=lambda d: (
            (f"{n1} × {n2} (as is)" if n1 else "as is")
            if d == 0
            else (f"{d} × {n2 * d // n1} (merged)" if n1 else f"{d} rows")
        ),
        key=ROWS.name,
        help="Fewer cells by summing k × k blocks of adjacent cells, as DPBench reduces "
        "256 × 256 grids to 128 × 128.",
    )


def workload_controls(where: DeltaGenerator) -> None:
    """The rectangles every algorithm is scored on."""
    where.radio(
        "Workload",
        tuple(RECTANGLE_WORKLOADS),
        format_func=RECTANGLE_WORKLOADS.__getitem__,
        key=RECTANGLES.name,
        help=f"DPBench's 2-D workload: {RANDOM_RECTANGLES:,} random rectangles, the "
        "same in every trial. All rectangles only up to "
        f"{map2d.ALL_MOST:,} of them (a 38 × 38 grid).",
    )
    if state.get(RECTANGLES) == "listed":
        where.text_input(
            "Rectangles r0 c0 r1 c1 (0-based, inclusive)",
            key=LISTED.name,
            help="First row, first column, last row, last column; ';' between rectangles. "
            "For example: 0 0 15 15; 4 4 27 27.",
        )


def upload() -> None:
    """The Spatial page's uploader, when the map is an upload."""
    if state.get(MAP) == data.UPLOAD:
        data.upload_controls()


def left_out(s: Setting2D) -> str:
    """The algorithms left out as too slow, with their estimates, in words ("" if none)."""
    if not s.left_out():
        return ""
    slow = ", ".join(
        f"{n} (about {run_seconds_2d(n, s.domain, s.query_count()):,.1f} s per run)"
        for n in s.left_out()
    )
    return (
        f"Left out at {s.domain_words()} cells: {slow}. Tick “Include slow algorithms” in the "
        "settings, choose a smaller domain, or run a sweep."
    )


NOTES = (
    "Identity is ranked at its exact expected error (E|sum of k Laplace draws| for a "
    "rectangle of k cells, averaged over the workload; “how”: exact), never run; every other "
    "algorithm by the mean of its trials. " + map2d.PUBLIC_TOTAL_NOTE
)


def one_release(s: Setting2D) -> None:
    name = str(state.get(SHOWN))
    truth, _ = map2d.sample(s, 0)
    run = release_2d(name, truth, s.eps, workload=s.rectangles(), rng=map2d.noise(s, 0, name))
    present.show_chart(
        figures.release_map(truth, run.estimate, run.buckets, name=name),
        {"data": s.grid.name, "scale": f"{s.scale:,}", "ε": s.eps, "trial": 0, "seed": s.seed},
        key="wa_release_map",
        alt=f"Two heatmaps of the {s.domain_words()} grid: one sampled input and {name}'s "
        "release of it, on one colour scale.",
    )
    split = ", ".join(f"{part}: {eps:.3g}" for part, eps in run.budget.items())
    cells = ""
    if run.buckets is not None:
        cells = (
            f" White outlines: its {len(run.buckets):,} cells, each released as one noisy "
            "count spread evenly over its grid cells."
            if figures.outlined(run.buckets, truth.size)
            else f" Its {len(run.buckets):,} cells are nearly the grid's own, so they are not "
            "outlined."
        )
    st.caption(f"How {name} spent ε = {s.eps:g}: {split}.{cells} {ALGORITHMS_2D[name].cite}.")


def error_vs_scale(s: Setting2D) -> None:
    def at(scale: int) -> pd.DataFrame:
        r = dataclasses.replace(s, scale=scale, trials=s.curve_trials())
        exact = scale_lines.exact_rows(map2d.exact_errors(r))
        return pd.concat([map2d.errors(r, r.key()), exact])

    curves = scale_lines.draw(
        at,
        map2d.SCALES,
        {name: ALGORITHMS_2D[name].data_dependent for name in s.names},
        scale=s.scale,
        own=round(s.grid.total),
        own_label="your map's N",
        what_if=not s.own,
        trials=s.curve_trials(),
        stamp={
            "data": s.grid.name,
            "domain": s.domain_words(),
            "ε": s.eps,
            "workload": s.workload_words(),
            "trials": s.curve_trials(),
        },
        key="wa_by_scale_2d",
    )
    st.markdown(crossover(curves))
    scale_lines.download(curves, "which_algorithm_2d_by_scale.csv")


def crossover(curves: pd.DataFrame) -> str:
    """The crossover in words, from the curves measured: per scale, the best data-dependent
    algorithm's error over the best data-independent one's (below 1: learning the map pays),
    and Identity's regret (its error over the best's).

    >>> c = pd.DataFrame({"algorithm": ["AGrid", "Identity", "AGrid", "Identity"],
    ...                   "scale": [100, 100, 10**8, 10**8], "mean": [0.1, 0.9, 0.2, 0.01]})
    >>> print(crossover(c))  # doctest: +NORMALIZE_WHITESPACE
    Best data-dependent over best data-independent error: 100: 0.111 (AGrid vs Identity),
    100,000,000: 20 (AGrid vs Identity). Data-dependent algorithms win at 100 records,
    data-independent ones at 100,000,000. Identity's regret (its error over the best's):
    100: 9, 100,000,000: 1.
    """
    table = curves.assign(
        dependent=[ALGORITHMS_2D[str(n)].data_dependent for n in curves["algorithm"]]
    )
    ratios: list[str] = []
    wins: list[str] = []
    loses: list[str] = []
    regrets: list[str] = []
    for scale in sorted(int(v) for v in table["scale"].unique()):
        rows = table[table["scale"] == scale]
        best = rows["mean"].min()
        dep, ind = rows[rows["dependent"]], rows[~rows["dependent"]]
        identity = rows.loc[rows["algorithm"] == "Identity", "mean"]
        if not identity.empty and best > 0:
            regrets.append(f"{scale:,}: {float(identity.iloc[0]) / best:.3g}")
        if dep.empty or ind.empty:
            continue
        d = dep.sort_values("mean").iloc[0]
        i = ind.sort_values("mean").iloc[0]
        ratio = float(d["mean"]) / float(i["mean"])
        ratios.append(f"{scale:,}: {ratio:.3g} ({d['algorithm']} vs {i['algorithm']})")
        (wins if ratio < 1 else loses).append(f"{scale:,}")
    if not ratios:
        return "Only one family of algorithms is compared: no crossover to show."
    said = [
        f"Best data-dependent over best data-independent error: {', '.join(ratios)}.",
        f"Data-dependent algorithms win at {_listed(wins)} records"
        + (f", data-independent ones at {_listed(loses)}." if loses else ".")
        if wins
        else f"Data-independent algorithms win at every scale ({_listed(loses)}).",
    ]
    if regrets:
        said.append(f"Identity's regret (its error over the best's): {', '.join(regrets)}.")
    return " ".join(said)


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


SECTIONS: dict[str, Section[Setting2D]] = {
    "release": release_section(one_release, names=NAMES_2D, param=SHOWN, cost=map2d.release_cost),
    "scale": Section("Error vs scale", error_vs_scale, cost=map2d.scale_cost),
}
SECTION = ChoiceParam("wa_show_2d", "release", tuple(SECTIONS))
