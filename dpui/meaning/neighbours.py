"""The "Neighbours" view of What ε means: one bin of the sidebar's histogram released on D and
on D′ (D without one person of that bin), exact distributions, the privacy loss, and a seeded
simulation drawn over them."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st
from numpy.typing import NDArray
from scipy import stats

from dpcore.histogram import MAX_BINS
from dpcore.meaning.neighbours import MECHANISMS, Neighbours, neighbours
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import ChoiceParam, FloatParam, IntParam
from dpui.kit.sidebar import EPSILON
from dpui.meaning import figures

FloatArray = NDArray[np.float64]

MECHANISM_NAMES = {
    "laplace": "Laplace: count + Lap(Δ/ε)",
    "geometric": "Geometric: integer noise, P ∝ e^(−ε|k|/Δ)",
    "gaussian": "Gaussian: count + N(0, σ²), σ for (ε, δ)",
}
BIN = IntParam("nb_bin", 0, 0, MAX_BINS)
"""The bin Alice is in, 1-based; 0 (the default) is the histogram's largest bin."""
MECHANISM = ChoiceParam("nb_mech", "laplace", MECHANISMS)
DELTA = FloatParam("nb_delta", 1e-5, 1e-12, 0.5)
RELEASES = IntParam("nb_releases", 5_000, 100, 1_000_000)
SEED = IntParam("nb_seed", 0, 0, 2**31 - 1)
PARAMS = (BIN, MECHANISM, DELTA, RELEASES, SEED)
PINNED = (BIN, MECHANISM, DELTA, RELEASES, SEED, EPSILON)

GRID = 801  # points of the exact curves
WINDOW = 8.0  # the outputs drawn: both counts ± this many noise scales
SIM_BINS = 40


def page_cost(releases: int) -> limits.Cost:
    """Drawing the releases (about 60 ns each, measured for numpy's Laplace, normal and two
    geometric draws) and binning them; 24 bytes per release."""
    return limits.Cost(2e-3 + releases * 60e-9, releases * 24 / limits.MB)


def cost(inputs: Inputs) -> Estimate:
    releases = int(inputs[RELEASES])
    return Estimate(
        f"{releases:,} simulated releases",
        page_cost(releases),
        smaller="simulate fewer releases",
        library="dpcore.meaning.neighbours.Neighbours.sample",
    )


def setup(inputs: Inputs) -> tuple[Neighbours, int]:
    """The bin (1-based, clamped to the histogram; 0 = the largest) and its two neighbouring
    releases; :class:`Refused` when the bin is empty or the mechanism cannot run here."""
    hist = inputs.hist
    chosen = min(int(inputs[BIN]), hist.n_bins) or int(np.argmax(hist.counts)) + 1
    count = float(hist.counts[chosen - 1])
    try:
        nb = neighbours(
            inputs[MECHANISM], count, float(inputs[EPSILON]), delta=float(inputs[DELTA])
        )
    except ValueError as err:
        nonempty = np.flatnonzero(hist.counts >= 1)
        hint = f" The first bin that is not empty is {nonempty[0] + 1:,}." if nonempty.size else ""
        raise Refused(f"Bin {chosen:,} of '{hist.name}': {err}.{hint}") from None
    return nb, chosen


def _spread(nb: Neighbours) -> float:
    """The noise's scale in count units (b, σ, or the geometric's Δ/ε)."""
    return nb.sensitivity / nb.eps if nb.mechanism == "geometric" else nb.scale


def outputs(nb: Neighbours) -> FloatArray:
    """The outputs drawn: both counts ± :data:`WINDOW` scales (integers for geometric)."""
    lo = nb.neighbour_count - WINDOW * _spread(nb)
    hi = nb.count + WINDOW * _spread(nb)
    if nb.mechanism == "geometric":
        step = max(1, math.ceil((hi - lo) / GRID))
        return np.arange(math.floor(lo), math.ceil(hi) + 1, step, dtype=np.float64)
    return np.linspace(lo, hi, GRID)


@st.cache_data(max_entries=32, show_spinner=False)
def simulated(
    mechanism: str, count: float, eps: float, delta: float, releases: int, seed: int
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Seeded releases of D binned over the drawn outputs: bin centres, the share per unit
    (a density; for geometric, per integer), and a 95% Clopper-Pearson band."""
    nb = neighbours(mechanism, count, eps, delta=delta)  # type: ignore[arg-type]
    draws = nb.sample(releases, np.random.default_rng(seed))
    grid = outputs(nb)
    edges = np.linspace(grid[0], grid[-1], SIM_BINS + 1)
    if nb.mechanism == "geometric":  # whole integers per bin
        edges = np.unique(np.round(edges)) - 0.5
    hits, _ = np.histogram(draws, bins=edges)
    width = np.diff(edges)
    lower = stats.beta.ppf(0.025, hits, releases - hits + 1)
    upper = stats.beta.ppf(0.975, hits + 1, releases - hits)
    lower = np.where(hits == 0, 0.0, lower)
    upper = np.where(hits == releases, 1.0, upper)
    centres = (edges[:-1] + edges[1:]) / 2
    # per unit of output: a density, or (geometric, edges at half-integers) per integer
    return centres, hits / releases / width, lower / width, upper / width


def key_numbers(nb: Neighbours) -> dict[str, float]:
    """What one view says about ε: the odds bound, the noise and the loss."""
    grid = outputs(nb)
    return {
        "ε": nb.eps,
        "odds bound e^ε": math.exp(nb.eps),
        "noise scale (b, σ or Δ/ε)": _spread(nb),
        "largest |loss| on the drawn outputs": float(np.max(np.abs(nb.loss(grid)))),
        "P[loss > ε] in one release": nb.exceeds(),
        "δ": nb.delta,
    }


def view(inputs: Inputs) -> View:
    """The two distributions and the privacy loss of the chosen bin, with the simulation."""
    nb, chosen = setup(inputs)
    grid = outputs(nb)
    releases, seed = int(inputs[RELEASES]), int(inputs[SEED])
    sim = simulated(nb.mechanism, nb.count, nb.eps, nb.delta, releases, seed)
    label = (
        f"bin {chosen:,}: {nb.count:,.0f} people in D, {nb.neighbour_count:,.0f} in D′ · "
        f"{MECHANISM_NAMES[nb.mechanism].split(':')[0]}, ε = {nb.eps:g}"
        + (f", δ = {nb.delta:g}" if nb.mechanism == "gaussian" else "")
    )
    figure = figures.neighbours(
        grid,
        nb.density(grid),
        nb.density(grid, neighbour=True),
        nb.loss(grid),
        eps=nb.eps,
        discrete=nb.mechanism == "geometric",
        simulated=sim,
        threshold=nb.loss_threshold(),
    )
    stamp = {
        "dataset": inputs.hist.name,
        "bin": chosen,
        "mechanism": nb.mechanism,
        "ε": nb.eps,
        "δ": nb.delta if nb.mechanism == "gaussian" else None,
        "releases": releases,
        "seed": seed,
    }
    return View(label, figure, stamp, key_numbers(nb), detail=nb, kind=nb.mechanism)
