"""State, presets, cost model, cached computations and the view behind the "Exponential
mechanism" page.

This module owns the page's session state in ``st.session_state``: the candidate table as
edited on the page (:func:`keep_edited`, read by :func:`extra`: no link carries it; kept per
preset so that visiting another page or preset loses no edit, :func:`editor_base`) and the
animation (runs drawn so far, playing flag, and the inputs they belong to). The whole sequence
of runs is drawn at once from the random seed and cached; the animation only reveals a longer
prefix of it on each frame, so a run is reproducible and pausing loses nothing.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.histogram import Histogram
from dpcore.mechanisms import (
    ScoreTable,
    ScoreTableError,
    exponential_accuracy_bounds,
    exponential_expected_loss,
    exponential_log_weights,
    exponential_probabilities,
    exponential_threshold,
    exponential_utility_distribution,
    parse_score_table,
    sample_exponential,
)
from dpui.kit import byte_cache, limits, references, state, untrusted
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import ChoiceParam, FloatParam, IntParam
from dpui.kit.sidebar import EPSILON
from dpui.mechanisms import figures as figures

# Wang and Kang's vote table lost its numbers in our copy; these counts are illustrative.
SPORTS_VOTE = (("Football", 30), ("Volleyball", 24), ("Basketball", 9), ("Tennis", 6))
# UCI Adult (adult.data, 32,561 rows): people per education level.
ADULT_EDUCATION = (
    ("HS-grad", 10501),
    ("Some-college", 7291),
    ("Bachelors", 5355),
    ("Masters", 1723),
    ("Assoc-voc", 1382),
    ("11th", 1175),
    ("Assoc-acdm", 1067),
    ("10th", 933),
    ("7th-8th", 646),
    ("Prof-school", 576),
    ("9th", 514),
    ("12th", 433),
    ("Doctorate", 413),
    ("5th-6th", 333),
    ("1st-4th", 168),
    ("Preschool", 51),
)
PRESETS = {"sports": SPORTS_VOTE, "adult": ADULT_EDUCATION}
SOURCES = {
    "sports": "four-sport vote (seed example; illustrative counts)",
    "adult": "Adult census: people per education level",
    "sidebar": "the sidebar's histogram (bins as candidates)",
}

SHORT_NAMES = {"sports": "sports vote", "adult": "Adult education"}

SENSITIVITY_NOTE = (
    "**Sensitivity.** The scores here are counts of people (votes, people per education "
    "level, histogram counts). Adding or removing one person changes one count by 1, so "
    "Δu = 1. The 2 in ε/(2Δu) covers neighbouring datasets that move different scores in "
    "opposite directions."
)

SOURCE = ChoiceParam("exp_source", "sports", tuple(SOURCES))
SENSITIVITY = FloatParam("exp_sens", 1.0, 1e-6, 1e12)
DRAWS = IntParam("exp_draws", 100, 1, 1_000_000)
SEED = IntParam("exp_seed", 0, 0, 2**31 - 1)
PARAMS = (SOURCE, SENSITIVITY, DRAWS, SEED)
PINNED = (SOURCE, SENSITIVITY, SEED, DRAWS, EPSILON)
"""What a pinned view keeps: the candidates' source, Δu, the runs and the shared ε (an edited
table is not in a link: a pinned view of a preset uses it as shipped, unless B shows the same
preset)."""

FRAMES = 30  # an animation shows the runs in about this many batches
FRAME_SECONDS = 0.3
MAX_SHOWN = 40  # candidates drawn in the bar charts (the highest-scoring ones)
NAME_COLUMN, SCORE_COLUMN = "candidate", "score"

_DRAWN, _PLAYING, _INPUTS = "exp_drawn", "exp_playing", "exp_inputs"
_EDITED = "_exp.edited"  # the table as edited on the page in this run (None for the sidebar's)
EDITED = "edited"  # its name in the view's extra inputs


def prose() -> str:
    return references.prose("exponential.md")


def editor_key(source: str) -> str:
    """The data editor's key: one per preset, so each preset keeps its own edits."""
    return f"exp_table_{source}"


def preset_frame(source: str) -> pd.DataFrame:
    """The preset as an editable table; scores are text so that any typed value can be checked."""
    rows = PRESETS[source]
    return pd.DataFrame(
        {NAME_COLUMN: [name for name, _ in rows], SCORE_COLUMN: [str(score) for _, score in rows]}
    )


def _kept_table(source: str) -> str:
    return f"_exp.kept.{source}"  # the table as last edited (kept across pages)


def _base_table(source: str) -> str:
    return f"_exp.base.{source}"  # the table the data editor started from


def editor_base(source: str) -> pd.DataFrame:
    """The table the data editor of ``source`` shows before its edits: the preset, or the table
    as last edited when Streamlit dropped the editor's edits (it does when the editor is not
    drawn in a run: another page or another preset was shown). Only then does the base change,
    so the edits the editor holds never apply twice."""
    if editor_key(source) not in st.session_state:
        kept = st.session_state.get(_kept_table(source))
        st.session_state[_base_table(source)] = preset_frame(source) if kept is None else kept
    base: pd.DataFrame | None = st.session_state.get(_base_table(source))
    return preset_frame(source) if base is None else base


def reset_table(source: str) -> None:
    """Forget the edits made to ``source``'s table (used as a button callback)."""
    for key in (editor_key(source), _kept_table(source), _base_table(source)):
        st.session_state.pop(key, None)


def table_from_editor(edited: pd.DataFrame) -> ScoreTable:
    """Validate the edited table; raises :class:`dpcore.mechanisms.ScoreTableError`."""
    return parse_score_table(list(edited[NAME_COLUMN]), list(edited[SCORE_COLUMN]))


def table_from_histogram(hist: Histogram) -> ScoreTable:
    """Bins as candidates (their labels, or 'bin i'), counts as scores."""
    names = hist.labels or tuple(f"bin {i + 1}" for i in range(hist.n_bins))
    if len(set(names)) < len(names):  # e.g. repeated labels in an upload
        names = tuple(f"{i + 1}: {name}" for i, name in enumerate(names))
    return ScoreTable(tuple(names), hist.counts)


@dataclass(frozen=True)
class Analysis:
    """Everything the page shows about one (scores, ε, Δu) setting."""

    log_weights: NDArray[np.float64]  # relative to the best candidate (<= 0)
    log_weight_offset: float  # add it to get the absolute ln-weights ε·u/(2Δu)
    probabilities: NDArray[np.float64]
    values: NDArray[np.float64]  # distinct scores, increasing
    cumulative: NDArray[np.float64]  # exact Pr[u(M) <= value]
    grid: NDArray[np.float64]  # thresholds c for the bound curve (also the chart's x range)
    bound: NDArray[np.float64]  # the textbook bound on the grid
    events: pd.DataFrame  # bound vs exact for the best few wrong score levels
    best_probability: float
    expected_loss: float


def page_cost(k: int, draws: int) -> limits.Cost:
    """Probabilities, the exact utility distribution and the charts (1.2 µs and 60 bytes per
    candidate) and the runs (50 ns and 8 bytes per draw)."""
    return limits.Cost(k * 1.2e-6 + draws * 50e-9, (k * 60 + draws * 8) / limits.MB)


@byte_cache.cache_by_bytes(max_entries=16)
def analyse(scores: NDArray[np.float64], eps: float, sensitivity: float) -> Analysis:
    log_weights = exponential_log_weights(scores, eps, sensitivity)
    probabilities = exponential_probabilities(scores, eps, sensitivity)
    values, mass = exponential_utility_distribution(scores, eps, sensitivity)
    cumulative = np.minimum(np.cumsum(mass), 1.0)
    best = float(values[-1])
    # Plot c from where the bound falls to e^-37 (~1e-16) up to OPT: below that both are ~0.
    lowest = max(float(values[0]), exponential_threshold(scores, eps, sensitivity, 37.0))
    grid = np.linspace(lowest, best, 200) if lowest < best else np.array([best])
    bound = exponential_accuracy_bounds(scores, eps, sensitivity, grid)
    # The best few wrong score levels c (just below OPT); P[u(M) <= c] is the cumulative mass.
    levels = np.arange(values.size - 2, max(values.size - 7, -1), -1)
    events = pd.DataFrame(
        {
            "event": [
                f"u(M) ≤ {values[i]:,.6g}" + (" (a wrong answer)" if i == values.size - 2 else "")
                for i in levels
            ],
            "exact probability": cumulative[levels],
            "bound": exponential_accuracy_bounds(scores, eps, sensitivity, values[levels]),
        }
    )
    if not events.empty:
        events["bound ≥ 1 (useless)"] = events["bound"] >= 1.0
    return Analysis(
        log_weights=log_weights,
        log_weight_offset=eps * best / (2.0 * sensitivity),
        probabilities=probabilities,
        values=values,
        cumulative=cumulative,
        grid=grid,
        bound=bound,
        events=events,
        best_probability=float(probabilities[scores == best].sum()),
        expected_loss=exponential_expected_loss(scores, eps, sensitivity),
    )


def shown_candidates(scores: NDArray[np.float64]) -> NDArray[np.intp]:
    """Indices drawn in the charts: all, or the ``MAX_SHOWN`` highest scores in table order."""
    if scores.size <= MAX_SHOWN:
        return np.arange(scores.size)
    return np.sort(np.argsort(-scores, kind="stable")[:MAX_SHOWN])


@dataclass(frozen=True)
class Outcome:
    """One view of the page: its candidates and their exact analysis."""

    table: ScoreTable
    analysis: Analysis
    shown: NDArray[np.intp]  # the candidates drawn in the charts

    @property
    def shown_names(self) -> list[str]:
        return [self.table.names[i] for i in self.shown]


def keep_edited(edited: pd.DataFrame | None, source: str = "sidebar") -> None:
    """Keep the table of ``source`` as edited on the page now (None when the page shows the
    sidebar's histogram), for :func:`extra` and for the next visit (:func:`editor_base`);
    called by the page's controls in every run."""
    st.session_state[_EDITED] = edited
    if edited is not None:
        st.session_state[_kept_table(source)] = edited


def extra() -> dict[str, Any]:
    """The view's session-only inputs: the source shown now and its table as edited."""
    return {SOURCE.name: state.get(SOURCE), EDITED: st.session_state.get(_EDITED)}


def _edited_here(inputs: Inputs) -> bool:
    """Whether the view ``inputs`` shows the table edited on the page: it shows the preset
    shown now (a pinned view A of another preset uses that preset as shipped)."""
    source = inputs[SOURCE]
    return bool(source != "sidebar" and source == inputs.extra.get(SOURCE.name))


def _edited_frame(inputs: Inputs) -> pd.DataFrame | None:
    if not _edited_here(inputs):
        return None
    frame: pd.DataFrame | None = inputs.extra.get(EDITED)
    return frame


def candidates(inputs: Inputs) -> ScoreTable:
    """The candidates and scores of the view ``inputs``: the table edited on the page when the
    view shows the preset shown now, else its preset as shipped, or the sidebar's histogram;
    :class:`Refused` for an edited table that is not valid."""
    source = inputs[SOURCE]
    if source == "sidebar":
        return table_from_histogram(inputs.hist)
    edited = _edited_frame(inputs)
    try:
        return table_from_editor(preset_frame(source) if edited is None else edited)
    except ScoreTableError as err:
        raise Refused(
            f"The candidate table in Settings has a problem: {err} Fix it there to see the "
            "results; your edits are kept."
        ) from None


def cost(inputs: Inputs) -> Estimate:
    """The exact analysis of the view's candidates and its runs."""
    source = inputs[SOURCE]
    if source == "sidebar":
        k = inputs.hist.n_bins
    else:
        edited = _edited_frame(inputs)
        k = len(PRESETS[source]) if edited is None else len(edited)
    return Estimate(
        f"the exponential mechanism over {k:,} candidates",
        page_cost(k, int(inputs[DRAWS])),
        smaller="use a histogram with fewer bins, or one of the preset tables",
        library="dpcore.mechanisms.exponential_probabilities",
    )


@dataclass(frozen=True)
class Result:
    """One view of the page: its settings, candidates and their exact analysis (what the
    page's body draws)."""

    outcome: Outcome
    source: str
    words: str  # where the candidates come from (:func:`table_words`)
    eps: float
    sensitivity: float
    draws: int
    seed: int


def view(inputs: Inputs) -> View:
    """The page's main view: the exact output probabilities, the key numbers and the stamp."""
    table = candidates(inputs)
    eps, sensitivity = float(inputs[EPSILON]), float(inputs[SENSITIVITY])
    out = Outcome(table, analyse(table.scores, eps, sensitivity), shown_candidates(table.scores))
    source = str(inputs[SOURCE])
    words = table_words(source, inputs.hist, edited=_edited_here(inputs))
    figure = figures.output_probabilities(out.shown_names, out.analysis.probabilities[out.shown])
    values = inputs.values
    shipped = source != "sidebar" and not _edited_here(inputs)
    return View(
        f"{words}; ε = {eps:g}, Δu = {sensitivity:g}",
        figure,
        stamp(values, inputs.hist),
        key_numbers(values, out),
        detail=Result(out, source, words, eps, sensitivity, int(inputs[DRAWS]), int(inputs[SEED])),
        note=(
            "A uses its preset table as shipped: edits live only in the table in Settings, "
            "and only in this session."
            if shipped
            else ""
        ),
    )


def key_numbers(values: Mapping[str, Any], out: Outcome) -> dict[str, float]:
    """The numbers a pinned comparison puts side by side."""
    numbers = {
        "candidates |R|": float(out.table.scores.size),
        "ε": float(values["eps"]),
        "Δu": float(values[SENSITIVITY.name]),
        "Pr[best answer]": out.analysis.best_probability,
        "expected score loss": out.analysis.expected_loss,
    }
    if not out.analysis.events.empty:  # the first event is "a wrong answer"
        wrong = out.analysis.events.iloc[0]
        numbers["Pr[wrong answer], exact"] = float(wrong["exact probability"])
        numbers["Pr[wrong answer], bound"] = float(wrong["bound"])
    return numbers


def table_words(source: str, hist: Histogram, *, edited: bool) -> str:
    """Where a view's candidates come from, in a few words (A's and B's figures start level
    when both fit a line): the sidebar's histogram, the table as edited on the page now, or
    the preset as shipped."""
    if source == "sidebar":
        return f"the {hist.n_bins:,} bins of '{untrusted.markdown(hist.name)}'"
    return f"{SHORT_NAMES[source]}, {'the table in Settings' if edited else 'preset as shipped'}"


def stamp(values: Mapping[str, Any], hist: Histogram) -> dict[str, Any]:
    """The settings printed on a chart of the view ``values``."""
    source = values[SOURCE.name]
    return {
        "candidates": hist.name if source == "sidebar" else source,
        "ε": values["eps"],
        "Δu": values[SENSITIVITY.name],
        "seed": values[SEED.name],
    }


def candidate_table(table: ScoreTable, analysis: Analysis) -> pd.DataFrame:
    return pd.DataFrame(
        {
            NAME_COLUMN: table.names,
            SCORE_COLUMN: table.scores,
            "ln weight − ln weight(OPT)": analysis.log_weights,
            "probability": analysis.probabilities,
        }
    )


@st.cache_data(max_entries=8, show_spinner="Drawing runs…")
def runs(
    scores: NDArray[np.float64], eps: float, sensitivity: float, total: int, seed: int
) -> NDArray[np.int32]:
    """``total`` independent runs of the mechanism (candidate indices), reproducible by seed."""
    draws = sample_exponential(
        scores, eps, sensitivity, size=total, rng=np.random.default_rng(seed)
    )
    return draws.astype(np.int32)


def batch_size(total: int) -> int:
    return max(1, math.ceil(total / FRAMES))


def sync(table: ScoreTable, eps: float, sensitivity: float, total: int, seed: int) -> None:
    """Start the animation over (stopped, 0 runs) whenever its inputs change."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update("\x1f".join(table.names).encode())
    digest.update(table.scores.tobytes())
    digest.update(repr((eps, sensitivity, total, seed)).encode())
    inputs = digest.hexdigest()
    if st.session_state.get(_INPUTS) != inputs:
        st.session_state[_INPUTS] = inputs
        st.session_state[_DRAWN] = 0
        st.session_state[_PLAYING] = False


def drawn() -> int:
    return int(st.session_state.get(_DRAWN, 0))


def playing() -> bool:
    return bool(st.session_state.get(_PLAYING, False))


def play(total: int) -> None:
    if drawn() >= total:
        st.session_state[_DRAWN] = 0
    st.session_state[_PLAYING] = True


def pause() -> None:
    st.session_state[_PLAYING] = False


def reset() -> None:
    st.session_state[_DRAWN] = 0
    st.session_state[_PLAYING] = False


def finish(total: int) -> None:
    st.session_state[_DRAWN] = total
    st.session_state[_PLAYING] = False


def advance(total: int) -> bool:
    """One animation frame: reveal the next batch. Returns True when this frame finished the run."""
    if not playing():
        return False
    st.session_state[_DRAWN] = min(drawn() + batch_size(total), total)
    if drawn() >= total:
        st.session_state[_PLAYING] = False
        return True
    return False
