"""Sweep engine bench: its overhead on tiny cells, its scaling on CPU-bound ones.

1. **Overhead**: 2,000 tiny cells (Identity at domain 64, MEDCOST at scale 1,000, one
   trial per cell, so each samples its own input) through the engine (a warm 2-worker
   LocalCluster, chunked tasks, results committed to a DuckDB store as they arrive)
   versus the same cells in a plain loop in this process (one BLAS thread, as the workers
   have), without and with one store write at the end. Target: engine <= 2x the loop.
2. **Scaling**: a CPU-bound sweep (LUE-DPTree at domain 256) on 1 worker, then on 2
   workers; throughput in cells per second. Target: 2 workers >= 1.6x one worker. The
   same cells split over 1 and 2 plain processes (no Dask, no store) show what the cores
   give at the moment: the engine's ceiling on a shared machine.

Cluster start-up (seconds, paid once per sweep) is printed apart. The machine's load is
printed too: other processes on the cores lower the scaling. Each case runs 3 times, the
best kept.

Usage: ``python bench/bench_sweep.py`` (from the repository root; two to three minutes).
"""

from __future__ import annotations

import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from threadpoolctl import threadpool_limits

from dpcore.sweep import cell, runner, spec, store

DATA = spec.data_dir()
REPEAT = 3
"""Runs of each case; the best is kept (other processes on the cores only slow a run)."""

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
domains = [256]
epsilons = [1.0]
workloads = ["prefix"]
algorithms = ["LUE-DPTree"]
"""


def sweep_of(text: str, folder: Path) -> spec.Sweep:
    path = folder / "sweep.toml"
    path.write_text(text)
    return spec.load(path, data=DATA)


def engine(sweep: spec.Sweep, workers: int, folder: Path, repeat: int) -> tuple[float, float]:
    """(cluster start-up seconds, best run seconds of ``repeat``) of ``sweep`` on a fresh
    local cluster, each run into a new store."""
    start = time.perf_counter()
    with runner.client_for(None, workers=workers) as client:
        client.run(lambda: None)
        up = time.perf_counter() - start
        best = float("inf")
        for i in range(repeat):
            path = folder / f"{sweep.name}-{workers}-{i}.duckdb"
            summary = runner.run(sweep, path, client, progress=False)
            assert summary.stored == sweep.size and not summary.failures, summary.lines()
            best = min(best, summary.seconds)
        return up, best


def loop(sweep: spec.Sweep, folder: Path, repeat: int) -> tuple[float, float]:
    """(best seconds of ``repeat``, that plus one store write) of ``sweep``'s cells in a
    plain loop."""
    datasets = {d.name: d.counts for d in sweep.datasets}
    compute = float("inf")
    with threadpool_limits(1):
        for _ in range(repeat):
            start = time.perf_counter()
            results, failures = cell.run_chunk(sweep.seed, list(cell.cells(sweep)), datasets)
            compute = min(compute, time.perf_counter() - start)
    start = time.perf_counter() - compute
    assert len(results) == sweep.size and not failures
    path = folder / "loop.duckdb"
    store.begin(path, sweep.name, sweep.seed, sweep.settings())
    store.write(path, store.frame(sweep.name, results, "bench"))
    return compute, time.perf_counter() - start


def processes(sweep: spec.Sweep, workers: int, repeat: int) -> float:
    """Best seconds of ``repeat`` runs of ``sweep``'s cells split over ``workers`` plain
    processes (no Dask, no store): what the cores give right now, the engine's ceiling."""
    grid = list(cell.cells(sweep))
    datasets = {d.name: d.counts for d in sweep.datasets}
    parts = [grid[i::workers] for i in range(workers)]
    best = float("inf")
    with ProcessPoolExecutor(workers, initializer=threadpool_limits, initargs=(1,)) as pool:
        list(
            pool.map(
                cell.run_chunk, [sweep.seed] * workers, [p[:2] for p in parts], [datasets] * workers
            )
        )  # start the processes
        for _ in range(repeat):
            start = time.perf_counter()
            list(pool.map(cell.run_chunk, [sweep.seed] * workers, parts, [datasets] * workers))
            best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {runner.default_workers()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        tiny = sweep_of(TINY, folder)
        plain, written = loop(tiny, folder, REPEAT)
        up, run = engine(tiny, 2, folder, REPEAT)
        rows = [
            ("2,000 tiny cells, plain loop", plain, tiny.size / plain, ""),
            ("  + one store write", written, tiny.size / written, ""),
            (
                "2,000 tiny cells, engine (2 workers)",
                run,
                tiny.size / run,
                f"{run / plain:.2f}x the loop (target <= 2x); cluster start {up:.1f} s",
            ),
        ]
        cpu = sweep_of(CPU.format(trials=100), folder)
        _, one = engine(cpu, 1, folder, REPEAT)
        _, two = engine(cpu, 2, folder, REPEAT)
        rows += [
            (f"{cpu.size} LUE-DPTree cells, 1 worker", one, cpu.size / one, ""),
            (
                f"{cpu.size} LUE-DPTree cells, 2 workers",
                two,
                cpu.size / two,
                f"{one / two:.2f}x one worker's throughput (target >= 1.6x)",
            ),
        ]
        bare_one, bare_two = processes(cpu, 1, REPEAT), processes(cpu, 2, REPEAT)
        rows += [
            ("  same cells, 1 plain process", bare_one, cpu.size / bare_one, "no Dask, no store"),
            (
                "  same cells, 2 plain processes",
                bare_two,
                cpu.size / bare_two,
                f"{bare_one / bare_two:.2f}x: what the cores allow now",
            ),
        ]
    print(f"{'case':<40} {'seconds':>8} {'cells/s':>9}  note")
    for name, seconds, rate, note in rows:
        print(f"{name:<40} {seconds:>8.2f} {rate:>9.0f}  {note}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
