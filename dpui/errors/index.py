"""The Error analysis page's accuracy index (view 5): exact f(2^m) per algorithm, the
extrapolated limits of lb³N / f(N), and what computing them costs."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.hist import accuracy_index
from dpui.errors.settings import INDEX_M, label
from dpui.errors.simulation import Progress, collect, per_bin
from dpui.kit import limits


def paper_indices(keys: tuple[str, ...]) -> dict[str, float]:
    """The accuracy indices Wu et al. (2018) report for the chosen algorithms, by label."""
    return {label(k): v for k, v in accuracy_index.PAPER_INDEX.items() if k in keys}


def curves_by_algorithm(curves: pd.DataFrame) -> dict[str, pd.DataFrame]:
    return {str(name): rows for name, rows in curves.groupby("algorithm", sort=False)}


@st.cache_data(max_entries=64, show_spinner=False)
def index_cell(key: str, max_m: int) -> pd.DataFrame:
    """``f(2^m)`` and ``lb^3 N / f(N)`` for ``m = 1..max_m`` (exact, eps = 1, uniform workload)."""
    ms = np.arange(1, max_m + 1)
    coefficient = accuracy_index.coefficient_curve(key, ms)
    return pd.DataFrame(
        {
            "algorithm": label(key),
            "key": key,
            "m": ms,
            "f": coefficient,
            "ratio": ms.astype(np.float64) ** 3 / coefficient,
        }
    )


def index_curves(keys: tuple[str, ...], max_m: int, progress: Progress = None) -> pd.DataFrame:
    """(5) The finite-N accuracy ratios of every chosen algorithm."""
    return collect([partial(index_cell, key, max_m) for key in keys], progress)


def index_estimates(curves: pd.DataFrame) -> dict[str, accuracy_index.IndexEstimate]:
    """Per algorithm label: the extrapolated index in the form stated for that algorithm."""
    return {
        str(part["algorithm"].iloc[0]): accuracy_index.estimate_index(
            str(key), part["m"], part["f"]
        )
        for key, part in curves.groupby("key", sort=False)
    }


def index_table(curves: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm: the ratio at the largest N, the limit (or why none is shown), the paper's."""
    estimates = index_estimates(curves)
    rows = []
    for key, part in curves.groupby("key", sort=False):
        name = str(part["algorithm"].iloc[0])
        est = estimates[name]
        limit = {"zero": "→ 0", "irregular": "not fitted", "unknown": "not fitted"}.get(
            est.kind, f"{est.value:.3f}" if est.reliable else "not shown"
        )
        rows.append(
            {
                "algorithm": name,
                "largest N": f"2^{int(part['m'].max())}",
                "ratio at largest N": float(part["ratio"].iloc[-1]),
                "limit (index)": limit,
                "fits on other m windows": (
                    f"{est.low:.3f} … {est.high:.3f}" if np.isfinite(est.low) else ""
                ),
                "paper's index": accuracy_index.PAPER_INDEX.get(str(key), np.nan),
                "how": est.note,
            }
        )
    return pd.DataFrame(rows)


INDEX_SECONDS_PER_BIN = {"dwork": 0.0, "privelet": 0.0, "binary_raw": 1e-6, "boost": 4.5e-6}


def index_cost(keys: Iterable[str], max_m: int) -> limits.Cost:
    """Exact f(2^m) for m = 1..max_m: about 2^(max_m + 1) bins of work per tree algorithm,
    4.5 µs per bin (Struct-Construct 9 µs), 300 bytes per bin at the largest m."""
    bins = 2 ** (max_m + 1)
    seconds = sum(bins * per_bin(INDEX_SECONDS_PER_BIN, k, 4.5e-6, 9e-6) for k in keys)
    return limits.Cost(seconds, 2**max_m * 300 / limits.MB)


def index_levels(keys: tuple[str, ...], wanted: int) -> int:
    """The largest m up to ``wanted`` whose accuracy index fits the work limit; ``wanted``
    when none fits (then the view is refused)."""
    fitted = limits.largest_within(range(INDEX_M.lo, wanted + 1), lambda m: index_cost(keys, m))
    return wanted if fitted is None else fitted
