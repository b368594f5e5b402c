"""The "Composition" part of What ε means: one count asked k times (the running average and
the ledger: basic kε, zCDP and the exact Gaussian ε against k), and a total ε split among
several queries of the histogram."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from dpcore.meaning import composition as comp
from dpcore.meaning.neighbours import gaussian_sigma
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import ChoiceParam, FloatParam, IntParam
from dpui.kit.sidebar import EPSILON
from dpui.meaning import figures

FloatArray = NDArray[np.float64]

K = IntParam("co_k", 50, 1, comp.MAX_QUERIES)
DELTA = FloatParam("co_delta", 1e-5, 1e-12, 0.5)
QUERIES = IntParam("co_queries", 4, 1, 32)
SPLITS = {"equal": "equal shares", "halving": "halving: ½, ¼, … (the last two equal)"}
SPLIT = ChoiceParam("co_split", "equal", tuple(SPLITS))
SEED = IntParam("co_seed", 0, 0, 2**31 - 1)
PARAMS = (K, DELTA, QUERIES, SPLIT, SEED)
LEDGER_POINTS = 60
"""The ledger's exact Gaussian curve is one root search per point: at most this many ks."""


def page_cost(k: int) -> limits.Cost:
    """k Laplace draws and their running mean (negligible), and the ledger: one root search
    (about 1 ms) per point, at most :data:`LEDGER_POINTS`."""
    return limits.Cost(0.02 + min(k, LEDGER_POINTS) * 1.5e-3 + k * 1e-7, k * 32 / limits.MB)


def cost(inputs: Inputs) -> Estimate:
    k = int(inputs[K])
    return Estimate(
        f"{k:,} answers and their ledger",
        page_cost(k),
        smaller="ask fewer times",
        library="dpcore.meaning.composition",
    )


@dataclass(frozen=True)
class Composition:
    eps: float
    delta: float
    k: int
    count: float
    bin: int
    sigma: float
    shares: FloatArray
    mean_error: FloatArray
    sd_error: FloatArray
    split: str


def weights(queries: int, split: str) -> FloatArray:
    """Equal weights, or halving ones (½, ¼, …, the last two equal so that they add to 1)."""
    if split == "equal" or queries == 1:
        return np.ones(queries)
    w = 0.5 ** np.arange(1, queries + 1, dtype=np.float64)
    w[-1] = w[-2]
    return w


def ledger_ks(k: int) -> FloatArray:
    """Up to :data:`LEDGER_POINTS` whole numbers from 1 to k, spread on a log scale."""
    return np.unique(np.round(np.geomspace(1, k, LEDGER_POINTS))).astype(np.float64)


@st.cache_data(max_entries=32, show_spinner=False)
def computed(
    eps: float, delta: float, k: int, count: float, seed: int
) -> tuple[FloatArray, FloatArray, FloatArray, float, FloatArray, FloatArray]:
    """The running averages (and their sd), the ledger's ks, σ per answer, and the zCDP and
    exact Gaussian ε at δ for each k."""
    avg, sd = comp.running_average(count, eps, k, np.random.default_rng(seed))
    ks = ledger_ks(k)
    sigma = gaussian_sigma(eps, delta)
    zcdp = comp.zcdp_epsilon(comp.zcdp_rho(ks, sigma), delta)
    exact = comp.exact_gaussian_epsilon(ks, sigma, delta)
    return avg, sd, ks, sigma, zcdp, exact


def view(inputs: Inputs) -> View:
    """The running average converging to the count, and the ledger against k."""
    eps, delta, k = float(inputs[EPSILON]), float(inputs[DELTA]), int(inputs[K])
    hist = inputs.hist
    chosen = int(np.argmax(hist.counts)) + 1
    count = float(hist.counts[chosen - 1])
    try:
        avg, sd, ks, sigma, zcdp, exact = computed(eps, delta, k, count, int(inputs[SEED]))
        shares = comp.split(eps, weights(int(inputs[QUERIES]), inputs[SPLIT]))
    except ValueError as err:
        raise Refused(f"Composition at ε = {eps:g}, δ = {delta:g}: {err}.") from None
    mean_error, sd_error = comp.laplace_errors(shares)
    figure = figures.composition(
        count, avg, sd, ks, comp.basic_epsilon(ks, eps), zcdp, exact, eps=eps, delta=delta
    )
    numbers = {
        "ε per answer": eps,
        "answers k": float(k),
        "basic composition kε": k * eps,
        "zCDP ε at δ (Gaussian)": float(zcdp[-1]),
        "exact ε at δ (Gaussian)": float(exact[-1]),
        "error of the average after k (sd)": float(sd[-1]),
        "true count": count,
    }
    detail = Composition(
        eps, delta, k, count, chosen, sigma, shares, mean_error, sd_error, inputs[SPLIT]
    )
    stamp = {"part": "composition", "ε": eps, "δ": delta, "k": k, "seed": int(inputs[SEED])}
    described = f"Bin {chosen:,} asked {k:,} times at ε = {eps:g} each"
    note = f"Gaussian σ = {sigma:.4g} per answer, (ε, δ)-DP alone." if math.isfinite(sigma) else ""
    return View(
        described, figure, stamp, numbers, detail=detail, share="", kind="composition", note=note
    )
