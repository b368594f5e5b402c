"""State and cached computations behind the "Tree & budgets" page.

Trees and releases are cached as shared objects (never mutated) rather than with
``cache_data``: at 2^20 bins a tree is ~100 MB of arrays, and ``cache_data``
would copy (pickle) them on every rerun. The caches are bounded by bytes
(:func:`dpui.kit.byte_cache.cache_by_bytes`), and the page runs only when
:func:`allowed` accepts the estimated cost.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from dpcore.hist import (
    allocation_rules,
    blue_error,
    blue_gradient,
    budget,
    cnp,
    consistency,
    coverage,
    hb,
    plans,
    queries,
    raw_error,
    release,
    tree,
)
from dpcore.hist import consistent_budget as cb
from dpcore.hist.workload import parse_workload
from dpcore.histogram import MAX_BINS, Histogram
from dpui.kit import byte_cache, limits, slow
from dpui.kit.params import BoolParam, ChoiceParam, IntParam, RangeParam, TextParam
from dpui.tree import typed_ranges

FloatArray = NDArray[np.float64]

TREE_CHOICES = ("sc", "hb", *(str(k) for k in range(2, tree.MAX_FANOUT + 1)))
ALLOCATIONS = {
    "uniform": "uniform ε/Δ (Boost)",
    "hb": "H_b: uniform, root not measured",
    "level": "per-level, optimal for the raw tree (Boost-UN)",
    "node": "per-node, optimal for the raw tree (LUE-DPTree)",
    "consistent": "per-level, optimal after consistency (BLUE)",
    "consistent_node": "per-node, optimal after consistency (BLUE)",
}
SLOW_ALLOCATIONS = ("consistent", "consistent_node")
"""Numeric searches: per level automatic up to :data:`AUTO_NODES` nodes, per node on request."""
AUTO_NODES = 40_000
"""Largest tree whose per-level search after BLUE runs without a click: about 0.5 s at this
size, which keeps a change of tree under a second (at 131,071 nodes it took 2 s; larger
trees get the search behind the button, with progress)."""
AUTO_DENSE_BINS = 256
"""Ranges of one length use a dense O(n^3) gradient: automatic only up to this many bins."""
AUTO_LISTED_WORK = 1_000_000
"""Typed ranges cost O(ranges x nodes) per gradient: automatic only up to this product
(e.g. 100 ranges on 10,000 nodes, about a second)."""
RULES: dict[str, allocation_rules.AllocationRule] = {
    "uniform": "uniform",
    "hb": "hb",
    "level": "per_level",
    "node": "optimal",
    "consistent": "consistent_level",
    "consistent_node": "consistent_level",  # the per-node search per fan-out would be too slow
}
WORKLOADS = {
    "uniform": "all ranges",
    "prefix": "prefix ranges",
    "length": "ranges of one length",
    "ranges": "custom ranges",
}
COLOURS = {
    "coverage": "coverage probability p_x",
    "budget": "budget ε_x",
    "noise": "noise std √2/ε_x",
    "weight": "|c_x|: weight in the chosen range's BLUE answer",
}

TREE = ChoiceParam("tb_tree", "sc", TREE_CHOICES)
ALLOCATION = ChoiceParam("tb_alloc", "node", tuple(ALLOCATIONS))
ROOT = BoolParam("tb_root", True)
WORKLOAD = ChoiceParam("tb_workload", "uniform", tuple(WORKLOADS))
LENGTH = IntParam("tb_length", 16, 1, MAX_BINS)
RANGES = TextParam("tb_ranges", "", typed_ranges.MAX_CHARS)
COLOUR = ChoiceParam("tb_colour", "coverage", tuple(COLOURS))
SEED = IntParam("tb_seed", 0, 0, 2**31 - 1)
# bins shown (1-based, inclusive) in the icicle and the histogram; clamped to the data's n
ZOOM = RangeParam("tb_zoom", (1, MAX_BINS), 1, MAX_BINS)
SECTIONS = {
    "range": "Explore one range",
    "errors": "Expected error & fan-out",
    "nodes": "Node table",
    "sc": "How Struct-Construct splits",
}
SECTION = ChoiceParam("tb_show", "range", tuple(SECTIONS))
PARAMS = (TREE, ALLOCATION, ROOT, WORKLOAD, LENGTH, RANGES, COLOUR, SEED, ZOOM)


def clamp_zoom(zoom: tuple[int, int], n: int) -> tuple[int, int]:
    """``zoom`` inside ``[1, n]`` (a link or an earlier dataset may ask for more bins)."""
    first = min(max(int(zoom[0]), 1), n)
    return first, min(max(int(zoom[1]), first), n)


def tree_label(choice: str) -> str:
    if choice == "sc":
        return "optimise (Struct-Construct)"
    if choice == "hb":
        return "H_b's fan-out (Qardaji et al.)"
    return f"{choice}-ary"


def workload_spec(kind: str, length: int, typed: str, n: int) -> tuple[str, str | None]:
    """The dpcore workload string, and why the typed ranges cannot be used (``None`` if they
    can; the workload is then all ranges). A length beyond ``n`` is clamped to ``n``."""
    if kind == "length":
        return f"length:{min(length, n)}", None
    if kind == "ranges":
        try:
            return typed_ranges.to_workload(typed, n), None
        except ValueError as err:
            return "uniform", str(err)
    return kind, None


def page_cost(n: int, choice: str) -> limits.Cost:
    """Tree & budgets: the tree (Struct-Construct 9 µs per bin, k-ary 0.3 µs), three budget
    allocations with their exact errors after BLUE (8 µs per bin), one release (0.3 µs);
    600 bytes per bin at peak (``bench/bench_costs.py``: 475 MB at 2^20 bins for the 4-ary
    tree, 158 MB at 2^18 for the binary one; the model had 250)."""
    build = 9e-6 if choice == "sc" else 0.3e-6
    return limits.Cost(n * (build + 8e-6 + 0.3e-6), n * 600 / limits.MB)


def build_tree(n: int, choice: str) -> tree.Tree:
    if choice == "sc":
        return tree.struct_construct(n)
    return tree.kary_tree(n, hb.hb_fanout(n) if choice == "hb" else int(choice))


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


def _allocation(t: tree.Tree, b: FloatArray, workload: str) -> Allocation:
    return Allocation(
        b,
        raw_error.raw_expected_error(t, b, workload),
        plans.expected_range_error(t, b, consistent=True, workload=workload),
        budget.release_epsilon(t, b),
    )


def consistent_unavailable(n: int, choice: str, workload: str) -> str | None:
    """Why the searches after BLUE cannot run for this workload (``None`` if they can)."""
    limit = blue_gradient.DENSE_GRADIENT_LIMIT
    if workload.startswith("length:") and n > limit:
        return (
            f"The allocations optimal after consistency need the exact gradient, computed "
            f"densely for ranges of one length up to n = {limit:,} bins; "
            "choose all ranges or prefix ranges for this histogram."
        )
    too_much = blue_gradient.listed_gradient_unavailable(
        build_tree(n, choice).size, parse_workload(workload)
    )
    if too_much is not None:
        return f"The allocations optimal after consistency are not available: {too_much}."
    return None


def automatic(n: int, choice: str, workload: str) -> tuple[str, ...]:
    """The slow allocations computed without a click for this tree and workload."""
    size = build_tree(n, choice).size
    small = size <= AUTO_NODES
    if workload.startswith("length:"):
        small = small and n <= AUTO_DENSE_BINS
    if workload.startswith("ranges:"):
        small = small and parse_workload(workload).size(n) * size <= AUTO_LISTED_WORK
    unavailable = consistent_unavailable(n, choice, workload)
    return ("consistent",) if small and unavailable is None else ()


@byte_cache.cache_by_bytes(max_entries=16, spinner="Computing coverage and budgets…")
def analyse(n: int, choice: str, eps: float, workload: str, measure_root: bool) -> Analysis:
    """Coverage and every allocation that runs without a click (see :func:`automatic`)."""
    t = build_tree(n, choice)
    p = coverage.coverage_probabilities(t, workload)
    made = {
        "uniform": budget.uniform_budgets(t, eps, measure_root=measure_root),
        "hb": budget.uniform_budgets(t, eps, measure_root=False),
        "level": budget.per_level_budgets(t, eps, p),
        "node": budget.optimal_budgets(t, eps, p),
    }
    done = {name: _allocation(t, b, workload) for name, b in made.items()}
    if "consistent" in automatic(n, choice, workload):
        done["consistent"] = _consistent_level(n, choice, eps, workload)
    return Analysis(p, done)


@byte_cache.cache_by_bytes(max_entries=16, spinner="Searching the per-level budgets after BLUE…")
def _consistent_level(n: int, choice: str, eps: float, workload: str) -> Allocation:
    t = build_tree(n, choice)
    return _allocation(t, cb.consistent_optimal_budgets(t, eps, workload), workload)


def _slow_key(n: int, choice: str, eps: float, workload: str) -> tuple[int, str, float, str]:
    return (n, choice, eps, workload)


def searched(n: int, choice: str, eps: float, workload: str, alloc: str) -> Allocation | None:
    """A slow allocation if it has been computed (automatically or on request)."""
    if alloc in automatic(n, choice, workload):
        return _consistent_level(n, choice, eps, workload)
    found: Allocation | None = slow.done(alloc, _slow_key(n, choice, eps, workload))
    return found


def search(n: int, choice: str, eps: float, workload: str, alloc: str) -> Allocation:
    """Run (once, with a progress bar) the search after BLUE ``alloc`` for this tree."""
    done = searched(n, choice, eps, workload, alloc)
    if done is not None:
        return done
    t = build_tree(n, choice)
    granularity: cb.Granularity = "node" if alloc == "consistent_node" else "level"

    def compute(progress: slow.Progress) -> Allocation:
        b = cb.consistent_optimal_budgets(
            t, eps, workload, granularity=granularity, progress=progress
        )
        return _allocation(t, b, workload)

    text = f"Searching {ALLOCATIONS[alloc]} ({t.size:,} nodes)…"
    result: Allocation = slow.run(alloc, _slow_key(n, choice, eps, workload), compute, text)
    return result


def all_allocations(
    n: int, choice: str, eps: float, workload: str, measure_root: bool
) -> dict[str, Allocation]:
    """Every allocation available now, in :data:`ALLOCATIONS` order."""
    ready = dict(analyse(n, choice, eps, workload, measure_root).allocations)
    for alloc in SLOW_ALLOCATIONS:
        found = searched(n, choice, eps, workload, alloc)
        if found is not None:
            ready[alloc] = found
    return {k: ready[k] for k in ALLOCATIONS if k in ready}


def fanout_rule(alloc: str, measure_root: bool) -> allocation_rules.AllocationRule:
    """The rule scored per fan-out for allocation ``alloc`` (uniform without root: H_b)."""
    return "hb" if alloc == "uniform" and not measure_root else RULES[alloc]


def rule_text(rule: allocation_rules.AllocationRule) -> str:
    names = {"per_level": "level", "optimal": "node", "consistent_level": "consistent"}
    return ALLOCATIONS[names.get(rule, rule)]


def k_star(n: int) -> int:
    """Struct-Construct's ``k*`` (raw tree, uniform budgets)."""
    return tree.best_fanout(n)


def fanout_after_consistency(
    n: int, eps: float, workload: str, rule: allocation_rules.AllocationRule
) -> int | None:
    """The fan-out whose k-ary tree has the least error after BLUE under ``rule``,
    if it has been computed (:func:`find_fanout`)."""
    found: int | None = slow.done("fanout", (n, eps, workload, rule))
    return found


def fanout_scan(n: int, listed: int = 0) -> limits.Cost:
    """Scoring fan-outs 2..20 after BLUE: 19 per-level searches at about 35 µs per bin each
    (2.3 s for the slowest, k = 2, at 65,536 bins, in ``bench/bench_allocation.py``), and
    about 1.6 µs more per bin and range for a search over ``listed`` typed ranges (30
    gradients of 40 ns per range and node, about 1.3 nodes per bin)."""
    return limits.Cost(19 * n * (35e-6 + listed * 1.6e-6), n * 300 / limits.MB)


def fanout_unavailable(n: int, workload: str, rule: allocation_rules.AllocationRule) -> str | None:
    """Why the fan-outs cannot be scored under ``rule`` (``None`` if they can): the search
    after BLUE over typed ranges is over its limit on the binary tree."""
    if rule != "consistent_level" or not workload.startswith("ranges:"):
        return None
    binary_nodes = 2 * n - 1  # a binary tree splits down to single bins
    reason = blue_gradient.listed_gradient_unavailable(binary_nodes, parse_workload(workload))
    if reason is None:
        return None
    return f"The fan-outs cannot be scored under {rule_text(rule)}: on the binary tree, {reason}."


def find_fanout(
    n: int, eps: float, workload: str, rule: allocation_rules.AllocationRule
) -> int | None:
    """Search k = 2..20 (once, with a progress bar) for :func:`fanout_after_consistency`;
    None (with the reason shown) when the search is over the work limit."""
    listed = parse_workload(workload).size(n) if workload.startswith("ranges:") else 0
    if not limits.allow_requested(
        f"scoring fan-outs 2–{tree.MAX_FANOUT} after BLUE over {n:,} bins",
        fanout_scan(n, listed if rule == "consistent_level" else 0),
        smaller="use a histogram with fewer bins",
        library="dpcore.hist.allocation_rules.fanout_after_consistency",
    ):
        return None

    def compute(progress: slow.Progress) -> int:
        return allocation_rules.fanout_after_consistency(n, eps, workload, rule, progress=progress)[
            0
        ]

    text = f"Scoring fan-outs 2–{tree.MAX_FANOUT} after BLUE…"
    found: int = slow.run("fanout", (n, eps, workload, rule), compute, text)
    return found


@dataclass(frozen=True)
class Release:
    """Node values (true, noisy, consistent) and the leaves' noisy/consistent histograms."""

    true: FloatArray
    noisy: FloatArray
    consistent: FloatArray
    noisy_leaves: FloatArray
    consistent_leaves: FloatArray


@byte_cache.cache_by_bytes(max_entries=16, spinner="Adding noise and making it consistent…")
def make_release(
    digest: str,
    _hist: Histogram,
    choice: str,
    eps: float,
    workload: str,
    alloc: str,
    measure_root: bool,
    seed: int,
) -> Release:
    """One seeded release; ``digest`` identifies ``_hist`` in the cache key.

    A searched allocation must have been computed first (:func:`search`).
    """
    t = build_tree(_hist.n_bins, choice)
    budgets = all_allocations(_hist.n_bins, choice, eps, workload, measure_root)[alloc].budgets
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


@byte_cache.cache_by_bytes(max_entries=256)
def _range_errors(
    budgets: FloatArray, n: int, choice: str, first: int, last: int
) -> tuple[float, float]:
    """The 1-based range's exact MSE raw and after BLUE under ``budgets``."""
    t = build_tree(n, choice)
    a, b = np.array([first - 1]), np.array([last - 1])
    return (
        float(raw_error.raw_range_errors(t, budgets, a, b)[0]),
        float(blue_error.blue_range_errors(t, budgets, a, b)[0]),
    )


def range_errors_by_allocation(
    n: int, choice: str, allocations: Mapping[str, Allocation], first: int, last: int
) -> dict[str, tuple[float, float, float, float]]:
    """Per allocation label: the 1-based range's exact MSE raw and after BLUE, then the
    workload averages raw and after BLUE."""
    return {
        ALLOCATIONS[key]: (
            *_range_errors(x.budgets, n, choice, first, last),
            x.expected_error,
            x.consistent_error,
        )
        for key, x in allocations.items()
    }


def error_bars(allocations: Mapping[str, Allocation]) -> dict[str, dict[str, float]]:
    """The allocation chart's data: per way of answering, each allocation's mean error."""
    return {
        "raw tree": {ALLOCATIONS[k]: a.expected_error for k, a in allocations.items()},
        "after BLUE": {ALLOCATIONS[k]: a.consistent_error for k, a in allocations.items()},
    }


def key_numbers(
    n: int, choice: str, allocations: Mapping[str, Allocation], alloc: str, first: int, last: int
) -> dict[str, float]:
    """The numbers a pinned comparison shows for one view of the page (exact errors)."""
    t = build_tree(n, choice)
    numbers = {"height Δ": float(t.height), "nodes": float(t.size)}
    for key, a in allocations.items():
        numbers[f"mean error, {ALLOCATIONS[key]}, raw"] = a.expected_error
        numbers[f"mean error, {ALLOCATIONS[key]}, BLUE"] = a.consistent_error
    chosen = alloc if alloc in allocations else "node"
    numbers["release ε"] = allocations[chosen].release_epsilon
    raw, blue = _range_errors(allocations[chosen].budgets, n, choice, first, last)
    numbers["chosen range's error, raw"] = raw
    numbers["chosen range's error, BLUE"] = blue
    return numbers


def node_table(
    t: tree.Tree, p: FloatArray, budgets: FloatArray, rel: Release, limit: int
) -> pd.DataFrame:
    """The first ``limit`` nodes (breadth-first) as a table; bins shown 1-based as in the papers.

    ``a_x, b_x`` are the per-node optimum's coefficients for this coverage (whatever the
    chosen allocation): that optimum gives node x the share a_x / b_x of its path budget.
    """
    rows = slice(0, min(limit, t.size))
    a, b = cnp.coefficients(t, p)
    return pd.DataFrame(
        {
            "node": np.arange(t.size)[rows],
            "depth": t.depth[rows],
            "first bin": t.lo[rows] + 1,
            "last bin": t.hi[rows] + 1,
            "parent": t.parent[rows],
            "coverage p_x": p[rows],
            "budget eps_x": budgets[rows],
            "a_x (CNP)": a[rows],
            "b_x (CNP)": b[rows],
            "noise std": noise_std(budgets[rows]),
            "true": rel.true[rows],
            "noisy": rel.noisy[rows],
            "consistent": rel.consistent[rows],
        }
    )


TABLE_LIMIT = 2_000
"""Nodes shown in the page's table: a screenful scrolls through them; more only slow every
rerun (the download has every node)."""


def noise_std(budgets: FloatArray) -> FloatArray:
    """Laplace noise standard deviation √2/ε_x per node (inf where unmeasured)."""
    return np.sqrt(release.laplace_variance(budgets))


def workload_text(spec: str) -> str:
    return parse_workload(spec).describe()


MINIMISES = {
    "uniform": "—",
    "hb": "— (Qardaji et al.'s rule)",
    "level": "raw tree",
    "node": "raw tree",
    "consistent": "after BLUE",
    "consistent_node": "after BLUE",
}
"""Which error each allocation is optimal for."""


def allocation_table(allocations: dict[str, Allocation]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "allocation": [ALLOCATIONS[k] for k in allocations],
            "optimal for": [MINIMISES[k] for k in allocations],
            "raw tree": [a.expected_error for a in allocations.values()],
            "after BLUE": [a.consistent_error for a in allocations.values()],
            "release ε": [a.release_epsilon for a in allocations.values()],
        }
    )
