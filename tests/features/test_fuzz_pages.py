"""Every page with a view, run with each parameter at its bounds, every choice, all at their
minimum and all at their maximum, and pinned against itself: no exception, and the CPU time
of the run within twice the page's own estimate (``Page.cost``, plus the work a page scales to
the limit itself) and a fixed allowance for AppTest, or a quick refusal.

The cases come from the pages' declarations (``dpui.registry.PAGES``), so a new parameter is
fuzzed without editing this file. Each run starts with empty caches (``st.cache_data`` and
:mod:`dpui.kit.byte_cache`), so the work measured is the work estimated.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore.hist import pidentity
from dpcore.histogram import from_counts
from dpui.algorithms import map2d, map_page
from dpui.errors.optimised import search_cost
from dpui.kit import byte_cache, examples, limits, sidebar, slow
from dpui.kit.page import SIDEBAR_DATA, Inputs, Page
from dpui.kit.params import BoolParam, ChoiceParam, FloatParam, IntParam, Param, RangeParam
from dpui.ldp import view as kv_view
from dpui.ldp.settings import PARAMS as KV_PARAMS
from dpui.ldp.settings import data_spec, load_data
from dpui.ldp.simulation import simulation_cost
from dpui.mechanisms import exponential as em
from dpui.registry import PAGES

ROOT = Path(__file__).resolve().parents[2]
OVERHEAD = 1.2
"""Seconds of CPU allowed on top of twice the estimate: AppTest, the frame, the figures, and
what a loaded 2-core CI run adds. The largest excess measured here is 0.28 s; a CI run once
measured 1.56 s on Key-value LDP for an estimate of 0.15 s, when the estimate left out the
simulation the page scales to the limit itself (:func:`_scaled_work` now counts it)."""
REFUSED_WITHIN = 2.0
"""Seconds a refused run may take at most."""
PIN = "pin"

VIEWS = tuple(page for page in PAGES if page.view is not None)


def _all(page: Page) -> tuple[Param, ...]:
    return (*page.params, sidebar.EPSILON)


def _low(param: Param) -> Any:
    if isinstance(param, IntParam | FloatParam):
        return param.lo
    if isinstance(param, RangeParam):
        return (param.lo, param.lo)
    return param.default


def _high(param: Param) -> Any:
    if isinstance(param, IntParam | FloatParam):
        return param.hi
    if isinstance(param, RangeParam):
        return (param.lo, param.hi)
    return param.default


def _variants(param: Param) -> Iterator[Any]:
    """The values of ``param`` the fuzz sets one at a time (its default excluded)."""
    if isinstance(param, IntParam | FloatParam):
        yield from (param.lo, param.hi)
    elif isinstance(param, RangeParam):
        yield from ((param.lo, param.lo), (param.hi, param.hi), (param.lo, param.hi))
    elif isinstance(param, ChoiceParam):
        yield from param.options
    elif isinstance(param, BoolParam):
        yield from (False, True)


MODES: dict[str, tuple[dict[str, Any], frozenset[str]]] = {
    "which_algorithm": (
        {map2d.DATA.name: "2d"},
        frozenset(p.name for p in (*map2d.PARAMS, map_page.SECTION)) - {map2d.DATA.name},
    ),
}
"""A page whose parameters act only in one of its modes: page key -> (the mode's values,
the parameters that act only there). Those are fuzzed in that mode; the mode also gets the
shared ε at its bounds and every parameter at its maximum."""


def _mode(page: Page, name: str) -> dict[str, Any]:
    values, names = MODES.get(page.key, ({}, frozenset()))
    return dict(values) if name in names else {}


def cases(page: Page) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """``(label, values set, pinned against itself)`` for ``page``, without repeats."""
    seen: set[tuple[tuple[str, Any], ...]] = set()

    def new(values: Mapping[str, Any], pinned: bool = False) -> bool:
        defaults = {p.name: p.default for p in _all(page)}
        key = (*sorted((k, v) for k, v in values.items() if defaults[k] != v), ("pin", pinned))
        if key in seen:
            return False
        seen.add(key)
        return True

    if new({}):
        yield "default", {}, False
    for param in _all(page):
        for value in _variants(param):
            values = {param.name: value} | _mode(page, param.name)
            if new(values):
                yield f"{param.name}={param.encode(value)}", values, False
    if page.key in MODES:
        mode = MODES[page.key][0]
        for value in _variants(sidebar.EPSILON):
            values = {sidebar.EPSILON.name: value} | mode
            if new(values):
                yield f"mode-eps={sidebar.EPSILON.encode(value)}", values, False
        values = {p.name: _high(p) for p in _all(page)} | mode
        if new(values):
            yield "mode-all-max", values, False
    for label, pick in (("all-min", _low), ("all-max", _high)):
        values = {p.name: pick(p) for p in _all(page)}
        if new(values):
            yield label, values, False
    if page.pinned:
        if new({}, True):
            yield "pinned-self", {}, True
        values = {p.name: _high(p) for p in _all(page)}
        if new(values, True):
            yield "all-max-pinned-self", values, True


def _extra(page: Page, values: Mapping[str, Any]) -> dict[str, Any]:
    """What ``page.extra()`` returns in a fresh session showing ``values``."""
    if page.key == "kv_ldp":
        return {
            kv_view.UPLOADED_CSV: None,
            kv_view.REQUESTED: frozenset(),
            kv_view.SET_NOW: {p.name: values[p.name] for p in KV_PARAMS},
        }
    if page.key == "exponential":
        return {em.SOURCE.name: values[em.SOURCE.name], em.EDITED: None}
    if page.key == "which_algorithm":
        return {map2d.UPLOADED_GRID: None}
    return {}


def estimate(page: Page, values: Mapping[str, Any], pinned: bool) -> tuple[float, bool]:
    """The page's estimated seconds for ``values`` (both views when pinned against itself)
    and whether the runner refuses it (then no seconds: a refusal is timed on its own)."""
    full = {p.name: p.default for p in _all(page)} | dict(values)
    hist = examples.load(examples.DEFAULT)
    got = page.cost(Inputs(full, hist, _extra(page, full)))
    if got is None:
        return 0.0, False
    if not limits.within(got.cost):
        return 0.0, True
    seconds = got.cost.seconds + _scaled_work(page, full)
    return seconds * (2 if pinned else 1), False


def _scaled_work(page: Page, values: Mapping[str, Any]) -> float:
    """Seconds of the work a page scales to the limit itself rather than declaring it in
    ``Page.cost``: Key-value LDP's simulation, at the repetitions it will run. Asked after
    the page's run, whose data is then in the page's cache (generating it again here cost
    most of Key-value LDP's estimates, measured)."""
    if page.key != "kv_ldp":
        return 0.0
    spec = data_spec(values, b"")
    data = load_data(spec)
    acc = kv_view.plan(values, spec, data, frozenset())
    return simulation_cost(data, acc.names, acc.grid, acc.reps, acc.settings.privkvm_rounds).seconds


def run(
    page: Page, values: Mapping[str, Any], pinned: bool, *, data: str = ""
) -> tuple[AppTest, float]:
    """The page run on a link setting ``values`` (and ``pin`` = the same view; the sidebar's
    dataset ``data``), and the CPU seconds of that run, with cold caches."""
    at = AppTest.from_file(str(ROOT / page.path), default_timeout=300)
    if data:
        at.query_params[sidebar.DATASET.name] = data
    query = {p.name: p.encode(values[p.name]) for p in _all(page) if p.name in values}
    for name, text in query.items():
        at.query_params[name] = text
    if pinned:
        full = {p.name: p.default for p in _all(page)} | dict(values)
        at.query_params[PIN] = urlencode({p.name: p.encode(full[p.name]) for p in page.pinned})
    st.cache_data.clear()
    byte_cache.clear_caches()
    slow.clear()
    start = time.process_time()
    at.run()
    return at, time.process_time() - start


CASES = [
    pytest.param(
        page,
        values,
        pinned,
        id=f"{page.key}-{label}",
    )
    for page in VIEWS
    for label, values, pinned in cases(page)
]

LARGEST = "spiky-65536"
"""The largest bundled histogram: the sidebar's dataset for :data:`DATA_CASES`."""


def _section(page: Page) -> ChoiceParam | None:
    """The choice of the part a page shows below its main view (or of its part), if any."""
    return next(
        (
            p
            for p in page.params
            if isinstance(p, ChoiceParam) and p.name.endswith(("_show", "_part", "_view"))
        ),
        None,
    )


def _on_the_sidebars_data(page: Page) -> dict[str, Any] | None:
    """The values that make ``page`` show the sidebar's histogram (None: it shows other data)."""
    chooses = {
        p.name: "sidebar"
        for p in page.params
        if isinstance(p, ChoiceParam) and "sidebar" in p.options
    }
    reads = page.data.startswith((SIDEBAR_DATA, "the sidebar histogram's"))
    return chooses if chooses or reads else None


DATA_CASES = [
    pytest.param(page, chosen | {section.name: option}, id=f"{page.key}-{LARGEST}-{option}")
    for page in VIEWS
    if (section := _section(page)) is not None
    and (chosen := _on_the_sidebars_data(page)) is not None
    for option in section.options
]
"""Every part below the main view of a page showing the sidebar's histogram, on the largest
bundled one (issue 37 H1:
``/which_algorithm?data=spiky-65536&wa_release=SF`` ran one release for 57 s of CPU below a
ranking that had left SF out as too slow)."""


def test_the_fuzz_covers_every_page_with_a_view_within_a_bounded_number_of_runs():
    assert {p.key for p in VIEWS} >= {"laplace", "tree_budgets", "kv_ldp", "error_analysis"}
    assert len(CASES) + len(DATA_CASES) < 460  # each case is about half a second of CPU
    new_pages = {"epsilon", "which_algorithm", "ldp_ranges"}  # spatial shows its own grids
    assert new_pages <= {p.key for p, *_ in (c.values for c in DATA_CASES)}
    labels = {c.id for c in CASES}
    assert "tree_budgets-tb_tree=hb" in labels and "laplace-all-max" in labels
    assert all(f"{p.key}-pinned-self" in labels for p in VIEWS if p.pinned)
    # a parameter acting in one mode only is fuzzed in that mode (the 2-D map's, issue 39)
    two_d = {c.id: c.values[1] for c in CASES if c.id.startswith("which_algorithm-")}
    assert two_d["which_algorithm-wa_map=gowalla-128x128"]["wa_data"] == "2d"
    assert two_d["which_algorithm-mode-eps=1e-05"] == {"eps": 1e-05, "wa_data": "2d"}
    assert "wa_data" not in two_d["which_algorithm-wa_domain=4194304"]


@pytest.fixture(scope="module")
def warm() -> None:
    """Import what the pages import, once, before any run is timed."""
    for page in VIEWS:
        AppTest.from_file(str(ROOT / page.path), default_timeout=300).run()


@pytest.mark.slow
@pytest.mark.parametrize(("page", "values", "pinned"), CASES)
def test_a_page_at_its_bounds_runs_within_its_estimate(page, values, pinned, warm):
    at, measured = run(page, values, pinned)
    seconds, refused = estimate(page, values, pinned)
    assert not at.exception, [e.value for e in at.exception]
    if refused:
        assert measured < REFUSED_WITHIN, f"refused, yet took {measured:.2f} s"
    else:
        assert measured <= 2 * seconds + OVERHEAD, (
            f"took {measured:.2f} s of CPU, estimated {seconds:.2f} s"
        )


@pytest.mark.slow
@pytest.mark.parametrize(("page", "values"), DATA_CASES)
def test_every_part_below_a_view_passes_the_work_gate_on_the_largest_data(page, values, warm):
    """On the largest bundled histogram, each part below the main view costs at most the
    page's estimate and one change's work limit (a part runs only within the limit; over it,
    it is refused or offered on request): no exception, and the CPU time within twice that."""
    at, measured = run(page, values, False, data=LARGEST)
    full = {p.name: p.default for p in _all(page)} | dict(values)
    got = page.cost(Inputs(full, examples.load(LARGEST), _extra(page, full)))
    seconds = (got.cost.seconds if got is not None else 0.0) + _scaled_work(page, full)
    assert not at.exception, [e.value for e in at.exception]
    bound = 2 * (seconds + limits.current().seconds) + OVERHEAD
    assert measured <= bound, f"took {measured:.2f} s of CPU, at most {bound:.2f} s expected"


# --- what the fuzz found ------------------------------------------------------------------


def _ea_cost(**values: Any) -> float:
    page = next(p for p in VIEWS if p.key == "error_analysis")
    return estimate(page, values, False)[0]


def test_error_analysis_counts_the_simulation_its_view_runs():
    """``/error_analysis?ea_releases=1000`` simulated 1,000 releases (1.6 s of CPU) under an
    estimate of the closed forms alone (0.015 s): the estimate now has the simulation the
    view runs within the limit, and leaves out one that is over it (offered on request)."""
    assert _ea_cost(ea_releases=1000) > 1.0
    assert _ea_cost(ea_releases=1000) > 20 * _ea_cost(ea_sim=False, ea_releases=1000)
    over = _ea_cost(ea_view="size", ea_releases=1000)  # 19 s simulated: offered, not run
    assert over < 1.0


def test_the_p_identity_estimate_counts_each_iteration():
    """The calibration bench found the p-Identity search at n = 64 taking 0.18 s under an
    estimate of 0.002 s (the model had the loss's O(n p²) and no cost per iteration)."""
    pidentity.optimise(16)  # the first search imports and warms up its solver
    n = 64
    start = time.process_time()
    pidentity.optimise(n)
    measured = time.process_time() - start
    estimate = search_cost(n, pidentity.default_rows(n), pidentity.default_starts(n), 300)
    assert measured <= 2 * estimate.seconds


def test_error_analysis_memory_estimate_holds_its_peak():
    """The calibration bench measured the size view up to m = 14 at 15 MB of peak memory
    under an estimate of 3.3 MB (200 bytes per bin): now 1 kB per bin and 5 MB of tables."""
    page = next(p for p in VIEWS if p.key == "error_analysis")
    assert page.view is not None
    values = {p.name: p.default for p in _all(page)} | {"ea_view": "size", "ea_max_m": 14}
    inputs = Inputs(values | {"ea_sim": False}, examples.load(examples.DEFAULT))
    got = page.cost(inputs)
    assert got is not None
    st.cache_data.clear()
    byte_cache.clear_caches()
    slow.clear()
    tracemalloc.start()
    try:
        page.view(inputs)
        peak = tracemalloc.get_traced_memory()[1] / limits.MB
    finally:
        tracemalloc.stop()
    assert peak <= 2 * got.cost.megabytes


def test_tree_memory_estimate_holds_its_peak():
    """The calibration bench measured the binary tree's view at 2^16 bins peaking at about
    600 bytes per bin, over twice the 250 bytes per bin the estimate had."""
    page = next(p for p in VIEWS if p.key == "tree_budgets")
    assert page.view is not None
    counts = np.random.default_rng(0).integers(0, 100, 2**16).astype(np.float64)
    values = {p.name: p.default for p in _all(page)} | {"tb_tree": "2"}
    inputs = Inputs(values, from_counts(counts, "fuzz-65536"))
    got = page.cost(inputs)
    assert got is not None
    st.cache_data.clear()
    byte_cache.clear_caches()
    slow.clear()
    tracemalloc.start()
    try:
        page.view(inputs)
        peak = tracemalloc.get_traced_memory()[1] / limits.MB
    finally:
        tracemalloc.stop()
    assert peak <= 2 * got.cost.megabytes
