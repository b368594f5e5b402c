"""Calibration bench: every cost model's estimate beside the measured cost of what it estimates.

For each cost model (the pages' ``cost`` and the models they and their buttons are gated
by: ``page_cost``, ``fanout_scan``, ``index_cost``, ``error_simulation``/``work_cost``,
``table2_cost``, ``lengths_cost``, ``fanout_cost``, ``generation_cost``, ``upload_cost``,
``simulation_cost``, ``search_cost``), over a small grid of sizes: the estimated seconds
and MB, the measured CPU seconds (``time.process_time``, caches emptied first) and peak
traced memory (``tracemalloc``, a second run), and their ratios. The table is sorted by
the worse of the two ratios (measured / estimate), the worst last: a ratio above 1 is work
the limit does not see, above 2 a model to recalibrate (the models promise a factor of
about two).

Usage: ``python bench/bench_costs.py [--quick]`` (from the repository root; a few minutes).
"""

from __future__ import annotations

import argparse
import logging
import time
import tracemalloc
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import streamlit as st

from dpcore.hist import allocation_rules, pidentity
from dpcore.histogram import Histogram, from_counts
from dpcore.ldp import data as kvdata
from dpui.errors.optimised import search_cost
from dpui.kit import byte_cache, limits, sidebar
from dpui.kit.page import Inputs, Page, Refused
from dpui.ldp import settings as kv_settings
from dpui.ldp import simulation as kv_sim
from dpui.ldp import view as kv_view
from dpui.ldp.settings import PARAMS as KV_PARAMS
from dpui.mechanisms import exponential as em
from dpui.registry import PAGES
from dpui.tree import view as tree_view

MB = 1e6


@dataclass(frozen=True)
class Case:
    model: str
    parameters: str
    estimate: limits.Cost
    work: Callable[[], object]
    setup: Callable[[], object] | None = None
    """Run after the caches are emptied and before the work is measured (its inputs)."""


@dataclass(frozen=True)
class Row:
    case: Case
    seconds: float
    megabytes: float

    @property
    def time_ratio(self) -> float:
        return self.seconds / max(self.case.estimate.seconds, 1e-9)

    @property
    def memory_ratio(self) -> float:
        return self.megabytes / max(self.case.estimate.megabytes, 1e-9)

    @property
    def worst(self) -> float:
        """The worse ratio, ignoring work too small to matter (under 0.2 s or 5 MB: the
        fixed cost of drawing a page, which no model counts)."""
        t = self.time_ratio if max(self.seconds, self.case.estimate.seconds) >= 0.2 else 0.0
        m = self.memory_ratio if max(self.megabytes, self.case.estimate.megabytes) >= 5 else 0.0
        return max(t, m)


def _clear() -> None:
    st.cache_data.clear()
    byte_cache.clear_caches()


def measure(case: Case) -> Row:
    """CPU seconds of one cold run, then peak traced MB of another."""
    _clear()
    if case.setup is not None:
        case.setup()
    start = time.process_time()
    case.work()
    seconds = time.process_time() - start
    _clear()
    if case.setup is not None:
        case.setup()
    tracemalloc.start()
    try:
        case.work()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return Row(case, seconds, peak / MB)


# --- the pages' own estimates, against their views ----------------------------------------


def _page(key: str) -> Page:
    return next(p for p in PAGES if p.key == key)


def _hist(n: int) -> Histogram:
    counts = np.random.default_rng(0).integers(0, 100, n).astype(np.float64)
    return from_counts(counts, f"bench-{n}")


def _extra(page: Page, values: Mapping[str, Any]) -> dict[str, Any]:
    if page.key == "kv_ldp":  # not the view set now: the view runs its simulation itself
        return {kv_view.UPLOADED_CSV: None, kv_view.REQUESTED: frozenset(), kv_view.SET_NOW: {}}
    if page.key == "exponential":
        return {em.SOURCE.name: values[em.SOURCE.name], em.EDITED: None}
    return {}


def _view(page: Page, inputs: Inputs) -> object:
    assert page.view is not None
    try:
        return page.view(inputs)
    except Refused as why:
        return why


def page_case(key: str, n: int, **values: Any) -> Case | None:
    """``PAGES[key].cost`` against ``PAGES[key].view`` on ``n`` bins with ``values`` set."""
    page = _page(key)
    full = {p.name: p.default for p in (*page.params, sidebar.EPSILON)} | values
    inputs = Inputs(full, _hist(n), _extra(page, full))
    estimate = page.cost(inputs)
    if estimate is None:
        return None
    shown = ", ".join(f"{k}={v}" for k, v in values.items())
    return Case(
        f"{key}.cost", f"n={n:,} {shown}".strip(), estimate.cost, lambda: _view(page, inputs)
    )


def page_cases(quick: bool) -> Iterator[Case | None]:
    sizes = (1024, 65536) if quick else (1024, 16384, 262144)
    for n in sizes:
        yield page_case("laplace", n, lap_source="sidebar")
        yield page_case("exponential", n, exp_source="sidebar", exp_draws=100_000)
        yield page_case("tree_budgets", n, tb_tree="4")
    for n in sizes[:-1]:
        yield page_case("tree_budgets", n, tb_tree="sc")
    for releases in (10_000, 1_000_000):
        yield page_case("epsilon", 1024, nb_releases=releases)
    for n in (64, 512, 2048):
        yield page_case("matrix_privelet", 1, mp_n=n, mp_l=1, mp_r=n, mp_releases=2000)
    for view in ("length", "fixed", "size", "epsilon"):
        yield page_case("error_analysis", 1024, ea_view=view)
    yield page_case("error_analysis", 16384, ea_view="length", ea_releases=20)
    for m in (12, 14) if quick else (12, 14, 16):
        yield page_case("error_analysis", 1024, ea_view="index", ea_index_m=m)
    for m in (12, 14):
        yield page_case("error_analysis", 1024, ea_view="size", ea_max_m=m, ea_sim=False)
    for m, releases in ((12, 100), (14, 100), (12, 1000)):
        yield page_case("paper_experiments", 16, px_t2_m=m, px_t2_sim_m=m, px_t2_releases=releases)
    for n, releases in ((2010, 50), (20_000, 50), (20_000, 200)):
        yield page_case(
            "paper_experiments", 16, px_view="lengths", px_n=n, px_len_releases=releases
        )
    for n, k in ((2010, 64), (20_000, 64), (100_000, 20)):
        yield page_case("paper_experiments", 16, px_view="fanout", px_fan_n=n, px_fan_k=k)
    for users, d, length in ((20_000, 100, 50), (100_000, 100, 50), (20_000, 2000, 200)):
        yield page_case("kv_ldp", 16, kv_users=users, kv_d=d, kv_max_len=length, kv_reps=1)
    for grid in ("stroke-32x32", "gowalla-128x128"):  # the 2-D ranking (issue 39)
        for trials in (3, 0):
            yield page_case("which_algorithm", 16, wa_data="2d", wa_map=grid, wa_trials=trials)
    yield page_case("which_algorithm", 16, wa_data="2d", wa_rect_workload="all", wa_trials=3)


# --- the models gating one computation ----------------------------------------------------


def model_cases(quick: bool) -> Iterator[Case]:
    for n in (1024, 4096) if quick else (1024, 4096, 16384):
        yield Case(
            "tree.fanout_scan",
            f"n={n:,} uniform",
            tree_view.fanout_scan(n),
            partial(
                allocation_rules.fanout_after_consistency, n, 1.0, "uniform", "consistent_level"
            ),
        )
    for n in (64, 256) if quick else (64, 256, 1024):
        rows, starts = pidentity.default_rows(n), pidentity.default_starts(n)
        yield Case(
            "errors.optimised.search_cost",
            f"n={n:,} p={rows} starts={starts}",
            search_cost(n, rows, starts, 300),
            partial(pidentity.optimise, n),
        )
    for users, d, keys, lengths, length in (
        (20_000, 100, "gauss", "heavy", 50),
        (100_000, 100, "gauss", "heavy", 50),
        (100_000, 100, "lnr", "uniform", 50),
        (20_000, 2000, "gauss", "uniform", 200),
        (20_000, 100, "uniform", "heavy", 100),
        (20_000, 100, "uniform", "uniform", 100),
    ):
        spec = kv_settings.DataSpec(keys, lengths, users, d, length, 0)
        yield Case(
            "ldp.settings.generation_cost",
            f"users={users:,} d={d} keys={keys} lengths={lengths} max={length}",
            kv_settings.generation_cost(users, d, length, lengths),
            partial(kv_settings.load_data, spec),
        )
    for users in (20_000, 100_000):
        csv = _kv_csv(users)
        yield Case(
            "ldp.settings.upload_cost",
            f"{len(csv) / MB:.1f} MB CSV ({users:,} users)",
            kv_settings.upload_cost(len(csv)),
            partial(kvdata.read_kv_csv, csv),
        )
    for users in (20_000, 100_000):
        yield _kv_simulation(users)


def _kv_csv(users: int) -> bytes:
    data = kv_settings.load_data(kv_settings.DataSpec("gauss", "heavy", users, 100, 50, 0))
    lines = ["user,key,value"]
    users_of = np.repeat(np.arange(data.n_users), data.lengths)
    lines += [f"{u},{k},{v:.4f}" for u, k, v in zip(users_of, data.keys, data.values, strict=True)]
    return "\n".join(lines).encode()


def _kv_simulation(users: int) -> Case:
    page = _page("kv_ldp")
    values = {p.name: p.default for p in KV_PARAMS} | {"kv_users": users, "kv_reps": 1}
    spec = kv_settings.data_spec(values, b"")
    data = kv_settings.load_data(spec)
    acc = kv_view.plan(values, spec, data, frozenset())
    assert page.key == "kv_ldp"
    return Case(
        "ldp.simulation.simulation_cost",
        f"users={users:,} reps={acc.reps} {len(acc.names)} mechanisms x {len(acc.grid)} ε",
        kv_sim.simulation_cost(data, acc.names, acc.grid, acc.reps, acc.settings.privkvm_rounds),
        lambda: acc.run(spec),
        setup=partial(kv_settings.load_data, spec),
    )


# --- the table ------------------------------------------------------------------------------


def table(rows: list[Row]) -> str:
    header = (
        f"{'model':<32} {'parameters':<58} {'est s':>8} {'meas s':>8} {'ratio':>6} "
        f"{'est MB':>8} {'meas MB':>8} {'ratio':>6}"
    )
    lines = [header, "-" * len(header)]
    for r in sorted(rows, key=lambda r: r.worst):
        e = r.case.estimate
        lines.append(
            f"{r.case.model:<32} {r.case.parameters[:58]:<58} {e.seconds:>8.3f} "
            f"{r.seconds:>8.3f} {r.time_ratio:>6.2f} {e.megabytes:>8.1f} {r.megabytes:>8.1f} "
            f"{r.memory_ratio:>6.2f}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller grid")
    args = parser.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    cases = [c for c in page_cases(args.quick) if c is not None]
    cases += list(model_cases(args.quick))
    rows = []
    for case in cases:
        rows.append(measure(case))
        r = rows[-1]
        print(f"  {case.model} {case.parameters}: {r.seconds:.2f} s, {r.megabytes:.0f} MB")
    print()
    print(table(rows))
    print(
        "\nratio = measured / estimate; rows sorted by the worse ratio (work under 0.2 s and "
        "5 MB not counted), the worst last."
    )


if __name__ == "__main__":
    main()
