"""State and computations behind the range-query explorer of the "Tree & budgets" page.

One range ``[a, b]`` (1-based in the UI, as in the node table) is followed through the
current release: the nodes a raw-tree answer sums (its canonical decomposition), the
weight of every node's measurement in the BLUE-consistent answer, the range's exact
expected error both ways, the exact distribution of that error over releases beside a
seeded simulation of it, and the same range's exact error under the other allocations,
flat Laplace and Privelet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.hist import (
    blue_error,
    consistency,
    laplace_sum,
    plans,
    queries,
    raw_error,
    release,
    tree,
)
from dpcore.histogram import MAX_BINS
from dpui.kit import downloads, present, state
from dpui.kit.params import IntParam
from dpui.tree import range_figures
from dpui.tree.error_spread import ErrorSpread, error_spread

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

FIRST = IntParam("tb_from", 2, 1, MAX_BINS)
LAST = IntParam("tb_to", 11, 1, MAX_BINS)
PARAMS = (FIRST, LAST)

TOP_NODES = 20
"""Nodes listed in the table (and named in the chart): the largest shares of the BLUE error."""
TABLE_ROWS, TABLE_PX = 12, 460  # the node table scrolls beyond this many rows, at this height
SIMULATED_RELEASES = 2_000


def clamp(first: int, last: int, n: int) -> tuple[int, int]:
    """A valid 1-based range inside ``[1, n]``: bounds clipped, swapped if reversed.

    >>> clamp(11, 2, 8)
    (2, 8)
    """
    first, last = sorted((min(max(first, 1), n), min(max(last, 1), n)))
    return first, last


def range_from_selection(
    selection: Mapping[str, Any], n: int, block: int, first: int = 1
) -> tuple[int, int] | None:
    """The 1-based bin range a box (or clicked bars) selects on the histogram chart, or None.

    The chart shows bins ``first, first + 1, ...`` (a zoom window). Its x axis is the bin
    number (1-based; the first bin of a block of ``block`` bins when blocks are summed) or,
    for small labelled histograms, one bar per bin; selected points carry their 0-based
    ``point_index`` within the window.

    >>> range_from_selection({"box": [{"x": [10.4, 3.2]}], "points": []}, 100, 1)
    (4, 10)
    >>> range_from_selection({"box": [], "points": [{"point_index": 2}, {"point_index": 5}]}, 8, 1)
    (3, 6)
    >>> range_from_selection({"box": [], "points": []}, 8, 1) is None
    True
    """
    points = [p["point_index"] for p in selection.get("points", []) if "point_index" in p]
    if points:
        return clamp(first + min(points) * block, first - 1 + (max(points) + 1) * block, n)
    for box in selection.get("box", []):
        xs = box.get("x", [])
        if len(xs) == 2 and all(isinstance(x, int | float) for x in xs):
            lo, hi = sorted(float(x) for x in xs)
            start = int(np.ceil(lo - (block - 1))) if block > 1 else int(np.ceil(lo))
            return clamp(start, int(np.floor(hi)) + block - 1, n)
    return None


@dataclass(frozen=True)
class RangeStudy:
    """One range of one release, seen raw and after BLUE."""

    first: int
    last: int
    decomposition: IntArray
    """Nodes whose noisy values sum to the raw answer (breadth-first)."""
    weights: FloatArray
    """Every node's weight ``c_x`` in the BLUE answer ``sum_x c_x h~_x`` (0 if unmeasured)."""
    variance: FloatArray
    """``2 / eps_x^2`` per node (inf where unmeasured)."""
    true: float
    raw_answer: float
    blue_answer: float
    raw_error: float
    blue_error: float

    @property
    def blue_shares(self) -> FloatArray:
        """Each node's share ``c_x^2 Var_x / MSE`` of the BLUE answer's error."""
        with np.errstate(invalid="ignore"):
            part = np.where(self.weights != 0, self.weights**2 * self.variance, 0.0)
        return part / self.blue_error if self.blue_error > 0 else part


def study(
    t: tree.Tree,
    budgets: FloatArray,
    counts: FloatArray,
    noisy: FloatArray,
    consistent_leaves: FloatArray,
    first: int,
    last: int,
) -> RangeStudy:
    """Follow the 1-based range ``[first, last]`` through a release (``O(n)`` for the weights)."""
    a, b = first - 1, last - 1
    variance = release.laplace_variance(budgets)
    decomposition = queries.canonical_decomposition(t, a, b, budgets)
    weights = consistency.blue_range_weights(t, budgets, a, b)
    lo, hi = np.array([a]), np.array([b])
    return RangeStudy(
        first,
        last,
        decomposition,
        weights,
        variance,
        float(counts[a : b + 1].sum()),
        float(queries.answer_raw(t, noisy, lo, hi)[0]),
        float(consistent_leaves[a : b + 1].sum()),
        float(raw_error.raw_range_errors(t, budgets, lo, hi)[0]),
        float(blue_error.blue_range_errors(t, budgets, lo, hi)[0]),
    )


def node_table(
    t: tree.Tree, budgets: FloatArray, s: RangeStudy, top: int = TOP_NODES
) -> pd.DataFrame:
    """The nodes that matter for the range: its decomposition and the largest BLUE shares."""
    shares = s.blue_shares
    order = np.argsort(-shares, kind="stable")
    chosen = np.union1d(s.decomposition, order[: min(top, int(np.count_nonzero(shares)))])
    chosen = chosen[np.argsort(-shares[chosen], kind="stable")]
    in_raw = np.isin(chosen, s.decomposition)
    with np.errstate(divide="ignore", invalid="ignore"):
        raw_share = np.where(in_raw, s.variance[chosen] / s.raw_error, 0.0)
    return pd.DataFrame(
        {
            "node": chosen,
            "first bin": t.lo[chosen] + 1,
            "last bin": t.hi[chosen] + 1,
            "depth": t.depth[chosen],
            "budget ε_x": budgets[chosen],
            "variance 2/ε_x²": s.variance[chosen],
            "in raw answer": np.where(in_raw, "yes", "—"),
            "raw share of error": raw_share,
            "BLUE weight c_x": s.weights[chosen],
            "BLUE share of error": shares[chosen],
        }
    )


@st.cache_data(max_entries=64, show_spinner=False)
def spreads(scales: dict[str, FloatArray], releases: int, seed: int) -> dict[str, ErrorSpread]:
    """Error spreads of one range, per way of answering (scales of the weighted nodes only)."""
    return {name: error_spread(s, releases, seed + i) for i, (name, s) in enumerate(scales.items())}


def method_errors(
    n: int,
    eps: float,
    workload: str,
    first: int,
    last: int,
    allocations: Mapping[str, tuple[float, float, float, float]],
) -> pd.DataFrame:
    """This range's exact MSE against the workload average, per method.

    ``allocations`` maps an allocation's label to (range raw, range BLUE, average raw,
    average BLUE) on the current tree.
    """
    lo, hi = np.array([first - 1]), np.array([last - 1])
    rows = []
    for label, (raw, blue, raw_avg, blue_avg) in allocations.items():
        rows.append((f"{label}, raw", raw, raw_avg))
        rows.append((f"{label}, BLUE", blue, blue_avg))
    for key, label in (("dwork", "flat Laplace"), ("privelet", "Privelet")):
        plan = plans.prepare(key, n, eps, workload)
        rows.append(
            (
                label,
                float(plans.plan_range_errors(plan, lo, hi)[0]),
                plans.plan_expected_error(plan),
            )
        )
    return pd.DataFrame(rows, columns=["method", "this range", "workload average"])


def select_from_chart(chart_key: str, n: int, block: int, first: int) -> None:
    """``on_select`` callback of the histogram chart: a box (or clicked bars) sets the range."""
    event = st.session_state.get(chart_key)
    chosen = range_from_selection(event["selection"], n, block, first) if event else None
    if chosen is not None:
        st.session_state[FIRST.name], st.session_state[LAST.name] = chosen


def _keep_order(changed: IntParam, other: IntParam) -> None:
    """A bound moved past the other one drags it along (a one-bin range), rather than swapping."""
    value, bound = int(state.get(changed)), int(state.get(other))
    if (changed is FIRST and value > bound) or (changed is LAST and value < bound):
        st.session_state[other.name] = value


def clamp_state(n: int) -> None:
    """Keep the range widgets' values inside ``[1, n]`` (before the widgets are drawn)."""
    first = int(st.session_state.get(FIRST.name, FIRST.default))
    last = int(st.session_state.get(LAST.name, LAST.default))
    st.session_state[FIRST.name], st.session_state[LAST.name] = clamp(first, last, n)


def numbers(n: int, s: RangeStudy) -> None:
    """The explorer's inputs and the range's answers and exact errors (drawn first: the
    first result a user sees after choosing a range)."""
    c1, c2, c3 = st.columns([1, 1, 3], vertical_alignment="bottom")
    c1.number_input("First bin", 1, n, key=FIRST.name, on_change=_keep_order, args=(FIRST, LAST))
    c2.number_input("Last bin", 1, n, key=LAST.name, on_change=_keep_order, args=(LAST, FIRST))
    c3.caption(
        "Or drag across the histogram above (shaded: the chosen range). The tree's outlined "
        "nodes are the range's **canonical decomposition**: the fewest nodes that tile it, "
        "whose noisy values the raw tree adds up."
    )
    m = st.columns(5)
    m[0].metric("True answer", f"{s.true:,.6g}")
    m[1].metric(
        "Raw tree answer", f"{s.raw_answer:,.6g}", help="Sum of the decomposition's noisy nodes."
    )
    m[2].metric("BLUE answer", f"{s.blue_answer:,.6g}", help="Sum of the consistent leaves.")
    m[3].metric(
        "Expected error, raw",
        f"{s.raw_error:,.4g}",
        help="Exact MSE: Σ 2/ε_x² over the decomposition.",
    )
    m[4].metric("Expected error, BLUE", f"{s.blue_error:,.4g}", help="Exact MSE: Σ c_x² · 2/ε_x².")


def details(
    t: tree.Tree,
    budgets: FloatArray,
    s: RangeStudy,
    eps: float,
    workload: str,
    seed: int,
    by_allocation: Mapping[str, tuple[float, float, float, float]],
    current: str,
    settings: Mapping[str, Any],
) -> None:
    """The range's error spread over releases, its error per method, and its nodes."""
    n = t.n_bins
    scales = {
        "raw tree": laplace_sum.node_scales(np.isin(np.arange(t.size), s.decomposition), budgets),
        "after BLUE": laplace_sum.node_scales(s.weights, budgets),
    }
    finite = {k: v[v > 0] for k, v in scales.items() if np.all(np.isfinite(v)) and np.any(v > 0)}
    table = method_errors(n, eps, workload, s.first, s.last, by_allocation)
    present.show_chart(
        range_figures.range_panels(
            spreads(finite, SIMULATED_RELEASES, seed) if finite else {}, table, f"{current}, BLUE"
        ),
        {**settings, "range": f"[{s.first:,}, {s.last:,}]"},
        key="range_chart",
    )
    st.caption(
        "Above: the simulated error of this range's answer over seeded releases (noise drawn "
        "only for the nodes it involves) and its exact density (a sum of independent Laplace "
        "variables, inverted from its characteristic function); their variance is the expected "
        "squared error above. Below: the same range's exact expected squared error under each "
        "allocation, flat Laplace and Privelet, beside each one's average over the workload."
    )
    st.markdown(
        f"**The nodes that matter** for [{s.first}, {s.last}]: its decomposition and the "
        f"{TOP_NODES} largest shares of the BLUE answer's error. The BLUE answer is a linear "
        "combination of *all* node measurements, c_x being node x's weight; its error is "
        "Σ c_x² · 2/ε_x²."
    )
    nodes = node_table(t, budgets, s)
    # a static table, not an interactive grid: the grid redrew its cells a fifth of a second
    # after the rest of the page, on every change of the range
    floats = nodes.select_dtypes("float").columns
    st.table(
        nodes.style.format("{:,.4g}", subset=floats).hide(axis="index"),
        height="content" if len(nodes) <= TABLE_ROWS else TABLE_PX,
    )
    downloads.csv_button("Download the range's nodes (CSV)", nodes, "range_nodes.csv")
