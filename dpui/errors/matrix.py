"""State and cached computations behind the "Matrix mechanism / Privelet" page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.hist import matrix_mechanism as mm
from dpcore.hist import privelet
from dpui.kit.params import IntParam

FloatArray = NDArray[np.float64]

MAX_N = 64

N = IntParam("mp_n", 8, 1, MAX_N)
LEFT = IntParam("mp_l", 3, 1, MAX_N)
RIGHT = IntParam("mp_r", 7, 1, MAX_N)
RELEASES = IntParam("mp_releases", 5000, 10, 200_000)
SEED = IntParam("mp_seed", 0, 0, 2**31 - 1)
PARAMS = (N, LEFT, RIGHT, RELEASES, SEED)


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
        privelet.covariance_matrix(n),
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
    by_algorithm3 = privelet.range_error_coefficient(n, left, right)
    by_submatrix = float(mats.covariance[left - 1 : right, left - 1 : right].sum())
    by_transform = float(privelet.linear_query_coefficient(w))
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
