"""One view of the Error analysis page as a function of its settings: the page's cost
estimate and its pure ``view`` (the table, the chart, the key numbers a pinned comparison
shows), for the current view B and a pinned view A alike.

The closed forms of a view are within the work limit or the view is refused (:func:`cost`);
its simulation runs when it is within the limit too, or when this session asked for it
("Run it", :func:`dpui.kit.limits.allow_or_offer`, offered by the page's body for view B),
and is otherwise left out (the closed forms are shown alone).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpcore.hist import release
from dpcore.histogram import Histogram
from dpui.errors import figures as figures
from dpui.errors.index import (
    curves_by_algorithm,
    index_cost,
    index_curves,
    index_estimates,
    index_levels,
    index_table,
    paper_indices,
)
from dpui.errors.optimised import pidentity_n, pidentity_strategy, with_pidentity
from dpui.errors.settings import (
    ALL_RANGES_LIMIT,
    EPSILONS,
    SIMULATED_MAX_M,
    VIEWS,
    Settings,
)
from dpui.errors.simulation import (
    Progress,
    epsilon_curve,
    error_simulation,
    fixed_ranges,
    length_curve,
    progress_bar,
    size_curve,
)
from dpui.kit import limits, sidebar
from dpui.kit.page import Estimate, Inputs, Refused, View


@dataclass(frozen=True)
class Result:
    """One view computed: its table, its chart and the chart's caption."""

    table: pd.DataFrame
    figure: go.Figure
    note: str


@dataclass(frozen=True)
class Detail:
    """What the page's body draws for view B: its settings as computed (the accuracy
    index's m fitted to the work limit, the simulation left out when over it), the result,
    the m asked for, and the key of a simulation the body may offer to run on request."""

    settings: Settings
    result: Result
    hist: Histogram
    wanted_index_m: int
    offer: tuple[int, Settings] | None
    problem: str | None = None
    """Why the data cannot be simulated at this ε (:func:`data_problem`)."""


def work_cost(
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
        return index_cost(keys, index_m)
    if choice == "length":
        return error_simulation(keys, n, 1, releases, queries * (n.bit_length()))
    if choice == "fixed":
        return error_simulation(keys, fixed_n, 1, releases, fixed_ranges)
    if choice == "epsilon":
        return error_simulation(keys, n, len(EPSILONS), releases, queries)
    total = limits.Cost(0.0, 0.0)
    for m in range(max_m + 1):
        simulated = releases if m <= SIMULATED_MAX_M else 0
        every = 2**m * (2**m + 1) // 2
        ranges = every if every <= ALL_RANGES_LIMIT else queries
        total += error_simulation(keys, 2**m, 1, simulated, ranges)
    return total


def settings_cost(s: Settings, n: int, *, releases: int) -> limits.Cost:
    """:func:`work_cost` of view ``s`` on ``n`` bins."""
    return work_cost(
        s.view,
        s.keys,
        n=n,
        releases=releases,
        queries=s.queries,
        fixed_n=s.fixed_n,
        fixed_ranges=s.fixed_ranges,
        max_m=s.max_m,
        index_m=s.index_m,
    )


def fitted(s: Settings) -> Settings:
    """``s`` with the accuracy index's m reduced to the largest within the work limit."""
    return replace(s, index_m=index_levels(s.keys, s.index_m)) if s.view == "index" else s


def cost(inputs: Inputs) -> Estimate | None:
    """The closed forms of the view set by ``inputs``, and its simulation when it runs with
    them (within the limit for a change; a larger one is offered and runs on request, checked
    apart by :func:`simulation_runs`); None when no algorithm is chosen (the view says so)."""
    s = fitted(Settings.of(inputs.values))
    if not s.keys:
        return None
    n = inputs.hist.n_bins
    simulated = s.simulate and s.view != "index"
    releases = (
        s.releases if simulated and limits.within(settings_cost(s, n, releases=s.releases)) else 0
    )
    return Estimate(
        f"the view '{VIEWS[s.view]}' for {len(s.keys)} algorithm(s)",
        settings_cost(s, n, releases=releases),
        smaller="choose fewer algorithms, fewer ranges, or a smaller N or m",
        library="dpcore.hist.accuracy_index",
    )


SIMULATION_SMALLER = "choose fewer algorithms, fewer releases or ranges, or a smaller N"
SIMULATION_LIBRARY = "dpcore.hist.empirical"


def simulation_what(s: Settings) -> str:
    return f"simulating the view '{VIEWS[s.view]}' for {len(s.keys)} algorithm(s)"


def simulation_runs(s: Settings, n: int) -> bool:
    """Whether the simulation of view ``s`` runs now: within the work limit, or asked for by
    this session's "Run it" for exactly ``(n, s)`` and within the limit of a requested run
    (the test :func:`dpui.kit.limits.allow_or_offer` makes, without drawing its offer)."""
    cost = settings_cost(s, n, releases=s.releases)
    return limits.within(cost, on_request=(n, s) in limits.requested())


def data_problem(s: Settings, hist: Histogram) -> str | None:
    """Why view ``s`` cannot simulate releases of ``hist`` (None when it can): the node sums it
    would perturb (the histogram, or for the fixed ranges the histogram repeated or cut to N)
    are beyond what float64 noise at its largest ε keeps. The exact values do not depend on
    the data, so they are shown all the same."""
    if s.view not in ("length", "fixed", "epsilon"):
        return None  # all-zero histograms, or exact values only
    eps = max(EPSILONS) if s.view == "epsilon" else s.eps
    data = np.resize(hist.counts, s.fixed_n) if s.view == "fixed" else hist.counts
    total = float(np.abs(data).sum())
    limit = release.largest_count(eps)
    if total <= limit:
        return None
    what = "the histogram repeated or cut to N" if s.view == "fixed" else "the histogram"
    return (
        f"Not simulated: releases of {what} reach node sums of {total:.4g}, more than Laplace "
        f"noise at ε = {eps:g} can perturb in float64 ({limit:.4g}); exact values only. "
        "Choose a smaller ε, or a histogram counted in larger units (e.g. thousands)."
    )


def view(inputs: Inputs) -> View:
    """The view set by ``inputs``: its chart at half width (as a comparison draws it), its
    key numbers, and the full result for the body; :class:`Refused` without algorithms."""
    asked = Settings.of(inputs.values)
    if not asked.keys:
        raise Refused("Choose at least one algorithm above (none is chosen).")
    hist = inputs.hist
    s = fitted(asked)
    offer = None
    problem = data_problem(s, hist) if s.simulate else None
    if problem is not None:
        s = replace(s, simulate=False)
    elif s.simulate and s.view != "index":
        offer = (hist.n_bins, s)
        s = replace(s, simulate=simulation_runs(s, hist.n_bins))
    with progress_bar(s.simulate or s.view == "index") as progress:
        result = compute(s, hist, sidebar.histogram_digest(hist), progress)
    note = "Budgets optimised for all ranges equally likely. " + KEY_NUMBERS_NOTE[s.view]
    if s.index_m < asked.index_m and s.view == "index":
        note += f" Trees up to m = {s.index_m}, not {asked.index_m}: this server's work limit."
    if offer is not None and not s.simulate:
        note += " Simulation over this server's work limit: exact values only."
    if problem is not None:
        note += " " + problem
    return View(
        s.describe(),
        figures.half_width(result.figure),
        chart_settings(s, hist),
        key_numbers(s, result),
        detail=Detail(s, result, hist, asked.index_m, offer, problem),
        share="y" if s.view == "index" else "xy",
        kind=s.view,
        note=note,
    )


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
