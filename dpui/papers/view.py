"""Parameters, cost models, cached tables and views of the "Paper experiments" page.

Three reproductions, each with its controls in the URL (prefix ``px_``):

* ``table2``: Privelet's Table 2 (Wu et al. 2018): eq. 16 (exact), eq. 17 (the
  paper's asymptotic "theory" column) and simulation, with the difference;
* ``lengths``: LUE-DPTree figs. 3.11/3.12: raw SC tree vs raw binary tree vs
  Dwork across range lengths on a chosen ``n`` (2,010 Amazon; 48,130 AOL);
* ``fanout``: exact error of ``k``-ary trees for ``k = 2..k_max``, raw and after
  BLUE, under uniform / per-level / per-node budgets, with ``k*`` marked;
* ``custom``: a typed tree with hand-set budgets (:mod:`dpui.papers.custom_tree`).

Errors of these linear, unbiased mechanisms do not depend on the data, so
the simulations release all-zero histograms of the chosen size.

Each view's work is estimated before it runs (:func:`table2_cost`, :func:`lengths_cost`,
:func:`fanout_cost`), and the page runner refuses it above the server's work limits
(:mod:`dpui.kit.limits`); the constants were measured by timing the dpcore calls on the
2-core development server (November 2026, CPU seconds by ``time.process_time``, peak
memory by ``tracemalloc``) and rounded up.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.hist import experiments, tree
from dpcore.hist.budget import BUDGET_RULES
from dpui.errors import figures as error_figures
from dpui.errors.simulation import length_curve
from dpui.kit import limits, sidebar
from dpui.kit.page import Estimate, Inputs, View
from dpui.kit.params import ChoiceParam, IntParam, Param
from dpui.papers import figures

EXPERIMENTS = {
    "table2": "Privelet: Table 2 (eq. 16 vs eq. 17 vs simulation)",
    "lengths": "LUE-DPTree figs. 3.11/3.12: error vs range length",
    "fanout": "Error vs fan-out k (raw and BLUE, three budget rules)",
    "custom": "LUE-DPTree fig. 3.14(b): your own tree and hand-set budgets",
}
EXPERIMENT = ChoiceParam("px_view", "table2", tuple(EXPERIMENTS))
SEED = IntParam("px_seed", 0, 0, 2**31 - 1)
T2_MAX_M = IntParam("px_t2_m", 10, 0, 24)
T2_SIM_M = IntParam("px_t2_sim_m", 10, 0, 16)
T2_RELEASES = IntParam("px_t2_releases", 100, 2, 1000)
LEN_N = IntParam("px_n", 2010, 2, 200_000)
LEN_RELEASES = IntParam("px_len_releases", 50, 2, 500)
LEN_QUERIES = IntParam("px_len_queries", 200, 1, 1000)
FAN_N = IntParam("px_fan_n", 2010, 2, 100_000)
FAN_K = IntParam("px_fan_k", 64, 2, 64)
PARAMS: tuple[Param, ...] = (
    EXPERIMENT,
    SEED,
    T2_MAX_M,
    T2_SIM_M,
    T2_RELEASES,
    LEN_N,
    LEN_RELEASES,
    LEN_QUERIES,
    FAN_N,
    FAN_K,
)

LENGTH_KEYS = ("dwork", "binary_raw", "sc_raw")
"""The algorithms of figs. 3.11/3.12: all raw, no consistency step."""
PAPER_SIZES = {"Amazon (fig. 3.12)": 2010, "AOL (fig. 3.11)": 48130}
PROSE = Path(__file__).resolve().parents[2] / "assets" / "paper"
RULE_LABELS = {
    "uniform": "uniform ε/Δ",
    "per_level": "per-level (optimal for the raw tree)",
    "optimal": "per-node (optimal for the raw tree)",
}


def prose(experiment: str) -> str:
    """The explanation of one experiment (``assets/paper/<experiment>.md``)."""
    return (PROSE / f"{experiment}.md").read_text(encoding="utf-8")


# --- cost models ------------------------------------------------------------------------


def table2_cost(max_m: int, sim_m: int, releases: int) -> limits.Cost:
    """Table 2 with ``releases`` simulated releases of every ``N = 2^m`` up to
    ``min(sim_m, max_m)``.

    Measured: :func:`dpcore.hist.experiments.privelet_table2` for one simulated ``m`` took
    60-110 ns per simulated bin value (``releases x 2^m``; m = 10..16, 100 and 1,000
    releases: 0.39 s for 100 releases at m = 16, 0.43 s for 1,000 at m = 12) with a peak of
    32 bytes per value of the largest ``m``; the closed forms up to m = 24 took 7 ms.
    Model: 120 ns per value summed over the simulated ``m``, 32 bytes per value of the
    largest.
    """
    m = min(sim_m, max_m)
    return limits.Cost(
        0.01 + releases * (2 ** (m + 1) - 1) * 120e-9, releases * 2**m * 32 / limits.MB
    )


def length_ranges(n: int, per_length: int) -> int:
    """The random ranges scored: ``per_length`` of each length ``2^0, 2^1, .. <= n``."""
    return per_length * (int(np.log2(n)) + 1)


def lengths_cost(n: int, releases: int, per_length: int) -> limits.Cost:
    """Figs. 3.11/3.12: the three raw algorithms' plans and exact errors, then ``releases``
    simulated releases of ``n`` bins each scored on :func:`length_ranges` ranges.

    Measured with :func:`dpcore.hist.plans.prepare`, ``plan_range_errors``,
    ``plan_expected_error`` and :func:`dpcore.hist.empirical.simulate_range_errors` at
    n = 2,010 to 200,000 with 1,800 to 18,000 ranges: per release, 98 (binary tree),
    48 (SC tree) and 35 (Dwork) ns per bin and 2.1, 0.9 and 0.1 µs per range; the plans
    and exact errors about 4 µs per bin together (the SC tree's construction 2-3 µs of
    it); peak memory about 180 bytes per bin. Model: per release 200 ns per bin and
    3.5 µs per range, 5 µs per bin once, 200 bytes per bin and 16 per scored answer
    (the squared errors and their per-length means). Reproduces the 24-26 s measured for
    n = 200,000, 500 releases and 333 ranges per length (model: 30 s).
    """
    ranges = length_ranges(n, per_length)
    seconds = n * 5e-6 + releases * (n * 200e-9 + ranges * 3.5e-6)
    return limits.Cost(seconds, (n * 200 + releases * ranges * 16) / limits.MB)


def fanout_heights(n: int, k_max: int) -> list[int]:
    """The heights of the ``k``-ary trees over ``n`` bins, ``k = 2..min(k_max, n)``
    (``ceil(log_k n) + 1`` levels)."""
    return [int(np.ceil(np.log(n) / np.log(k) - 1e-12)) + 1 for k in range(2, min(k_max, n) + 1)]


def fanout_cost(n: int, k_max: int) -> limits.Cost:
    """The fan-out sweep: for each ``k``, the tree, its coverage, three budget rules and
    their exact raw and BLUE errors.

    Measured: :func:`dpcore.hist.experiments.fanout_sweep` took 0.48 s for n = 2,010 and
    k = 2..64, 1.65 s for n = 20,000 and k = 2..64, 2.5 s for n = 100,000 and k = 2..20
    (1.1 s for k = 2..8), peak memory 41 MB at n = 100,000: about 7 ms per fan-out plus
    150-180 ns per bin and tree level. Model: 8 ms per ``k`` plus 200 ns per bin and
    level, 500 bytes per bin.
    """
    seconds = sum(8e-3 + 200e-9 * n * h for h in fanout_heights(n, k_max))
    return limits.Cost(seconds, n * 500 / limits.MB)


def table2_estimate(values: Mapping[str, Any]) -> Estimate:
    max_m, releases = int(values[T2_MAX_M.name]), int(values[T2_RELEASES.name])
    m = min(int(values[T2_SIM_M.name]), max_m)
    fits = limits.largest_within(range(m + 1), lambda k: table2_cost(max_m, k, releases))
    hint = f" (up to m = {fits} fits with {releases} releases)" if fits is not None else ""
    return Estimate(
        f"simulating {releases:,} releases of every N = 2^m up to m = {m}",
        table2_cost(max_m, m, releases),
        smaller=f"lower 'Simulate up to m'{hint} or the releases",
        library="dpcore.hist.experiments.privelet_table2",
    )


def lengths_estimate(values: Mapping[str, Any]) -> Estimate:
    n, releases = int(values[LEN_N.name]), int(values[LEN_RELEASES.name])
    per_length = int(values[LEN_QUERIES.name])
    fits = limits.largest_within(range(2, releases + 1), lambda r: lengths_cost(n, r, per_length))
    hint = f" (at most {fits:,} fit at these bins and ranges)" if fits is not None else ""
    return Estimate(
        f"{releases:,} releases of {n:,} bins for three algorithms, each scored on "
        f"{length_ranges(n, per_length):,} ranges",
        lengths_cost(n, releases, per_length),
        smaller=f"lower the releases{hint}, the random ranges per length or the bins n",
        library="dpcore.hist.empirical.simulate_range_errors",
    )


def fanout_estimate(values: Mapping[str, Any]) -> Estimate:
    n, k_max = int(values[FAN_N.name]), int(values[FAN_K.name])
    sizes = sorted({max(2, int(n * 0.9**i)) for i in range(80)})
    fits = limits.largest_within(sizes, lambda m: fanout_cost(m, k_max))
    hint = f"choose n ≤ {fits:,} or a smaller largest k" if fits else "choose a smaller largest k"
    return Estimate(
        f"the sweep of fan-outs k = 2-{k_max} over {n:,} bins",
        fanout_cost(n, k_max),
        smaller=hint,
        library="dpcore.hist.experiments.fanout_sweep",
    )


# --- cached tables ------------------------------------------------------------------------


@st.cache_data(max_entries=32, show_spinner="Simulating releases…")
def table2(max_m: int, sim_m: int, eps: float, releases: int, seed: int) -> pd.DataFrame:
    """Table 2 rows ``m = 0..max_m``: eq. 16, eq. 17, their difference, simulation ± CI."""
    result = experiments.privelet_table2(
        np.arange(max_m + 1),
        eps,
        releases=releases,
        rng=np.random.default_rng([seed, 21]),
        simulate_up_to=sim_m,
    )
    return pd.DataFrame(
        {
            "m": result.m,
            "N": 2**result.m,
            "eq. 16 (exact)": result.eq16,
            "eq. 17 (paper's theory)": result.eq17,
            "eq. 17 − eq. 16": result.difference,
            "relative difference": result.difference / result.eq16,
            "simulated": result.simulated,
            "ci": result.ci,
        }
    )


@st.cache_data(max_entries=32, show_spinner="Simulating releases…")
def lengths(n: int, eps: float, per_length: int, releases: int, seed: int) -> pd.DataFrame:
    """Figs. 3.11/3.12: exact and simulated MSE per range length ``2^0..`` for the raw trees and
    Dwork, on ``n`` all-zero bins (errors do not depend on the data)."""
    return length_curve(
        f"zeros:{n}", np.zeros(n), LENGTH_KEYS, eps, per_length, releases, seed, True
    )


@st.cache_data(max_entries=32, show_spinner="Computing every fan-out…")
def fanout(n: int, eps: float, k_max: int) -> pd.DataFrame:
    """Tidy sweep: one row per ``k``, budget rule and raw/BLUE, with the tree's height."""
    ks = np.arange(2, min(k_max, max(n, 2)) + 1)
    sweep = experiments.fanout_sweep(n, eps, ks)
    frames = []
    for rule in BUDGET_RULES:
        for blue in (False, True):
            frames.append(
                pd.DataFrame(
                    {
                        "k": sweep.ks,
                        "height Δ": sweep.heights,
                        "budgets": RULE_LABELS[rule],
                        "answered": "after BLUE" if blue else "raw",
                        "expected MSE": sweep.errors[(rule, blue)],
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def best_fanout(n: int) -> int:
    """``k*`` of Struct-Construct (the uniform raw k-ary tree's best fan-out, ``k <= 20``)."""
    return tree.best_fanout(n)


def fanout_minima(table: pd.DataFrame) -> pd.DataFrame:
    """Per budget rule and raw/BLUE: the best ``k`` and its error."""
    best = table.loc[table.groupby(["budgets", "answered"], sort=False)["expected MSE"].idxmin()]
    return best[["budgets", "answered", "k", "height Δ", "expected MSE"]].reset_index(drop=True)


# --- views ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """What the body of a table view draws from: the experiment's table and its settings."""

    eps: float
    seed: int
    table: pd.DataFrame
    values: Mapping[str, Any]


def _shown(inputs: Inputs, table: pd.DataFrame) -> Shown:
    eps = float(inputs[sidebar.EPSILON])
    return Shown(eps, int(inputs[SEED]), table, inputs.values)


def table2_view(inputs: Inputs) -> View:
    """Table 2: eq. 16, eq. 17 and the simulation vs m; key numbers at the largest m."""
    eps, seed = float(inputs[sidebar.EPSILON]), int(inputs[SEED])
    max_m, releases = int(inputs[T2_MAX_M]), int(inputs[T2_RELEASES])
    sim_m = min(int(inputs[T2_SIM_M]), max_m)
    table = table2(max_m, sim_m, eps, releases, seed)
    last, seen = table.iloc[-1], table[table["simulated"].notna()]
    numbers = {
        "largest m": float(max_m),
        "eq. 16 (exact) at the largest m": float(last["eq. 16 (exact)"]),
        "eq. 17 (paper's theory) at the largest m": float(last["eq. 17 (paper's theory)"]),
        "largest simulated m": float(seen["m"].iloc[-1]) if len(seen) else np.nan,
        "simulated at the largest simulated m": (
            float(seen["simulated"].iloc[-1]) if len(seen) else np.nan
        ),
    }
    return View(
        f"Table 2: m = 0-{max_m}, simulated up to m = {sim_m} with {releases:,} releases, "
        f"ε = {eps:g}, seed {seed}",
        figures.table2(table),
        {"ε": eps, "releases": releases, "seed": seed},
        numbers,
        detail=_shown(inputs, table),
        share="xy",
        kind="table2",
        note="Simulated values: seeded releases of all-zero histograms (the error does not "
        "depend on the data).",
    )


def lengths_view(inputs: Inputs) -> View:
    """MSE vs range length for the raw trees and Dwork; key numbers: each algorithm's exact
    mean over all ranges of the shortest and the longest length."""
    eps, seed = float(inputs[sidebar.EPSILON]), int(inputs[SEED])
    n, releases, per_length = (
        int(inputs[LEN_N]),
        int(inputs[LEN_RELEASES]),
        int(inputs[LEN_QUERIES]),
    )
    table = lengths(n, eps, per_length, releases, seed)
    longest = int(table["range length"].max())
    numbers: dict[str, float] = {"longest range length L": float(longest)}
    for name, rows in table.groupby("algorithm", sort=False):
        exact = rows.set_index("range length")["exact, all ranges of this length"]
        numbers[f"{name}: exact MSE at L = 1"] = float(exact.loc[1])
        numbers[f"{name}: exact MSE at the longest L"] = float(exact.loc[longest])
    return View(
        f"n = {n:,}, ε = {eps:g}, {per_length:,} ranges per length, {releases:,} releases, "
        f"seed {seed}",
        error_figures.exact_vs_empirical(
            table,
            x="range length",
            title=f"MSE vs range length, n = {n:,}",
            x_title="range length L",
        ),
        {"n": n, "ε": eps, "releases": releases, "seed": seed},
        numbers,
        detail=_shown(inputs, table),
        share="xy",
        kind="lengths",
        note="Exact MSE: the mean over all ranges of that length.",
    )


def fanout_view(inputs: Inputs) -> View:
    """Exact expected MSE vs fan-out k; key numbers: k* and each curve's least MSE."""
    eps, n, k_max = float(inputs[sidebar.EPSILON]), int(inputs[FAN_N]), int(inputs[FAN_K])
    table = fanout(n, eps, k_max)
    k_star = best_fanout(n)
    numbers = {"k* (Struct-Construct)": float(k_star)}
    for row in fanout_minima(table).itertuples(index=False):
        numbers[f"least MSE: {row.budgets}, {row.answered}"] = float(row[4])
    return View(
        f"n = {n:,}, k = 2-{k_max}, ε = {eps:g}, all ranges",
        figures.fanout(table, k_star),
        {"n": n, "ε": eps, "workload": "all ranges"},
        numbers,
        detail=_shown(inputs, table),
        share="xy",
        kind="fanout",
        note="Least MSE: over the fan-outs of each curve (uniform workload).",
    )
