"""The "Which algorithm for my data?" page, declared: DPBench's comparison on the sidebar's
histogram, error vs scale, and one release drawn against its input."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpcore.algorithms import ALGORITHMS, NAMES, release
from dpcore.algorithms.cost import run_seconds
from dpcore.algorithms.dpbench import sample
from dpui.algorithms import compare, figures, stored, verdict
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
from dpui.kit import downloads, present, references, sidebar, state
from dpui.kit.page import Estimate, Page, Section, View, sections
from dpui.kit.params import ChoiceParam, IntParam

SCALE_FROM = "_wa_scale_from"
"""The "Rank at" choice: a view of :data:`SCALE` (0 or not), which alone is in the link."""
TRIALS_FROM = "_wa_trials_from"
"""The "Trials" choice: a view of :data:`TRIALS` (0, adaptive, or a number), which alone is
in the link."""
FIXED_TRIALS = 10
"""The fixed number of trials offered first when the user leaves adaptive trials."""


def controls() -> None:
    hist = sidebar.current_histogram()
    n = hist.n_bins
    c1, c2, c3 = st.columns([1, 1.4, 1])
    zero_or_number(
        c1,
        SCALE,
        SCALE_FROM,
        "Rank at",
        {
            "data": f"your data's N ({compare.own_scale(hist):,} records)",
            "what-if": "a what-if scale",
        },
        number=("What-if scale (records)", compare.what_if_start(hist), 1000),
        help="How many records each sampled input holds: DPBench draws them from the "
        "histogram's shape. Your data's own total answers for your data; other scales "
        "show what would win with fewer or more records.",
    )
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
    zero_or_number(
        c3,
        TRIALS,
        TRIALS_FROM,
        "Trials",
        {"adaptive": "until the leader stands out", "fixed": "a fixed number"},
        number=("Trials of each algorithm", FIXED_TRIALS, 1),
        help=f"Adaptive: {compare.FIRST_TRIALS} trials of every algorithm, then more for those "
        "within noise of the leader, until its 95% interval overlaps no other's or the work "
        f"limit of the page is reached (at most {compare.MOST_TRIALS}). Algorithms with an "
        "exact expected error need no trials.",
    )
    c3.number_input("Seed", SEED.lo, SEED.hi, key=SEED.name)
    c3.checkbox(
        "Include slow algorithms",
        key=SLOW.name,
        help=f"Algorithms estimated above {compare.SLOW_RUN:g} s per run at this domain "
        "(StructureFirst from about 3,000 bins) are left out unless this is ticked.",
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
    if s.left_out():
        slow = ", ".join(
            f"{n} (about {run_seconds(n, s.domain, s.workload):,.0f} s per run)"
            for n in s.left_out()
        )
        st.caption(
            f"Left out at {s.domain:,} bins: {slow}. Tick “Include slow algorithms” in "
            "the settings, choose a smaller domain, or run a sweep."
        )
    present.table(shown.reset_index())
    st.caption(compare.PROBABILITY_NOTE)
    st.caption(compare.CLOSED_FORM_NOTE)
    downloads.csv_button("Download the ranking (CSV)", shown.reset_index(), "which_algorithm.csv")
    sections("Below the ranking", SECTION, SECTIONS, s)
    present.prose(references.prose("which_algorithm.md"))


TOP = 3
"""How many algorithms error vs scale highlights: the best at the ranking's scale."""


def error_vs_scale(s: Setting) -> None:
    rows = []
    progress = st.progress(0.0, text="Running every algorithm at every scale…")
    scales = sorted({*SCALES, s.scale})  # a fixed number of trials: the ranking's own, cached
    for i, scale in enumerate(scales):
        at = dataclasses.replace(s, scale=scale, trials=s.curve_trials())
        means = compare.errors(at, at.key()).groupby("algorithm", sort=False)["error"].mean()
        rows += [(name, scale, float(err)) for name, err in means.items()]
        progress.progress((i + 1) / len(scales), text=f"Scale {scale:,} done")
    progress.empty()
    curves = pd.DataFrame(rows, columns=["algorithm", "scale", "mean"])
    dependent = {name: ALGORITHMS[name].data_dependent for name in s.names}
    stamp = {
        "data": s.hist.name,
        "domain": f"{s.domain:,}",
        "ε": s.eps,
        "trials": s.curve_trials(),
    }
    own = compare.own_scale(s.hist)
    marks = {f"your data's N = {own:,}": own} if own >= 1 else {}
    if not s.own:
        marks[f"ranked above (what-if) = {s.scale:,}"] = s.scale
    at_scale = curves[curves["scale"] == s.scale].sort_values("mean")
    top = [str(name) for name in at_scale["algorithm"].head(TOP)]
    present.show_chart(
        figures.by_scale(curves, dependent, marks, highlight=top), stamp, key="wa_by_scale"
    )
    winners = curves.loc[curves.groupby("scale")["mean"].idxmin()]
    st.markdown(
        "Best per scale: "
        + ", ".join(
            f"{scale:,}: **{name}**"
            for name, scale in zip(winners["algorithm"], winners["scale"], strict=True)
        )
        + f". In colour: the {len(top)} best at the ranking's scale ({s.scale:,}), from "
        f"{s.curve_trials()} trials per point. The error is scaled by the number of records, "
        "so a curve that falls like "
        "1/scale adds noise that does not grow with the data (every data-independent "
        "algorithm); a data-dependent one also pays a bias that shrinks more slowly."
    )
    downloads.csv_button("Download the curves (CSV)", curves, "which_algorithm_by_scale.csv")


def release_controls(s: Setting) -> None:
    """The algorithm whose release is drawn (before its estimate, which depends on it)."""
    st.selectbox("Algorithm", NAMES, key=SHOWN.name)


def release_estimate(s: Setting) -> Estimate:
    """One run of the chosen algorithm on the setting (:func:`compare.release_cost`)."""
    return compare.release_cost(s, str(state.get(SHOWN)))


def one_release(s: Setting) -> None:
    name = str(state.get(SHOWN))
    rng = np.random.default_rng([s.seed, 0])
    truth = sample(s.hist.counts, s.scale, s.domain, rng)
    queries = s.queries(rng)
    noise = np.random.default_rng([s.seed, 0, compare.stream(name)])
    run = release(name, truth, s.eps, workload=queries, rng=noise)
    present.show_chart(
        figures.release(truth, run.estimate, run.buckets, name=name),
        {"data": s.hist.name, "scale": f"{s.scale:,}", "ε": s.eps, "trial": 0, "seed": s.seed},
        key="wa_release_chart",
    )
    split = ", ".join(f"{part}: {eps:.3g}" for part, eps in run.budget.items())
    st.caption(f"How {name} spent ε = {s.eps:g}: {split}. {ALGORITHMS[name].cite}.")


SECTIONS: dict[str, Section[Setting]] = {
    "release": Section(
        "One release vs its input",
        one_release,
        cost=release_estimate,
        controls=release_controls,
    ),
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
        "…) — on samples of your histogram at your number of records, ranked as DPBench ranks "
        "them."
    ),
    notice=(
        "At small scale the data-dependent algorithms usually win, and as the records grow the "
        "hierarchical ones take over [@hay-2016]: after your data's own N, try the what-if "
        "scales 1,000 and 1,000,000."
    ),
    caption=(
        "DPBench's protocol [@hay-2016]: inputs of the data's own number of records (or a "
        "what-if scale) sampled from the sidebar histogram's shape, every algorithm on the "
        "same inputs, the scaled average per-query L1 error with a 95% interval over the "
        "trials. Algorithms are this "
        "project's implementations of the published ones. Teaching and exploration tool: "
        "numpy's generator is not a hardened noise source."
    ),
    params=(*compare.PARAMS, SECTION),
    pinned=compare.PINNED,
    controls=controls,
    cost=compare.cost,
    view=compare.view,
    body=body,
)
