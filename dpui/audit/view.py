"""Settings, cost model, cached audits and the view behind the "Audit a mechanism" page.

The page audits one gallery mechanism (:mod:`dpui.audit.menu`) run at the sidebar's ε, its
claim, at a ladder of run counts (100, 300, 1,000, ... up to the number chosen): each rung is
its own audit (:func:`dpcore.audit.lower_bound`) seeded from the random seed and its run
count, so a rung is the same whatever the ladder's top, and is cached on its own. Rungs not
cached yet are computed with a progress bar. A ladder over the work limit is cut at its last
rung that fits (the body says so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from dpcore.audit import Audit, lower_bound
from dpcore.audit.auditor import TRAIN_SHARE
from dpcore.audit.bounds import clopper_pearson, epsilon_lower_bound
from dpcore.audit.gallery import Entry
from dpui.audit import figures
from dpui.audit.menu import MECHANISMS, Mechanism, label
from dpui.kit import byte_cache, limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import BoolParam, ChoiceParam, FloatParam, IntParam
from dpui.kit.sidebar import EPSILON

MECHANISM = ChoiceParam("au_mech", "laplace", tuple(MECHANISMS))
RUNS = IntParam("au_runs", 100_000, 10, 10_000_000)
"""Runs of the mechanism on each of the two inputs at the ladder's top."""
CONFIDENCE = FloatParam("au_conf", 0.95, 0.5, 0.9999)
SEED = IntParam("au_seed", 0, 0, 2**31 - 1)
SCORE = BoolParam("au_score", True)
"""Give the audit the gallery's own score for the mechanism's outputs, where it has one."""
PARAMS = (MECHANISM, RUNS, CONFIDENCE, SEED, SCORE)
PINNED = (*PARAMS, EPSILON)

AUDIT_SECONDS = 0.006
"""CPU seconds of one audit beyond its runs: choosing the event among about 600 cuts and
planning their bounds (1-8 ms measured at 1,000 runs, November 2026)."""
BUILD_SECONDS = 0.02
"""Building the mechanism (HISKV's enumeration of every set: 10 ms)."""
LIBRARY = "dpcore.audit.lower_bound"


def ladder(runs: int) -> tuple[int, ...]:
    """The run counts audited: 100, 300, 1,000, 3,000, ... below ``runs``, then ``runs``.

    >>> ladder(10_000)
    (100, 300, 1000, 3000, 10000)
    >>> ladder(50)
    (50,)
    """
    rungs = [m * 10**k for k in range(2, 12) for m in (1, 3) if m * 10**k < runs]
    return (*rungs, runs)


@st.cache_data(max_entries=64, show_spinner=False)
def fewest_runs(confidence: float, delta: float) -> int:
    """The fewest runs per input for which an audit can bound ε above 0 at ``confidence``
    and ``delta``: its counted runs (the rest after :data:`dpcore.audit.auditor.TRAIN_SHARE`)
    all in the event on one input, none on the other.

    >>> fewest_runs(0.95, 0.0)
    8
    """
    alpha, n = 1.0 - confidence, 3
    while n < 100_000:
        counted = n - max(2, round(TRAIN_SHARE * n))
        if float(epsilon_lower_bound(counted, counted, 0, counted, alpha=alpha, delta=delta)) > 0:
            return n
        n += 1
    return n


def ladder_cost(mechanism: Mechanism, rungs: tuple[int, ...]) -> limits.Cost:
    """The audits of ``rungs``: :data:`BUILD_SECONDS`, then per rung :data:`AUDIT_SECONDS`
    plus the mechanism's measured nanoseconds per run; its peak bytes per run at the top
    rung (both measured by CPU time and ``tracemalloc``, see
    :class:`dpui.audit.menu.Mechanism`) and 2 MB."""
    seconds = BUILD_SECONDS + sum(AUDIT_SECONDS + n * mechanism.ns_per_run * 1e-9 for n in rungs)
    return limits.Cost(seconds, (2e6 + max(rungs) * mechanism.bytes_per_run) / limits.MB)


@dataclass(frozen=True)
class Plan:
    """The rungs audited, and the run count asked for (more than the top rung when the ladder
    was cut at the work limit)."""

    rungs: tuple[int, ...]
    wanted: int

    @property
    def cut(self) -> bool:
        return self.rungs[-1] < self.wanted


def plan(mechanism: Mechanism, runs: int) -> Plan:
    """The longest start of :func:`ladder` within the work limits (the whole ladder when not
    even its first rung fits: the runner then refuses it)."""
    full = ladder(runs)
    fitting = [
        k for k in range(1, len(full) + 1) if limits.within(ladder_cost(mechanism, full[:k]))
    ]
    return Plan(full[: max(fitting)] if fitting else full, runs)


def cost(inputs: Inputs) -> Estimate:
    """The audits the view runs (the ladder as cut to the limits)."""
    mechanism = MECHANISMS[str(inputs[MECHANISM])]
    chosen = plan(mechanism, int(inputs[RUNS]))
    return Estimate(
        f"auditing {mechanism.label} with up to {chosen.rungs[-1]:,} runs per input",
        ladder_cost(mechanism, chosen.rungs),
        smaller="choose fewer runs",
        library=LIBRARY,
    )


@byte_cache.cache_by_bytes(max_entries=16)
def built(key: str, claim: float) -> Entry:
    """The gallery mechanism ``key`` at claimed ε ``claim``."""
    return MECHANISMS[key].build(claim)


@dataclass(frozen=True)
class Point:
    """One rung: its audit, and the upper end of the event's interval of
    ``ln P[M(D) in S] - ln P[M(D') in S]`` (favoured input first; each end at the audit's
    confidence, ``inf`` when the other input never hit the event)."""

    runs: int
    audit: Audit
    upper: float

    @property
    def favours_d(self) -> bool:
        return favours_d(self.audit)


def favours_d(audit: Audit) -> bool:
    """Whether the audit's event is more likely on D (its description ends with the input
    it favours, D or D')."""
    return not audit.event.endswith("D'")


def _upper(audit: Audit) -> float:
    c, alpha = audit.counts, 1.0 - audit.confidence
    favoured, other = (c.hits_d, c.runs_d), (c.hits_d_prime, c.runs_d_prime)
    if not favours_d(audit):
        favoured, other = other, favoured
    _, p_hi = clopper_pearson(favoured[0], favoured[1], alpha / 2)
    p_lo, _ = clopper_pearson(other[0], other[1], alpha / 2)
    return math.inf if float(p_lo) == 0.0 else math.log(float(p_hi)) - math.log(float(p_lo))


@byte_cache.cache_by_bytes(max_entries=256)
def audit_at(
    key: str,
    claim: float,
    runs: int,
    confidence: float,
    seed: int,
    use_score: bool,
    _announce: Callable[[], None] | None = None,
) -> Point:
    """One rung's audit, seeded by ``(seed, runs)``; ``_announce`` is called before it
    computes (not on a cache hit). Raises ``ValueError`` when ``runs`` is too few."""
    if _announce is not None:
        _announce()
    entry = built(key, claim)
    audit = lower_bound(
        entry.sample_d,
        entry.sample_d_prime,
        samples=runs,
        confidence=confidence,
        delta=entry.claimed_delta,
        score=entry.score if use_score else None,
        rng=np.random.default_rng([seed, runs]),
    )
    return Point(runs, audit, _upper(audit))


def audits(
    key: str,
    claim: float,
    rungs: tuple[int, ...],
    confidence: float,
    seed: int,
    use_score: bool,
) -> tuple[Point, ...]:
    """Every rung's audit, with a progress bar over the rungs not cached yet (``ValueError``
    as :func:`dpcore.audit.lower_bound`)."""
    total, done = sum(rungs), 0
    bar: list[Any] = []
    points = []
    try:
        for runs in rungs:

            def announce(runs: int = runs, done: int = done) -> None:
                if not bar:
                    bar.append(st.progress(0.0))
                bar[0].progress(
                    done / total,
                    text=f"Auditing with {runs:,} runs per input ({done / total:.0%})…",
                )

            points.append(audit_at(key, claim, runs, confidence, seed, use_score, announce))
            done += runs
    finally:
        if bar:
            bar[0].empty()
    return tuple(points)


@dataclass(frozen=True)
class Result:
    """One view: the mechanism at its claim, the plan and every rung's audit."""

    key: str
    entry: Entry
    claim: float
    plan: Plan
    points: tuple[Point, ...]
    confidence: float
    seed: int
    use_score: bool

    @property
    def final(self) -> Point:
        return self.points[-1]


def true_words(entry: Entry) -> str:
    """The mechanism's true ε in words: exact (from its output law), proved, or unknown."""
    if entry.true_epsilon is None:
        return "unknown (it grows with the number of queries)"
    value = "∞" if math.isinf(entry.true_epsilon) else f"{entry.true_epsilon:.4g}"
    if entry.law is not None:
        return f"{value} (exact, from its output distribution)"
    return f"{value} (proved)"


def ceiling(audit: Audit) -> float:
    """The largest bound any audit with these held-out runs can reach (every run on one input
    in the event, none on the other)."""
    n = audit.counts.runs_d
    alpha = 1.0 - audit.confidence
    return float(epsilon_lower_bound(n, n, 0, n, alpha=alpha, delta=audit.delta))


@dataclass(frozen=True)
class Verdict:
    """The audit's conclusion in words."""

    violation: bool
    headline: str
    reason: str
    gallery: str


def verdict(result: Result) -> Verdict:
    """What the top rung's audit shows about the claim, in plain words, and what the gallery
    knows beside it."""
    audit, entry, claim = result.final.audit, result.entry, result.claim
    pct = f"{100 * audit.confidence:.4g} %"
    runs, held = result.final.runs, audit.counts.runs_d
    true = entry.true_epsilon
    if audit.epsilon > claim:
        headline = (
            f"Violation shown at {pct}: ε ≥ {audit.epsilon:.3f}, above the claimed ε = {claim:g}."
        )
        reason = (
            f"Were the mechanism {claim:g}-DP, an audit like this one would reach a bound this "
            f"high at most {100 * (1 - audit.confidence):.3g} % of the time ({runs:,} runs per "
            f"input, {held:,} of them counted after {audit.training_runs:,} chose the event)."
        )
        if true is not None and true <= claim * (1 + 1e-9):
            gallery = (
                f"The gallery's true ε is {true_words(entry)}, within the claim: this audit is "
                f"one of the at most {100 * (1 - audit.confidence):.3g} % that err (try another "
                "seed)."
            )
        elif true is None:
            gallery = f"The gallery agrees that it is buggy; its true ε is {true_words(entry)}."
        else:
            gallery = f"The gallery agrees: its true ε is {true_words(entry)}."
        return Verdict(True, headline, reason, gallery)
    headline = f"No violation found at {pct} — which does not prove privacy."
    top = ceiling(audit)
    reason = (
        f"The bound ε ≥ {audit.epsilon:.3f} is not above the claimed ε = {claim:g} "
        f"({runs:,} runs per input, {held:,} counted). An audit only sees events frequent "
        "enough to count: a rarer event, or one it does not look for, can break the claim "
        "unseen, and mechanisms can be built to fool black-box audits."
    )
    if top <= claim:
        reason += (
            f" Here no audit could have shown a violation: with {held:,} counted runs per input "
            f"the highest bound possible at {pct} is {top:.3g}."
        )
    if true is None or true > claim * (1 + 1e-9):
        how = (
            "it shows in the score the gallery gives for its outputs (Use its own score, in "
            "Settings), which an audit of the values alone does not find"
            if entry.score is not None and not result.use_score
            else "more runs, or a better event, would show it"
        )
        gallery = (
            f"In fact it is not {claim:g}-DP: the gallery's true ε is {true_words(entry)}. This "
            f"audit missed it: {how}."
        )
    else:
        gallery = (
            f"The gallery's true ε is {true_words(entry)}: the bound can approach it, never "
            "prove it."
        )
    return Verdict(False, headline, reason, gallery)


def key_numbers(result: Result) -> dict[str, float]:
    """The numbers a pinned comparison puts side by side."""
    audit = result.final.audit
    true = result.entry.true_epsilon
    return {
        "lower bound ε_LB": audit.epsilon,
        "point estimate (not a bound)": audit.point_estimate,
        "claimed ε": result.claim,
        "true ε (gallery)": math.nan if true is None else true,
        "runs per input": float(result.final.runs),
        "confidence": audit.confidence,
    }


def stamp(values: Mapping[str, Any], entry: Entry, chosen: Plan) -> dict[str, Any]:
    """The settings printed on the view's chart (the runs audited, and those asked for when
    the work limit cut the ladder)."""
    return {
        "mechanism": MECHANISMS[str(values[MECHANISM.name])].label,
        "claimed ε": values[EPSILON.name],
        "runs": chosen.rungs[-1],
        "asked": chosen.wanted if chosen.cut else None,
        "confidence": values[CONFIDENCE.name],
        "seed": values[SEED.name],
        "own score": bool(values[SCORE.name]) if entry.score is not None else None,
    }


def setup(inputs: Inputs) -> tuple[str, Mechanism, Entry, float]:
    """The mechanism chosen, built at the sidebar's ε; :class:`Refused` when it is not built
    for that claim."""
    key = str(inputs[MECHANISM])
    mechanism, claim = MECHANISMS[key], float(inputs[EPSILON])
    if claim > mechanism.max_claim:
        raise Refused(
            f"{mechanism.label} is audited at a claimed ε up to {mechanism.max_claim:g}; the "
            f"sidebar's ε is {claim:g}. Lower ε in the sidebar to audit it."
        )
    if claim < mechanism.min_claim:
        raise Refused(
            f"{mechanism.label} is audited at a claimed ε from {mechanism.min_claim:g}; the "
            f"sidebar's ε is {claim:g}. Raise ε in the sidebar to audit it."
        )
    try:
        entry = built(key, claim)
    except ValueError as err:
        raise Refused(f"{mechanism.label} cannot run at ε = {claim:g}: {err}") from None
    return key, mechanism, entry, claim


def view(inputs: Inputs) -> View:
    """The lower bound against the runs, the verdict's numbers and the stamp."""
    key, mechanism, entry, claim = setup(inputs)
    chosen = plan(mechanism, int(inputs[RUNS]))
    confidence, seed = float(inputs[CONFIDENCE]), int(inputs[SEED])
    use_score = bool(inputs[SCORE])
    fewest = fewest_runs(confidence, entry.claimed_delta)
    if chosen.rungs[-1] < fewest:
        raise Refused(
            f"No bound can be computed: {chosen.rungs[-1]:,} runs per input are too few at "
            f"{100 * confidence:.4g} % confidence. Even if every counted run landed in the "
            f"event on one input and none on the other, the bound would not rise above 0. "
            f"Choose at least {fewest:,} runs, or a lower confidence."
        )
    rungs = tuple(n for n in chosen.rungs if n >= fewest)
    try:
        points = audits(key, claim, rungs, confidence, seed, use_score)
    except ValueError as err:
        raise Refused(f"No bound can be computed: {err}") from None
    result = Result(key, entry, claim, chosen, points, confidence, seed, use_score)
    figure = figures.bound_vs_runs(
        np.array([p.runs for p in points], dtype=np.float64),
        np.array([p.audit.epsilon for p in points]),
        np.array([p.audit.point_estimate for p in points]),
        np.array([p.upper for p in points]),
        claimed=claim,
        true_epsilon=entry.true_epsilon,
        exact=entry.law is not None,
        confidence=confidence,
        title="Lower bound on ε against the runs",
    )
    described = (
        f"{label(key)}, claimed ε = {claim:g}, {chosen.rungs[-1]:,} runs per input, "
        f"{100 * confidence:.4g} % confidence"
    )
    return View(
        described,
        figure,
        stamp(inputs.values, entry, chosen),
        key_numbers(result),
        detail=result,
        share="xy",
        note="The point estimate is not a bound: it exceeds the true ε about half the time.",
    )
