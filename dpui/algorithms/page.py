"""The "Which algorithm for my data?" page, declared: DPBench's comparison on the sidebar's
histogram, error vs scale, and one release drawn against its input."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpcore.algorithms import ALGORITHMS, NAMES, release
from dpcore.algorithms.cost import run_seconds
from dpcore.algorithms.dpbench import sample
from dpcore.histogram import Histogram
from dpui.algorithms import (
    compare,
    figures,
    map2d,
    map_page,
    racing,
    scale_lines,
    stored,
    verdict,
)
from dpui.algorithms.compare import (
    DOMAIN,
    RANGES,
    SCALE,
    SCALES,
    SEED,
    SHOWN,
    SLOW,
    TRIALS,
    WORKLOAD,
    WORKLOADS,
    Setting,
)
from dpui.algorithms.release_section import release_section
from dpui.algorithms.scale_lines import exact_rows
from dpui.kit import downloads, present, references, sidebar, state
from dpui.kit.page import Estimate, Inputs, Page, Section, View, sections
from dpui.kit.params import ChoiceParam, IntParam
from dpui.spatial import data

SCALE_FROM = "_wa_scale_from"
"""The "Rank at" choice: a view of :data:`SCALE` (0 or not), which alone is in the link."""
TRIALS_FROM = "_wa_trials_from"
"""The "Trials" choice: a view of :data:`TRIALS` (0, adaptive, or a number), which alone is
in the link."""
FIXED_TRIALS = 10
"""The fixed number of trials offered first when the user leaves adaptive trials."""


def switch() -> None:
    """The data compared on, above the settings (in view on a projector and a phone)."""
    st.radio(
        "Data",
        tuple(map2d.DIMENSIONS),
        format_func=map2d.DIMENSIONS.__getitem__,
        key=map2d.DATA.name,
        horizontal=True,
        help="A 1-D histogram (the sidebar's dataset, ranges as queries) or a 2-D map (the "
        "Spatial page's maps, rectangles as queries), each with its own algorithms.",
    )


def controls() -> None:
    two_d = state.get(map2d.DATA) == "2d"
    c1, c2, c3 = st.columns([1, 1.4, 1])
    counted: compare.Counted | None = (
        map_page.current_grid() if two_d else sidebar.current_histogram()
    )
    mine = "your map's N" if two_d else "your data's N"
    zero_or_number(
        c1,
        SCALE,
        SCALE_FROM,
        "Rank at",
        {
            "data": f"{mine} ({compare.own_scale(counted):,} records)" if counted else mine,
            "what-if": "a what-if scale",
        },
        number=(
            "What-if scale (records)",
            compare.what_if_start(counted) if counted else 1000,
            1000,
        ),
        help="How many records each sampled input holds: DPBench draws them from the "
        "data's shape. Your data's own total answers for your data; other scales "
        "show what would win with fewer or more records.",
    )
    if two_d:
        map_page.map_controls(c1, map_page.current_grid())
        map_page.workload_controls(c2)
    else:
        histogram_controls(c1, c2, sidebar.current_histogram())
    zero_or_number(
        c3,
        TRIALS,
        TRIALS_FROM,
        "Trials",
        {"adaptive": "until the leader stands out", "fixed": "a fixed number"},
        number=("Trials of each algorithm", FIXED_TRIALS, 1),
        help=f"Adaptive: {racing.FIRST_TRIALS} trials of every algorithm, then more for those "
        "within noise of the leader, until its 95% interval overlaps no other's or the work "
        f"limit of the page is reached (at most {racing.MOST_TRIALS}). Algorithms with an "
        "exact expected error need no trials.",
    )
    c3.number_input("Seed", SEED.lo, SEED.hi, key=SEED.name)
    c3.checkbox(
        "Include slow algorithms",
        key=SLOW.name,
        help=f"Algorithms estimated above {compare.SLOW_RUN:g} s per run at this domain "
        "(StructureFirst from about 3,000 bins; DAWA-2D from about 256 × 256 cells) are "
        "left out unless this is ticked.",
    )
    if two_d:
        map_page.upload()


def histogram_controls(c1: DeltaGenerator, c2: DeltaGenerator, hist: Histogram) -> None:
    """The 1-D domain (bins merged) and workload."""
    n = hist.n_bins
    divisors = [0, *[d for d in range(n - 1, 0, -1) if n % d == 0][:11]]
    if int(state.get(DOMAIN)) not in divisors:
        divisors.append(int(state.get(DOMAIN)))  # a linked value: the view says what is wrong
    c1.selectbox(
        "Domain (bins)",
        divisors,
        format_func=lambda d: f"{n:,} (as uploaded)" if d == 0 else f"{d:,} (merged)",
        key=DOMAIN.name,
        help="Fewer bins by summing equal groups of adjacent ones.",
    )
    c2.radio("Workload", tuple(WORKLOADS), format_func=WORKLOADS.__getitem__, key=WORKLOAD.name)
    if state.get(WORKLOAD) == "listed":
        c2.text_input(
            "Ranges (0-based, inclusive)",
            key=RANGES.name,
            help="For example: 0-99, 100-199, 7 (a single bin).",
        )


def zero_or_number(
    where: DeltaGenerator,
    param: IntParam,
    choice: str,
    label: str,
    options: dict[str, str],
    *,
    number: tuple[str, int, int],
    help: str,
) -> None:
    """A parameter whose 0 means something of its own (the data's scale, adaptive trials),
    shown as a choice between that meaning (the first of ``options``, key -> label) and a
    number, with the number's input under it when chosen.

    Parameters
    ----------
    where : DeltaGenerator
        The column drawn in.
    param : IntParam
        The parameter (0, or a number in its bounds), the only one of the two in the link.
    choice : str
        The key of the choice, a view of ``param`` (0 or not).
    label : str
        The choice's label.
    options : dict of str to str
        Its two options' keys and labels, the one meaning 0 first.
    number : (str, int, int)
        The number input's label, the value it starts at when the choice turns to it, and
        its step.
    help : str
        The choice's help.
    """
    zero, other = options
    state.assign(choice, zero if int(state.get(param)) == 0 else other)
    where.radio(
        label,
        tuple(options),
        format_func=options.__getitem__,
        key=choice,
        on_change=choice_changed,
        args=(param, choice, zero, number[1]),
        help=help,
    )
    if int(state.get(param)) != 0:
        where.number_input(number[0], param.lo, param.hi, step=number[2], key=param.name)


def choice_changed(param: IntParam, choice: str, zero: str, start: int) -> None:
    """The choice of :func:`zero_or_number` changed: ``param`` becomes 0 or ``start``."""
    state.put({param.name: 0 if st.session_state.get(choice) == zero else start})


def body(view: View | None) -> None:
    assert view is not None
    s, table = view.detail
    # the recommendation first; presenting, below the ranking, which fits a 720p projector
    card = st.container() if not present.presenting() else None
    left, right = present.columns([2, 1])
    present.show_chart(view.figure, view.stamp, key="wa_ranking", where=left)
    with card or st.container():
        st.container(border=True).markdown(verdict.card(table, s))
        st.markdown(f"Ranked at {s.scale_words()}.")
    with right:
        st.latex(r"\mathrm{err} = \frac{\lVert Wx - W\hat x\rVert_1}{|W| \cdot \lVert x\rVert_1}")
        st.latex(r"\mathrm{regret}_A = \mathrm{err}_A / \min_B \mathrm{err}_B")
        st.markdown(verdict.verdict(table))
    shown = table.assign(
        family=np.where(table["data-dependent"], "data-dependent", "data-independent")
    ).drop(columns=["data-dependent", "within noise"])
    if s.sparse_note():
        st.caption(s.sparse_note())
    two_d = isinstance(s, map2d.Setting2D)
    if slow := map_page.left_out(s) if two_d else left_out(s):
        st.caption(slow)
    present.table(shown.reset_index())
    st.caption(compare.PROBABILITY_NOTE)
    st.caption(map_page.NOTES if two_d else compare.CLOSED_FORM_NOTE)
    downloads.csv_button("Download the ranking (CSV)", shown.reset_index(), "which_algorithm.csv")
    if two_d:
        sections("Below the ranking", map_page.SECTION, map_page.SECTIONS, s)
    else:
        sections("Below the ranking", SECTION, SECTIONS, s)
    present.prose(references.prose("which_algorithm.md"))


def left_out(s: Setting) -> str:
    """The 1-D algorithms left out as too slow, with their estimates, in words ("" if none)."""
    if not s.left_out():
        return ""
    slow = ", ".join(
        f"{n} (about {run_seconds(n, s.domain, s.workload):,.0f} s per run)" for n in s.left_out()
    )
    return (
        f"Left out at {s.domain:,} bins: {slow}. Tick “Include slow algorithms” in "
        "the settings, choose a smaller domain, or run a sweep."
    )


def error_vs_scale(s: Setting) -> None:
    def at(scale: int) -> pd.DataFrame:
        # a fixed number of trials: the ranking's own, cached
        r = dataclasses.replace(s, scale=scale, trials=s.curve_trials())
        return pd.concat([compare.errors(r, r.key()), exact_rows(compare.exact_errors(r))])

    curves = scale_lines.draw(
        at,
        SCALES,
        {name: ALGORITHMS[name].data_dependent for name in s.names},
        scale=s.scale,
        own=compare.own_scale(s.hist),
        what_if=not s.own,
        trials=s.curve_trials(),
        stamp={
            "data": s.hist.name,
            "domain": f"{s.domain:,}",
            "ε": s.eps,
            "trials": s.curve_trials(),
        },
        key="wa_by_scale",
    )
    scale_lines.download(curves, "which_algorithm_by_scale.csv")


def one_release(s: Setting) -> None:
    name = str(state.get(SHOWN))
    rng = np.random.default_rng([s.seed, 0])
    truth = sample(s.hist.counts, s.scale, s.domain, rng)
    queries = s.queries(rng)
    noise = np.random.default_rng([s.seed, 0, racing.stream(name)])
    run = release(name, truth, s.eps, workload=queries, rng=noise)
    present.show_chart(
        figures.release(truth, run.estimate, run.buckets, name=name),
        {"data": s.hist.name, "scale": f"{s.scale:,}", "ε": s.eps, "trial": 0, "seed": s.seed},
        key="wa_release_chart",
    )
    split = ", ".join(f"{part}: {eps:.3g}" for part, eps in run.budget.items())
    st.caption(f"How {name} spent ε = {s.eps:g}: {split}. {ALGORITHMS[name].cite}.")


def cost(inputs: Inputs) -> Estimate | None:
    """The ranking's estimate, of the 1-D or the 2-D comparison."""
    return map2d.cost(inputs) if inputs[map2d.DATA] == "2d" else compare.cost(inputs)


def view(inputs: Inputs) -> View:
    """The ranking, of the sidebar's histogram or of a 2-D map."""
    return map2d.view(inputs) if inputs[map2d.DATA] == "2d" else compare.view(inputs)


def extra() -> Mapping[str, Any]:
    """This session's uploaded 2-D grid (links never carry it)."""
    return {map2d.UPLOADED_GRID: data.uploaded()}


SECTIONS: dict[str, Section[Setting]] = {
    "release": release_section(one_release, names=NAMES, param=SHOWN, cost=compare.release_cost),
    "scale": Section("Error vs scale", error_vs_scale, cost=compare.scale_cost),
    "stored": Section("Stored sweeps", stored.stored_sweeps),
}
SECTION = ChoiceParam("wa_show", "release", tuple(SECTIONS))


PAGE = Page(
    key="which_algorithm",
    title="Which algorithm for my data?",
    icon=":material/leaderboard:",
    group="Central DP: histograms",
    blurb=(
        "Every algorithm — data-dependent (DAWA, MWEM, …) and data-independent (HB, Privelet, "
        "…) — on samples of your histogram or 2-D map at your number of records, ranked as "
        "DPBench ranks them."
    ),
    notice=(
        "At small scale the data-dependent algorithms usually win and as the records grow the "
        "hierarchical ones take over [@hay-2016]: try the what-if scales 1,000 and 1,000,000 "
        "after your data's own N, or a 2-D map (Data: 2-D map), where on the default "
        "stroke-32x32 at ε = 1 AGrid wins at 1,000 and 10,000 records and Identity is within "
        "5% of the best at 100,000 (“Error vs scale” says how far apart they are per scale)."
    ),
    caption=(
        "DPBench's protocol [@hay-2016]: inputs of the data's own number of records (or a "
        "what-if scale) sampled from the sidebar histogram's shape (or a 2-D map's, with k × k "
        "blocks merged and rectangles as queries), every algorithm on the same inputs, the "
        "scaled average per-query L1 error with a 95% interval over the trials. Algorithms "
        "are this "
        "project's implementations of the published ones. Teaching and exploration tool: "
        "numpy's generator is not a hardened noise source."
    ),
    data=(
        "the sidebar's dataset; with “Data: 2-D map” above the settings, a 2-D map instead (the "
        "Spatial page's bundled grids or your upload there), with only the sidebar's ε used."
    ),
    params=(*compare.PARAMS, SECTION, *map2d.PARAMS, map_page.SECTION),
    pinned=(*compare.PINNED, *map2d.PINNED),
    switch=switch,
    controls=controls,
    cost=cost,
    view=view,
    body=body,
    extra=extra,
)
