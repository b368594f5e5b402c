"""State and cached computations behind the "Tree & budgets" page.

Trees and releases are cached with ``st.cache_resource`` rather than
``cache_data``: at 2^20 bins a tree is ~100 MB of arrays, and ``cache_data``
would copy (pickle) them on every rerun. The cached objects are never mutated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore import budget, consistency, coverage, errors, queries, release, tree
from dpcore.histogram import MAX_BINS, Histogram
from dpcore.workload import parse_workload
from dpui.params import ChoiceParam, IntParam, RangeParam

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
}

TREE = ChoiceParam("tb_tree", "sc", TREE_CHOICES)
ALLOCATION = ChoiceParam("tb_alloc", "node", tuple(ALLOCATIONS))
WORKLOAD = ChoiceParam("tb_workload", "uniform", tuple(WORKLOADS))
LENGTH = IntParam("tb_length", 16, 1, MAX_BINS)
COLOUR = ChoiceParam("tb_colour", "coverage", tuple(COLOURS))
SEED = IntParam("tb_seed", 0, 0, 2**31 - 1)
# bins shown (1-based, inclusive) in the icicle and the histogram; clamped to the data's n
ZOOM = RangeParam("tb_zoom", (1, MAX_BINS), 1, MAX_BINS)
PARAMS = (TREE, ALLOCATION, WORKLOAD, LENGTH, COLOUR, SEED, ZOOM)


def clamp_zoom(zoom: tuple[int, int], n: int) -> tuple[int, int]:
    """``zoom`` inside ``[1, n]`` (a link or an earlier dataset may ask for more bins)."""
    first = min(max(int(zoom[0]), 1), n)
    return first, min(max(int(zoom[1]), first), n)


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
