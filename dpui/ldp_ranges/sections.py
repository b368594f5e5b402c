"""The "Range queries under local DP" page's sections below its main chart: error vs fan-out
under local and central DP, the ε crossover between HaarHRR and the tree, one collection
against the truth; each one's cached computation and cost estimate."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from scipy.optimize import brentq

from dpcore.hist import blue_error, budget, coverage
from dpcore.hist.tree import kary_tree
from dpcore.ldp import ranges
from dpcore.ldp.ranges.variance import used_nodes
from dpui.kit import limits
from dpui.kit.page import Estimate
from dpui.ldp_ranges.view import (
    MAX_EPS,
    Setting,
    one_collection,
    plan_of,
    population,
    prefix_answers,
    tree_levels,
    tree_nodes,
)


def fanout_candidates(domain: int) -> list[int]:
    return [b for b in range(2, 33) if b <= domain]


def fanout_table(s: Setting) -> pd.DataFrame:
    """Per fan-out, the noise-only average variance over all ranges: under local DP (this
    page's oracle and levels, raw and BLUE; fraction²) and under central DP (Laplace, ε
    split over the levels: raw with the root measured, BLUE without it -- Qardaji et al.'s
    H_b; counts²). Noise only: it does not depend on the data's shape, the page's fan-out
    or its simulation, so a change of those reuses it."""
    return _fanout_table(s.domain, s.eps, s.users, s.oracle, s.levels)


@st.cache_data(max_entries=32, show_spinner="Computing every fan-out's exact average…")
def _fanout_table(domain: int, eps: float, users: int, oracle: str, levels: str) -> pd.DataFrame:
    rows = []
    for b in fanout_candidates(domain):
        plan = ranges.ldp_tree(
            domain, b, eps=eps, users=users, oracle=oracle,
            levels=levels,  # type: ignore[arg-type]
        )  # fmt: skip
        t = kary_tree(domain, b)
        boost = budget.uniform_budgets(t, eps)
        rows.append(
            {
                "B": b,
                "LDP raw": ranges.tree_average_variance(plan, consistency="none"),
                "LDP + BLUE": ranges.tree_average_variance(plan, consistency="blue"),
                "central raw": budget.raw_expected_error(coverage.coverage_probabilities(t), boost),
                "central + BLUE": blue_error.blue_expected_error(
                    t, budget.uniform_budgets(t, eps, measure_root=False)
                ),
            }
        )
    return pd.DataFrame(rows)


CROSS_GRID = np.geomspace(0.05, MAX_EPS, 33)


def _averages_at(s: Setting, domain: int, eps: float) -> dict[str, float]:
    """Noise-only averages over all ranges of ``domain`` at ``eps`` (fraction²)."""
    plan = ranges.ldp_tree(
        domain, min(s.fanout, domain), eps=eps, users=s.users, oracle=s.oracle,
        levels=s.levels,  # type: ignore[arg-type]
    )  # fmt: skip
    return {
        "flat": ranges.average_variance(f"flat-{s.oracle}", domain=domain, eps=eps, users=s.users),
        "raw": ranges.tree_average_variance(plan, consistency="none"),
        "blue": ranges.tree_average_variance(plan, consistency="blue"),
        "haar": ranges.haar_average_variance(domain, eps, s.users),
    }


@dataclass(frozen=True)
class Crossover:
    table: pd.DataFrame
    domain: int
    crossings: dict[str, float | None]
    """ε where HaarHRR equals the tree (BLUE, raw), or None when it does not on the grid."""


@st.cache_data(max_entries=32, show_spinner="Computing the averages over ε…")
def crossover(s: Setting) -> Crossover:
    """Every method's average over ε (on the padded domain when it is not a power of 2, so
    that HaarHRR and the tree answer the same ranges), and the ε where HaarHRR meets the
    tree."""
    d = s.padded
    rows = [{"eps": float(e)} | _averages_at(s, d, float(e)) for e in CROSS_GRID]
    table = pd.DataFrame(rows)
    crossings: dict[str, float | None] = {}
    for tree in ("blue", "raw"):
        gap = np.log(table["haar"].to_numpy()) - np.log(table[tree].to_numpy())
        change = np.flatnonzero(np.sign(gap[:-1]) != np.sign(gap[1:]))
        if change.size == 0:
            crossings[tree] = None
            continue
        i = int(change[0])

        def diff(e: float, tree: str = tree) -> float:
            at = _averages_at(s, d, e)
            return math.log(at["haar"]) - math.log(at[tree])

        crossings[tree] = float(brentq(diff, CROSS_GRID[i], CROSS_GRID[i + 1], xtol=1e-4))
    return Crossover(table, d, crossings)


RELEASE_POINTS = 32
"""Ranges the release chart shows: single bins drown in local noise at any classroom N."""


def display_groups(domain: int) -> int:
    """Bins per range of the release chart: :data:`RELEASE_POINTS` ranges of equal width."""
    return max(1, -(-domain // RELEASE_POINTS))


@st.cache_data(max_entries=32, show_spinner="Simulating one collection…")
def one_release(s: Setting) -> pd.DataFrame:
    """The population's fraction in each of :data:`RELEASE_POINTS` adjacent ranges and one
    simulated collection's answer by each method (the first collection of the main view's
    simulation): the raw tree by each range's canonical decomposition, AHEAD by its adaptive
    tree's, the others by summing their items' estimates."""
    pop = population(s)
    got = one_collection(s, pop, np.random.default_rng([s.seed, 2]))
    plan = plan_of(s)
    g = display_groups(s.domain)
    first = np.arange(0, s.domain, g, dtype=np.int64)
    last = np.minimum(first + g - 1, s.domain - 1)
    frame = {"first bin": first, "last bin": last}
    frame["true"] = prefix_answers(pop / pop.sum(), first, last)
    names = s.names()
    for m in ("flat", "blue", "haar"):
        frame[names[m]] = prefix_answers(np.asarray(got[m], dtype=np.float64), first, last)
    frame[names["raw"]] = used_nodes(plan, first, last).astype(np.float64) @ got["raw"]
    frame[names["ahead"]] = ranges.ahead_answers(got["ahead"], first, last)
    return pd.DataFrame(frame)


# --- costs ------------------------------------------------------------------------------------


def fanout_cost(s: Setting) -> Estimate:
    """Four exact averages per fan-out 2..32: about 2 µs per item and fan-out (measured
    1.5 µs, ``bench/bench_ldp_ranges_page.py``)."""
    b = len(fanout_candidates(s.domain))
    return Estimate(
        f"the exact averages of {b} fan-outs over {s.domain:,} bins",
        limits.Cost(0.02 + b * s.domain * 2e-6, (2e6 + s.domain * 400) / limits.MB),
        smaller="use fewer bins",
        library="dpcore.ldp.ranges.optimal_fanout",
    )


def crossover_cost(s: Setting) -> Estimate:
    """Four averages at each of 33 ε and ~12 more for each of the two roots: about 0.12 µs
    per item of the padded domain and level of the tree, per ε, and 0.04 s (measured 0.05 s
    at 256 bins, 0.07 s at 1,024, 3.1 s at 65,536: ``bench/bench_ldp_ranges_page.py``)."""
    evaluations = CROSS_GRID.size + 24
    h = max(1, tree_levels(s.padded, min(s.fanout, s.padded)))
    return Estimate(
        f"the exact averages at {evaluations} values of ε over {s.padded:,} bins",
        limits.Cost(0.04 + evaluations * s.padded * h * 0.12e-6, (2e6 + s.padded * 400) / 1e6),
        smaller="use fewer bins",
        library="dpcore.ldp.ranges.average_variance",
    )


def release_cost(s: Setting) -> Estimate:
    """One collection of every method: 0.3 µs per item and tree level, 0.4 µs per item and
    level of HaarHRR's padded domain (0.1 µs more, and 0.2 ms per level, for AHEAD's), 25 ns
    per range and node for the raw tree's answers, and 0.01 s
    (``bench/bench_ldp_ranges_page.py`` prints estimate beside measured)."""
    h = max(1, tree_levels(s.domain, s.fanout))
    haar_levels = s.padded.bit_length() - 1
    seconds = 0.01 + s.domain * h * 0.3e-6 + s.padded * haar_levels * 0.5e-6
    seconds += haar_levels * 0.2e-3
    seconds += RELEASE_POINTS * tree_nodes(s.domain, s.fanout) * 25e-9
    return Estimate(
        f"one collection of {s.users:,} users over {s.domain:,} bins",
        limits.Cost(seconds, (2e6 + s.domain * h * 16) / limits.MB),
        smaller="use fewer bins",
        library="dpcore.ldp.ranges.simulate_tree",
    )
