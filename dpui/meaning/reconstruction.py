"""The "Reconstruction" part of What ε means: a seeded secret of n bits, m random subset sums
answered with Laplace noise over a grid of magnitudes, least squares with rounding, and the
fraction of bits recovered (Dinur & Nissim 2003), with the answers made ε-DP for comparison."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from dpcore.meaning import reconstruction as rec
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import IntParam
from dpui.kit.sidebar import EPSILON
from dpui.meaning import figures

FloatArray = NDArray[np.float64]

BITS = IntParam("re_n", 128, 64, rec.MAX_BITS)
PER_BIT = IntParam("re_queries", 4, 1, rec.MAX_QUERIES_PER_BIT)
GRID = IntParam("re_grid", 16, 4, 40)
SEED = IntParam("re_seed", 0, 0, 2**31 - 1)
PARAMS = (BITS, PER_BIT, GRID, SEED)
LOW, HIGH = 1 / 20, 40.0
"""The grid of noise scales: from √n/20 to 40√n, log-spaced."""


def page_cost(n: int, m: int, grid: int) -> limits.Cost:
    """One least-squares solve (SVD) of the m x n queries for all grid columns at once:
    about 2 ns per m·n² (measured 0.55 s at n = 512, m = 2048 on the 2-core server, up to
    3 s when it is busy), and the m·n query matrix with its SVD workspace, 8 bytes each
    about 4 times over."""
    return limits.Cost(0.02 + 2e-9 * m * n * n + 1e-8 * m * grid, 32 * m * n / limits.MB)


def cost(inputs: Inputs) -> Estimate:
    n, grid = int(inputs[BITS]), int(inputs[GRID])
    m = n * int(inputs[PER_BIT])
    return Estimate(
        f"a reconstruction attack on {n:,} bits with {m:,} queries at {grid + 1} noise levels",
        page_cost(n, m, grid + 1),
        smaller="fewer bits or fewer queries per bit",
        library="dpcore.meaning.reconstruction.attack_curve",
    )


@dataclass(frozen=True)
class Reconstruction:
    n: int
    m: int
    eps: float
    scales: FloatArray
    rates: FloatArray
    dp_scale: float
    dp_rate: float

    def perfect_up_to(self) -> float:
        """The largest grid scale up to which every bit is recovered (0 if none)."""
        first_miss = int(np.argmin(self.rates >= 1.0)) if np.any(self.rates < 1.0) else None
        return float(self.scales[:first_miss].max(initial=0.0))


def scales(n: int, grid: int) -> FloatArray:
    return np.geomspace(LOW * math.sqrt(n), HIGH * math.sqrt(n), grid)


@st.cache_data(max_entries=16, show_spinner=False)
def computed(n: int, m: int, grid: int, eps: float, seed: int) -> tuple[FloatArray, float, float]:
    """The rates over the grid, and the DP scale with its rate."""
    b_dp = rec.dp_scale(m, eps)
    _, rates = rec.attack_curve(n, m, np.append(scales(n, grid), b_dp), np.random.default_rng(seed))
    return rates[:-1], b_dp, float(rates[-1])


def view(inputs: Inputs) -> View:
    """The fraction of bits recovered against the noise magnitude, √n and the DP answers marked."""
    n, grid, eps = int(inputs[BITS]), int(inputs[GRID]), float(inputs[EPSILON])
    m = n * int(inputs[PER_BIT])
    try:
        rates, b_dp, dp_rate = computed(n, m, grid, eps, int(inputs[SEED]))
    except ValueError as err:
        raise Refused(f"Reconstruction of {n:,} bits with {m:,} queries: {err}.") from None
    grid_scales = scales(n, grid)
    detail = Reconstruction(n, m, eps, grid_scales, rates, b_dp, dp_rate)
    figure = figures.reconstruction(grid_scales, rates, n=n, m=m, eps=eps, dp=(b_dp, dp_rate))
    numbers = {
        "bits n": float(n),
        "queries m": float(m),
        "√n": math.sqrt(n),
        "bits recovered at noise √n/20": float(rates[0]),
        "bits recovered at noise √n": float(
            np.interp(0.0, np.log(grid_scales / math.sqrt(n)), rates)
        ),
        "noise scale of ε-DP answers (m/ε)": b_dp,
        "bits recovered from ε-DP answers": dp_rate,
    }
    stamp = {
        "part": "reconstruction",
        "n": n,
        "m": m,
        "ε total": eps,
        "grid": grid,
        "seed": int(inputs[SEED]),
    }
    described = f"{n:,} secret bits, {m:,} noisy subset sums · ε = {eps:g} in total"
    return View(described, figure, stamp, numbers, detail=detail, share="y", kind="reconstruction")
