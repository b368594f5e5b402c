"""Sweep engine bench: its overhead on tiny cells, its scaling on CPU-bound ones.

1. **Overhead**: 2,000 tiny cells (Identity at domain 64, MEDCOST at scale 1,000, one
   trial per cell, so each samples its own input) through the engine (a warm 2-worker
   LocalCluster, chunked tasks, results committed to a DuckDB store as they arrive)
   versus the same cells in a plain loop in this process (one BLAS thread, as the workers
   have), without and with one store write at the end. Target: engine <= 2x the loop.
2. **Scaling**: a CPU-bound sweep (DAWA at domain 4,096, about 40 ms a cell) on 1 worker,
   then on 2 workers; throughput in cells per second. Target: 2 workers >= 1.6x one worker. The
   same cells split over 1 and 2 plain processes (no Dask, no store) show what the cores
   give at the moment: the engine's ceiling on a shared machine.

Cluster start-up (seconds, paid once per sweep) is printed apart. The machine's load is
printed too: other processes on the cores lower the scaling. The cases run in turn, 3
rounds, each case's best kept (the load of other processes drifts).

Usage: ``python bench/bench_sweep.py`` (from the repository root; two to three minutes).
"""

from __future__ import annotations

import multiprocessing
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from pathlib import Path

from distributed import Client
from threadpoolctl import threadpool_limits

from dpcore.sweep import cell, runner, spec, store

DATA = spec.data_dir()
REPEAT = 3
"""Rounds of the cases; each case's best is kept (other processes only slow a run)."""

SPAWN = multiprocessing.get_context("spawn")
"""Plain processes start fresh: forking this process, whose Dask threads hold locks, can
deadlock the child."""

TINY = """
name = "bench_tiny"
seed = 1
trials = 2000
datasets = ["MEDCOST"]
scales = [1000]
domains = [64]
epsilons = [1.0]
workloads = ["prefix"]
algorithms = ["Identity"]
"""

CPU = """
name = "bench_cpu"
seed = 2
trials = {trials}
datasets = ["MEDCOST", "NETTRACE"]
scales = [100000]
domains = [4096]
epsilons = [1.0]
workloads = ["prefix"]
algorithms = ["DAWA"]
"""


def sweep_of(text: str, folder: Path) -> spec.Sweep:
    path = folder / "sweep.toml"
    path.write_text(text)
    return spec.load(path, data=DATA)


def engine_run(sweep: spec.Sweep, client: Client, path: Path) -> float:
    """Seconds of one run of ``sweep`` on ``client``'s cluster into a new store."""
    summary = runner.run(sweep, path, client, progress=False)
    assert summary.stored == sweep.size and not summary.failures, summary.lines()
    return summary.seconds


def loop_run(sweep: spec.Sweep, path: Path | None = None) -> float:
    """Seconds of ``sweep``'s cells in a plain loop in this process (one BLAS thread, as
    the workers have), and one store write of them all if ``path`` is given."""
    datasets = {d.name: d.counts for d in sweep.datasets}
    with threadpool_limits(1):
        start = time.perf_counter()
        results, failures = cell.run_chunk(sweep.seed, list(cell.cells(sweep)), datasets)
        if path is not None:
            store.begin(path, sweep.name, sweep.seed, sweep.settings())
            store.write(path, store.frame(sweep.name, results, "bench"))
        seconds = time.perf_counter() - start
    assert len(results) == sweep.size and not failures
    return seconds


def pool_run(sweep: spec.Sweep, pool: ProcessPoolExecutor, workers: int) -> float:
    """Seconds of ``sweep``'s cells split over ``workers`` plain processes (no Dask, no
    store): what the cores give right now, the engine's ceiling."""
    grid = list(cell.cells(sweep))
    datasets = {d.name: d.counts for d in sweep.datasets}
    parts = [grid[i::workers] for i in range(workers)]
    start = time.perf_counter()
    list(pool.map(cell.run_chunk, [sweep.seed] * workers, parts, [datasets] * workers))
    return time.perf_counter() - start


def best(timings: dict[str, list[float]], name: str, seconds: float) -> None:
    """Record one run of case ``name`` (its best is reported)."""
    timings.setdefault(name, []).append(seconds)


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {runner.default_workers()} cores")
    runs: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        folder = Path(tmp)
        tiny = sweep_of(TINY, folder)
        cpu = sweep_of(CPU.format(trials=100), folder)
        start = time.perf_counter()
        two = stack.enter_context(runner.client_for(None, workers=2))
        two.run(lambda: None)
        up = time.perf_counter() - start
        one = stack.enter_context(runner.client_for(None, workers=1))
        pools = {
            w: stack.enter_context(ProcessPoolExecutor(w, SPAWN, threadpool_limits, (1,)))
            for w in (1, 2)
        }
        for w, pool in pools.items():
            list(pool.map(time.sleep, [0.5] * w))  # every process started before timing
        # Alternate the cases, keep each one's best: the load of other processes drifts.
        for i in range(REPEAT):
            best(runs, "loop", loop_run(tiny))
            best(runs, "loop+store", loop_run(tiny, folder / f"loop-{i}.duckdb"))
            best(runs, "engine", engine_run(tiny, two, folder / f"tiny-{i}.duckdb"))
            best(runs, "cpu 1", engine_run(cpu, one, folder / f"cpu1-{i}.duckdb"))
            best(runs, "cpu 2", engine_run(cpu, two, folder / f"cpu2-{i}.duckdb"))
            best(runs, "pool 1", pool_run(cpu, pools[1], 1))
            best(runs, "pool 2", pool_run(cpu, pools[2], 2))
    t = {name: min(seconds) for name, seconds in runs.items()}
    rows = [
        ("2,000 tiny cells, plain loop", t["loop"], tiny.size / t["loop"], ""),
        ("  + one store write", t["loop+store"], tiny.size / t["loop+store"], ""),
        ("2,000 tiny cells, engine (2 workers)", t["engine"], tiny.size / t["engine"],
         f"{t['engine'] / t['loop']:.2f}x the loop (target <= 2x); cluster start {up:.1f} s"),
        (f"{cpu.size} DAWA cells, 1 worker", t["cpu 1"], cpu.size / t["cpu 1"], ""),
        (f"{cpu.size} DAWA cells, 2 workers", t["cpu 2"], cpu.size / t["cpu 2"],
         f"{t['cpu 1'] / t['cpu 2']:.2f}x one worker's throughput (target >= 1.6x)"),
        ("  same cells, 1 plain process", t["pool 1"], cpu.size / t["pool 1"],
         "no Dask, no store"),
        ("  same cells, 2 plain processes", t["pool 2"], cpu.size / t["pool 2"],
         f"{t['pool 1'] / t['pool 2']:.2f}x: what the cores allow now"),
    ]  # fmt: skip
    print(f"{'case':<40} {'seconds':>8} {'cells/s':>9}  note")
    for name, seconds, rate, note in rows:
        print(f"{name:<40} {seconds:>8.2f} {rate:>9.0f}  {note}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
