"""Figure factories of the key-value LDP page, tested as plain functions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpcore.ldp import experiment, hiskv
from dpcore.ldp.data import generate
from dpui.ldp import figures as ldp_figures


@pytest.fixture(scope="module")
def summary() -> pd.DataFrame:
    data = generate(1500, 20, max_length=6, rng=np.random.default_rng(51))
    config = experiment.ExperimentConfig(("HISKV", "SUE", "Harmony"), (0.5, 2.0), (5, 10), 3)
    return experiment.summarize(experiment.run_experiment(data, config, seed=1))


def test_error_vs_eps_plots_the_summary(summary: pd.DataFrame) -> None:
    fig = ldp_figures.error_vs_eps(summary, "mse_freq", 10)
    names = [trace.name for trace in fig.data]
    assert names == ["HISKV", "SUE"]  # Harmony estimates no frequencies
    hiskv_rows = summary[(summary.mechanism == "HISKV") & (summary.t == 10)].sort_values("eps")
    assert list(fig.data[0].y) == pytest.approx(hiskv_rows.mse_freq.tolist())
    upper = np.asarray(fig.data[0].error_y.array)
    assert upper == pytest.approx((hiskv_rows.mse_freq_hi - hiskv_rows.mse_freq).to_numpy())
    lower = np.asarray(fig.data[0].error_y.arrayminus)
    drawn_low = hiskv_rows.mse_freq.to_numpy() - lower
    assert np.all(drawn_low > 0)  # drawable on the log axis
    expected_low = np.maximum(hiskv_rows.mse_freq_lo, 0.1 * hiskv_rows.mse_freq).to_numpy()
    assert drawn_low == pytest.approx(expected_low)
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_error_vs_t_uses_one_eps(summary: pd.DataFrame) -> None:
    fig = ldp_figures.error_vs_t(summary, "re_mean", 2.0)
    assert [trace.name for trace in fig.data] == ["HISKV", "Harmony"]
    rows = summary[(summary.mechanism == "Harmony") & (summary.eps == 2.0)].sort_values("t")
    assert list(fig.data[1].x) == [5, 10]
    assert list(fig.data[1].y) == pytest.approx(rows.re_mean.tolist())


def test_single_repetition_hides_error_bars() -> None:
    data = generate(500, 10, max_length=4, rng=np.random.default_rng(52))
    runs = experiment.run_cell(data, "KVUE", 1.0, t_values=(5,), repetitions=1, seed=0)
    fig = ldp_figures.error_vs_eps(experiment.summarize(runs), "mse_mean", 5)
    assert fig.data[0].error_y.visible is False


def test_length_distribution_marks_both_lengths() -> None:
    lengths = np.repeat(np.arange(1, 6), [50, 20, 10, 10, 10])
    estimated = np.array([0.5, 0.2, 0.1, 0.1, 0.1])
    fig = ldp_figures.length_distribution(lengths, estimated, chosen=4)
    assert list(fig.data[0].y) == pytest.approx([0.5, 0.2, 0.1, 0.1, 0.1])
    texts = [a.text for a in fig.layout.annotations]
    assert "estimated L = 4" in texts and "true 90th pct = 4" in texts


def test_truncation_figures() -> None:
    data = generate(800, 10, max_length=8, rng=np.random.default_rng(53))
    table = experiment.truncation_tradeoff(data, 1.0, range(1, 9), t=5, n_reports=700)
    fig = ldp_figures.truncation_tradeoff(table, 3)
    assert [t.name for t in fig.data] == ["bias² (truncation)", "variance (noise)", "MSE"]
    assert np.isnan(fig.data[0].y[-1])  # zero bias cannot be drawn on a log axis
    expected = hiskv.truncated_frequency(data, 3)
    bars = ldp_figures.truncation_bias(data.true_frequency(), expected, [2, 0], 3)
    assert list(bars.data[1].y) == pytest.approx(expected[[2, 0]].tolist())


def test_share_tradeoff_averages_repetitions() -> None:
    sweep = pd.DataFrame(
        {
            "share": [0.5, 0.5, 1.0],
            "rep": [0, 1, 0],
            "mse_freq": [1.0, 3.0, 4.0],
            "mse_mean": [2.0, 2.0, 1.0],
            "mse_freq_exact": [2.0, 2.0, 4.0],
        }
    )
    fig = ldp_figures.share_tradeoff(sweep, 0.5)
    assert list(fig.data[0].y) == [2.0, 4.0]
    assert fig.layout.annotations[0].text == "slider: 0.5"


def test_error_vs_eps_draws_the_central_baseline_when_given(summary: pd.DataFrame) -> None:
    central = {0.5: 2 * (6 / (0.5 * 1500)) ** 2, 2.0: 2 * (6 / (2.0 * 1500)) ** 2}
    fig = ldp_figures.error_vs_eps(summary, "mse_freq", 10, central=central)
    (line,) = [trace for trace in fig.data if trace.name == ldp_figures.CENTRAL]
    assert list(line.x) == [0.5, 2.0]
    assert list(line.y) == pytest.approx([1.28e-4, 8e-6])
    assert line.line.dash == "dash"
    plain = ldp_figures.error_vs_eps(summary, "mse_freq", 10)
    assert ldp_figures.CENTRAL not in {trace.name for trace in plain.data}
