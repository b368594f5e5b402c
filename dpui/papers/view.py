"""State, work limits and cached tables behind the "Paper experiments" page.

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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.hist import experiments, tree
from dpcore.hist.budget import BUDGET_RULES
from dpui.errors import view as errors_view
from dpui.kit.params import ChoiceParam, IntParam, Param

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

SIMULATED_VALUES_LIMIT = 20_000_000
"""Table 2: at most this many simulated bin values (releases x sum of N)."""
ANSWER_LIMIT = 3_000_000
"""Range lengths: at most this many simulated answers per algorithm (releases x ranges)."""
FANOUT_WORK_LIMIT = 30_000_000
"""Fan-out sweep: at most this many node-level steps (n x height, summed over k, x 6)."""
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


@dataclass(frozen=True)
class Scaled:
    """A request after its work limit: the value used and, if reduced, why."""

    value: int
    message: str = ""


def table2_simulation_limit(max_m: int, sim_m: int, releases: int) -> Scaled:
    """The largest simulated ``m`` within :data:`SIMULATED_VALUES_LIMIT`.

    >>> table2_simulation_limit(20, 16, 1000).value
    13
    """
    wanted = min(sim_m, max_m)
    m = wanted
    while m >= 0 and releases * (2 ** (m + 1) - 1) > SIMULATED_VALUES_LIMIT:
        m -= 1
    if m == wanted:
        return Scaled(m)
    return Scaled(
        m,
        f"Simulated up to m = {m} instead of {wanted}: {releases} releases of every N up to "
        f"2^{wanted} would draw more than {SIMULATED_VALUES_LIMIT:,} values. Lower the releases "
        "to simulate larger N.",
    )


def length_queries_limit(n: int, releases: int, per_length: int) -> Scaled:
    """Ranges per length within :data:`ANSWER_LIMIT` answers per algorithm."""
    lengths = int(np.log2(n)) + 1
    allowed = max(1, ANSWER_LIMIT // (releases * lengths))
    if per_length <= allowed:
        return Scaled(per_length)
    return Scaled(
        allowed,
        f"{allowed} random ranges per length instead of {per_length}: {releases} releases × "
        f"{lengths} lengths would score more than {ANSWER_LIMIT:,} answers per algorithm.",
    )


def fanout_work(n: int, k_max: int) -> int:
    """Estimated node-level steps of :func:`fanout_sweep`: ``6 n height_k`` summed over ``k``."""
    return sum(6 * n * (int(np.ceil(np.log(n) / np.log(k))) + 1) for k in range(2, k_max + 1))


def fanout_check(n: int, k_max: int) -> str:
    """An empty string if the sweep is within :data:`FANOUT_WORK_LIMIT`, else why not."""
    if fanout_work(n, k_max) <= FANOUT_WORK_LIMIT:
        return ""
    largest = n
    while largest > 2 and fanout_work(largest, k_max) > FANOUT_WORK_LIMIT:
        largest = int(largest * 0.9)
    return (
        f"n = {n:,} with k up to {k_max} is too much work for an interactive sweep (about "
        f"{fanout_work(n, k_max):,} node steps; the limit is {FANOUT_WORK_LIMIT:,}). "
        f"Choose n ≤ {largest:,} or a smaller largest k."
    )


@st.cache_data(max_entries=32, show_spinner=False)
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


def lengths(
    n: int, eps: float, per_length: int, releases: int, seed: int, progress: errors_view.Progress
) -> pd.DataFrame:
    """Figs. 3.11/3.12: exact and simulated MSE per range length ``2^0..`` for the raw trees and
    Dwork, on ``n`` all-zero bins (errors do not depend on the data)."""
    return errors_view.length_curve(
        f"zeros:{n}",
        np.zeros(n),
        LENGTH_KEYS,
        eps,
        per_length,
        releases,
        seed,
        True,
        progress=progress,
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
