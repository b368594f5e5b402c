"""Seeded experiments: mechanisms x epsilon x repetitions, errors over the top-``t`` keys.

Each cell ``(mechanism, eps)`` draws its randomness from
``SeedSequence([seed, crc32(mechanism), round(eps * 1e6)])``, so a cell's result
does not depend on which other cells run (cached cells stay valid when the grid
changes) and the whole table is reproducible from ``seed``.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from dpcore.ldp import hiskv, mechanisms, metrics
from dpcore.ldp.data import KVData
from dpcore.ldp.mechanisms import DEFAULT_SETTINGS, KVSettings

METRICS: tuple[str, ...] = ("mse_freq", "mse_mean", "re_freq", "re_mean")


def cell_rng(seed: int, mechanism: str, eps: float) -> np.random.Generator:
    """The generator of one experiment cell (independent of the rest of the grid).

    Parameters
    ----------
    seed : int
        The experiment's seed, ``>= 0``.
    mechanism : str
        Mechanism name (hashed by CRC-32).
    eps : float
        The cell's budget (rounded to ``1e-6``), ``>= 0``.

    Returns
    -------
    numpy.random.Generator
        Seeded by ``SeedSequence([seed, crc32(mechanism), round(eps * 1e6)])``.

    Raises
    ------
    ValueError
        If ``seed`` or ``round(eps * 1e6)`` is negative (``numpy.random.SeedSequence``).
    """
    entropy = [seed, zlib.crc32(mechanism.encode()), round(eps * 1e6)]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def run_cell(
    data: KVData,
    mechanism: str,
    eps: float,
    *,
    t_values: Sequence[int],
    repetitions: int,
    settings: KVSettings = DEFAULT_SETTINGS,
    seed: int,
) -> pd.DataFrame:
    """``repetitions`` runs of one mechanism at one ``eps``; one row per run and ``t``.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    mechanism : str
        A key of :data:`dpcore.ldp.mechanisms.MECHANISMS`.
    eps : float
        Privacy budget of each user.
    t_values : sequence of int
        Numbers of top keys to measure the errors over.
    repetitions : int
        Number of independent runs.
    settings : KVSettings, default DEFAULT_SETTINGS
        Mechanism parameters besides ``eps``.
    seed : int
        The experiment's seed (:func:`cell_rng`).

    Returns
    -------
    pandas.DataFrame
        Columns mechanism, eps, rep, t, length (padding length used, NaN if none), and
        :data:`METRICS` (NaN for what the mechanism does not estimate).

    Raises
    ------
    ValueError
        As :func:`dpcore.ldp.mechanisms.run`: an ``eps`` outside ``[1e-300, 10]``, an
        unknown or unavailable mechanism, too few users, invalid ``settings``; or a
        negative ``seed`` (:func:`cell_rng`).
    """
    rng = cell_rng(seed, mechanism, eps)
    f_true, m_true = data.true_frequency(), data.true_mean()
    tops = {t: metrics.top_keys(f_true, t) for t in t_values}
    rows = []
    for rep in range(repetitions):
        est = mechanisms.run(mechanism, data, eps, settings=settings, rng=rng)
        for t, keys in tops.items():
            row: dict[str, object] = {
                "mechanism": mechanism,
                "eps": eps,
                "rep": rep,
                "t": t,
                "length": np.nan if est.length is None else est.length,
                "mse_freq": np.nan,
                "re_freq": np.nan,
                "mse_mean": np.nan,
                "re_mean": np.nan,
            }
            if est.frequency is not None:
                row["mse_freq"] = metrics.mse(est.frequency, f_true, keys)
                row["re_freq"] = metrics.relative_error(est.frequency, f_true, keys)
            if est.mean is not None:
                row["mse_mean"] = metrics.mse(est.mean, m_true, keys)
                row["re_mean"] = metrics.relative_error(
                    est.mean, m_true, keys, floor=metrics.MEAN_RE_FLOOR
                )
            rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class ExperimentConfig:
    """The grid of an experiment.

    Attributes
    ----------
    mechanisms : tuple of str
        Mechanism names.
    eps_grid : tuple of float
        Budgets to run each mechanism at.
    t_values : tuple of int, default (10, 20, 30, 40, 50)
        Numbers of top keys to measure the errors over.
    repetitions : int, default 10
        Runs per cell.
    settings : KVSettings, default DEFAULT_SETTINGS
        Mechanism parameters besides ``eps``.
    """

    mechanisms: tuple[str, ...]
    eps_grid: tuple[float, ...]
    t_values: tuple[int, ...] = (10, 20, 30, 40, 50)
    repetitions: int = 10
    settings: KVSettings = DEFAULT_SETTINGS


def run_experiment(
    data: KVData,
    config: ExperimentConfig,
    *,
    seed: int,
    progress: Callable[[float], None] | None = None,
) -> pd.DataFrame:
    """All cells of ``config``; ``progress(fraction done)`` after each cell.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    config : ExperimentConfig
        Mechanisms, budgets, ``t`` values, repetitions and settings.
    seed : int
        The experiment's seed (:func:`cell_rng`).
    progress : callable, optional
        Called with the fraction of cells done, in ``(0, 1]``, after each cell.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`run_cell` for every cell, mechanism-major.

    Raises
    ------
    ValueError
        If the grid has no cell (pandas has nothing to concatenate), or as
        :func:`dpcore.ldp.mechanisms.run`.
    """
    cells = [(m, e) for m in config.mechanisms for e in config.eps_grid]
    frames = []
    for i, (mechanism, eps) in enumerate(cells):
        frames.append(
            run_cell(
                data,
                mechanism,
                eps,
                t_values=config.t_values,
                repetitions=config.repetitions,
                settings=config.settings,
                seed=seed,
            )
        )
        if progress is not None:
            progress((i + 1) / len(cells))
    return pd.concat(frames, ignore_index=True)


def summarize(runs: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Mean and Student-t confidence interval of each metric per (mechanism, eps, t).

    Parameters
    ----------
    runs : pandas.DataFrame
        Rows of :func:`run_cell` / :func:`run_experiment`.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        One row per (mechanism, eps, t): columns ``<metric>``, ``<metric>_lo``,
        ``<metric>_hi`` (the interval is NaN with a single repetition) and ``reps``.
    """
    grouped = runs.groupby(["mechanism", "eps", "t"], sort=False)
    out = grouped[list(METRICS)].mean()
    sem = grouped[list(METRICS)].sem()
    reps = grouped.size()
    factor = stats.t.ppf(0.5 + level / 2, np.maximum(reps - 1, 1)).astype(float)
    factor = np.where(reps > 1, factor, np.nan)
    for metric in METRICS:
        half = sem[metric].to_numpy() * factor
        out[f"{metric}_lo"] = out[metric] - half
        out[f"{metric}_hi"] = out[metric] + half
    out["reps"] = reps
    return out.reset_index()


def value_share_sweep(
    data: KVData,
    eps: float,
    shares: Sequence[float],
    *,
    length: int,
    t: int,
    repetitions: int,
    amplified: bool = True,
    seed: int,
) -> pd.DataFrame:
    """HISKV's frequency/mean trade-off over the value budget share ``eps_v / eps*``
    at a fixed ``L`` (all users report). Simulated MSEs with CIs, plus the exact
    frequency MSE of :func:`dpcore.ldp.hiskv.frequency_error`.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user, in ``[1e-300, 10]``.
    shares : sequence of float
        Value budget shares to try, each in ``[0, 1]``.
    length : int
        Fixed padding length ``L``, at least 1.
    t : int
        Number of top keys the errors are averaged over.
    repetitions : int
        Simulated runs per share.
    amplified : bool, default True
        Account with the padding-and-sampling amplification.
    seed : int
        The sweep's seed (each share draws from :func:`cell_rng`).

    Returns
    -------
    pandas.DataFrame
        One row per share and run: share, rep, mse_freq, mse_mean (simulated) and
        mse_freq_exact.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]``, ``length < 1`` or a share is outside
        ``[0, 1]``.
    """
    keys = metrics.top_keys(data.true_frequency(), t)
    f_true, m_true = data.true_frequency(), data.true_mean()
    rows = []
    for share in shares:
        rng = cell_rng(seed, "HISKV-share", share)
        probs = hiskv.pair_probabilities(
            eps, data.d, length, value_share=share, amplified=amplified
        )
        exact = hiskv.frequency_error(data, length, probs, data.n_users).mse[keys].mean()
        for rep in range(repetitions):
            res = hiskv.run(
                data, eps, rng=rng, length=length, value_share=share, amplified=amplified
            )
            rows.append(
                {
                    "share": share,
                    "rep": rep,
                    "mse_freq": metrics.mse(res.frequency, f_true, keys),
                    "mse_mean": metrics.mse(res.mean, m_true, keys),
                    "mse_freq_exact": float(exact),
                }
            )
    return pd.DataFrame(rows)


def truncation_tradeoff(
    data: KVData,
    eps: float,
    lengths: Sequence[int],
    *,
    t: int,
    n_reports: int,
    value_share: float = hiskv.DEFAULT_VALUE_SHARE,
    amplified: bool = True,
) -> pd.DataFrame:
    """Exact squared bias, variance and MSE of HISKV's frequencies over the top-``t``
    keys for each candidate ``L``: short ``L`` truncates long sets (bias), long ``L``
    dilutes every report (variance).

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user, in ``[1e-300, 10]``.
    lengths : sequence of int
        Candidate padding lengths, each at least 1.
    t : int
        Number of top keys the errors are averaged over.
    n_reports : int
        Number of reporting users.
    value_share : float, default hiskv.DEFAULT_VALUE_SHARE
        ``eps_v / eps*``, in ``[0, 1]``.
    amplified : bool, default True
        Account with the padding-and-sampling amplification.

    Returns
    -------
    pandas.DataFrame
        One row per length: length, bias2, variance, mse.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]``, a length is below 1 or ``value_share`` is
        outside ``[0, 1]``.
    """
    keys = metrics.top_keys(data.true_frequency(), t)
    rows = []
    for length in lengths:
        probs = hiskv.pair_probabilities(
            eps, data.d, length, value_share=value_share, amplified=amplified
        )
        err = hiskv.frequency_error(data, length, probs, n_reports)
        rows.append(
            {
                "length": length,
                "bias2": float(np.mean(err.bias[keys] ** 2)),
                "variance": float(np.mean(err.variance[keys])),
                "mse": float(np.mean(err.mse[keys])),
            }
        )
    return pd.DataFrame(rows)
