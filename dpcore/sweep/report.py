"""Read-only summaries of stored sweeps, computed by SQL over the store (for the dashboard).

Every function opens the store read-only for one query (waiting while a running sweep
commits a batch, see :mod:`dpcore.sweep.store`), filters on bound parameters, returns at
most ``limit`` rows (:data:`MAX_ROWS` at most) and a pandas DataFrame.

The interval of a mean is Student's t 95% interval over the cells averaged,
``mean ± t_{0.975, n-1} · sd / √n`` (NaN for a single cell); SQL computes ``n``, the mean
and the sample standard deviation, scipy the t quantile. Regret is DPBench's (Hay et al.,
SIGMOD 2016): in each setting (dataset, scale, domain, eps, workload), an algorithm's mean
scaled error over the smallest mean scaled error of any algorithm in that setting.

A domain is two columns: ``domain`` (bins, or a 2-D cell's rows) and ``domain_cols`` (0, or
a 2-D cell's columns; see :mod:`dpcore.sweep.store`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from dpcore import _validate
from dpcore.sweep import store

MAX_ROWS = 100_000
"""Most rows one summary returns."""

SETTING = ("dataset", "scale", "domain", "domain_cols", "eps", "workload")
"""What makes a setting: the columns regret compares algorithms within."""

FILTERS = ("dataset", "scale", "domain", "domain_cols", "eps", "workload", "algorithm")
"""The columns a summary may be filtered on."""


def _where(sweep: str, filters: dict[str, Any]) -> tuple[str, list[Any]]:
    clauses, params = ["sweep = ?"], [sweep]
    for column, value in filters.items():
        if column not in FILTERS:
            raise ValueError(f"unknown filter {column!r}; accepted: {', '.join(FILTERS)}")
        if value is None:
            continue
        values = list(value) if isinstance(value, list | tuple | set) else [value]
        # numpy scalars (a value read back from a DataFrame) as the Python numbers DuckDB binds
        values = [v.item() if isinstance(v, np.generic) else v for v in values]
        clauses.append(f"{column} IN ({', '.join('?' * len(values))})" if values else "FALSE")
        params += values
    return " AND ".join(clauses), params


def _limit(limit: int) -> int:
    return _validate.whole("limit", limit, upper=MAX_ROWS)


def _interval(table: pd.DataFrame) -> pd.DataFrame:
    """Add ``ci_low``, ``ci_high`` from columns ``cells``, ``mean_error``, ``sd_error``."""
    n = table["cells"].to_numpy(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = stats.t.ppf(0.975, n - 1) * table["sd_error"].to_numpy(np.float64) / np.sqrt(n)
    half = np.where(n > 1, half, np.nan)
    table["ci_low"] = table["mean_error"] - half
    table["ci_high"] = table["mean_error"] + half
    return table


def sweeps(path: Path, *, limit: int = 1_000) -> pd.DataFrame:
    """The stored sweeps, most recently updated first.

    Parameters
    ----------
    path : Path
        The store's file.
    limit : int, default 1000
        Most rows returned.

    Returns
    -------
    pandas.DataFrame
        ``name``, ``seed``, ``cells`` (stored), ``datasets``, ``algorithms`` (counts of
        those stored), ``settings`` (the grid as JSON text), ``created_at``,
        ``updated_at``, ``last_finished``.

    Raises
    ------
    StoreError
        If the store is missing or unreadable.
    """
    sql = """
        SELECT s.name, s.seed, coalesce(c.cells, 0) AS cells,
               coalesce(c.datasets, 0) AS datasets, coalesce(c.algorithms, 0) AS algorithms,
               s.settings, s.created_at, s.updated_at, c.last_finished
        FROM sweeps s LEFT JOIN (
            SELECT sweep, count(*) AS cells, count(DISTINCT dataset) AS datasets,
                   count(DISTINCT algorithm) AS algorithms, max(finished_at) AS last_finished
            FROM cells GROUP BY sweep
        ) c ON c.sweep = s.name
        ORDER BY s.updated_at DESC, s.name LIMIT ?
    """
    return store.query(path, sql, [_limit(limit)])


def names(path: Path, *, limit: int = 1_000) -> list[str]:
    """The stored sweeps' names, most recently updated first, read from table ``sweeps``
    alone (:func:`sweeps` also counts every sweep's cells: seconds at 10^7 cells).

    Parameters
    ----------
    path : Path
        The store's file.
    limit : int, default 1000
        Most names returned.

    Returns
    -------
    list of str

    Raises
    ------
    StoreError
        If the store is missing or unreadable.
    """
    sql = "SELECT name FROM sweeps ORDER BY updated_at DESC, name LIMIT ?"
    return [str(name) for name in store.query(path, sql, [_limit(limit)])["name"]]


def axes(path: Path, sweep: str) -> dict[str, list[Any]]:
    """The values each parameter takes among a sweep's stored cells (for filter widgets).

    Parameters
    ----------
    path : Path
        The store's file.
    sweep : str
        The sweep's name.

    Returns
    -------
    dict
        ``"dataset"``, ``"scale"``, ``"domain"``, ``"domain_cols"``, ``"eps"``,
        ``"workload"``, ``"algorithm"`` -> sorted distinct values (empty lists for an unknown
        sweep).

    Raises
    ------
    StoreError
        If the store is missing or unreadable.
    """
    lists = ", ".join(f"list(DISTINCT {c} ORDER BY {c}) AS {c}" for c in FILTERS)
    row = store.query(path, f"SELECT {lists} FROM cells WHERE sweep = ?", [sweep]).iloc[0]
    return {c: [] if row[c] is None or row[c] is pd.NA else row[c].tolist() for c in FILTERS}


def mean_errors(path: Path, sweep: str, *, limit: int = 10_000, **filters: Any) -> pd.DataFrame:
    """Mean scaled L1 error with its 95% interval, per setting and algorithm.

    Parameters
    ----------
    path : Path
        The store's file.
    sweep : str
        The sweep's name.
    limit : int, default 10000
        Most rows returned.
    **filters
        Column (one of :data:`FILTERS`) -> a value or a list of values to keep.

    Returns
    -------
    pandas.DataFrame
        ``dataset, scale, domain, domain_cols, eps, workload, algorithm, cells`` (trials
        averaged),
        ``mean_error, sd_error, ci_low, ci_high, mean_seconds``, sorted by setting, then
        by mean error.

    Raises
    ------
    ValueError
        For an unknown filter or a bad limit.
    StoreError
        If the store is missing or unreadable.
    """
    where, params = _where(sweep, filters)
    sql = f"""
        SELECT {", ".join(SETTING)}, algorithm, count(*) AS cells,
               avg(scaled_l1_error) AS mean_error, stddev_samp(scaled_l1_error) AS sd_error,
               avg(seconds) AS mean_seconds
        FROM cells WHERE {where}
        GROUP BY ALL
        ORDER BY {", ".join(SETTING)}, mean_error, algorithm LIMIT ?
    """
    table = _interval(store.query(path, sql, [*params, _limit(limit)]))
    return table[
        [
            *SETTING,
            "algorithm",
            "cells",
            "mean_error",
            "sd_error",
            "ci_low",
            "ci_high",
            "mean_seconds",
        ]
    ]


def regret(path: Path, sweep: str, *, limit: int = 10_000, **filters: Any) -> pd.DataFrame:
    """Each algorithm's regret in each setting: its mean error over the best mean error.

    Parameters
    ----------
    path : Path
        The store's file.
    sweep : str
        The sweep's name.
    limit : int, default 10000
        Most rows returned.
    **filters
        Column (one of :data:`FILTERS`) -> a value or list of values; filtering on
        ``algorithm`` chooses which algorithms compete.

    Returns
    -------
    pandas.DataFrame
        ``dataset, scale, domain, domain_cols, eps, workload, algorithm, mean_error, best_error,
        regret`` (1 for the best), sorted by setting then regret. A setting whose best
        mean error is 0 has no regret and is left out.

    Raises
    ------
    ValueError
        For an unknown filter or a bad limit.
    StoreError
        If the store is missing or unreadable.
    """
    where, params = _where(sweep, filters)
    setting = ", ".join(SETTING)
    sql = f"""
        WITH means AS (
            SELECT {setting}, algorithm, avg(scaled_l1_error) AS mean_error
            FROM cells WHERE {where} GROUP BY ALL
        ), ranked AS (
            SELECT *, min(mean_error) OVER (PARTITION BY {setting}) AS best_error FROM means
        )
        SELECT *, mean_error / best_error AS regret FROM ranked WHERE best_error > 0
        ORDER BY {setting}, regret, algorithm LIMIT ?
    """
    return store.query(path, sql, [*params, _limit(limit)])


def error_vs_scale(path: Path, sweep: str, *, limit: int = 10_000, **filters: Any) -> pd.DataFrame:
    """Mean scaled error per algorithm and scale, over the datasets and trials kept.

    Parameters
    ----------
    path : Path
        The store's file.
    sweep : str
        The sweep's name.
    limit : int, default 10000
        Most rows returned.
    **filters
        Column (one of :data:`FILTERS`) -> a value or list of values; fix ``domain``,
        ``eps`` and ``workload`` for one curve per algorithm.

    Returns
    -------
    pandas.DataFrame
        ``domain, domain_cols, eps, workload, algorithm, scale, cells, mean_error, sd_error,
        ci_low, ci_high``, sorted by those columns (the interval pools the cells of every dataset).

    Raises
    ------
    ValueError
        For an unknown filter or a bad limit.
    StoreError
        If the store is missing or unreadable.
    """
    where, params = _where(sweep, filters)
    sql = f"""
        SELECT domain, domain_cols, eps, workload, algorithm, scale, count(*) AS cells,
               avg(scaled_l1_error) AS mean_error, stddev_samp(scaled_l1_error) AS sd_error
        FROM cells WHERE {where}
        GROUP BY ALL ORDER BY domain, domain_cols, eps, workload, algorithm, scale LIMIT ?
    """
    return _interval(store.query(path, sql, [*params, _limit(limit)]))
