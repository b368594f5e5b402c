"""Which algorithm for my data?, Stored sweeps: a store holding 2-D cells beside 1-D ones
is read without an error, and a 1-D sweep's tables are unchanged by them."""

from datetime import UTC, datetime
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.sweep import store
from dpcore.sweep.cell import Cell, Result

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime.now(UTC)
SETTINGS = {
    "seed": 1,
    "trials": 2,
    "datasets": {"D1": "f1", "D2": "f2"},
    "scales": [1000, 100_000],
    "domains": [64],
    "epsilons": [1.0],
    "workloads": ["prefix"],
    "algorithms": ["A", "B"],
}


def mixed_store(path: Path) -> None:
    """Sweep ``flat`` (1-D, 64 bins) and sweep ``grid`` (2-D, 64 x 64 and 64 x 32) whose
    rows equal the 1-D domain: a store that does not keep the columns apart would mix them."""
    store.begin(path, "flat", 1, SETTINGS)
    grid = {**SETTINGS, "domains": [[64, 64], [64, 32]], "workloads": ["random rectangles"]}
    store.begin(path, "grid", 1, grid)
    rows = [
        Result(Cell(d, s, 64, t, 1.0, "prefix", a), t, e * (1 + t), 0.01, NOW)
        for d in ("D1", "D2")
        for s in (1000, 100_000)
        for a, e in (("A", 0.01), ("B", 0.02))
        for t in range(2)
    ]
    store.write(path, store.frame("flat", rows, "v"))
    cells = [
        Result(Cell(d, s, dom, t, 1.0, "random rectangles", a), t, e, 0.01, NOW)
        for d in ("D1", "D2")
        for s in (1000, 100_000)
        for dom, a, e in (((64, 64), "A", 0.5), ((64, 64), "B", 0.1), ((64, 32), "A", 0.3))
        for t in range(2)
    ]
    store.write(path, store.frame("grid", cells, "v"))


def page(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "which_algorithm.py"), default_timeout=120)
    for key, value in {"wa_domain": "256", "wa_trials": "2", **params}.items():
        at.query_params[key] = value
    return at.run()


def test_a_store_with_2d_cells_does_not_break_stored_sweeps(tmp_path, monkeypatch):
    path = tmp_path / "s.duckdb"
    mixed_store(path)
    monkeypatch.setenv("DP_EXPLORER_STORE", str(path))
    at = page(wa_show="stored")
    assert not at.exception and not at.error
    assert at.selectbox(key="_wa_sweep").value == "grid"  # the last updated
    at.selectbox(key="_wa_sweep").set_value("flat").run()
    assert not at.exception and not at.error
    means = next(d.value for d in at.dataframe if "mean_error" in d.value.columns)
    assert "domain_cols" not in means.columns
    at_1000 = means.set_index(["dataset", "algorithm"])["mean_error"]
    assert at_1000[("D1", "A")] == pytest.approx(0.015)  # mean of 0.01 and 0.02: 1-D cells only
