"""State and cached computations behind the "Matrix mechanism / Privelet" page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore import matrix_mechanism as mm
from dpcore import privelet
from dpui.params import IntParam

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


@st.cache_data(max_entries=32, show_spinner=False)
def three_ways(
    n: int,
    left: int,
    right: int,
    eps: float,
    releases: int,
    seed: int,
    _progress: Callable[[float], object] | None = None,
) -> pd.DataFrame:
    """The range's error coefficient by algorithm 3, the sub-matrix sum, ``||B^T w||^2``,
    and a seeded simulation of ``releases`` Privelet releases (95% t interval)."""
    mats = matrices(n)
    variance = privelet.noise_variance(n, eps)
    lo, hi = left - 1, right - 1
    w = np.zeros(n)
    w[lo : hi + 1] = 1.0
    by_algorithm3 = privelet.range_error_coefficient(n, left, right)
    by_submatrix = float(mats.covariance[lo : hi + 1, lo : hi + 1].sum())
    by_transform = float(privelet.linear_query_coefficient(w))
    rng = np.random.default_rng(seed)
    squared = np.empty(releases)
    chunk = max(1, releases // 20)
    for start in range(0, releases, chunk):
        stop = min(start + chunk, releases)
        # the error does not depend on the data: release an all-zero histogram
        estimates = privelet.release(np.zeros(n), eps, rng=rng, releases=stop - start)
        squared[start:stop] = estimates[:, lo : hi + 1].sum(axis=1) ** 2
        if _progress is not None:
            _progress(stop / releases)
    mean = float(squared.mean())
    half = 1.96 * float(squared.std(ddof=1)) / np.sqrt(releases) if releases > 1 else np.nan
    return pd.DataFrame(
        {
            "method": [
                "Algorithm 3 (O(log n))",
                "Sum of the sub-matrix of B Bᵀ",
                "‖Bᵀw‖² (fast transform)",
                f"Simulation ({releases:,} releases)",
            ],
            "error coefficient": [by_algorithm3, by_submatrix, by_transform, mean / variance],
            "MSE": [
                by_algorithm3 * variance,
                by_submatrix * variance,
                by_transform * variance,
                mean,
            ],
            "95% CI ±": [np.nan, np.nan, np.nan, half],
        }
    )


@st.cache_data(max_entries=16, show_spinner=False)
def covariance_csv(n: int) -> str:
    """``B B^T`` as CSV (1-based bin labels)."""
    cov = matrices(n).covariance
    labels = [str(i) for i in range(1, cov.shape[0] + 1)]
    return pd.DataFrame(cov, index=labels, columns=labels).to_csv()
