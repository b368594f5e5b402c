"""State and cached computations behind the "Laplace mechanism" page.

Max-error simulations are run at unit scale (b = 1) and keyed by ``(k, trials,
seed)``: the max error scales linearly with b, so moving the ε or b control
rescales cached results instead of re-simulating.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st
from numpy.typing import NDArray

from dpcore.mechanisms import (
    laplace_confidence_intervals,
    laplace_expected_max_error,
    laplace_max_error_bound,
    laplace_max_error_exact,
    laplace_max_error_tail,
    laplace_mechanism,
    laplace_scale,
    simulate_laplace_max_error,
)
from dpui.kit import limits, references
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import ChoiceParam, FloatParam, IntParam
from dpui.kit.sidebar import EPSILON
from dpui.mechanisms import figures as figures

GAPMINDER_YEARS = tuple(str(year) for year in range(1952, 2008, 5))
GAPMINDER_MAX_K = 142
"""Countries in the gapminder table: the most entries the gapminder query has."""
SOURCES = {
    "gapminder": "country populations (gapminder, as in Wang and Kang)",
    "sidebar": "the sidebar's histogram",
}
SCALE_MODES = {
    "eps": "ε from the sidebar (b = Δf/ε)",
    "scale": "noise scale b directly",
}

SOURCE = ChoiceParam("lap_source", "gapminder", tuple(SOURCES))
YEAR = ChoiceParam("lap_year", "2007", GAPMINDER_YEARS)
POP_MAX = FloatParam("lap_pop_max", 5.0, 0.1, 2000.0)
SCALE_MODE = ChoiceParam("lap_scale_mode", "eps", tuple(SCALE_MODES))
SCALE = FloatParam("lap_b", 1.0, 1e-3, 1e9)
SENSITIVITY = FloatParam("lap_sens", 1.0, 1e-6, 1e9)
DELTA = FloatParam("lap_delta", 0.05, 1e-9, 0.99)
K2 = IntParam("lap_k2", 10_000, 1, 100_000)
TRIALS = IntParam("lap_trials", 1000, 100, 10_000)
SEED = IntParam("lap_seed", 0, 0, 2**31 - 1)
PARAMS = (SOURCE, YEAR, POP_MAX, SCALE_MODE, SCALE, SENSITIVITY, DELTA, K2, TRIALS, SEED)
# what the page shows below the release, one at a time
SECTIONS = {
    "noise": "The noise",
    "bound": "Bound vs exact vs simulated",
    "two_k": "Two query sizes k",
}
SECTION = ChoiceParam("lap_show", "noise", tuple(SECTIONS))
PINNED = (SOURCE, YEAR, POP_MAX, SCALE_MODE, SCALE, SENSITIVITY, DELTA, SEED, EPSILON)
"""What a pinned view keeps: the query, the noise settings and the shared ε (not the
simulation's k₂ and trials, which the comparison does not draw)."""

# A simulation draws at most this many Laplace values (about 0.4 s): for large k the
# number of trials is reduced (never below MIN_TRIALS), and the page says so.
MAX_SIMULATED_DRAWS = 10_000_000
MIN_TRIALS = 20
SWEEP_MAX_K = 10_000
SWEEP_DELTAS = tuple(float(d) for d in np.geomspace(1e-4, 0.5, 25))
# A simulated (1-δ)-quantile is shown only when at least this many of the trials are
# expected beyond it; with fewer it is just the sample maximum and would mislead.
MIN_EXPECTED_BEYOND = 5


def sensitivity_text(sensitivity: float, *, gapminder: bool) -> str:
    """The sensitivity paragraph for the query on screen (its Δf and where its entries come
    from), not a fixed story about countries."""
    unit = "country" if gapminder else "bin"
    text = (
        "**Sensitivity.** Δf is how far the *whole* answer vector can move, in L1, when one "
        f"person is added or removed. If each person is in exactly one {unit}, one count moves "
        "by 1 and Δf = 1. "
    )
    if sensitivity == 1:
        return text + "A query where one person touches several entries needs a larger Δf."
    return text + (
        f"Here Δf = {sensitivity:g}: right when one person can move the entries by up to "
        f"{sensitivity:g} in total (for example, one person counted in {sensitivity:g} "
        f"{unit}s); the noise scale b = Δf/ε grows with it."
    )


def prose() -> str:
    return references.prose("laplace.md")


@st.cache_data(max_entries=64, show_spinner=False)
def gapminder_populations(year: int, below_millions: float) -> pd.DataFrame:
    """Countries with population below ``below_millions`` million in ``year`` (sorted by name)."""
    table = px.data.gapminder()
    rows = table[(table["year"] == year) & (table["pop"] < below_millions * 1e6)]
    populations: pd.DataFrame = (
        rows[["country", "pop"]]
        .sort_values("country")
        .rename(columns={"pop": "population"})
        .reset_index(drop=True)
    )
    return populations


@dataclass(frozen=True)
class Release:
    """One Laplace release of a count vector, with the numbers the page reports."""

    noisy: NDArray[np.float64]
    noise: NDArray[np.float64]
    scale: float
    bound: float
    exact: float


def release(
    counts: NDArray[np.float64], *, eps: float, sensitivity: float, delta: float, seed: int
) -> Release:
    """Noisy counts (seeded, so a link reproduces the draw) and the max-error widths."""
    noisy = laplace_mechanism(
        counts, eps=eps, sensitivity=sensitivity, rng=np.random.default_rng(seed)
    )
    k = counts.size
    return Release(
        noisy=noisy,
        noise=noisy - counts,
        scale=laplace_scale(eps, sensitivity),
        bound=laplace_max_error_bound(k, delta, eps, sensitivity),
        exact=laplace_max_error_exact(k, delta, eps, sensitivity),
    )


@dataclass(frozen=True)
class Query:
    """One view's query (its entries and what they are) and its seeded release."""

    labels: tuple[str, ...]
    counts: NDArray[np.float64]
    described: str
    data: str
    eps: float
    sensitivity: float
    delta: float
    seed: int
    rel: Release

    @property
    def gapminder(self) -> bool:
        return self.data == "gapminder"

    def settings(self) -> dict[str, Any]:
        """The settings stamped under this view's charts."""
        return {
            "data": self.data,
            "k": self.counts.size,
            "ε": self.eps,
            "Δf": self.sensitivity,
            "δ": self.delta,
            "seed": self.seed,
        }

    def key_numbers(self) -> dict[str, float]:
        """The numbers a pinned comparison shows for this view."""
        noise = np.abs(self.rel.noise)
        return {
            "entries k": float(self.counts.size),
            "ε": self.eps,
            "noise scale b = Δf/ε": self.rel.scale,
            "bound ln(k/δ)·b": self.rel.bound,
            "exact width t*·b": self.rel.exact,
            "largest |noise| in this draw": float(noise.max()),
            "mean |noise| in this draw": float(noise.mean()),
        }


def page_cost(k: int, draws: int) -> limits.Cost:
    """The release, its table and charts (1 µs and 100 bytes per entry) and the max-error
    simulation (15 ns and 8 bytes per Laplace draw)."""
    return limits.Cost(k * 1e-6 + draws * 15e-9, (k * 100 + draws * 8) / limits.MB)


def section_draws(k: int, shown: str, trials: int, k2: int) -> int:
    """Laplace values the section ``shown`` below the release simulates (the max-error sweep
    over k, or the two query sizes), each k's trials capped as :func:`effective_trials`."""
    sizes = {"bound": sweep_ks(k, k2), "two_k": (k, k2)}.get(shown, ())
    return sum(size * effective_trials(size, trials) for size in sizes)


def cost(inputs: Inputs) -> Estimate:
    """The release, its table and chart (the gapminder table itself is small); the section
    below it has its own estimate (:func:`section_cost`)."""
    k = inputs.hist.n_bins if inputs[SOURCE] == "sidebar" else GAPMINDER_MAX_K
    return Estimate(
        f"the Laplace mechanism on {k:,} entries",
        page_cost(k, 0),
        smaller="use a histogram with fewer bins, or the gapminder data",
        library="dpcore.mechanisms.laplace_mechanism",
    )


def section_cost(k: int, shown: str, trials: int, k2: int) -> Estimate | None:
    """The simulation of the section ``shown`` for a query of ``k`` entries, with ``trials``
    releases per k and the second size ``k2`` (None for the noise, which simulates nothing).
    """
    draws = section_draws(k, shown, trials, k2)
    if draws == 0:
        return None
    return Estimate(
        f"simulating the largest noise of {draws:,} Laplace values ({trials:,} trials per k)",
        page_cost(0, draws),
        smaller="choose fewer simulation trials or a smaller second k, or use a histogram "
        "with fewer bins",
        library="dpcore.mechanisms.simulate_laplace_max_error",
    )


def query(inputs: Inputs) -> Query:
    """The query and release set by ``inputs``; :class:`Refused` when there is nothing to
    release."""
    if inputs[SOURCE] == "gapminder":
        year, below = int(inputs[YEAR]), float(inputs[POP_MAX])
        table = gapminder_populations(year, below)
        if table.empty:
            raise Refused(
                f"No country had fewer than {below:g} million people in {year}; "
                "raise the threshold."
            )
        labels = tuple(table["country"])
        counts = table["population"].to_numpy(dtype=float)
        described = (
            f"populations of the {len(labels)} countries below {below:g} million in {year} "
            "(gapminder)"
        )
        data = "gapminder"
    else:
        hist = inputs.hist
        labels = hist.labels or tuple(str(i + 1) for i in range(hist.n_bins))
        counts = hist.counts
        described = f"the {hist.n_bins:,} bins of '{hist.name}' (sidebar)"
        data = hist.name
    sensitivity, delta = float(inputs[SENSITIVITY]), float(inputs[DELTA])
    if inputs[SCALE_MODE] == "scale":
        eps = sensitivity / float(inputs[SCALE])
    else:
        eps = float(inputs[EPSILON])
    seed = int(inputs[SEED])
    try:
        rel = release(counts, eps=eps, sensitivity=sensitivity, delta=delta, seed=seed)
    except ValueError as err:
        raise Refused(f"No release at these settings: {err}") from None
    return Query(labels, counts, described, data, eps, sensitivity, delta, seed, rel)


def view(inputs: Inputs) -> View:
    """The page's main view: true vs noisy bars, the key numbers and the stamp."""
    q = query(inputs)
    described = (
        f"{q.described}; ε = {q.eps:.4g}, Δf = {q.sensitivity:g}, b = {q.rel.scale:.4g}, "
        f"δ = {q.delta:g}, seed {q.seed}"
    )
    figure = figures.true_vs_noisy(q.labels, q.counts, q.rel.noisy)
    return View(described, figure, q.settings(), q.key_numbers(), detail=q)


def release_table(
    labels: tuple[str, ...],
    counts: NDArray[np.float64],
    rel: Release,
    *,
    eps: float,
    sensitivity: float,
    delta: float,
) -> pd.DataFrame:
    """The release for download, with exact (1-δ) intervals: per entry and for all k at once."""
    table = pd.DataFrame({"entry": labels, "true": counts, "noisy": rel.noisy, "noise": rel.noise})
    for simultaneous, name in ((False, "each"), (True, "all k at once")):
        lower, upper = laplace_confidence_intervals(
            rel.noisy,
            confidence=1.0 - delta,
            eps=eps,
            sensitivity=sensitivity,
            simultaneous=simultaneous,
        )
        table[f"lower ({name})"] = lower
        table[f"upper ({name})"] = upper
    return table


def effective_trials(k: int, trials: int) -> int:
    """Trials actually simulated for ``k``: ``k * trials <= MAX_SIMULATED_DRAWS`` unless that
    would leave fewer than ``MIN_TRIALS`` (only for histograms of over 500,000 bins)."""
    return max(MIN_TRIALS, min(trials, MAX_SIMULATED_DRAWS // k))


@st.cache_data(max_entries=64, show_spinner=False)
def unit_maxima(k: int, trials: int, seed: int) -> NDArray[np.float64]:
    """Simulated ``max_i |Y_i|`` at b = 1, sorted; an independent stream per (seed, k)."""
    rng = np.random.default_rng([seed, k])
    maxima = simulate_laplace_max_error(
        k, eps=1.0, sensitivity=1.0, trials=effective_trials(k, trials), rng=rng
    )
    return np.sort(maxima)


def sweep_ks(k: int, k2: int) -> tuple[int, ...]:
    """A log-spaced grid of k up to ``SWEEP_MAX_K``, plus the page's own two k."""
    grid = {int(v) for v in np.unique(np.round(np.geomspace(1, SWEEP_MAX_K, 17)))}
    return tuple(sorted(grid | {k, k2}))


def max_error_vs_k(
    ks: tuple[int, ...], delta: float, scale: float, trials: int, seed: int
) -> pd.DataFrame:
    """Bound, exact and simulated (1-δ)-quantile of the max error, per k."""
    rows = []
    for k in ks:
        maxima = unit_maxima(k, trials, seed)
        rows.append(
            {
                "k": k,
                "bound ln(k/δ)·b": laplace_max_error_bound(k, delta, 1.0, 1.0) * scale,
                "exact t*·b": laplace_max_error_exact(k, delta, 1.0, 1.0) * scale,
                "simulated (1-δ)-quantile": _quantile(maxima, delta) * scale,
                "mean max error b·H_k": laplace_expected_max_error(k, 1.0, 1.0) * scale,
                "trials": maxima.size,
            }
        )
    return pd.DataFrame(rows)


def max_error_vs_delta(k: int, scale: float, trials: int, seed: int) -> pd.DataFrame:
    """Bound, exact and simulated (1-δ)-quantile of the max error for a grid of δ at fixed k."""
    maxima = unit_maxima(k, trials, seed)
    deltas = np.array(SWEEP_DELTAS)
    return pd.DataFrame(
        {
            "δ": deltas,
            "bound ln(k/δ)·b": [laplace_max_error_bound(k, d, 1.0, 1.0) * scale for d in deltas],
            "exact t*·b": [laplace_max_error_exact(k, d, 1.0, 1.0) * scale for d in deltas],
            "simulated (1-δ)-quantile": [_quantile(maxima, d) * scale for d in deltas],
        }
    )


def _quantile(maxima: NDArray[np.float64], delta: float) -> float:
    """The empirical (1-δ)-quantile, or NaN when too few trials lie beyond it to estimate it."""
    if maxima.size * delta < MIN_EXPECTED_BEYOND:
        return math.nan
    return float(np.quantile(maxima, 1.0 - delta))


def two_k_comparison(
    ks: tuple[int, int], delta: float, scale: float, trials: int, seed: int
) -> pd.DataFrame:
    """Wang and Kang's check, done with probabilities: how often does the max noise pass the bound?

    One draw per k counts the noise values beyond the bound (expected count
    ``k · δ/k = δ``: each coordinate exceeds with probability at most ``δ/k``);
    the simulation gives the frequency of *any* value passing it, next to its
    exact probability ``1 - (1 - δ/k)^k`` (close to, and below, δ).
    """
    rows = []
    for k in ks:
        one_draw = np.abs(np.random.default_rng([seed, k, 1]).laplace(0.0, 1.0, size=k))
        maxima = unit_maxima(k, trials, seed)
        bound = laplace_max_error_bound(k, delta, 1.0, 1.0)
        exact = laplace_max_error_exact(k, delta, 1.0, 1.0)
        rows.append(
            {
                "k": k,
                "bound ln(k/δ)·b": bound * scale,
                "exact t*·b": exact * scale,
                "largest |noise| in one draw": float(one_draw.max()) * scale,
                "values beyond the bound in that draw": int((one_draw >= bound).sum()),
                "expected number beyond the bound": k * math.exp(-bound),
                "P[max ≥ bound], exact": laplace_max_error_tail(bound, k, 1.0, 1.0),
                "P[max ≥ bound], simulated": float(np.mean(maxima >= bound)),
                "trials": maxima.size,
            }
        )
    return pd.DataFrame(rows)
