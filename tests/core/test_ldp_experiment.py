"""Experiment runner: seeding, confidence intervals and the HISKV trade-off tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore.ldp import experiment, metrics
from dpcore.ldp.data import KVData, generate


@pytest.fixture(scope="module")
def data() -> KVData:
    return generate(3000, 30, max_length=12, rng=np.random.default_rng(41))


def test_cells_are_reproducible_and_independent_of_the_grid(data: KVData) -> None:
    small = experiment.ExperimentConfig(("HISKV", "KVUE"), (1.0,), (10, 20), repetitions=2)
    large = experiment.ExperimentConfig(("PrivKV", "HISKV", "KVUE"), (0.5, 1.0), (10, 20), 2)
    a = experiment.run_experiment(data, small, seed=3)
    b = experiment.run_experiment(data, large, seed=3)
    again = experiment.run_experiment(data, small, seed=3)
    pd.testing.assert_frame_equal(a, again)
    subset = b[(b.eps == 1.0) & b.mechanism.isin(["HISKV", "KVUE"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        a.sort_values(["mechanism", "rep", "t"]).reset_index(drop=True),
        subset.sort_values(["mechanism", "rep", "t"]).reset_index(drop=True),
    )
    other = experiment.run_experiment(data, small, seed=4)
    assert not np.allclose(a.mse_freq, other.mse_freq)


def test_progress_reports_every_cell(data: KVData) -> None:
    seen: list[float] = []
    config = experiment.ExperimentConfig(("SUE", "Harmony"), (0.5, 2.0), (10,), 1)
    runs = experiment.run_experiment(data, config, seed=0, progress=seen.append)
    assert seen == [0.25, 0.5, 0.75, 1.0]
    assert runs.loc[runs.mechanism == "SUE", "mse_mean"].isna().all()
    assert runs.loc[runs.mechanism == "Harmony", "mse_freq"].isna().all()


def test_metrics_match_brute_force(data: KVData) -> None:
    runs = experiment.run_cell(data, "HISKV", 1.0, t_values=(5,), repetitions=1, seed=9)
    est = experiment.mechanisms.run("HISKV", data, 1.0, rng=experiment.cell_rng(9, "HISKV", 1.0))
    f = data.true_frequency()
    top = sorted(range(data.d), key=lambda k: (-f[k], k))[:5]
    assert est.frequency is not None and est.mean is not None
    expected = sum((est.frequency[k] - f[k]) ** 2 for k in top) / 5
    assert runs.mse_freq.iloc[0] == pytest.approx(expected)
    m = data.true_mean()
    re = sum(abs(est.mean[k] - m[k]) / max(abs(m[k]), metrics.MEAN_RE_FLOOR) for k in top) / 5
    assert runs.re_mean.iloc[0] == pytest.approx(re)


def test_summary_interval_is_student_t() -> None:
    runs = pd.DataFrame(
        {
            "mechanism": "X",
            "eps": 1.0,
            "t": 10,
            "rep": range(4),
            "mse_freq": [1.0, 2.0, 3.0, 6.0],
            "mse_mean": [0.0] * 4,
            "re_freq": [0.0] * 4,
            "re_mean": [0.0] * 4,
        }
    )
    row = experiment.summarize(runs).iloc[0]
    half = stats.t.ppf(0.975, 3) * np.std([1, 2, 3, 6], ddof=1) / 2
    assert row.mse_freq == 3.0
    assert row.mse_freq_lo == pytest.approx(3.0 - half)
    assert row.mse_freq_hi == pytest.approx(3.0 + half)
    single = experiment.summarize(runs.iloc[:1])
    assert np.isnan(single.mse_freq_lo.iloc[0])


def test_truncation_tradeoff_shape(data: KVData) -> None:
    table = experiment.truncation_tradeoff(data, 1.0, range(1, 14), t=10, n_reports=2700)
    assert np.all(np.diff(table.bias2) <= 1e-15)  # longer L, less truncation
    assert table.bias2.iloc[-1] == pytest.approx(0.0, abs=1e-15)  # L >= every length
    assert np.all(np.diff(table.variance) > 0)  # longer L, more dilution
    assert table.mse.to_numpy() == pytest.approx((table.bias2 + table.variance).to_numpy())


@pytest.mark.slow
def test_value_share_moves_accuracy_between_frequency_and_mean(data: KVData) -> None:
    sweep = (
        experiment.value_share_sweep(data, 2.0, [0.05, 1.0], length=8, t=10, repetitions=30, seed=5)
        .groupby("share")
        .mean()
    )
    # smaller value share: q1 grows, frequencies improve (exact), means degrade (simulated)
    assert sweep.mse_freq_exact.loc[0.05] < sweep.mse_freq_exact.loc[1.0]
    assert sweep.mse_mean.loc[0.05] > 2 * sweep.mse_mean.loc[1.0]
    # the simulated frequency MSE agrees with the exact one within 25% (30 reps, 10 keys)
    ratio = sweep.mse_freq / sweep.mse_freq_exact
    assert np.all(np.abs(ratio - 1) < 0.25), ratio
