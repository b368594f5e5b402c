"""The "Matrix mechanism / Privelet" page's parameters, cached computations, cost estimate
and pure view: Privelet's matrices for n bins, and one range's error three ways and
simulated. Privelet's error does not depend on the data, so the page uses no dataset (only
the sidebar's ε).

The cost model (:func:`page_cost`) was measured like those of :mod:`dpui.kit.limits`: the
three n x n matrices, their heatmaps and the covariance's CSV take about 5 µs and 150 bytes
per cell of the padded N x N, and a simulated release about 150 ns and 32 bytes per bin (a
tenth of the releases is held at once).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.hist import matrix_mechanism as mm
from dpcore.hist import privelet, privelet_error
from dpui.errors import figures
from dpui.errors.simulation import progress_bar
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, View
from dpui.kit.params import IntParam
from dpui.kit.sidebar import EPSILON

FloatArray = NDArray[np.float64]

MAX_N = 2048
"""The largest n a link may ask for; the work limit (:func:`cost`) refuses what is too big
for this server (about n = 1,000 by default)."""

N = IntParam("mp_n", 8, 1, MAX_N)
LEFT = IntParam("mp_l", 3, 1, MAX_N)
RIGHT = IntParam("mp_r", 7, 1, MAX_N)
RELEASES = IntParam("mp_releases", 5000, 10, 200_000)
SEED = IntParam("mp_seed", 0, 0, 2**31 - 1)
PARAMS = (N, LEFT, RIGHT, RELEASES, SEED)
PINNED = (*PARAMS, EPSILON)
"""A view: the matrices' size, the range, the simulation and the shared ε."""


def range_problem(n: int, left: int, right: int) -> str | None:
    """Why ``left..right`` is not a range of ``n`` bins (1-based), or None when it is."""
    if not 1 <= left <= n or not 1 <= right <= n:
        return f"The range must lie in 1..{n}; got {left}..{right}."
    if left > right:
        return f"The first bin ({left}) is after the last bin ({right})."
    return None


@dataclass(frozen=True)
class Matrices:
    strategy: FloatArray
    reconstruction: FloatArray
    covariance: FloatArray  # B B^T from theorem 2
    padded: int
    sensitivity: float


@st.cache_data(max_entries=16, show_spinner=False)
def matrices(n: int) -> Matrices:
    a = privelet.strategy_matrix(n)
    return Matrices(
        a,
        privelet.reconstruction_matrix(n),
        privelet_error.covariance_matrix(n),
        privelet.padded_size(n),
        mm.l1_sensitivity(a),
    )


SIMULATION_CHUNKS = 10


@st.cache_data(max_entries=256, show_spinner=False)
def simulated_squared_errors(
    n: int, left: int, right: int, eps: float, releases: int, seed: int, chunk: int
) -> FloatArray:
    """Squared errors of range ``left..right`` in one chunk of seeded Privelet releases.

    The error does not depend on the data, so an all-zero histogram is released.
    """
    rng = np.random.default_rng([seed, chunk])
    estimates = privelet.release(np.zeros(n), eps, rng=rng, releases=releases)
    return np.asarray(estimates[:, left - 1 : right].sum(axis=1) ** 2, dtype=np.float64)


def three_ways(
    n: int,
    left: int,
    right: int,
    eps: float,
    releases: int,
    seed: int,
    progress: Callable[[float], object] | None = None,
) -> pd.DataFrame:
    """The range's error coefficient by algorithm 3, the sub-matrix sum, ``||B^T w||^2``,
    and ``releases`` seeded Privelet releases (normal 95% interval), 1-based ``left..right``."""
    mats = matrices(n)
    variance = privelet.noise_variance(n, eps)
    w = np.zeros(n)
    w[left - 1 : right] = 1.0
    by_algorithm3 = privelet_error.range_error_coefficient(n, left, right)
    by_submatrix = float(mats.covariance[left - 1 : right, left - 1 : right].sum())
    by_transform = float(privelet_error.linear_query_coefficient(w))
    sizes = np.diff(np.linspace(0, releases, SIMULATION_CHUNKS + 1).astype(int))
    parts = []
    for chunk, size in enumerate(sizes):
        if size:
            parts.append(simulated_squared_errors(n, left, right, eps, int(size), seed, chunk))
        if progress is not None:
            progress((chunk + 1) / SIMULATION_CHUNKS)
    squared = np.concatenate(parts)
    mean = float(squared.mean())
    half = 1.96 * float(squared.std(ddof=1)) / np.sqrt(releases) if releases > 1 else np.nan
    exact = [by_algorithm3, by_submatrix, by_transform]
    return pd.DataFrame(
        {
            "method": [
                "Algorithm 3 (O(log n))",
                "Sum of the sub-matrix of B Bᵀ",
                "‖Bᵀw‖² (fast transform)",
                f"Simulation ({releases:,} releases)",
            ],
            "error coefficient": [*exact, mean / variance],
            "MSE": [*(c * variance for c in exact), mean],
            "95% CI ±": [np.nan, np.nan, np.nan, half],
        }
    )


@st.cache_data(max_entries=16, show_spinner=False)
def covariance_csv(n: int) -> str:
    """``B B^T`` as CSV (1-based bin labels)."""
    cov = matrices(n).covariance
    labels = [str(i) for i in range(1, cov.shape[0] + 1)]
    return pd.DataFrame(cov, index=labels, columns=labels).to_csv()


# --- the page's cost and view --------------------------------------------------------------


def page_cost(n: int, releases: int) -> limits.Cost:
    """The matrices, heatmaps and CSV of ``n`` bins (padded to N) and ``releases`` simulated
    releases (0 when the range is invalid)."""
    cells = privelet.padded_size(n) ** 2
    bins = privelet.padded_size(n) * releases
    return limits.Cost(cells * 5e-6 + bins * 150e-9, (cells * 150 + bins * 32 / 10) / limits.MB)


def cost(inputs: Inputs) -> Estimate:
    """What the view set by ``inputs`` is estimated to cost."""
    n, left, right = int(inputs[N]), int(inputs[LEFT]), int(inputs[RIGHT])
    releases = 0 if range_problem(n, left, right) else int(inputs[RELEASES])
    return Estimate(
        f"Privelet's matrices for n = {n:,} bins and {releases:,} simulated releases",
        page_cost(n, releases),
        smaller="choose fewer bins n (the matrices are n × n) or fewer simulated releases",
        library="dpcore.hist.privelet",
    )


@dataclass(frozen=True)
class Detail:
    """What the page's body draws: the matrices, why the range is invalid (or None), and the
    range's error three ways and simulated (None for an invalid range)."""

    mats: Matrices
    problem: str | None
    table: pd.DataFrame | None
    eps: float


def key_numbers(mats: Matrices, eps: float, table: pd.DataFrame | None) -> dict[str, float]:
    """The numbers a pinned comparison shows: the sizes, the noise, and the range's MSE three
    ways and simulated."""
    n = int(mats.covariance.shape[0])
    numbers = {
        "bins n": float(n),
        "transform size N": float(mats.padded),
        "ε": eps,
        "noise variance per coefficient 2Δ²/ε²": 2 * mats.sensitivity**2 / eps**2,
    }
    if table is not None:
        mse = table["MSE"].to_numpy()
        numbers |= {
            "range's MSE: Algorithm 3": float(mse[0]),
            "range's MSE: sum of the sub-matrix of B Bᵀ": float(mse[1]),
            "range's MSE: ‖Bᵀw‖²": float(mse[2]),
            "range's MSE: simulated": float(mse[3]),
            "range's error coefficient": float(table["error coefficient"].iloc[0]),
        }
    return numbers


def view(inputs: Inputs) -> View:
    """The covariance B Bᵀ with the range outlined, the range's error three ways and
    simulated, and the key numbers (sizes only for an invalid range)."""
    n, left, right = int(inputs[N]), int(inputs[LEFT]), int(inputs[RIGHT])
    eps, releases, seed = float(inputs[EPSILON]), int(inputs[RELEASES]), int(inputs[SEED])
    mats = matrices(n)
    problem = range_problem(n, left, right)
    table = None
    if problem is None:
        with progress_bar(True, "Simulating Privelet releases…") as progress:
            table = three_ways(n, left, right, eps, releases, seed, progress=progress)
    stamp: dict[str, Any] = {"n": n, "range": None if problem else f"[{left}, {right}]"}
    figure = figures.matrix_heatmap(
        mats.covariance,
        title="Covariance Σ = B Bᵀ (unit noise)",
        outline=None if problem else (left, right),
    )
    described = f"n = {n}, " + (
        "no valid range" if problem else f"range [{left}, {right}], ε = {eps:g}, "
    )
    if problem is None:
        described += f"{releases:,} simulated releases (seed {seed})"
    return View(
        described,
        figure,
        stamp,
        key_numbers(mats, eps, table),
        detail=Detail(mats, problem, table, eps),
        share="",
        kind="covariance",
        note=(
            "MSE of the range at the sidebar's ε. The simulation releases an all-zero "
            "histogram: Privelet's error does not depend on the data."
        ),
    )
