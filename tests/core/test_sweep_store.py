"""The DuckDB store: transactions seen from another process, a locked store, a full disk."""

import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from dpcore.sweep import cli, report, store
from dpcore.sweep.cell import Cell, Result

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SETTINGS = {
    "seed": 1,
    "trials": 1,
    "datasets": {"D": "f1"},
    "scales": [10],
    "domains": [2],
    "epsilons": [1.0],
    "workloads": ["prefix"],
    "algorithms": ["A"],
}

# Run in a second process: ``batches`` transactions of ``size`` rows each, as fast as it can.
WRITER = """
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from dpcore.sweep import store
from dpcore.sweep.cell import Cell, Result

path, batches, size = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
for b in range(batches):
    rows = [Result(Cell("D", 10, 2, b * size + t, 1.0, "prefix", "A"), t, 0.5, 0.0,
                   datetime.now(UTC)) for t in range(size)]
    store.write(path, store.frame("s", rows, "v"))
    time.sleep(0.05)  # the runner commits about once a second: readers get their turns
"""


def results(trials: range, error: float = 0.5) -> pd.DataFrame:
    now = datetime.now(UTC)
    cells = [Result(Cell("D", 10, 2, t, 1.0, "prefix", "A"), t, error, 0.1, now) for t in trials]
    return store.frame("s", cells, "v")


def count(path: Path) -> int:
    return int(store.query(path, "SELECT count(*) AS n FROM cells")["n"][0])


def test_a_reader_in_this_process_sees_only_whole_batches_while_another_process_writes(
    tmp_path,
):
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    batches, size = 12, 100
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(batches), str(size)],
        cwd=ROOT,
        env=ENV,
        stderr=subprocess.PIPE,
    )
    seen = []
    while writer.poll() is None:
        seen.append(count(path))
        time.sleep(0.005)
    _, err = writer.communicate()
    assert writer.returncode == 0, err.decode()[-2000:]
    seen.append(count(path))
    assert seen == sorted(seen) and seen[-1] == batches * size
    assert all(n % size == 0 for n in seen)  # never half a batch
    assert any(0 < n < batches * size for n in seen)  # it did read while the other wrote


def test_a_store_held_by_another_process_is_a_clear_message_and_loses_nothing(tmp_path):
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    assert store.write(path, results(range(10))) == 10
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, sys; c = duckdb.connect({str(path)!r}); print('held', flush=True); "
            "sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        with pytest.raises(store.StoreError, match="locked by another process"):
            store.write(path, results(range(10, 20)), wait=0.5)
        with pytest.raises(store.StoreError, match="locked by another process"):
            store.query(path, "SELECT 1", wait=0.5)
        assert time.monotonic() - start < 5
    finally:
        holder.communicate("")
    assert count(path) == 10
    assert store.write(path, results(range(10, 20))) == 10


def test_a_full_disk_is_a_clear_message_and_loses_nothing(tmp_path):
    """The file-size limit (RLIMIT_FSIZE) makes writes past it fail as a full disk does."""
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    assert store.write(path, results(range(1000))) == 1000
    code = f"""
import os, resource
from dpcore.sweep import store
from tests.core.test_sweep_store import results
path = {str(path)!r}
resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(path) + 4096, resource.RLIM_INFINITY))
try:
    store.write(store.Path(path), results(range(1000, 21_000)))
except store.StoreError as error:
    print(error)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120
    )
    assert "could not store 20000 results" in out.stdout, out.stderr[-2000:]
    assert "rolled back, every cell stored before is intact" in out.stdout
    assert count(path) == 1000
    assert store.write(path, results(range(1000, 1010))) == 10


def test_each_cell_is_stored_once_and_a_stored_cell_is_kept(tmp_path):
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    assert store.stored(path, "s", dataset="D", scale=10, domain=2) == set()
    assert store.write(path, results(range(5))) == 5
    assert store.write(path, results(range(3, 8), error=9.0)) == 3
    table = store.query(path, "SELECT trial, scaled_l1_error FROM cells ORDER BY trial")
    assert table["trial"].tolist() == list(range(8))
    assert table["scaled_l1_error"].tolist() == [0.5] * 5 + [9.0] * 3
    store.begin(path, "s", 1, SETTINGS)
    done = store.stored(path, "s", dataset="D", scale=10, domain=2)
    assert done == {Cell("D", 10, 2, t, 1.0, "prefix", "A") for t in range(8)}
    assert store.stored(path, "s", dataset="D", scale=11, domain=2) == set()
    axes = {"dataset": ["D"], "scale": [10], "domain": [2], "eps": [1.0], "workload": ["prefix"]}
    assert store.count_stored(path, "s", axes, trials=8) == 8
    assert store.count_stored(path, "s", axes, trials=3) == 3
    assert store.count_stored(path, "s", {**axes, "eps": [0.5]}, trials=8) == 0


def test_a_sweep_name_keeps_its_seed_and_its_datasets(tmp_path):
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    with pytest.raises(store.StoreError, match="stored with seed 1, this file says 2"):
        store.begin(path, "s", 2, SETTINGS)
    changed = {**SETTINGS, "datasets": {"D": "other"}}
    with pytest.raises(store.StoreError, match="dataset 'D' with other contents"):
        store.begin(path, "s", 1, changed)
    wider = {**SETTINGS, "datasets": {"E": "f2"}, "scales": [10, 20]}
    store.begin(path, "s", 1, wider)
    settings = store.query(path, "SELECT settings FROM sweeps")["settings"][0]
    assert '"D": "f1"' in settings and '"E": "f2"' in settings and "[10, 20]" in settings


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_export_writes_the_cells(tmp_path, suffix):
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    store.write(path, results(range(4)))
    out = tmp_path / f"cells{suffix}"
    assert store.export(path, out, sweep="s") == 4
    table = pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out)
    assert list(table.columns) == list(store.COLUMNS)
    assert table["trial"].tolist() == [0, 1, 2, 3]
    with pytest.raises(store.StoreError, match=r"\.parquet or \.csv"):
        store.export(path, tmp_path / "cells.xlsx")


def test_export_refuses_an_unknown_sweep_and_an_existing_file(tmp_path):
    """Issue 37 L8: ``--sweep nosuch`` wrote an empty file (exit 0), an existing file was
    overwritten."""
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    store.write(path, results(range(2)))
    with pytest.raises(store.StoreError, match=r"no sweep 'nosuch'.*it holds: 's'"):
        store.export(path, tmp_path / "none.csv", sweep="nosuch")
    assert not (tmp_path / "none.csv").exists()
    kept = tmp_path / "kept.csv"
    kept.write_text("mine\n")
    with pytest.raises(store.StoreError, match=r"kept\.csv exists.*--force"):
        store.export(path, kept, sweep="s")
    assert kept.read_text() == "mine\n"
    assert store.export(path, kept, sweep="s", overwrite=True) == 2
    assert len(pd.read_csv(kept)) == 2


def test_the_default_store_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(store.STORE_ENV, str(tmp_path / "x.duckdb"))
    assert store.default_path() == tmp_path / "x.duckdb"
    monkeypatch.delenv(store.STORE_ENV)
    assert store.default_path().name == "sweeps.duckdb"
    assert "dp-explorer" in str(store.default_path())


def test_no_connection_loads_or_installs_an_extension(tmp_path):
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    with store.connect(path, read_only=True) as con:
        for setting in ("autoload_known_extensions", "autoinstall_known_extensions"):
            (value,) = con.execute(f"SELECT current_setting('{setting}')").fetchone()
            assert value is False, setting


def test_a_sqlite_file_as_the_store_is_refused_at_once_without_the_network(tmp_path, capsys):
    """Issue 37 L2: DuckDB tried to download its SQLite extension (an 8 s stall)."""
    path = tmp_path / "s.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE cells (x)")
    con.commit()
    con.close()
    start = time.monotonic()
    with pytest.raises(store.StoreError, match=r"not a DuckDB database \(it is a SQLite file\)"):
        report.sweeps(path)
    assert cli.main(["list", "--store", str(path)]) == 2
    assert "not a DuckDB database" in capsys.readouterr().err
    with pytest.raises(store.StoreError, match="not a DuckDB database"):
        store.begin(path, "s", 1, SETTINGS)
    assert time.monotonic() - start < 2


def test_a_store_with_another_schema_says_which_column_differs(tmp_path):
    """Issue 37 L2: ``cells.domain`` as VARCHAR gave a traceback."""
    path = tmp_path / "s.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute(store.SCHEMA.replace("domain INTEGER", "domain VARCHAR"))
    expected = r"table 'cells': column 'domain' is VARCHAR, expected INTEGER"
    with pytest.raises(store.StoreError, match=expected):
        report.axes(path, "s")
    with pytest.raises(store.StoreError, match=expected):
        store.begin(path, "s", 1, SETTINGS)
    with duckdb.connect(str(path)) as con:
        con.execute("ALTER TABLE sweeps ADD COLUMN note VARCHAR")
        con.execute("DROP TABLE cells")
        con.execute(store.SCHEMA)
    with pytest.raises(store.StoreError, match=r"table 'sweeps': column 'note' is not expected"):
        report.sweeps(path)
