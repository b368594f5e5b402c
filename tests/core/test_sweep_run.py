"""The sweep runner on Dask: a local cluster, a scheduler started here, a kill mid-sweep."""

import importlib.metadata
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpcore.sweep import cell, cli, runner, spec, store
from tests.foreground import ctrl_c_as_in_a_terminal

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

CRASH = """\
name = "crash"
seed = 11
trials = 20
datasets = ["MEDCOST", "NETTRACE"]
scales = [1000, 100000]
domains = [256]
epsilons = [1.0, 0.1]
workloads = ["prefix"]
algorithms = "all"
"""


@pytest.fixture(scope="module")
def client():
    with runner.client_for(None, workers=2) as c:
        yield c


def stored(path: Path, sweep: str) -> dict:
    """The store's rows of ``sweep``: cell -> (seed, error), asserting each cell is there once."""
    table = store.query(path, "SELECT * FROM cells WHERE sweep = ?", [sweep])
    keys = list(
        zip(
            *(
                table[c]
                for c in ("dataset", "scale", "domain", "trial", "eps", "workload", "algorithm")
            ),
            strict=True,
        )
    )
    assert len(set(keys)) == len(keys)
    return {
        cell.Cell(*k): (int(s), float(e))
        for k, s, e in zip(keys, table["seed"], table["scaled_l1_error"], strict=True)
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_tiny_sweep_on_a_two_worker_local_cluster(client, tmp_path):
    """Every cell stored once, equal bit for bit to the cell run in this process."""
    sweep = spec.load(ROOT / "sweeps" / "tiny.toml", data=DATA)
    path = tmp_path / "store.duckdb"
    summary = runner.run(sweep, path, client, progress=False)
    assert (summary.stored, summary.skipped, summary.failures) == (sweep.size, 0, [])
    assert runner.workers_of(client) == 2
    rows = stored(path, "tiny")
    grid = list(cell.cells(sweep))
    assert set(rows) == set(grid)
    local, _ = cell.run_chunk(sweep.seed, grid, {d.name: d.counts for d in sweep.datasets})
    assert rows == {r.cell: (r.seed, r.scaled_l1_error) for r in local}
    again = runner.run(sweep, path, client, progress=False)
    assert (again.stored, again.skipped) == (0, sweep.size)
    version = store.query(path, "SELECT DISTINCT code_version FROM cells")["code_version"]
    assert list(version) == [runner.code_version()] and version[0].startswith(
        importlib.metadata.version("dp-explorer")
    )


def started(sweep_file: Path, path: Path) -> subprocess.Popen:
    """``dp-sweep run`` of ``sweep_file`` into ``path`` on one worker, in a new process group
    (the runner and its cluster), stderr kept."""
    command = [sys.executable, "-m", "dpcore.sweep", "run", str(sweep_file), "--store", str(path)]
    command += ["--workers", "1", "--data-dir", str(DATA), "--no-progress"]
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=ENV,
        start_new_session=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_a_sweep_killed_midway_resumes_with_every_cell_once_and_the_same_results(client, tmp_path):
    (tmp_path / "crash.toml").write_text(CRASH)
    sweep = spec.load(tmp_path / "crash.toml", data=DATA)
    path = tmp_path / "killed.duckdb"
    proc = started(tmp_path / "crash.toml", path)
    try:
        count = 0
        deadline = time.monotonic() + 120
        while count == 0 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)  # the runner commits about once a second
            if path.is_file():
                count = int(store.query(path, "SELECT count(*) AS n FROM cells")["n"][0])
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the runner and its cluster, mid-sweep
        _, err = proc.communicate(timeout=30)
    assert 0 < count < sweep.size, err.decode()[-2000:]
    after_kill = stored(path, "crash")
    assert 0 < len(after_kill) < sweep.size

    resumed = runner.run(sweep, path, client, progress=False)
    assert resumed.skipped == len(after_kill) and resumed.failures == []
    assert resumed.stored == sweep.size - len(after_kill)
    uninterrupted = tmp_path / "whole.duckdb"
    runner.run(sweep, uninterrupted, client, progress=False)
    assert stored(path, "crash") == stored(uninterrupted, "crash")
    assert len(stored(path, "crash")) == sweep.size


def test_a_sweep_through_a_scheduler_and_a_worker_started_here(tmp_path, capsys, monkeypatch):
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    sweep = spec.load(ROOT / "sweeps" / "tiny.toml", data=DATA)
    path = tmp_path / "remote.duckdb"
    scheduler_command = [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1",
                         "--port", str(port), "--dashboard-address", "127.0.0.1:0"]  # fmt: skip
    worker_command = [sys.executable, "-m", "dask", "worker", address, "--host", "127.0.0.1",
                      "--nthreads", "1", "--nworkers", "1", "--dashboard-address", "127.0.0.1:0",
                      "--death-timeout", "60"]  # fmt: skip
    quiet = {"cwd": ROOT, "env": ENV, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    started = [subprocess.Popen(scheduler_command, **quiet)]
    try:
        monkeypatch.setattr(runner, "WORKER_WAIT", 0.5)
        with (
            pytest.raises(runner.ClusterError, match=f"no worker joined the scheduler {address} "),
            runner.client_for(address) as client,
        ):
            runner.run(sweep, path, client, progress=False)
        monkeypatch.undo()
        started.append(subprocess.Popen(worker_command, **quiet))
        tiny = str(ROOT / "sweeps" / "tiny.toml")
        options = ["--store", str(path), "--data-dir", str(DATA), "--no-progress"]
        status = cli.main(["run", tiny, "--scheduler", address, *options])
    finally:
        for proc in reversed(started):
            proc.terminate()
        for proc in reversed(started):
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    err = capsys.readouterr().err
    assert status == 0, err
    assert address in err
    assert set(stored(path, "tiny")) == set(cell.cells(sweep))


def test_a_scheduler_that_does_not_answer_says_so_in_time():
    address = f"tcp://127.0.0.1:{free_port()}"
    start = time.monotonic()
    with (
        pytest.raises(runner.ClusterError, match=f"no Dask scheduler answered at {address}"),
        runner.client_for(address, timeout=1.0),
    ):
        pass
    assert time.monotonic() - start < 10
    assert runner.CONNECT_TIMEOUT < 10  # the command line's wait, with time to say so


def test_the_command_line_says_what_is_wrong_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "b"\nseed = 1\ntrials = 1\ndatasets = ["NOPE"]\n')
    assert (
        cli.main(["run", str(bad), "--store", str(tmp_path / "s.duckdb"), "--data-dir", str(DATA)])
        == 2
    )
    err = capsys.readouterr().err
    assert "line 4, key 'datasets'" in err and "MEDCOST" in err
    assert not (tmp_path / "s.duckdb").exists()
    assert cli.main(["list", "--store", str(tmp_path / "none.duckdb")]) == 2
    assert "no store at" in capsys.readouterr().err


def test_the_summary_groups_failed_cells_by_error():
    a = cell.Cell("D", 10, 2, 0, 1.0, "prefix", "A")
    b = cell.Cell("D", 10, 2, 1, 1.0, "prefix", "A")
    summary = runner.Summary(
        cells=5,
        skipped=1,
        stored=1,
        failures=[cell.Failure(a, "ValueError: x"), cell.Failure(b, "ValueError: x")],
    )
    lines = summary.lines()
    assert lines[0].startswith("1 cells stored, 1 already stored, 2 failed, of 5")
    assert lines[1] == "  2 failed with ValueError: x" and str(a) in lines[2]


def test_chunks_cover_the_cells_in_order_and_stay_small():
    cells = [cell.Cell("D", 10, 2, t, 1.0, "prefix", "A") for t in range(2001)]
    for workers in (1, 2, 64):
        chunks = list(runner.chunked(iter(cells), len(cells), workers))
        assert [c for chunk in chunks for c in chunk] == cells
        assert max(map(len, chunks)) <= runner.MAX_CHUNK
    assert len(list(runner.chunked(cells[:20], 20, 2))) == 20


def test_the_grid_is_streamed_not_listed():
    """Issue 37 M6: listing the 9,999,912 cells of a sweep at the cap took 17.6 s and 1.7 GB
    before anything ran. The cells and their chunks come one by one, as needed."""
    sweep = spec.parse(
        BIG.replace('datasets = "all"', 'datasets = ["MEDCOST"]'), path=ROOT / "b.toml", data=DATA
    )
    pulled = 0

    def counted():
        nonlocal pulled
        for c in cell.cells(sweep):
            pulled += 1
            yield c

    chunks = runner.chunked(counted(), sweep.size, workers=2)
    first = next(chunks)
    assert len(first) == runner.MAX_CHUNK and pulled == runner.MAX_CHUNK


BIG = """\
name = "big"
seed = 1
trials = 127
datasets = "all"
scales = [1000, 10000, 100000, 1000000, 10000000, 100000000]
domains = [4096, 2048, 1024, 512, 256, 128, 64, 32, 16, 8, 4, 2]
epsilons = [1.0, 0.5, 0.25, 0.1, 0.05, 0.01]
workloads = ["prefix", "random ranges"]
algorithms = "all"
"""


def test_a_sweep_over_the_limits_is_refused_with_its_estimate_unless_asked(tmp_path, capsys):
    """Issue 37 M6: nothing estimated time or memory first; a sweep at the cell cap ran
    (3.6 GB at 82 s, 0 cells stored)."""
    (tmp_path / "big.toml").write_text(BIG)
    sweep = spec.load(tmp_path / "big.toml", data=DATA)
    assert 9_000_000 < sweep.size <= spec.MAX_CELLS
    guess = runner.estimate(sweep, 2)
    # every cell at least CELL_SECONDS, and SF alone at 4,096 bins 2 s a run
    sf_runs = sweep.size // len(sweep.algorithms) // len(sweep.domains)
    assert guess.core_seconds > sweep.size * runner.CELL_SECONDS + 2.0 * sf_runs
    assert guess.seconds == pytest.approx(guess.core_seconds / 2)
    store_path = tmp_path / "s.duckdb"
    argv = ["run", str(tmp_path / "big.toml"), "--store", str(store_path)]
    start = time.monotonic()
    assert cli.main([*argv, "--workers", "2", "--data-dir", str(DATA)]) == 2
    assert time.monotonic() - start < 10
    err = capsys.readouterr().err
    assert "estimated: about" in err and "MB per worker" in err
    assert "big.toml: this sweep would take about" in err and "--yes" in err
    assert not store_path.exists()


def test_a_small_sweep_prints_its_estimate_and_runs(tmp_path, capsys):
    (tmp_path / "t.toml").write_text(
        'name = "t"\nseed = 1\ntrials = 1\ndatasets = ["MEDCOST"]\nscales = [1000]\n'
        'domains = [64]\nepsilons = [1.0]\nworkloads = ["prefix"]\nalgorithms = ["Identity"]\n'
    )
    sweep = spec.load(tmp_path / "t.toml", data=DATA)
    guess = runner.estimate(sweep, 1)
    assert guess.core_seconds == pytest.approx(1e-3 * 64 / 4096 + 64 * 15e-9 + runner.CELL_SECONDS)
    assert guess.over(seconds=runner.MAX_SECONDS, megabytes=runner.MAX_WORKER_MEGABYTES) == []


INTERRUPTED = {
    "name": "ctrl-c",
    "seed": 5,
    "trials": 1000,
    "datasets": ["MEDCOST"],
    "scales": [1000],
    "domains": [1024],
    "epsilons": [1.0],
    "workloads": ["prefix"],
    "algorithms": ["DAWA", "HB"],
}


def test_ctrl_c_stops_within_seconds_without_a_traceback_and_keeps_what_finished(tmp_path):
    """Issue 37 M6: Ctrl-C took 57 s and printed a Dask CommClosedError traceback. SIGINT to
    the process group (what a terminal sends) once the first batch is stored: exit 130 within
    15 s, no traceback, the stored cells kept, and stderr holds the runner's lines alone."""
    (tmp_path / "c.toml").write_text(spec.to_toml(INTERRUPTED))
    path = tmp_path / "c.duckdb"
    proc = started(tmp_path / "c.toml", path)
    try:
        count, deadline = 0, time.monotonic() + 120
        while count == 0 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            if path.is_file():
                count = int(store.query(path, "SELECT count(*) AS n FROM cells")["n"][0])
        assert count > 0 and proc.poll() is None
        # how the runner treats SIGINT now (bit 2 of SigIgn: ignored; of SigCgt: handled)
        status = Path(f"/proc/{proc.pid}/status").read_text().splitlines()
        dispositions = [line for line in status if line.startswith(("SigIgn", "SigCgt"))]
        os.killpg(proc.pid, signal.SIGINT)
        start = time.monotonic()
        _, err = proc.communicate(timeout=60)
        seconds = time.monotonic() - start
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    text = err.decode()
    assert proc.returncode == 130, (dispositions, text[-2000:])
    assert seconds < 15, text[-2000:]
    assert "Traceback" not in text and "CommClosedError" not in text, text[-2000:]
    assert "interrupted: rerun the same command to resume" in text
    assert 0 < len(stored(path, "ctrl-c")) < 2000
    # no line beyond the runner's own: Dask warned "Async instruction ... ended with
    # CancelledError" when the cluster closed on the chunk still running
    ours = ("sweep ctrl-c: ", "estimated: ", "interrupted: ")
    others = [
        line
        for line in text.splitlines()
        if not line.startswith(ours) and not re.fullmatch(r"[\d,]+ cells stored, .*", line)
    ]
    assert others == [], text[-2000:]


def test_a_resumed_sweep_reads_its_stored_cells_one_input_at_a_time(tmp_path, monkeypatch):
    """Issue 37 M6: the runner listed every stored cell of the sweep before resuming (ten
    million at the cap). Stored cells are read per (dataset, scale, domain), as reached."""
    sweep = spec.parse(
        spec.to_toml({**INTERRUPTED, "trials": 3, "scales": [100, 1000]}),
        path=tmp_path / "r.toml",
        data=DATA,
    )
    path = tmp_path / "r.duckdb"
    store.begin(path, sweep.name, sweep.seed, sweep.settings())
    first = list(cell.cells(sweep))[:4]
    results, failures = cell.run_chunk(sweep.seed, first, {"MEDCOST": sweep.datasets[0].counts})
    assert not failures and store.write(path, store.frame(sweep.name, results, "v")) == 4
    reads = []
    real = store.stored
    monkeypatch.setattr(store, "stored", lambda *a, **k: reads.append(k) or real(*a, **k))
    todo = runner.not_stored(sweep, path)
    assert next(todo) == list(cell.cells(sweep))[4] and len(reads) == 1
    rest = [next(todo), *todo]
    assert len(reads) == 2 and {r["scale"] for r in reads} == {100, 1000}
    assert [*first, list(cell.cells(sweep))[4], *rest] == list(cell.cells(sweep))
