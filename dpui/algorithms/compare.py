"""Parameters, cost and view of "Which algorithm for my data?": DPBench's comparison on the
sidebar's histogram.

Every trial samples ``scale`` records from the histogram's shape at the chosen domain
(:func:`dpcore.algorithms.dpbench.sample`); every algorithm runs on the same sampled input
with a generator of its own, and its error is DPBench's scaled per-query L1 error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.algorithms import ALGORITHMS, NAMES, estimate, ranking
from dpcore.algorithms.common import Ranges, as_workload
from dpcore.algorithms.cost import run_bytes, run_seconds
from dpcore.algorithms.dpbench import (
    MAX_SCALE,
    RANDOM_RANGES,
    random_ranges,
    sample,
    scaled_error,
)
from dpcore.hist.flat_error import flat_range_mean_abs
from dpcore.hist.plans import ALGORITHMS as PLAN_SPECS
from dpcore.hist.plans import plan_range_errors, prepare
from dpcore.hist.workload import Workload, parse_workload, workload_ranges
from dpcore.histogram import MAX_BINS, Histogram
from dpui.algorithms.racing import (
    FIRST_TRIALS,
    MOST_TRIALS,
    adaptive_seconds,
    race,
    rank,
    ranked_view,
    sparse_note,
    stream,
)
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import BoolParam, ChoiceParam, IntParam, TextParam
from dpui.kit.sidebar import EPSILON, histogram_digest

FloatArray = NDArray[np.float64]

WORKLOADS = {
    "prefix": "prefix ranges [0, b] (DPBench's 1-D workload)",
    "random": "2,000 random ranges (DPBench's draw)",
    "all": "all ranges [a, b]",
    "listed": "ranges I list",
}
SCALE = IntParam("wa_scale", 0, 100, 10**8, also=0)
"""Records per sampled input; 0 (the default): the data's own total (:func:`own_scale`),
any other value a what-if."""
DOMAIN = IntParam("wa_domain", 0, 0, MAX_BINS)
"""Bins after merging equal groups of adjacent bins; 0 keeps the histogram's own."""
WORKLOAD = ChoiceParam("wa_workload", "prefix", tuple(WORKLOADS))
RANGES = TextParam("wa_ranges", "0-99, 100-199", 2_000)
TRIALS = IntParam("wa_trials", 0, 1, 50, also=0)
"""Trials per algorithm; 0 (the default): adaptive (:data:`FIRST_TRIALS` for every algorithm,
then more for those within noise of the leader while
:data:`dpui.algorithms.racing.ADAPTIVE_SECONDS` allow)."""
SEED = IntParam("wa_seed", 0, 0, 2**31 - 1)
SLOW = BoolParam("wa_slow", False)
SHOWN = ChoiceParam("wa_release", NAMES[0], NAMES)
PARAMS = (SCALE, DOMAIN, WORKLOAD, RANGES, TRIALS, SEED, SLOW, SHOWN)
PINNED = (SCALE, DOMAIN, WORKLOAD, RANGES, TRIALS, SEED, SLOW, EPSILON)

SCALES = tuple(10**k for k in range(2, 9))
"""The scales of the error-vs-scale lines (DPBench's 10^3 to 10^7, and 10^2, 10^8)."""

SLOW_RUN = 1.0
"""Seconds per run above which an algorithm is left out unless slow ones are asked for."""

CURVE_TRIALS = FIRST_TRIALS
"""Trials per algorithm and scale behind error vs scale when the ranking's are adaptive."""


def compared(domain: int, workload: str, *, slow: bool) -> tuple[str, ...]:
    """The algorithms in the comparison: all, or (``slow`` False) those whose run is
    estimated at most :data:`SLOW_RUN` seconds."""
    return tuple(n for n in NAMES if slow or run_seconds(n, domain, workload) <= SLOW_RUN)


class Counted(Protocol):
    """Data with a name and a total: a 1-D :class:`~dpcore.histogram.Histogram` or a 2-D
    :class:`~dpcore.spatial.grid_data.Grid`."""

    @property
    def name(self) -> str: ...
    @property
    def total(self) -> float: ...


def own_scale(hist: Counted) -> int:
    """The histogram's own number of records: its total, rounded to a whole number."""
    return round(hist.total)


def what_if_start(hist: Counted) -> int:
    """The what-if scale offered first: the data's own, within :data:`SCALE`'s bounds."""
    return min(max(own_scale(hist), SCALE.lo), SCALE.hi)


def scale_of(hist: Counted, scale: int) -> int:
    """The scale asked for (0: the data's own total), or :class:`Refused` when the data's
    total is no number of records DPBench can draw."""
    if scale:
        return scale
    own = own_scale(hist)
    if not 1 <= own <= MAX_SCALE:
        raise Refused(
            f"'{hist.name}' holds {hist.total:,.4g} records in total, which rounds to "
            f"{own:,}: its own scale must be 1 to {MAX_SCALE:,} records. Choose "
            f"“a what-if scale” in the settings ({SCALE.lo:,} to {SCALE.hi:,} records)."
        )
    return own


def domain_of(hist: Histogram, domain: int) -> int:
    """The domain asked for (0: the histogram's bins), or :class:`Refused` naming the
    accepted ones (divisors of the histogram's bins)."""
    n = hist.n_bins
    if domain == 0 or domain == n:
        return n
    if domain > n or n % domain:
        divisors = [d for d in range(1, n + 1) if n % d == 0]
        shown = ", ".join(f"{d:,}" for d in divisors[-8:])
        raise Refused(
            f"A domain of {domain:,} bins cannot be made from '{hist.name}' ({n:,} bins): "
            f"DPBench merges equal groups of adjacent bins, so the domain must divide {n:,} "
            f"(the largest accepted: {shown})."
        )
    return domain


def _queries(kind: str, ranges: str, domain: int) -> int:
    if kind == "prefix":
        return domain
    if kind == "all":
        return domain * (domain + 1) // 2
    if kind == "random":
        return RANDOM_RANGES
    return max(1, ranges.count(",") + 1)


def trial_seconds(names: tuple[str, ...], domain: int, workload: str, queries: int) -> float:
    """Estimated seconds of one trial of every algorithm in ``names`` (its run and the
    evaluation of its ``queries`` ranges)."""
    return sum(run_seconds(name, domain, workload, queries) for name in names)


def page_cost(
    names: tuple[str, ...], domain: int, workload: str, queries: int, runs: int
) -> limits.Cost:
    """``runs`` trials of every algorithm in ``names`` at ``domain`` bins on ``workload`` (a
    key of :data:`WORKLOADS`), each evaluated on ``queries`` ranges; memory: a few arrays of
    the queries and of the bins per run."""
    seconds = runs * trial_seconds(names, domain, workload, queries)
    peak = max((run_bytes(name, domain, queries) for name in names), default=0.0)
    return limits.Cost(0.01 + seconds, peak / limits.MB)


DRAW_SECONDS = 0.3
"""Seconds to build and serialize the release chart: at most
:data:`dpui.algorithms.figures.DRAWN_BINS` bars and one bucket path whatever the domain
(measured 0.02-0.45 s of wall time from 4,096 to 1,048,576 bins on the loaded 2-core
server; ``bench/bench_release_chart.py``)."""


def release_cost(s: Setting, name: str) -> Estimate:
    """The estimate of one run of ``name`` on the setting's first trial ("One release vs its
    input"): the ranking's cost model for one algorithm and one trial, and the chart's
    drawing (:data:`DRAW_SECONDS`)."""
    run = page_cost((name,), s.domain, s.workload, s.query_count(), 1)
    return Estimate(
        f"one release of {name} at {s.domain:,} bins",
        limits.Cost(run.seconds + DRAW_SECONDS, run.megabytes),
        smaller="choose a faster algorithm (the ranking says which are slow) or a smaller domain",
        library="dpcore.algorithms.release",
    )


def scale_cost(s: Setting) -> Estimate:
    """The estimate of the error-vs-scale curves: :meth:`Setting.curve_trials` of every
    algorithm at every scale of :data:`SCALES`."""
    single = page_cost(s.names, s.domain, s.workload, s.query_count(), s.curve_trials())
    return Estimate(
        f"{len(s.names)} algorithms × {s.curve_trials()} trials at {len(SCALES)} scales",
        limits.Cost(single.seconds * len(SCALES), single.megabytes),
        smaller="choose fewer trials or a smaller domain",
        library="dpcore.algorithms.estimate",
    )


def cost(inputs: Inputs) -> Estimate:
    """The ranking's estimate: its trials of every algorithm compared, or, adaptive, the most
    its rounds may spend (:func:`adaptive_seconds`)."""
    domain = int(inputs[DOMAIN]) or inputs.hist.n_bins
    queries = _queries(inputs[WORKLOAD], inputs[RANGES], domain)
    names = compared(domain, inputs[WORKLOAD], slow=bool(inputs[SLOW]))
    trials = int(inputs[TRIALS])
    if trials:
        return Estimate(
            f"{len(names)} algorithms × {trials} trials at {domain:,} bins",
            page_cost(names, domain, inputs[WORKLOAD], queries, trials),
            smaller="choose fewer trials, a smaller domain or the prefix workload",
            library="dpcore.algorithms.estimate",
        )
    first = page_cost(names, domain, inputs[WORKLOAD], queries, FIRST_TRIALS)
    return Estimate(
        f"{len(names)} algorithms × {FIRST_TRIALS} to {MOST_TRIALS} adaptive trials at "
        f"{domain:,} bins",
        limits.Cost(adaptive_seconds(first.seconds), first.megabytes),
        smaller="choose a smaller domain or the prefix workload",
        library="dpcore.algorithms.estimate",
    )


@dataclass(frozen=True)
class Setting:
    """One comparison's inputs, checked."""

    hist: Histogram
    scale: int
    domain: int
    workload: str
    ranges: str
    eps: float
    trials: int
    """Trials per algorithm; 0: adaptive (:data:`TRIALS`)."""
    seed: int
    names: tuple[str, ...]
    own: bool = False
    """Whether ``scale`` is the data's own total (:func:`own_scale`), not a what-if."""
    cell = "bin"
    """What one of :attr:`domain` is called."""

    def data_name(self) -> str:
        """The histogram's name."""
        return self.hist.name

    def domain_words(self) -> str:
        """The domain, as a number of bins."""
        return f"{self.domain:,}"

    def workload_words(self) -> str:
        """The workload, as the settings name it."""
        return WORKLOADS[self.workload]

    def unit(self) -> str:
        """What one record is: the unit of the upload's count column where its header names
        one (:attr:`dpcore.histogram.Histogram.unit`), else "records"."""
        return self.hist.unit or "records"

    def scale_words(self) -> str:
        """The scale ranked at, and whether it is the data's own."""
        if not self.own:
            return (
                f"a what-if scale of {self.scale:,} {self.unit()} (your data holds {self.total()})"
            )
        return f"your data's N = {self.scale:,} {self.unit()}"

    def total(self) -> str:
        """The histogram's total, as a number of records (rounding said)."""
        total = self.hist.total
        if total == round(total):
            return f"{round(total):,}"
        return f"{total:,.6g}, about {round(total):,}"

    def curve_trials(self) -> int:
        """Trials per algorithm at each scale of error vs scale: the ranking's fixed number,
        or :data:`CURVE_TRIALS` when the ranking's are adaptive."""
        return self.trials or CURVE_TRIALS

    def trials_words(self) -> str:
        """How many trials the ranking runs, in words."""
        if self.trials:
            return f"{self.trials} trial{'s' * (self.trials > 1)} of each algorithm"
        return (
            f"adaptive trials ({FIRST_TRIALS} of each algorithm, then more, up to "
            f"{MOST_TRIALS}, for those within noise of the leader)"
        )

    def left_out(self) -> tuple[str, ...]:
        """The algorithms too slow to run at this domain unless asked for."""
        return tuple(n for n in NAMES if n not in self.names)

    def key(self) -> tuple[object, ...]:
        """Everything the errors depend on: the histogram by digest, the rest as is (the
        algorithms included: ticking "Include slow algorithms" changes them)."""
        digest = histogram_digest(self.hist)
        return (
            digest,
            self.names,
            self.scale,
            self.domain,
            self.workload,
            self.ranges,
            self.eps,
            self.trials,
            self.seed,
        )

    def sparse_note(self) -> str:
        """What a scale below the domain size means (DPBench includes such settings)."""
        return sparse_note(self, "1,000 records over 4,096 bins")

    def query_count(self) -> int:
        """Queries of the workload (every trial draws as many)."""
        return _queries(self.workload, self.ranges, self.domain)

    def queries(self, trial_rng: np.random.Generator) -> Ranges:
        if self.workload == "random":
            return random_ranges(self.domain, trial_rng)
        if self.workload == "listed":
            listed = parse_workload(f"ranges:{self.ranges}", self.domain)
            return as_workload(np.array(listed.ranges), self.domain)
        return as_workload("prefix" if self.workload == "prefix" else "all ranges", self.domain)


def setting(inputs: Inputs) -> Setting:
    """The checked inputs, or :class:`Refused` saying what to change."""
    hist = inputs.hist
    if not hist.total > 0:
        raise Refused(
            f"'{hist.name}' holds no records (every count is 0): there is no shape to sample "
            "from. Choose or upload a histogram with at least one positive count."
        )
    domain = domain_of(hist, int(inputs[DOMAIN]))
    scale = scale_of(hist, int(inputs[SCALE]))
    chosen = Setting(
        hist,
        scale,
        domain,
        inputs[WORKLOAD],
        inputs[RANGES],
        float(inputs[EPSILON]),
        int(inputs[TRIALS]),
        int(inputs[SEED]),
        compared(domain, inputs[WORKLOAD], slow=bool(inputs[SLOW])),
        own=int(inputs[SCALE]) == 0,
    )
    if chosen.workload == "listed":
        try:
            chosen.queries(np.random.default_rng(0))
        except ValueError as err:
            raise Refused(f"The listed ranges: {err}.") from None
    return chosen


def run_trials(
    s: Setting, names: tuple[str, ...], trials: range
) -> list[tuple[str, int, float, float]]:
    """``(algorithm, trial, scaled L1 error, scaled squared error)`` of every algorithm in
    ``names`` in every trial of ``trials``, seeded by ``(seed, trial)`` for the input (so
    every algorithm of a trial sees the same input) and ``(seed, trial, algorithm)`` for the
    noise. The squared error, the mean over the queries of (error / scale)², is the control
    variate of a linear algorithm (:func:`mean_squared`)."""
    rows = []
    for trial in trials:
        rng = np.random.default_rng([s.seed, trial])
        truth = sample(s.hist.counts, s.scale, s.domain, rng)
        queries = s.queries(rng)
        for name in names:
            noise = np.random.default_rng([s.seed, trial, stream(name)])
            guess = estimate(name, truth, s.eps, workload=queries, rng=noise)
            true_answers, answers = queries.answer(truth), queries.answer(guess)
            squared = float(np.mean(((true_answers - answers) / truth.sum()) ** 2))
            rows.append((name, trial, scaled_error(true_answers, answers, truth.sum()), squared))
    return rows


@st.cache_data(max_entries=32, show_spinner="Running every algorithm…")
def errors(_setting: Setting, key: tuple[object, ...]) -> pd.DataFrame:
    """Scaled L1 error of every algorithm in every trial it ran (one row each; see
    :func:`run_trials`), cached by ``key`` (:meth:`Setting.key`).

    Algorithms with an exact value (:func:`exact_errors`) do not run. A fixed number of
    trials runs every other algorithm that many times; adaptive (``trials`` 0), as
    :func:`dpui.algorithms.racing.race` says."""
    s = _setting
    count = s.query_count()
    return race(
        s.names,
        exact_errors(s),
        fixed=s.trials,
        run=lambda names, trials: run_trials(s, names, trials),
        each=lambda names: trial_seconds(names, s.domain, s.workload, count),
        ranked=lambda runs: summary(runs, s),
    )


def exact_errors(s: Setting) -> dict[str, float]:
    """The algorithms of the setting ranked at an exact expected error (:data:`EXACT`, where
    :func:`closed_form` has one for this workload), with that error."""
    values = {name: closed_form(name, s) for name in s.names if name in EXACT}
    return {name: value for name, value in values.items() if not math.isnan(value)}


def summary(runs: pd.DataFrame, s: Setting) -> pd.DataFrame:
    """The ranking table (:func:`dpui.algorithms.racing.rank`) of the setting's runs: exact
    values (:func:`exact_errors`), control variates (:func:`mean_squared`) and closed forms
    (:func:`closed_form`) of this setting."""
    return rank(
        runs,
        exact_errors(s),
        known=lambda name: mean_squared(name, s),
        closed=lambda name: closed_form(name, s),
        dependent=lambda name: ALGORITHMS[name].data_dependent,
        seed=s.seed,
    )


EXACT = frozenset(
    name
    for name, entry in ALGORITHMS.items()
    if entry.plan is not None and PLAN_SPECS[entry.plan].kind == "flat"
)
"""The algorithms whose expected scaled error :func:`closed_form` gives exactly (Identity:
independent Laplace noise per bin, no post-processing)."""

PROBABILITY_NOTE = (
    "Probability best: the share of "
    f"{ranking.DRAWS:,} draws in which an algorithm has the lowest expected error, each "
    "algorithm's expected error drawn from its mean and standard error over its own trials "
    "(Student's t, the distribution behind its 95% interval; an exact value is not drawn). "
    "All algorithms see the same sampled inputs in a trial, which these independent draws "
    "ignore: errors on a shared input move together, so the probabilities are, if anything, "
    "too cautious. Within noise of the leader: an algorithm whose 95% interval overlaps "
    "the leader's, or one of the fewest most probable algorithms that are best with 95% "
    "probability together, so that a winner named alone is best with at least 95% "
    "probability. Adaptive trials stop when the leader is alone in that sense; "
    "the intervals are not widened for those repeated looks (at most five)."
)


CLOSED_FORM_QUERIES = 600_000
"""Most queries whose exact MSE the page evaluates (all ranges up to about 1,100 bins)."""


@st.cache_data(max_entries=64, show_spinner=False)
def _closed_forms(
    plan_key: str, domain: int, eps: float, workload: Workload
) -> tuple[float, float]:
    """The mean over the workload of E|e| (exact for flat Laplace, √(2/π · MSE) otherwise)
    and of the exact MSE, unscaled."""
    lo, hi = workload_ranges(domain, workload)
    plan = prepare(plan_key, domain, eps, workload)
    mse = plan_range_errors(plan, lo, hi)
    if plan.spec.kind == "flat":
        return float(flat_range_mean_abs(eps, lo, hi).mean()), float(mse.mean())
    return float(np.sqrt(2 / math.pi * mse).mean()), float(mse.mean())


CLOSED_FORM_NOTE = (
    "Closed form: Identity's is exact (E|sum of k Laplace draws| = 2bΓ(k+½)/(√π Γ(k)) for a "
    "range of k bins), so Identity is ranked at that value, not at a mean of trials (“how”: "
    "exact). HB's, Privelet's and HB-opt's take their exact per-query MSE as a normal "
    "error's, E|e| ≈ √(2/π · MSE): approximate, closest for long ranges, whose error sums "
    "many draws (up to 12.8% high for a range answered by one draw, and never low: a sum "
    "of Laplace draws is a mixture of normals), so they are ranked by their trial means, "
    "with the closed form beside them. Their exact MSE does serve the trial means: each "
    "trial's squared error, whose expectation it is, corrects the mean of the absolute "
    "errors as a control variate (the regression estimator; “how”: control variate), which "
    "narrows their intervals several-fold."
)


def closed_form(name: str, s: Setting) -> float:
    """The expected scaled L1 error of a linear data-independent algorithm: exact for
    Identity (:func:`dpcore.hist.flat_error.flat_range_mean_abs`); for a tree or wavelet,
    the exact per-query MSE from :mod:`dpcore.hist.plans` and E|e| = sqrt(2/π · MSE), a
    normal approximation (see :data:`CLOSED_FORM_NOTE`); NaN where no closed form exists
    (the random workload, whose ranges change per trial, included) or the workload is
    larger than :data:`CLOSED_FORM_QUERIES`."""
    return _of_plan(name, s)[0] / s.scale


def mean_squared(name: str, s: Setting) -> float:
    """The exact expected scaled squared error, the mean over the workload of
    MSE / scale², of a linear data-independent algorithm (:mod:`dpcore.hist.plans`); NaN
    where :func:`closed_form` has none."""
    return _of_plan(name, s)[1] / s.scale**2


def _of_plan(name: str, s: Setting) -> tuple[float, float]:
    """:func:`_closed_forms` of ``name``'s plan on the setting, NaN where it has none."""
    key = ALGORITHMS[name].plan
    queries = s.queries(np.random.default_rng(0))
    if key is None or s.workload == "random" or queries.size > CLOSED_FORM_QUERIES:
        return math.nan, math.nan
    return _closed_forms(key, s.domain, s.eps, queries.for_closed_forms())


def view(inputs: Inputs) -> View:
    s = setting(inputs)
    try:
        runs = errors(s, s.key())
    except ValueError as err:  # e.g. counts too large for float64 to keep their noise
        raise Refused(f"An algorithm could not run on this setting: {err}") from None
    return ranked_view(s, summary(runs, s), algorithms="algorithms")
