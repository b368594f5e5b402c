"""The dashboard's queries over a store, against the same aggregates computed with pandas."""

import itertools
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore.sweep import report, store
from dpcore.sweep.cell import Cell, Result

SETTING = ["dataset", "scale", "domain", "eps", "workload"]


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A store with two sweeps of made-up errors, and sweep "main"'s rows as a DataFrame."""
    path = tmp_path_factory.mktemp("report") / "s.duckdb"
    rng = np.random.default_rng(5)
    frames = {}
    for name, trials in (("main", 4), ("other", 2)):
        store.begin(
            path,
            name,
            1,
            {
                "datasets": {},
                "trials": trials,
                "scales": [],
                "domains": [],
                "epsilons": [],
                "workloads": [],
                "algorithms": [],
            },
        )
        grid = itertools.product(
            ["A", "B"],
            [100, 10_000],
            [64],
            range(trials),
            [1.0, 0.1],
            ["prefix", "random ranges"],
            ["X", "Y", "Z"],
        )
        results = [
            Result(
                Cell(*key), i, float(rng.lognormal(-3, 1)), float(rng.random()), datetime.now(UTC)
            )
            for i, key in enumerate(grid)
        ]
        frames[name] = store.frame(name, results, "v")
        store.write(path, frames[name])
    return path, pd.DataFrame(frames["main"])


def test_sweeps_lists_each_sweep_with_its_stored_cells(stored):
    path, main = stored
    table = report.sweeps(path)
    assert set(table["name"]) == {"main", "other"}
    row = table.set_index("name").loc["main"]
    assert row["cells"] == len(main) and row["datasets"] == 2 and row["algorithms"] == 3
    assert '"trials": 4' in row["settings"]
    assert len(report.sweeps(path, limit=1)) == 1
    assert report.names(path) == table["name"].tolist()  # the same order, cells not counted
    assert report.names(path, limit=1) == table["name"].tolist()[:1]


def test_axes_lists_each_parameters_values(stored):
    path, _ = stored
    axes = report.axes(path, "main")
    assert axes == {
        "dataset": ["A", "B"],
        "scale": [100, 10_000],
        "domain": [64],
        "domain_cols": [0],  # 1-D cells
        "eps": [0.1, 1.0],
        "workload": ["prefix", "random ranges"],
        "algorithm": ["X", "Y", "Z"],
    }
    assert report.axes(path, "nope") == {c: [] for c in report.FILTERS}


def test_mean_errors_match_pandas_with_a_t_interval(stored):
    path, main = stored
    got = report.mean_errors(path, "main")
    expected = main.groupby([*SETTING, "algorithm"])["scaled_l1_error"].agg(
        ["mean", "std", "count"]
    )
    merged = got.set_index([*SETTING, "algorithm"]).join(expected, how="inner")
    assert len(merged) == len(got) == len(expected) == 2 * 2 * 2 * 2 * 3
    assert (merged["cells"] == merged["count"]).all()
    np.testing.assert_allclose(merged["mean_error"], merged["mean"], rtol=1e-12)
    np.testing.assert_allclose(merged["sd_error"], merged["std"], rtol=1e-9)
    low, high = stats.t.interval(
        0.95,
        merged["count"] - 1,
        loc=merged["mean"],
        scale=merged["std"] / np.sqrt(merged["count"]),
    )
    np.testing.assert_allclose(merged["ci_low"], low, rtol=1e-9)
    np.testing.assert_allclose(merged["ci_high"], high, rtol=1e-9)


def test_filters_and_limits_bound_a_query(stored):
    path, _ = stored
    some = report.mean_errors(path, "main", dataset="A", eps=[0.1], algorithm=("X", "Y"))
    assert set(some["dataset"]) == {"A"} and set(some["eps"]) == {0.1}
    assert set(some["algorithm"]) == {"X", "Y"} and len(some) == 2 * 2 * 2
    assert len(report.mean_errors(path, "main", limit=5)) == 5
    assert report.mean_errors(path, "main", algorithm=[]).empty
    with pytest.raises(ValueError, match="unknown filter 'colour'"):
        report.mean_errors(path, "main", colour="red")
    with pytest.raises(ValueError, match="limit"):
        report.regret(path, "main", limit=report.MAX_ROWS + 1)


def test_a_single_trial_has_no_interval_and_a_best_error_of_0_no_regret(tmp_path):
    path = tmp_path / "s.duckdb"
    store.begin(path, "one", 1, {"datasets": {}})
    now = datetime.now(UTC)
    cells = [
        Result(Cell("A", 10, 2, 0, 1.0, "prefix", "X"), 0, 0.5, 0.0, now),
        Result(Cell("A", 10, 2, 0, 1.0, "prefix", "Y"), 0, 0.0, 0.0, now),
    ]
    store.write(path, store.frame("one", cells, "v"))
    table = report.mean_errors(path, "one")
    assert table["mean_error"].tolist() == [0.0, 0.5] and table["ci_low"].isna().all()
    assert report.regret(path, "one").empty
    assert len(report.regret(path, "one", algorithm="X")) == 1


def test_regret_is_the_mean_error_over_the_settings_best(stored):
    path, main = stored
    means = main.groupby([*SETTING, "algorithm"])["scaled_l1_error"].mean().rename("mean")
    best = means.groupby(level=SETTING).transform("min")
    expected = (means / best).rename("expected")
    got = report.regret(path, "main").set_index([*SETTING, "algorithm"]).join(expected)
    assert len(got) == len(expected)
    np.testing.assert_allclose(got["regret"], got["expected"], rtol=1e-12)
    assert (got.groupby(level=SETTING)["regret"].min() == 1.0).all()
    two = report.regret(path, "main", algorithm=["Y", "Z"])
    assert set(two["algorithm"]) == {"Y", "Z"} and (two.groupby(SETTING)["regret"].min() == 1).all()


def test_error_vs_scale_pools_datasets_and_trials(stored):
    path, main = stored
    keep = main[(main["eps"] == 1.0) & (main["workload"] == "prefix")]
    expected = keep.groupby(["algorithm", "scale"])["scaled_l1_error"].agg(["mean", "count"])
    got = report.error_vs_scale(path, "main", eps=1.0, workload="prefix", domain=64)
    got = got.set_index(["algorithm", "scale"]).join(expected)
    assert len(got) == 3 * 2 and (got["cells"] == got["count"]).all()
    np.testing.assert_allclose(got["mean_error"], got["mean"], rtol=1e-12)
    assert (got["ci_low"] < got["mean_error"]).all() and (got["mean_error"] < got["ci_high"]).all()
