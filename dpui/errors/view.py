"""State and cached computations behind the "Error analysis" page.

Every function returns a tidy table: one row per algorithm and x value, with
the exact closed form (``exact``) and, when simulated, the empirical mean
squared error (``empirical``) and its 95% confidence half-width (``ci``).
Cached "cells" (one algorithm, one x value) take ``seed: int`` and build
their generators inside; ``_counts`` is identified in the cache key by
``digest``. The uncached ``*_curve`` functions run the cells and report
progress between them, outside the caches (a cache hit must never replay a
progress bar created elsewhere).

Budgets of per-level and per-node algorithms are optimised for the uniform
workload (all ranges equally likely); errors of Privelet on ``n`` not a power
of two are those of the zero-padded transform.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import NDArray

from dpcore.hist import (
    accuracy_index,
    empirical,
    pidentity,
    plans,
)
from dpcore.histogram import Histogram
from dpui.errors import figures as figures
from dpui.kit import limits, pin, slow
from dpui.kit.params import BoolParam, ChoiceParam, IntParam, Param
from dpui.kit.sidebar import EPSILON

FloatArray = NDArray[np.float64]
Progress = Callable[[float], object] | None

DEFAULT_ON = ("dwork", "binary_raw", "boost", "lue_dptree", "privelet")
ALGORITHM_FLAGS = {key: BoolParam(f"ea_{key}", key in DEFAULT_ON) for key in plans.ALGORITHMS}
VIEWS = {
    "length": "(1) Error vs range length",
    "fixed": "(2) Fixed random ranges",
    "size": "(3) Average error vs N",
    "epsilon": "(4) Error vs ε",
    "index": "(5) Accuracy index",
}
VIEW = ChoiceParam("ea_view", "length", tuple(VIEWS))
SIMULATE = BoolParam("ea_sim", True)
RELEASES = IntParam("ea_releases", 50, 2, 1000)
QUERIES = IntParam("ea_queries", 50, 1, 2000)
FIXED_N = IntParam("ea_fixed_n", 1024, 2, 65_536)
FIXED_RANGES = IntParam("ea_fixed_q", 50, 1, 500)
MAX_M = IntParam("ea_max_m", 10, 1, 20)
INDEX_M = IntParam("ea_index_m", 16, 6, accuracy_index.MAX_TREE_LEVELS)
SEED = IntParam("ea_seed", 0, 0, 2**31 - 1)
PARAMS: tuple[Param, ...] = (
    *ALGORITHM_FLAGS.values(),
    VIEW,
    SIMULATE,
    RELEASES,
    QUERIES,
    FIXED_N,
    FIXED_RANGES,
    MAX_M,
    INDEX_M,
    SEED,
)

SIMULATED_MAX_M = 12
"""Table 2 simulates up to N = 2^12; larger N show the exact values only."""
ALL_RANGES_LIMIT = 20_000
"""Table 2 scores every range when there are at most this many, else fresh random ranges."""
EPSILONS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
FORMULAS = {
    "length": r"\mathrm{MSE}_{\mathrm{Dwork}}(L) = \frac{2L}{\varepsilon^2},\quad "
    r"\mathrm{MSE}_{\mathrm{BLUE\ tree}}(w) = w^\top (A^\top W A)^{-1} w",
    "fixed": r"\mathrm{MSE}_{\mathrm{Privelet}}([l,r]) = "
    r"\frac{2(h+1)^2}{\varepsilon^2}\,\mathrm{coef}(l,r)",
    "size": r"\bar c_{\mathrm{Privelet}}(2^h) = \frac{h}{6} + "
    r"\frac{N^3 + 37N^2 + 26N + 8}{36N^2(N+1)} \to \frac{h}{6} + \frac{1}{36}",
    "epsilon": r"\mathrm{MSE}(\varepsilon) = \mathrm{MSE}(1) / \varepsilon^2",
    "index": r"k_A = \lim_{N\to\infty} \frac{\mathrm{lb}^3 N}{f_A(N)},\quad "
    r"f_A(N) = \frac{\varepsilon^2}{2}\,\overline{\mathrm{MSE}}_A(N)",
}


PIDENTITY_LABEL = "optimised strategy (HDMM p-Identity)"
PIDENTITY_MAX_BINS = pidentity.MAX_BINS
PIDENTITY_VIEWS = ("length", "fixed", "epsilon")
"""Views drawn for one n, where the optimised strategy can be added as a reference."""


def pidentity_strategy(n: int) -> pidentity.PIdentityStrategy | None:
    """The p-Identity strategy for ``n`` bins (uniform workload) if it has been computed."""
    found: pidentity.PIdentityStrategy | None = slow.done("pidentity", n)
    return found


def optimise_pidentity(n: int) -> pidentity.PIdentityStrategy | None:
    """Optimise (once, with a progress bar) the p-Identity strategy for ``n`` bins; None
    (with the reason shown) when the search is over the work limit."""
    rows, starts = pidentity.default_rows(n), pidentity.default_starts(n)
    if not limits.allow_requested(
        f"optimising the p-Identity strategy for {n:,} bins (p = {rows}, {starts} start(s))",
        limits.pidentity_search(n, rows, starts, 300),
        smaller="use a histogram with fewer bins",
        library="dpcore.hist.pidentity.optimise",
    ):
        return None

    def compute(progress: slow.Progress) -> pidentity.PIdentityStrategy:
        return pidentity.optimise(n, progress=progress)

    text = f"Optimising the p-Identity strategy for n = {n:,} (p = {pidentity.default_rows(n)})…"
    found: pidentity.PIdentityStrategy = slow.run("pidentity", n, compute, text)
    return found


def pidentity_rows(
    view: str,
    strategy: pidentity.PIdentityStrategy,
    eps: float,
    per_length: int = 0,
    count: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """The optimised strategy's exact errors in the table layout of ``view`` (no simulation).

    Uses the same random ranges as the algorithms' cells (same seeds).
    """
    n = strategy.n
    if view == "length":
        lengths, a, b = _length_queries(n, per_length, seed)
        exact = pidentity.range_errors(strategy, eps, a, b)
        return pd.DataFrame(
            {
                "algorithm": PIDENTITY_LABEL,
                "range length": lengths,
                "exact": [float(exact[(b - a + 1) == x].mean()) for x in lengths],
                "exact, all ranges of this length": [
                    strategy.expected_error(eps, f"length:{x}") for x in lengths
                ],
                "empirical": np.nan,
                "ci": np.nan,
            }
        )
    if view == "fixed":
        a, b = empirical.random_ranges(n, count, np.random.default_rng([seed, 0]))
        order = np.lexsort((b, a))
        a, b = a[order], b[order]
        return pd.DataFrame(
            {
                "algorithm": PIDENTITY_LABEL,
                "range #": np.arange(1, a.size + 1),
                "l": a + 1,
                "r": b + 1,
                "exact": pidentity.range_errors(strategy, eps, a, b),
                "empirical": np.nan,
                "ci": np.nan,
            }
        )
    if view == "epsilon":
        return pd.DataFrame(
            {
                "algorithm": PIDENTITY_LABEL,
                "epsilon": EPSILONS,
                "exact": [strategy.expected_error(e) for e in EPSILONS],
                "empirical": np.nan,
                "ci": np.nan,
            }
        )
    raise ValueError(f"the optimised strategy is drawn in views {', '.join(PIDENTITY_VIEWS)}")


def pidentity_n(view: str, hist_n: int, fixed_n: int) -> int | None:
    """The ``n`` of the optimised-strategy reference in ``view`` (``None``: not drawn there)."""
    return {"length": hist_n, "epsilon": hist_n, "fixed": fixed_n}.get(view)


def with_pidentity(
    table: pd.DataFrame,
    view: str,
    strategy: pidentity.PIdentityStrategy | None,
    eps: float,
    per_length: int,
    count: int,
    seed: int,
) -> pd.DataFrame:
    """``table`` with the optimised strategy's rows appended (unchanged if ``strategy`` is None)."""
    if strategy is None:
        return table
    rows = pidentity_rows(view, strategy, eps, per_length, count, seed)
    return pd.concat([table, rows], ignore_index=True)


def label(key: str) -> str:
    return plans.ALGORITHMS[key].label


def paper_indices(keys: tuple[str, ...]) -> dict[str, float]:
    """The accuracy indices Wu et al. (2018) report for the chosen algorithms, by label."""
    return {label(k): v for k, v in accuracy_index.PAPER_INDEX.items() if k in keys}


def curves_by_algorithm(curves: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {str(name): rows for name, rows in curves.groupby("algorithm", sort=False)}


def _collect(cells: Sequence[Callable[[], pd.DataFrame]], progress: Progress) -> pd.DataFrame:
    """Run cached cells one by one, reporting progress between them (outside the caches,
    so that a cache hit never replays a progress bar)."""
    parts = []
    for i, cell in enumerate(cells):
        parts.append(cell())
        if progress is not None:
            progress((i + 1) / len(cells))
    return pd.concat(parts, ignore_index=True)


def cost(
    choice: str,
    keys: tuple[str, ...],
    *,
    n: int,
    releases: int,
    queries: int,
    fixed_n: int,
    fixed_ranges: int,
    max_m: int,
    index_m: int,
) -> limits.Cost:
    """The estimated cost of view ``choice`` (``releases = 0`` when not simulating)."""
    if choice == "index":
        return limits.accuracy_index(keys, index_m)
    if choice == "length":
        return limits.error_simulation(keys, n, 1, releases, queries * (n.bit_length()))
    if choice == "fixed":
        return limits.error_simulation(keys, fixed_n, 1, releases, fixed_ranges)
    if choice == "epsilon":
        return limits.error_simulation(keys, n, len(EPSILONS), releases, queries)
    total = limits.Cost(0.0, 0.0)
    for m in range(max_m + 1):
        simulated = releases if m <= SIMULATED_MAX_M else 0
        every = 2**m * (2**m + 1) // 2
        ranges = every if every <= ALL_RANGES_LIMIT else queries
        total += limits.error_simulation(keys, 2**m, 1, simulated, ranges)
    return total


def index_levels(keys: tuple[str, ...], wanted: int, *, pinned: bool = False) -> int:
    """The largest m up to ``wanted`` whose accuracy-index view fits the work limit (shown
    with a notice when smaller than ``wanted``); ``wanted`` when none fits (then refused).
    ``pinned``: the notice is about the pinned view A."""
    fitted = limits.largest_within(
        range(INDEX_M.lo, wanted + 1), lambda m: limits.accuracy_index(keys, m)
    )
    if fitted is None or fitted == wanted:
        return wanted
    limits.scaled_down(
        ("the pinned view A's " if pinned else "")
        + f"trees up to m = {fitted} (N = 2^{fitted}) instead of m = {wanted}",
        library="dpcore.hist.accuracy_index.coefficient_curve",
    )
    return fitted


def allowed(choice: str, keys: tuple[str, ...], *, pinned: bool = False, **sizes: int) -> bool:
    """Whether view ``choice`` is within the work limit (see :func:`cost`); else say why
    (``pinned``: about the pinned view A)."""
    return limits.allow(
        ("the pinned view A, " if pinned else "the view ")
        + f"'{VIEWS[choice]}' for {len(keys)} algorithm(s)",
        cost(choice, keys, **sizes),
        smaller="choose fewer algorithms, fewer ranges, or a smaller N or m",
        library="dpcore.hist.accuracy_index",
    )


def simulation_allowed(choice: str, keys: tuple[str, ...], key: Hashable, **sizes: int) -> bool:
    """Whether view ``choice`` may simulate now (the closed forms alone are assumed within the
    limit): within the work limit, or run on request (``key`` names the request); otherwise
    the page shows the closed forms and :func:`limits.allow_or_offer` offers the simulation."""
    return limits.allow_or_offer(
        f"simulating the view '{VIEWS[choice]}' for {len(keys)} algorithm(s)",
        cost(choice, keys, **sizes),
        key=key,
        smaller="choose fewer algorithms, fewer releases or ranges, or a smaller N",
        library="dpcore.hist.empirical",
    )


@limits.cache_by_bytes(max_entries=32, spinner="Building trees and budgets…")
def plan(key: str, n: int, eps: float) -> plans.Plan:
    """A prepared algorithm (tree and budgets); cached as a resource, never mutated."""
    return plans.prepare(key, n, eps)


def _length_queries(n: int, per_length: int, seed: int) -> tuple[NDArray[np.int64], ...]:
    rng = np.random.default_rng([seed, 0])
    lengths = [2**k for k in range(int(np.log2(n)) + 1)]
    drawn = [empirical.random_ranges(n, per_length, rng, f"length:{x}") for x in lengths]
    return (
        np.asarray(lengths, dtype=np.int64),
        np.concatenate([a for a, _ in drawn]),
        np.concatenate([b for _, b in drawn]),
    )


@st.cache_data(max_entries=64, show_spinner=False)
def length_cell(
    digest: str,
    _counts: FloatArray,
    key: str,
    eps: float,
    per_length: int,
    releases: int,
    seed: int,
    simulate: bool,
) -> pd.DataFrame:
    """One algorithm's MSE vs range length ``2^0..2^k`` (same random ranges for every algorithm)."""
    n = int(_counts.size)
    lengths, a, b = _length_queries(n, per_length, seed)
    prepared = plan(key, n, eps)
    exact = plans.plan_range_errors(prepared, a, b)
    empirical_mse = half = np.full(lengths.size, np.nan)
    if simulate:
        rng = np.random.default_rng([seed, 1, list(plans.ALGORITHMS).index(key)])
        sim = empirical.simulate_range_errors(prepared, _counts, a, b, releases=releases, rng=rng)
        _, empirical_mse, half = sim.by_length()
    return pd.DataFrame(
        {
            "algorithm": label(key),
            "range length": lengths,
            "exact": [float(exact[(b - a + 1) == x].mean()) for x in lengths],
            "exact, all ranges of this length": [
                plans.plan_expected_error(prepared, f"length:{x}") for x in lengths
            ],
            "empirical": empirical_mse,
            "ci": half,
        }
    )


def length_curve(
    digest: str,
    counts: FloatArray,
    keys: tuple[str, ...],
    eps: float,
    per_length: int,
    releases: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(1) MSE vs range length: exact over the sampled ranges (and over all windows)."""
    cells = [
        partial(length_cell, digest, counts, key, eps, per_length, releases, seed, simulate)
        for key in keys
    ]
    return _collect(cells, progress)


@st.cache_data(max_entries=64, show_spinner=False)
def fixed_cell(
    digest: str,
    _counts: FloatArray,
    key: str,
    n: int,
    eps: float,
    count: int,
    releases: int,
    seed: int,
    simulate: bool,
) -> pd.DataFrame:
    """One algorithm on ``count`` fixed random ranges of ``n`` bins (Wu et al., table 1).

    The histogram is repeated or cut to ``n`` bins (the errors do not depend on the data).
    """
    counts = np.resize(_counts, n)
    a, b = empirical.random_ranges(n, count, np.random.default_rng([seed, 0]))
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    prepared = plan(key, n, eps)
    mse = half = np.full(a.size, np.nan)
    if simulate:
        rng = np.random.default_rng([seed, 2, list(plans.ALGORITHMS).index(key)])
        sim = empirical.simulate_range_errors(prepared, counts, a, b, releases=releases, rng=rng)
        mse, half = sim.per_query()
    return pd.DataFrame(
        {
            "algorithm": label(key),
            "range #": np.arange(1, a.size + 1),
            "l": a + 1,
            "r": b + 1,
            "exact": plans.plan_range_errors(prepared, a, b),
            "empirical": mse,
            "ci": half,
        }
    )


def fixed_ranges(
    digest: str,
    counts: FloatArray,
    keys: tuple[str, ...],
    n: int,
    eps: float,
    count: int,
    releases: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(2) Per fixed random range: exact beside simulated (1-based ``l..r``)."""
    cells = [
        partial(fixed_cell, digest, counts, key, n, eps, count, releases, seed, simulate)
        for key in keys
    ]
    return _collect(cells, progress)


@st.cache_data(max_entries=256, show_spinner=False)
def size_cell(
    key: str, eps: float, m: int, releases: int, sample: int, seed: int, simulate: bool
) -> pd.DataFrame:
    """One algorithm's average uniform-range MSE on ``N = 2^m`` all-zero bins (Wu et al., table 2).

    Simulated up to ``2^SIMULATED_MAX_M``: every range while there are at most
    ``ALL_RANGES_LIMIT``, else ``sample`` fresh random ranges per release.
    """
    n = 2**m
    prepared = plan(key, n, eps)
    mean = half = np.nan
    if simulate and m <= SIMULATED_MAX_M:
        every = n * (n + 1) // 2 <= ALL_RANGES_LIMIT
        rng = np.random.default_rng([seed, 3, m, list(plans.ALGORITHMS).index(key)])
        mean, half = empirical.simulate_workload_error(
            prepared, np.zeros(n), releases=releases, rng=rng, sample=None if every else sample
        )
    row = {
        "algorithm": label(key),
        "m": m,
        "N": n,
        "exact": plans.plan_expected_error(prepared),
        "empirical": mean,
        "ci": half,
    }
    return pd.DataFrame([row])


def size_curve(
    keys: tuple[str, ...],
    eps: float,
    max_m: int,
    releases: int,
    sample: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(3) Average uniform-range MSE vs ``N = 2^m``, ``m = 0..max_m``."""
    cells = [
        partial(size_cell, key, eps, m, releases, sample, seed, simulate)
        for key in keys
        for m in range(max_m + 1)
    ]
    return _collect(cells, progress)


@st.cache_data(max_entries=256, show_spinner=False)
def epsilon_cell(
    digest: str,
    _counts: FloatArray,
    key: str,
    eps: float,
    releases: int,
    sample: int,
    seed: int,
    simulate: bool,
) -> pd.DataFrame:
    """One algorithm's average uniform-range MSE at one epsilon (fresh ranges per release)."""
    n = int(_counts.size)
    prepared = plan(key, n, eps)
    mean = half = np.nan
    if simulate:
        rng = np.random.default_rng(
            [seed, 4, EPSILONS.index(eps), list(plans.ALGORITHMS).index(key)]
        )
        mean, half = empirical.simulate_workload_error(
            prepared, _counts, releases=releases, rng=rng, sample=sample
        )
    row = {
        "algorithm": label(key),
        "epsilon": eps,
        "exact": plans.plan_expected_error(prepared),
        "empirical": mean,
        "ci": half,
    }
    return pd.DataFrame([row])


def epsilon_curve(
    digest: str,
    counts: FloatArray,
    keys: tuple[str, ...],
    releases: int,
    sample: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(4) Average uniform-range MSE vs epsilon over :data:`EPSILONS`."""
    cells = [
        partial(epsilon_cell, digest, counts, key, eps, releases, sample, seed, simulate)
        for key in keys
        for eps in EPSILONS
    ]
    return _collect(cells, progress)


@st.cache_data(max_entries=64, show_spinner=False)
def index_cell(key: str, max_m: int) -> pd.DataFrame:
    """``f(2^m)`` and ``lb^3 N / f(N)`` for ``m = 1..max_m`` (exact, eps = 1, uniform workload)."""
    ms = np.arange(1, max_m + 1)
    coefficient = accuracy_index.coefficient_curve(key, ms)
    return pd.DataFrame(
        {
            "algorithm": label(key),
            "key": key,
            "m": ms,
            "f": coefficient,
            "ratio": ms.astype(np.float64) ** 3 / coefficient,
        }
    )


def index_curves(keys: tuple[str, ...], max_m: int, progress: Progress = None) -> pd.DataFrame:
    """(5) The finite-N accuracy ratios of every chosen algorithm."""
    return _collect([partial(index_cell, key, max_m) for key in keys], progress)


def index_estimates(curves: pd.DataFrame) -> dict[str, accuracy_index.IndexEstimate]:
    """Per algorithm label: the extrapolated index in the form stated for that algorithm."""
    return {
        str(part["algorithm"].iloc[0]): accuracy_index.estimate_index(
            str(key), part["m"], part["f"]
        )
        for key, part in curves.groupby("key", sort=False)
    }


def index_table(curves: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm: the ratio at the largest N, the limit (or why none is shown), the paper's."""
    estimates = index_estimates(curves)
    rows = []
    for key, part in curves.groupby("key", sort=False):
        name = str(part["algorithm"].iloc[0])
        est = estimates[name]
        limit = {"zero": "→ 0", "irregular": "not fitted", "unknown": "not fitted"}.get(
            est.kind, f"{est.value:.3f}" if est.reliable else "not shown"
        )
        rows.append(
            {
                "algorithm": name,
                "largest N": f"2^{int(part['m'].max())}",
                "ratio at largest N": float(part["ratio"].iloc[-1]),
                "limit (index)": limit,
                "fits on other m windows": (
                    f"{est.low:.3f} … {est.high:.3f}" if np.isfinite(est.low) else ""
                ),
                "paper's index": accuracy_index.PAPER_INDEX.get(str(key), np.nan),
                "how": est.note,
            }
        )
    return pd.DataFrame(rows)


# --- one view of the page, as a function of its settings (for the page and for pinning) -------


@dataclass(frozen=True)
class Settings:
    """What defines one view of the page: its own settings and ε (the dataset is the sidebar's)."""

    keys: tuple[str, ...]
    view: str
    simulate: bool
    releases: int
    queries: int
    seed: int
    fixed_n: int
    fixed_ranges: int
    max_m: int
    index_m: int
    eps: float

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> Settings:
        """From parameter name -> value (as :func:`dpui.kit.pin.current` gives, ε included)."""
        return cls(
            keys=tuple(key for key, flag in ALGORITHM_FLAGS.items() if values[flag.name]),
            view=str(values[VIEW.name]),
            simulate=bool(values[SIMULATE.name]),
            releases=int(values[RELEASES.name]),
            queries=int(values[QUERIES.name]),
            seed=int(values[SEED.name]),
            fixed_n=int(values[FIXED_N.name]),
            fixed_ranges=int(values[FIXED_RANGES.name]),
            max_m=int(values[MAX_M.name]),
            index_m=int(values[INDEX_M.name]),
            eps=float(values[EPSILON.name]),
        )

    def describe(self) -> str:
        text = f"{VIEWS[self.view]}, {len(self.keys)} algorithm(s)"
        if self.view not in ("epsilon", "index"):
            text += f", ε = {self.eps:g}"
        return text + (f", simulated ({self.releases} releases)" if self.simulate else "")


PINNED: tuple[Param, ...] = (*PARAMS, EPSILON)
"""The parameters a pinned view keeps: the page's own and the shared ε."""


@dataclass(frozen=True)
class Result:
    """One view computed: its table, its chart and the chart's caption."""

    table: pd.DataFrame
    figure: go.Figure
    note: str


def checked(s: Settings, n: int, *, pinned: bool = False) -> Settings | None:
    """``s`` with the accuracy-index m reduced to the work limit; None, with the reason
    shown, when no algorithm is chosen or the view is over the limit (``pinned``: view A)."""
    if not s.keys:
        st.warning(
            "The pinned view A has no algorithm chosen: nothing to compare."
            if pinned
            else "Choose at least one algorithm above."
        )
        return None
    if s.view == "index":
        s = replace(s, index_m=index_levels(s.keys, s.index_m, pinned=pinned))
    sizes = {
        "n": n,
        "queries": s.queries,
        "fixed_n": s.fixed_n,
        "fixed_ranges": s.fixed_ranges,
        "max_m": s.max_m,
        "index_m": s.index_m,
    }
    if not allowed(s.view, s.keys, pinned=pinned, releases=0, **sizes):  # the closed forms
        return None
    if s.simulate and s.view != "index":
        # over the limit the closed forms show at once and the simulation waits for a click
        simulate = simulation_allowed(s.view, s.keys, (n, s), releases=s.releases, **sizes)
        s = replace(s, simulate=simulate)
    return s


def compute(s: Settings, hist: Histogram, digest: str, progress: Progress = None) -> Result:
    """The table, chart and caption of view ``s`` on ``hist`` (``digest`` identifies it), from
    the cached cells; with the optimised strategy's rows when it has been computed for this n."""
    reference_n = pidentity_n(s.view, hist.n_bins, s.fixed_n)
    strategy = None if reference_n is None else pidentity_strategy(reference_n)
    if s.view == "length":
        table = length_curve(
            digest, hist.counts, s.keys, s.eps, s.queries, s.releases, s.seed, s.simulate, progress
        )
        table = with_pidentity(table, s.view, strategy, s.eps, s.queries, 0, s.seed)
        fig = figures.exact_vs_empirical(
            table, x="range length", title="MSE vs range length", x_title="range length L"
        )
        note = (
            f"{hist.name}, n = {hist.n_bins:,}, ε = {s.eps:g}; {s.queries} random ranges per "
            "length. Lines: exact mean over the same ranges as the points."
        )
    elif s.view == "fixed":
        table = fixed_ranges(
            digest,
            hist.counts,
            s.keys,
            s.fixed_n,
            s.eps,
            s.fixed_ranges,
            s.releases,
            s.seed,
            s.simulate,
            progress,
        )
        table = with_pidentity(table, s.view, strategy, s.eps, 0, s.fixed_ranges, s.seed)
        fig = figures.exact_vs_empirical(
            table,
            x="range #",
            title=f"MSE per fixed random range (N = {s.fixed_n:,})",
            x_title="range (sorted by start)",
            log_x=False,
        )
        note = (
            f"N = {s.fixed_n:,} bins ({hist.name} repeated or cut to N: the errors do not "
            f"depend on the data), ε = {s.eps:g}; table 1 of Wu et al. (2018) is N = 1024, "
            "50 ranges, 100 releases."
        )
    elif s.view == "size":
        table = size_curve(
            s.keys, s.eps, s.max_m, s.releases, s.queries, s.seed, s.simulate, progress
        )
        fig = figures.exact_vs_empirical(
            table, x="N", title="Average MSE over all ranges vs N", x_title="N = 2^m"
        )
        note = (
            f"All-zero histogram of N bins, ε = {s.eps:g}; simulated up to N = "
            f"2^{SIMULATED_MAX_M} (every range while there are ≤ {ALL_RANGES_LIMIT:,}, "
            f"else {s.queries} fresh random ranges per release); larger N exact only."
        )
    elif s.view == "epsilon":
        table = epsilon_curve(
            digest, hist.counts, s.keys, s.releases, s.queries, s.seed, s.simulate, progress
        )
        table = with_pidentity(table, s.view, strategy, s.eps, 0, 0, s.seed)
        fig = figures.exact_vs_empirical(
            table, x="epsilon", title="Average MSE over all ranges vs ε", x_title="ε"
        )
        note = (
            f"{hist.name}, n = {hist.n_bins:,}; simulated with {s.queries} fresh random ranges "
            "per release. Every algorithm's MSE scales exactly as 1/ε²."
        )
    else:
        curves = index_curves(s.keys, s.index_m, progress)
        table = index_table(curves)
        fig = figures.index_convergence(
            curves_by_algorithm(curves), index_estimates(curves), paper_indices(s.keys)
        )
        note = (
            "Exact values at ε = 1, uniform workload. A limit is extrapolated only where the "
            "algorithm's f(2^m) is known to be a cubic in m, and shown only when fits on "
            "different m windows agree within 2%; the column 'how' says why for each algorithm."
        )
    return Result(table, fig, note)


def run(s: Settings, hist: Histogram, digest: str) -> Result:
    """:func:`compute` with a progress bar while it simulates (or computes the index)."""
    if not (s.simulate or s.view == "index"):
        return compute(s, hist, digest)
    bar = st.progress(0.0, text="Computing…")
    result = compute(
        s,
        hist,
        digest,
        lambda f: bar.progress(min(f, 1.0), text=f"Simulating… {f:.0%}"),
    )
    bar.empty()
    return result


def chart_settings(s: Settings, hist: Histogram) -> dict[str, Any]:
    """The settings stamped under the chart of view ``s``."""
    settings: dict[str, Any] = {
        "dataset": hist.name,
        "n": s.fixed_n if s.view == "fixed" else hist.n_bins,  # (2) repeats the data to N
        "ε": s.eps,
        "workload": "all ranges",
    }
    if s.simulate and s.view != "index":  # the accuracy index is exact only
        settings |= {"releases": s.releases, "seed": s.seed}
    return settings


def key_numbers(s: Settings, result: Result) -> dict[str, float]:
    """The numbers a pinned comparison shows for view ``s``, per algorithm (budgets for the
    uniform workload, as everywhere on the page)."""
    table = result.table
    if s.view == "index":
        numbers = {"largest m (N = 2^m)": float(s.index_m)}
        for _, row in table.iterrows():
            numbers[f"{row['algorithm']}: lb³N / f(N) at the largest N"] = row["ratio at largest N"]
        return numbers
    numbers = {"ε": s.eps}
    if s.view == "size":
        numbers["largest N"] = float(2**s.max_m)
        simulated_m = min(s.max_m, SIMULATED_MAX_M)
        if s.simulate:
            numbers["largest simulated N"] = float(2**simulated_m)
    for label_, rows in table.groupby("algorithm", sort=False):
        name = str(label_).partition(" (")[0]  # the legend's first line: 'Boost', 'H_b'
        if s.view in ("length", "fixed"):
            where = (
                "mean over lengths 1, 2, 4, …, n" if s.view == "length" else "mean over the ranges"
            )
            numbers[f"{name} · exact MSE, {where}"] = rows["exact"].mean()
            numbers[f"{name} · simulated MSE, {where}"] = rows["empirical"].mean()
        elif s.view == "size":
            numbers[f"{name} · exact MSE, all ranges, largest N"] = rows["exact"].iloc[-1]
            at = rows[rows["m"] == simulated_m]["empirical"]
            numbers[f"{name} · simulated MSE, all ranges, largest simulated N"] = (
                at.iloc[0] if at.size else np.nan
            )
        else:  # epsilon: exact at this ε from ε = 1 (MSE ∝ 1/ε²); simulated only on the grid
            at_one = rows[rows["epsilon"] == 1.0]["exact"].iloc[0]
            numbers[f"{name} · exact MSE, all ranges, at ε"] = at_one / s.eps**2
            at = rows[rows["epsilon"] == s.eps]["empirical"]
            numbers[f"{name} · simulated MSE, all ranges, at ε"] = at.iloc[0] if at.size else np.nan
    return {k: float(v) for k, v in numbers.items() if not (np.isnan(v) and "simulated" in k)}


def show_comparison(
    pinned: Mapping[str, Any], b: Settings, result_b: Result, hist: Histogram, digest: str
) -> None:
    """Pinned view A beside the current view B (already computed): both charts, on shared
    axes when they plot the same view, and the key numbers with their ratio. A passes the
    same work-limit checks as B; refused, it is not computed and the page says why."""
    a = checked(Settings.of(pinned), hist.n_bins, pinned=True)
    if a is None:
        return
    result_a = run(a, hist, digest)
    same = a.view == b.view
    pin.side_by_side(
        (a.describe(), figures.half_width(result_a.figure), chart_settings(a, hist)),
        (b.describe(), figures.half_width(result_b.figure), chart_settings(b, hist)),
        key="ea_compare",
        share=("y" if a.view == "index" else "xy") if same else "",
    )
    if not same:
        st.caption("A and B plot different views, so their axes are not shared.")
    pin.show_table(key_numbers(a, result_a), key_numbers(b, result_b))
    st.caption(
        "Budgets optimised for all ranges equally likely. "
        + " ".join(dict.fromkeys(KEY_NUMBERS_NOTE[v] for v in (a.view, b.view)))
    )


KEY_NUMBERS_NOTE = {
    "length": "(1): the mean of the plotted points, each the exact (or simulated) MSE over "
    "that length's random ranges.",
    "fixed": "(2): the mean over the fixed random ranges.",
    "size": "(3): the MSE averaged over all ranges of the largest N (simulated: of the "
    f"largest simulated N, at most 2^{SIMULATED_MAX_M}).",
    "epsilon": "(4): the MSE averaged over all ranges at the sidebar's ε (exact: the closed "
    "form, ∝ 1/ε²; simulated only when ε is one of the plotted values).",
    "index": "(5): the exact ratio lb³N / f(N) at the largest N (does not depend on ε).",
}
