"""A tiny 2-D sweep end to end: ``dp-sweep run`` on a local cluster into a temporary store,
then ``bench/sweep_tables.py`` on that store checked against the cells recomputed here."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore.algorithms import cost
from dpcore.sweep import cell, cli, runner, spec, store

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
TINY_2D = """\
name = "tiny2d"
seed = 13
trials = 2
datasets = ["STROKE", "ADULT-2D"]
scales = [1000, 100000]
domains = [[32, 32]]
epsilons = [1.0]
workloads = ["random rectangles"]
algorithms = ["Identity", "HB-2D", "AGrid", "PrivTree"]
"""


def markdown_rows(text: str) -> list[list[str]]:
    rows = [line.strip("|").split("|") for line in text.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row] for row in rows if not row[0].startswith("---")]


def test_a_tiny_2d_sweep_runs_into_a_store_and_its_tables_are_the_cells_regret(tmp_path, capsys):
    file = tmp_path / "tiny2d.toml"
    file.write_text(TINY_2D)
    path = tmp_path / "store.duckdb"
    argv = ["run", str(file), "--store", str(path), "--workers", "1", "--no-progress"]
    assert cli.main([*argv, "--data-dir", str(DATA)]) == 0
    assert "estimated: about" in capsys.readouterr().err
    sweep = spec.load(file, data=DATA)
    table = store.query(path, "SELECT * FROM cells WHERE sweep = 'tiny2d'")
    assert len(table) == sweep.size == 2 * 2 * 2 * 4
    assert set(zip(table["domain"], table["domain_cols"], strict=True)) == {(32, 32)}
    # every stored cell equals the cell run in this process, bit for bit
    local, failures = cell.run_chunk(
        sweep.seed, list(cell.cells(sweep)), {d.name: d.counts for d in sweep.datasets}
    )
    assert failures == []
    key = ["dataset", "scale", "trial", "algorithm"]
    mine = pd.DataFrame(
        [(r.cell.dataset, r.cell.scale, r.cell.trial, r.cell.algorithm, r.seed,
          r.scaled_l1_error) for r in local],
        columns=[*key, "seed", "error"],
    )  # fmt: skip
    merged = table.merge(mine, on=key, validate="one_to_one")
    assert (merged["seed_x"].astype(np.uint64) == merged["seed_y"].astype(np.uint64)).all()
    assert (merged["scaled_l1_error"] == merged["error"]).all()
    assert cli.main([*argv, "--data-dir", str(DATA)]) == 0  # a rerun skips every cell
    assert "0 cells stored, 32 already stored" in capsys.readouterr().err

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    script = [sys.executable, str(ROOT / "bench" / "sweep_tables.py")]
    printed = subprocess.run(
        [*script, "--store", str(path), "--sweep", "tiny2d"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    ).stdout  # fmt: skip
    header, *rows, winners_header, winners = markdown_rows(printed)
    assert header == ["algorithm", "ε=1, 10^3", "ε=1, 10^5"]
    # the oracle: means per (dataset, scale, algorithm), over the best of the setting, the
    # geometric mean over the datasets, computed here from the cells recomputed above
    means = mine.groupby(["dataset", "scale", "algorithm"])["error"].mean()
    regret = means / means.groupby(["dataset", "scale"]).transform("min")
    geo = regret.groupby(["algorithm", "scale"]).apply(lambda r: math.exp(np.log(r).mean()))
    expected = sorted(sweep.algorithms, key=lambda a: geo[(a, 1000)])
    assert [row[0] for row in rows] == expected
    for row in rows:
        assert row[1:] == [f"{geo[(row[0], s)]:.2f}" for s in (1000, 100_000)]
    assert winners_header[0] == "winners (datasets)"
    for column, scale in zip(winners[1:], (1000, 100_000), strict=True):
        best = regret[regret == 1.0].xs(scale, level="scale").reset_index()["algorithm"]
        counts = sorted(best.value_counts().items(), key=lambda kv: (-kv[1], kv[0]))
        assert column == ", ".join(f"{name} {count}" for name, count in counts)


def test_a_2d_sweeps_estimate_uses_the_2d_cost_model(tmp_path):
    """Identity at 128² costs a few ms a run (``cost.run_seconds_2d``), not the 0.3 s an
    algorithm without a measured cost is assumed to take; a grid 4 times larger, about 4
    times as long."""
    file = tmp_path / "e.toml"
    file.write_text(TINY_2D.replace("[[32, 32]]", "[[128, 128]]").replace(
        '["Identity", "HB-2D", "AGrid", "PrivTree"]', '["Identity"]'))  # fmt: skip
    small = runner.estimate(spec.load(file, data=DATA), 1)
    per_cell = cost.run_seconds_2d("Identity", 128 * 128, 2000) + runner.CELL_SECONDS
    assert small.core_seconds == pytest.approx(small.cells * per_cell)
    assert small.core_seconds < small.cells * cost.UNMEASURED_SECONDS / 10
    file.write_text(file.read_text().replace("[[128, 128]]", "[[256, 256]]"))
    large = runner.estimate(spec.load(file, data=DATA), 1)
    assert (
        3
        < (large.core_seconds - small.cells * runner.CELL_SECONDS)
        / (small.core_seconds - small.cells * runner.CELL_SECONDS)
        <= 4
    )
