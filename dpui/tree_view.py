"""State and cached computations behind the "Tree & budgets" page.

Trees and releases are cached with ``st.cache_resource`` rather than
``cache_data``: at 2^20 bins a tree is ~100 MB of arrays, and ``cache_data``
would copy (pickle) them on every rerun. The cached objects are never mutated.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore import budget, consistency, coverage, errors, queries, release, tree
from dpcore.histogram import MAX_BINS, Histogram
from dpcore.workload import parse_workload
from dpui import pin, tree_figures
from dpui.params import ChoiceParam, IntParam
from dpui.range_explorer import clamp

FloatArray = NDArray[np.float64]

TREE_CHOICES = ("sc", *(str(k) for k in range(2, tree.MAX_FANOUT + 1)))
ALLOCATIONS = {
    "uniform": "uniform ε/Δ (Boost)",
    "level": "per-level optimal (Boost-UN)",
    "node": "per-node optimal (LUE-DPTree)",
}
WORKLOADS = {
    "uniform": "all ranges",
    "prefix": "prefix ranges",
    "length": "ranges of one length",
}
COLOURS = {
    "coverage": "coverage probability p_x",
    "budget": "budget ε_x",
    "noise": "noise std √2/ε_x",
    "weight": "|c_x|: weight in the chosen range's BLUE answer",
}

TREE = ChoiceParam("tb_tree", "sc", TREE_CHOICES)
ALLOCATION = ChoiceParam("tb_alloc", "node", tuple(ALLOCATIONS))
WORKLOAD = ChoiceParam("tb_workload", "uniform", tuple(WORKLOADS))
LENGTH = IntParam("tb_length", 16, 1, MAX_BINS)
COLOUR = ChoiceParam("tb_colour", "coverage", tuple(COLOURS))
SEED = IntParam("tb_seed", 0, 0, 2**31 - 1)
PARAMS = (TREE, ALLOCATION, WORKLOAD, LENGTH, COLOUR, SEED)


def tree_label(choice: str) -> str:
    return "optimise (Struct-Construct)" if choice == "sc" else f"{choice}-ary"


def workload_spec(kind: str, length: int, n: int) -> str:
    """The dpcore workload string; a length beyond ``n`` is clamped to ``n``."""
    return f"length:{min(length, n)}" if kind == "length" else kind


@st.cache_resource(max_entries=8, show_spinner="Building the tree…")
def build_tree(n: int, choice: str) -> tree.Tree:
    return tree.struct_construct(n) if choice == "sc" else tree.kary_tree(n, int(choice))


@dataclass(frozen=True)
class Allocation:
    budgets: FloatArray
    expected_error: float
    consistent_error: float
    release_epsilon: float


@dataclass(frozen=True)
class Analysis:
    coverage: FloatArray
    allocations: dict[str, Allocation]


@st.cache_resource(max_entries=16, show_spinner="Computing coverage and budgets…")
def analyse(n: int, choice: str, eps: float, workload: str) -> Analysis:
    t = build_tree(n, choice)
    p = coverage.coverage_probabilities(t, workload)
    made = {
        "uniform": budget.uniform_budgets(t, eps),
        "level": budget.per_level_budgets(t, eps, p),
        "node": budget.optimal_budgets(t, eps, p),
    }
    return Analysis(
        p,
        {
            name: Allocation(
                b,
                budget.raw_expected_error(p, b),
                errors.expected_range_error(t, b, consistent=True, workload=workload),
                budget.release_epsilon(t, b),
            )
            for name, b in made.items()
        },
    )


@dataclass(frozen=True)
class Release:
    """Node values (true, noisy, consistent) and the leaves' noisy/consistent histograms."""

    true: FloatArray
    noisy: FloatArray
    consistent: FloatArray
    noisy_leaves: FloatArray
    consistent_leaves: FloatArray


@st.cache_resource(max_entries=16, show_spinner="Adding noise and making it consistent…")
def make_release(
    digest: str, _hist: Histogram, choice: str, eps: float, workload: str, alloc: str, seed: int
) -> Release:
    """One seeded release; ``digest`` identifies ``_hist`` in the cache key."""
    t = build_tree(_hist.n_bins, choice)
    budgets = analyse(_hist.n_bins, choice, eps, workload).allocations[alloc].budgets
    rng = np.random.default_rng(seed)
    noisy = release.laplace_release(t, _hist.counts, budgets, rng)
    consistent = consistency.blue(t, noisy, budgets)
    return Release(
        release.node_sums(t, _hist.counts),
        noisy,
        consistent,
        queries.leaf_values(t, noisy),
        queries.leaf_values(t, consistent),
    )


@st.cache_data(max_entries=64, show_spinner=False)
def range_errors_by_allocation(
    n: int, choice: str, eps: float, workload: str, first: int, last: int
) -> dict[str, tuple[float, float, float, float]]:
    """Per allocation label: the 1-based range's exact MSE raw and after BLUE, then the
    workload averages raw and after BLUE."""
    t = build_tree(n, choice)
    a, b = np.array([first - 1]), np.array([last - 1])
    return {
        ALLOCATIONS[key]: (
            float(errors.raw_range_errors(t, x.budgets, a, b)[0]),
            float(errors.blue_range_errors(t, x.budgets, a, b)[0]),
            x.expected_error,
            x.consistent_error,
        )
        for key, x in analyse(n, choice, eps, workload).allocations.items()
    }


def error_bars(analysis: Analysis) -> dict[str, dict[str, float]]:
    """The allocation chart's data: per way of answering, each allocation's mean error."""
    names = {k: ALLOCATIONS[k] for k in analysis.allocations}
    return {
        "raw tree": {names[k]: a.expected_error for k, a in analysis.allocations.items()},
        "after BLUE": {names[k]: a.consistent_error for k, a in analysis.allocations.items()},
    }


def key_numbers(
    n: int, choice: str, eps: float, workload: str, alloc: str, first: int, last: int
) -> dict[str, float]:
    """The numbers a pinned comparison shows for one view of the page (exact errors)."""
    t = build_tree(n, choice)
    analysis = analyse(n, choice, eps, workload)
    numbers = {"height Δ": float(t.height), "nodes": float(t.size)}
    for key, a in analysis.allocations.items():
        numbers[f"mean error, {ALLOCATIONS[key]}, raw"] = a.expected_error
        numbers[f"mean error, {ALLOCATIONS[key]}, BLUE"] = a.consistent_error
    numbers["release ε"] = analysis.allocations[alloc].release_epsilon
    by_allocation = range_errors_by_allocation(n, choice, eps, workload, first, last)
    raw, blue, _, _ = by_allocation[ALLOCATIONS[alloc]]
    numbers["chosen range's error, raw"] = raw
    numbers["chosen range's error, BLUE"] = blue
    return numbers


def show_comparison(n: int, pinned: Mapping[str, Any], current: Mapping[str, Any]) -> None:
    """Pinned view A beside the current view B: the allocation chart on shared axes and the
    key numbers with their ratio."""

    def numbers_and_bars(v: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
        spec = workload_spec(v[WORKLOAD.name], v[LENGTH.name], n)
        first, last = clamp(v["tb_from"], v["tb_to"], n)
        numbers = key_numbers(n, v[TREE.name], v["eps"], spec, v[ALLOCATION.name], first, last)
        return numbers, error_bars(analyse(n, v[TREE.name], v["eps"], spec))

    (a, bars_a), (b, bars_b) = numbers_and_bars(pinned), numbers_and_bars(current)
    top = 1.15 * max(max(d.values()) for bars in (bars_a, bars_b) for d in bars.values())
    cols = st.columns(2)
    for col, label, bars, v in (
        (cols[0], "A (pinned)", bars_a, pinned),
        (cols[1], "B (current)", bars_b, current),
    ):
        setting = f"{tree_label(v[TREE.name])}, ε = {v['eps']:g}, {WORKLOADS[v[WORKLOAD.name]]}"
        col.markdown(f"**{label}:** {setting}")
        fig = tree_figures.allocation_errors(bars, ALLOCATIONS[v[ALLOCATION.name]])
        fig.update_yaxes(range=[0, top])
        col.plotly_chart(fig, key=f"compare_{label[0]}")
    pin.show_table(a, b)


def node_table(
    t: tree.Tree, p: FloatArray, budgets: FloatArray, rel: Release, limit: int
) -> pd.DataFrame:
    """The first ``limit`` nodes (breadth-first) as a table; bins shown 1-based as in the papers."""
    rows = slice(0, min(limit, t.size))
    return pd.DataFrame(
        {
            "node": np.arange(t.size)[rows],
            "depth": t.depth[rows],
            "first bin": t.lo[rows] + 1,
            "last bin": t.hi[rows] + 1,
            "parent": t.parent[rows],
            "coverage p_x": p[rows],
            "budget eps_x": budgets[rows],
            "noise std": noise_std(budgets[rows]),
            "true": rel.true[rows],
            "noisy": rel.noisy[rows],
            "consistent": rel.consistent[rows],
        }
    )


TABLE_LIMIT = 20_000


def noise_std(budgets: FloatArray) -> FloatArray:
    """Laplace noise standard deviation √2/ε_x per node (inf where unmeasured)."""
    return np.sqrt(release.laplace_variance(budgets))


def workload_text(spec: str) -> str:
    return parse_workload(spec).describe()


def allocation_table(analysis: Analysis) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "allocation": [ALLOCATIONS[k] for k in analysis.allocations],
            "raw tree": [a.expected_error for a in analysis.allocations.values()],
            "after BLUE": [a.consistent_error for a in analysis.allocations.values()],
            "release ε": [a.release_epsilon for a in analysis.allocations.values()],
        }
    )
