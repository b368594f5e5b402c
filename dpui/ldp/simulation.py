"""The Key-value LDP page's simulations and exact tables, with what they cost.

Simulation results are small tables cached with ``st.cache_data`` per (mechanism, ε) cell,
keyed by primitive specs and an explicit ``seed``, and the whole run of a view once more by
bytes. Nothing here draws: a caller that shows progress passes callbacks, called between the
cached cells (so that a cache hit never replays a progress bar).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.ldp import experiment, hiskv, mechanisms, privacy
from dpcore.ldp.data import KVData
from dpcore.ldp.mechanisms import KVSettings
from dpui.kit import byte_cache, limits
from dpui.ldp.settings import DataSpec, load_data

T_VALUES = (10, 20, 30, 40, 50)
CHECK_D, CHECK_L = 3, 2  # small enough to enumerate every input and output exactly
SHARE_POINTS = 9  # value shares in the budget-split sweep
DEFAULT_ROUNDS = mechanisms.DEFAULT_SETTINGS.privkvm_rounds
SMALLER = "lower Repetitions or Users n, choose a smaller ε grid or fewer mechanisms"
LIBRARY = "dpcore.ldp.experiment.run_cell"


def work_cost(
    users: int, pairs: int, runs: int, truncation_lengths: int, *, round_runs: int = 0
) -> limits.Cost:
    """The Key-value LDP page's simulations: ``runs`` (mechanism, ε, repetition) releases at
    0.5 µs and 100 bytes per user, ``round_runs`` PrivKVM rounds at 0.6 µs per user, and the
    truncation table at 15 ns per pair and length (measured as described in
    :mod:`dpui.kit.limits`)."""
    return limits.Cost(
        users * (runs * 0.5e-6 + round_runs * 0.6e-6) + pairs * truncation_lengths * 15e-9,
        (users * 100 + pairs * 40) / limits.MB,
    )


def simulation_cost(
    data: KVData, names: tuple[str, ...], grid: tuple[float, ...], reps: int, rounds: int
) -> limits.Cost:
    """The page's simulations: mechanisms ``names`` x ``grid`` and the value-share sweep,
    ``reps`` runs each, PrivKVM with ``rounds`` rounds, and the truncation table."""
    top = int(min(max(data.lengths.max(), 2), 200))
    cells = len(names) * len(grid)
    round_runs = rounds * len(grid) * reps if "PrivKVM" in names else 0
    return work_cost(
        data.n_users, int(data.keys.size), (cells + SHARE_POINTS) * reps, top,
        round_runs=round_runs,
    )  # fmt: skip


def simulation_what(
    data: KVData, names: tuple[str, ...], grid: tuple[float, ...], reps: int
) -> str:
    """The simulation in words, for the limit's messages."""
    cells = len(names) * len(grid) + SHARE_POINTS
    return f"simulating {cells} settings x {reps} repetitions on {data.n_users:,} users"


def repetitions(
    data: KVData,
    names: tuple[str, ...],
    grid: tuple[float, ...],
    wanted: int,
    rounds: int,
    *,
    requested: bool,
) -> int:
    """The repetitions to simulate: all ``wanted`` when within the work limit for a change or
    ``requested`` (a "Run it" click for exactly these settings, offered only when the full
    run is within the limit of a requested run), else the most that fit (0 when not even one
    does). :func:`dpui.kit.limits.allow_or_offer` with the same cost says so and offers the
    full run; this is its decision without drawing anything."""

    def cost(reps: int) -> limits.Cost:
        return simulation_cost(data, names, grid, reps, rounds)

    if requested or limits.largest_within((wanted,), cost) == wanted:
        return wanted
    return limits.largest_within(range(1, wanted), cost) or 0


@dataclass(frozen=True)
class Accuracy:
    """The accuracy simulation of one view: every (mechanism, ε) cell's runs and summary."""

    names: tuple[str, ...]  # the ticked mechanisms
    grid: tuple[float, ...]
    wanted: int  # the repetitions asked for
    reps: int  # the repetitions simulated (fewer when the work limit says so; 0: none)
    t: int
    seed: int
    settings: KVSettings
    re_eps: float  # the grid value nearest the chosen "ε for RE"
    runs: pd.DataFrame | None = None  # None when no mechanism is ticked or not run yet
    summary: pd.DataFrame | None = None

    def request(self, spec: DataSpec) -> Hashable:
        """What a "Run it" click asks for: this simulation on ``spec``'s data with all the
        wanted repetitions."""
        return (spec, self.names, self.grid, self.wanted, self.settings, self.seed, self.t)

    def run(
        self,
        spec: DataSpec,
        *,
        progress: Callable[[float, str], object] | None = None,
        partial: Callable[[Accuracy], object] | None = None,
    ) -> Accuracy:
        """This simulation on ``spec``'s data, with its runs and summary (cached).
        ``progress`` receives (fraction done, what runs now) before each cell that is not
        cached yet; ``partial`` the result so far each time a mechanism is complete while
        others still run."""

        def so_far(runs: pd.DataFrame) -> None:
            if partial is not None:
                partial(replace(self, runs=runs, summary=experiment.summarize(runs)))

        runs, summary = simulation(
            spec, self.names, self.grid, self.reps, self.settings, self.seed, self.t,
            _progress=progress, _partial=so_far,
        )  # fmt: skip
        return replace(self, runs=runs, summary=summary)


@st.cache_data(max_entries=512, show_spinner=False)
def experiment_cell(
    spec: DataSpec,
    mechanism: str,
    eps: float,
    reps: int,
    settings: KVSettings,
    seed: int,
    t_values: tuple[int, ...],
) -> pd.DataFrame:
    """One (mechanism, eps) cell of the experiment, ``reps`` seeded repetitions."""
    return experiment.run_cell(
        load_data(spec),
        mechanism,
        eps,
        t_values=t_values,
        repetitions=reps,
        settings=settings,
        seed=seed,
    )


@byte_cache.cache_by_bytes(max_entries=16)
def simulation(
    spec: DataSpec,
    names: tuple[str, ...],
    grid: tuple[float, ...],
    reps: int,
    settings: KVSettings,
    seed: int,
    t: int,
    _progress: Callable[[float, str], object] | None = None,
    _partial: Callable[[pd.DataFrame], object] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """All cells' runs, errors at ``t = 10..50`` and the chosen ``t``, and their summary.
    ``_progress`` receives (fraction done, what runs now) before each cell, the first time
    before any work; ``_partial`` the runs so far each time a mechanism is complete while
    others are still to run, so a page can draw them early.

    Kept whole (never mutated): a view seen before is one lookup. The cells are cached
    too (another view shares them), but looking up three dozen of them, each argument
    hashed, with the progress bar redrawn for each, took a fifth of a second per rerun."""
    t_values = tuple(sorted({*T_VALUES, t}))
    cells = [(m, e) for m in names for e in grid]
    frames = []
    for i, (name, eps) in enumerate(cells):
        if _progress is not None:
            _progress(i / len(cells), f"Simulating {name} at ε = {eps:g} ({reps} runs)…")
        # only PrivKVM uses its rounds: other cells stay cached when c changes
        own = settings if name == "PrivKVM" else replace(settings, privkvm_rounds=DEFAULT_ROUNDS)
        frames.append(experiment_cell(spec, name, eps, reps, own, seed, t_values))
        mechanism_done = eps == grid[-1] and i + 1 < len(cells)
        if _partial is not None and mechanism_done:
            _partial(pd.concat(frames, ignore_index=True))
    runs = pd.concat(frames, ignore_index=True)
    return runs, experiment.summarize(runs)


class NotCached(Exception):
    """Raised by :func:`cached` when the simulation would have to run."""


def _not_cached(fraction: float, text: str) -> None:
    raise NotCached


def cached(acc: Accuracy, spec: DataSpec) -> Accuracy | None:
    """``acc`` with its results when this simulation is cached already, else None (nothing is
    computed: the first progress report, before any work, stops it)."""
    try:
        return acc.run(spec, progress=_not_cached)
    except NotCached:
        return None


@st.cache_data(max_entries=64, show_spinner="Sweeping the value budget share…")
def share_sweep(
    spec: DataSpec, eps: float, length: int, t: int, reps: int, amplified: bool, seed: int
) -> pd.DataFrame:
    shares = tuple(float(s) for s in np.round(np.linspace(0.05, 1.0, SHARE_POINTS), 4))
    return experiment.value_share_sweep(
        load_data(spec), eps, shares, length=length, t=t, repetitions=reps,
        amplified=amplified, seed=seed,
    )  # fmt: skip


@st.cache_data(max_entries=64, show_spinner=False)
def truncation_table(
    spec: DataSpec, eps: float, t: int, share: float, amplified: bool, beta: float
) -> pd.DataFrame:
    data = load_data(spec)
    top = int(min(max(data.lengths.max(), 2), 200))
    n_reports = max(1, round((1 - beta) * data.n_users))
    return experiment.truncation_tradeoff(
        data, eps, range(1, top + 1), t=t, n_reports=n_reports, value_share=share,
        amplified=amplified,
    )  # fmt: skip


@st.cache_data(max_entries=64, show_spinner=False)
def oetl_estimate(spec: DataSpec, eps: float, beta: float, seed: int) -> tuple[int, np.ndarray]:
    """HISKV's OETL step alone on a ``beta`` share of users: (L, estimated length shares)."""
    data = load_data(spec)
    rng = experiment.cell_rng(seed, "HISKV-OETL", eps)
    group = rng.permutation(data.n_users)[: max(1, round(beta * data.n_users))]
    reports = hiskv.oetl_perturb(data.lengths[group], eps, 50, rng=rng)
    return hiskv.oetl_length(reports, eps, 50)


@st.cache_data(max_entries=64, show_spinner="Checking privacy exactly…")
def privacy_table(eps: float, share: float, amplified: bool, rounds: int) -> pd.DataFrame:
    """Claimed eps vs the exact worst log-ratio, every mechanism, at ``d = 3, L = 2`` (six
    columns: the table fits the page at 1280 px; notes go in the caption)."""
    settings = KVSettings(value_share=share, amplified=amplified, privkvm_rounds=rounds, l_max=8)
    rows = []
    for name in privacy.CHECKED:
        check = privacy.check(name, eps, CHECK_D, CHECK_L, settings=settings)
        rows.append(
            {
                "mechanism": name,
                "claimed ε": eps,
                "claim about": "one report" if check.claim_level == "report" else "whole set",
                "worst ln-ratio, one report": check.report_level,
                "worst ln-ratio, whole set": check.user_level,
                "holds": "yes" if check.holds else "NO",
            }
        )
    for name in mechanisms.UNAVAILABLE:  # the page's caption says why
        rows.append({"mechanism": name, "holds": "unavailable"})
    return pd.DataFrame(rows)


def probability_table(eps: float, d: int, length: int, share: float) -> pd.DataFrame:
    """LRR_KV's probabilities under both accountings at the page's settings."""
    rows = []
    for amplified in (False, True):
        probs = hiskv.pair_probabilities(eps, d, length, value_share=share, amplified=amplified)
        eps_star = hiskv.amplified_epsilon(eps, length) if amplified else eps
        rows.append(
            {
                "accounting": "padding-amplified" if amplified else "conservative",
                "ε* per report": eps_star,
                "ε_v": share * eps_star,
                "p1 (keep)": probs.p1,
                "q1 (flip value)": probs.q1,
                "q2 (other pair)": probs.q2,
                "D = 2(d+L)": 2 * (d + length),
            }
        )
    return pd.DataFrame(rows)


def nearest(value: float, grid: tuple[float, ...]) -> float:
    return min(grid, key=lambda e: abs(np.log(e) - np.log(value)))
