"""The Error analysis page's simulation runs, and what they cost.

Every function returns a tidy table: one row per algorithm and x value, with
the exact closed form (``exact``) and, when simulated, the empirical mean
squared error (``empirical``) and its 95% confidence half-width (``ci``).
Cached "cells" (one algorithm, one x value) take ``seed: int`` and build
their generators inside; ``_counts`` is identified in the cache key by
``digest``. The uncached ``*_curve`` functions run the cells and report
progress between them, outside the caches (a cache hit must never replay a
progress bar created elsewhere).

The cost model (:func:`error_simulation`) is calibrated as described in
:mod:`dpui.kit.limits`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.hist import empirical, plans
from dpui.errors.settings import ALL_RANGES_LIMIT, EPSILONS, SIMULATED_MAX_M, label
from dpui.kit import byte_cache, limits

FloatArray = NDArray[np.float64]
Progress = Callable[[float], object] | None


def collect(cells: Sequence[Callable[[], pd.DataFrame]], progress: Progress) -> pd.DataFrame:
    """Run cached cells one by one, reporting progress between them (outside the caches,
    so that a cache hit never replays a progress bar)."""
    parts = []
    for i, cell in enumerate(cells):
        parts.append(cell())
        if progress is not None:
            progress((i + 1) / len(cells))
    return pd.concat(parts, ignore_index=True)


@contextmanager
def progress_bar(shown: bool, text: str = "Simulating…") -> Iterator[Progress]:
    """A progress display while a view simulates (or computes the index), removed when done
    so that a view leaves nothing drawn; None when there is nothing slow to show."""
    if not shown:
        yield None
        return
    bar = st.progress(0.0, text=text)
    try:
        yield lambda f: bar.progress(min(f, 1.0), text=f"{text} {f:.0%}")
    finally:
        bar.empty()


@byte_cache.cache_by_bytes(max_entries=32, spinner="Building trees and budgets…")
def plan(key: str, n: int, eps: float) -> plans.Plan:
    """A prepared algorithm (tree and budgets); cached as a resource, never mutated."""
    return plans.prepare(key, n, eps)


def length_queries(n: int, per_length: int, seed: int) -> tuple[NDArray[np.int64], ...]:
    rng = np.random.default_rng([seed, 0])
    lengths = [2**k for k in range(int(np.log2(n)) + 1)]
    drawn = [empirical.random_ranges(n, per_length, rng, f"length:{x}") for x in lengths]
    return (
        np.asarray(lengths, dtype=np.int64),
        np.concatenate([a for a, _ in drawn]),
        np.concatenate([b for _, b in drawn]),
    )


@st.cache_data(max_entries=64, show_spinner=False)
def length_cell(
    digest: str,
    _counts: FloatArray,
    key: str,
    eps: float,
    per_length: int,
    releases: int,
    seed: int,
    simulate: bool,
) -> pd.DataFrame:
    """One algorithm's MSE vs range length ``2^0..2^k`` (same random ranges for every algorithm)."""
    n = int(_counts.size)
    lengths, a, b = length_queries(n, per_length, seed)
    prepared = plan(key, n, eps)
    exact = plans.plan_range_errors(prepared, a, b)
    empirical_mse = half = np.full(lengths.size, np.nan)
    if simulate:
        rng = np.random.default_rng([seed, 1, list(plans.ALGORITHMS).index(key)])
        sim = empirical.simulate_range_errors(prepared, _counts, a, b, releases=releases, rng=rng)
        _, empirical_mse, half = sim.by_length()
    return pd.DataFrame(
        {
            "algorithm": label(key),
            "range length": lengths,
            "exact": [float(exact[(b - a + 1) == x].mean()) for x in lengths],
            "exact, all ranges of this length": [
                plans.plan_expected_error(prepared, f"length:{x}") for x in lengths
            ],
            "empirical": empirical_mse,
            "ci": half,
        }
    )


def length_curve(
    digest: str,
    counts: FloatArray,
    keys: tuple[str, ...],
    eps: float,
    per_length: int,
    releases: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(1) MSE vs range length: exact over the sampled ranges (and over all windows)."""
    cells = [
        partial(length_cell, digest, counts, key, eps, per_length, releases, seed, simulate)
        for key in keys
    ]
    return collect(cells, progress)


@st.cache_data(max_entries=64, show_spinner=False)
def fixed_cell(
    digest: str,
    _counts: FloatArray,
    key: str,
    n: int,
    eps: float,
    count: int,
    releases: int,
    seed: int,
    simulate: bool,
) -> pd.DataFrame:
    """One algorithm on ``count`` fixed random ranges of ``n`` bins (Wu et al., table 1).

    The histogram is repeated or cut to ``n`` bins (the errors do not depend on the data).
    """
    counts = np.resize(_counts, n)
    a, b = empirical.random_ranges(n, count, np.random.default_rng([seed, 0]))
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    prepared = plan(key, n, eps)
    mse = half = np.full(a.size, np.nan)
    if simulate:
        rng = np.random.default_rng([seed, 2, list(plans.ALGORITHMS).index(key)])
        sim = empirical.simulate_range_errors(prepared, counts, a, b, releases=releases, rng=rng)
        mse, half = sim.per_query()
    return pd.DataFrame(
        {
            "algorithm": label(key),
            "range #": np.arange(1, a.size + 1),
            "l": a + 1,
            "r": b + 1,
            "exact": plans.plan_range_errors(prepared, a, b),
            "empirical": mse,
            "ci": half,
        }
    )


def fixed_ranges(
    digest: str,
    counts: FloatArray,
    keys: tuple[str, ...],
    n: int,
    eps: float,
    count: int,
    releases: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(2) Per fixed random range: exact beside simulated (1-based ``l..r``)."""
    cells = [
        partial(fixed_cell, digest, counts, key, n, eps, count, releases, seed, simulate)
        for key in keys
    ]
    return collect(cells, progress)


@st.cache_data(max_entries=256, show_spinner=False)
def size_cell(
    key: str, eps: float, m: int, releases: int, sample: int, seed: int, simulate: bool
) -> pd.DataFrame:
    """One algorithm's average uniform-range MSE on ``N = 2^m`` all-zero bins (Wu et al., table 2).

    Simulated up to ``2^SIMULATED_MAX_M``: every range while there are at most
    ``ALL_RANGES_LIMIT``, else ``sample`` fresh random ranges per release.
    """
    n = 2**m
    prepared = plan(key, n, eps)
    mean = half = np.nan
    if simulate and m <= SIMULATED_MAX_M:
        every = n * (n + 1) // 2 <= ALL_RANGES_LIMIT
        rng = np.random.default_rng([seed, 3, m, list(plans.ALGORITHMS).index(key)])
        mean, half = empirical.simulate_workload_error(
            prepared, np.zeros(n), releases=releases, rng=rng, sample=None if every else sample
        )
    row = {
        "algorithm": label(key),
        "m": m,
        "N": n,
        "exact": plans.plan_expected_error(prepared),
        "empirical": mean,
        "ci": half,
    }
    return pd.DataFrame([row])


def size_curve(
    keys: tuple[str, ...],
    eps: float,
    max_m: int,
    releases: int,
    sample: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(3) Average uniform-range MSE vs ``N = 2^m``, ``m = 0..max_m``."""
    cells = [
        partial(size_cell, key, eps, m, releases, sample, seed, simulate)
        for key in keys
        for m in range(max_m + 1)
    ]
    return collect(cells, progress)


@st.cache_data(max_entries=256, show_spinner=False)
def epsilon_cell(
    digest: str,
    _counts: FloatArray,
    key: str,
    eps: float,
    releases: int,
    sample: int,
    seed: int,
    simulate: bool,
) -> pd.DataFrame:
    """One algorithm's average uniform-range MSE at one epsilon (fresh ranges per release)."""
    n = int(_counts.size)
    prepared = plan(key, n, eps)
    mean = half = np.nan
    if simulate:
        rng = np.random.default_rng(
            [seed, 4, EPSILONS.index(eps), list(plans.ALGORITHMS).index(key)]
        )
        mean, half = empirical.simulate_workload_error(
            prepared, _counts, releases=releases, rng=rng, sample=sample
        )
    row = {
        "algorithm": label(key),
        "epsilon": eps,
        "exact": plans.plan_expected_error(prepared),
        "empirical": mean,
        "ci": half,
    }
    return pd.DataFrame([row])


def epsilon_curve(
    digest: str,
    counts: FloatArray,
    keys: tuple[str, ...],
    releases: int,
    sample: int,
    seed: int,
    simulate: bool,
    progress: Progress = None,
) -> pd.DataFrame:
    """(4) Average uniform-range MSE vs epsilon over :data:`EPSILONS`."""
    cells = [
        partial(epsilon_cell, digest, counts, key, eps, releases, sample, seed, simulate)
        for key in keys
        for eps in EPSILONS
    ]
    return collect(cells, progress)


# --- cost model ---


PLAN_SECONDS_PER_BIN = {"dwork": 0.0, "privelet": 0.1e-6, "binary_raw": 0.5e-6}
"""Building one algorithm's tree and budgets and its exact error, per bin (default 4 µs;
Struct-Construct trees 10 µs)."""
RELEASE_SECONDS_PER_BIN = {"dwork": 0.05e-6, "privelet": 0.1e-6, "binary_raw": 0.15e-6}
"""One simulated release and its consistency step, per bin (default 0.5 µs)."""


def per_bin(table: dict[str, float], key: str, tree: float, sc: float) -> float:
    return table.get(key, sc if "sc" in key or "lue" in key else tree)


def error_simulation(
    keys: Iterable[str], n: int, points: int, releases: int, queries: int
) -> limits.Cost:
    """Error analysis cells: a plan per algorithm, then ``points`` x-values each simulating
    ``releases`` releases of ``n`` bins scored on ``queries`` ranges (0.3 µs per range).
    Memory: about 1 kB per bin and 50 bytes per range at peak, and 5 MB for the tables and
    the figure (``bench/bench_costs.py`` measured 7.5 MB for the size view up to m = 10 and
    15 MB up to m = 14, 12 MB for the length view at n = 16,384)."""
    keys = tuple(keys)
    seconds = sum(
        n * per_bin(PLAN_SECONDS_PER_BIN, k, 4e-6, 10e-6)
        + points * releases * (n * per_bin(RELEASE_SECONDS_PER_BIN, k, 0.5e-6, 0.25e-6))
        + points * releases * queries * 0.3e-6
        for k in keys
    )
    return limits.Cost(seconds, (5e6 + n * 1000 + queries * 50) / limits.MB)
