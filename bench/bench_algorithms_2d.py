"""Issue 39's 2-D table: every registered 2-D algorithm under DPBench's 2-D protocol.

Speed: median seconds per run at 128² and 256² (one release plus the scaled error on
DPBench's 2,000 random rectangles), against Identity measured in the same run (targets
<= 1 s at 128², <= 5 s at 256²). Accuracy: mean scaled L1 error (and L2) over 5 seeded
samples at 128², eps = 0.1, scales 10^4 and 10^6, on a few of ``../shared/data/2d/``'s
grids (the seed of each dataset / scale / trial is printed), with regret.

    PYTHONPATH=. python bench/bench_algorithms_2d.py [--quick] [--only NAME]

``--page``: instead, the first 2-D result of "Which algorithm for my data?" at 128² with
every 2-D algorithm (:func:`dpui.algorithms.map2d.errors` then ``summary``, empty caches,
the data's own N, eps = 1, DPBench's random rectangles): adaptive trials against the
baseline of 3 fixed trials of every algorithm, measured in the same run (target <= 3 s of
wall time), with the page's estimate beside; then the release heatmaps' drawing (figure and
its JSON) of PrivTree and AGrid at 128² and 512² against ``DRAW_SECONDS``. ``--crossover``:
only the page's error vs scale on DPBench's grids at 128² and two bundled maps, 10^3 to
10^8 records, in the page's words.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from regret_table import print_error_rows

from dpcore.algorithms import NAMES_2D, release
from dpcore.algorithms.dpbench_2d import random_rectangles, sample_grid, scaled_errors
from dpcore.spatial.grid_data import Grid
from dpui.algorithms import figures, map2d, map_page
from dpui.spatial import data

DATA = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "2d"
DATASETS = ("ADULT-2D", "BJ-CABS-E", "GOWALLA", "STROKE")
DOMAIN = 128
SCALES = (10_000, 1_000_000)
EPS = 0.1
SPEED = {128: 1.0, 256: 5.0}
CROSSOVER_SCALES = (1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000)


def seed_of(dataset: str, scale: int, trial: int) -> int:
    return zlib.crc32(f"2d/{dataset}/{scale}/{trial}".encode())


def load(dataset: str) -> np.ndarray:
    return np.loadtxt(DATA / f"{dataset}.n256x256.csv", delimiter=",")


def first_result(s: map2d.Setting2D) -> tuple[float, float, pd.DataFrame]:
    """Wall and CPU seconds of the page's 2-D ranking of ``s`` from empty caches."""
    st.cache_data.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    table = map2d.summary(map2d.errors(s, s.key()), s)
    return time.perf_counter() - wall, time.process_time() - cpu, table


def page_table(datasets: tuple[str, ...]) -> None:
    """The page's first 2-D result at 128² (see the module's docstring)."""
    print(f"First 2-D result at {DOMAIN}², every 2-D algorithm, eps 1, random rectangles")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    print(f"{'dataset':<12}{'trials':<10}{'wall':>7}{'cpu':>7}{'estimate':>10}  <=3s  lead k  best")
    for dataset in datasets:
        grid = Grid(load(dataset), dataset)
        for trials in (3, 0):  # the baseline first: 3 fixed trials
            s = map2d.Setting2D(
                grid, round(grid.total), (DOMAIN, DOMAIN), "random", "", 1.0, trials, 0,
                NAMES_2D, own=True,
            )  # fmt: skip
            estimate = map2d.page_cost(NAMES_2D, DOMAIN**2, s.query_count(), trials or 3)
            wall, cpu, table = first_result(s)
            lead = table.iloc[0]
            print(
                f"{dataset:<12}{trials or 'adaptive'!s:<10}{wall:>7.2f}{cpu:>7.2f}"
                f"{estimate.seconds:>10.2f}  {'ok' if wall <= 3 else 'MISS':>4}"
                f"{int(lead['trials']):>7}  {table.index[0]}"
            )
    crossover_table(datasets)
    print(f"\nRelease heatmaps: figure + JSON seconds (DRAW_SECONDS = {map2d.DRAW_SECONDS})")
    shape = load(datasets[0])
    for side in (128, 512):
        counts = np.kron(shape, np.ones((2, 2))) if side == 512 else shape
        x = sample_grid(counts, 1_000_000, side, np.random.default_rng(0))
        for name in ("PrivTree", "AGrid"):
            run = release(name, x, 1.0, workload="random rectangles", rng=np.random.default_rng(1))
            start = time.perf_counter()
            figures.release_map(x, run.estimate, run.buckets, name=name).to_json()
            seconds = time.perf_counter() - start
            cells = 0 if run.buckets is None else len(run.buckets)
            print(f"  {name:<9}{side:>4}²  {cells:>6} cells  {seconds:6.3f} s")


def crossover_table(datasets: tuple[str, ...]) -> None:
    """Error vs scale as the page measures it, in the page's words (:func:`map_page.crossover`):
    DPBench's grids at 128², then the bundled maps at their own sizes; eps 1, 3 trials."""
    print("\nThe crossover on the page, eps 1, 3 trials (map_page.crossover)")
    grids = [Grid(load(d), d) for d in datasets]
    grids += [data.bundled(name) for name in ("stroke-32x32", "sf-taxi-64x64")]
    for grid in grids:
        side = DOMAIN if grid.shape[0] > DOMAIN else grid.shape[0]
        rows = []
        for scale in CROSSOVER_SCALES:
            s = map2d.Setting2D(
                grid, scale, (side, side), "random", "", 1.0, 3, 0, NAMES_2D
            )  # fmt: skip
            means = map2d.summary(map2d.errors(s, s.key()), s)["mean"]
            rows += [(name, scale, float(err)) for name, err in means.items()]
        curves = pd.DataFrame(rows, columns=["algorithm", "scale", "mean"])
        best = curves.loc[curves.groupby("scale")["mean"].idxmin()]
        winners = zip(best["algorithm"], best["scale"], strict=True)
        print(f"  {grid.name} at {side}²: best " + ", ".join(f"{n} at {c:,}" for n, c in winners))
        print(f"    {map_page.crossover(curves)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 datasets, 2 trials")
    parser.add_argument("--only", help="one algorithm (Identity is always measured)")
    parser.add_argument("--page", action="store_true", help="the page's first 2-D result")
    parser.add_argument("--crossover", action="store_true", help="only the page's crossover")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"no datasets: expected DPBench's 2-D grids in {DATA.resolve()}")
    if args.page:
        page_table(DATASETS[:2] if args.quick else DATASETS)
        return
    if args.crossover:
        crossover_table(DATASETS[:2] if args.quick else DATASETS)
        return
    if args.only and args.only not in NAMES_2D:
        sys.exit(f"unknown algorithm {args.only!r}; registered: {', '.join(NAMES_2D)}")
    names = [n for n in NAMES_2D if args.only in (None, n) or n == "Identity"]
    datasets = DATASETS[:2] if args.quick else DATASETS
    trials = 2 if args.quick else 5

    print("Speed (median seconds per run: release + scaled error on 2,000 rectangles)")
    print(f"{'algorithm':14}{'domain':>8}{'seconds':>10}{'x Identity':>12}{'target':>8}  pass")
    grid = load(datasets[0])
    for domain in SPEED:
        x = sample_grid(grid, 1_000_000, domain, np.random.default_rng(0))
        workload = random_rectangles((domain, domain))
        times: dict[str, float] = {}
        for name in names:
            release(name, x, EPS, workload=workload, rng=np.random.default_rng(99))  # warm caches
            runs = []
            for trial in range(3):
                start = time.perf_counter()
                run = release(name, x, EPS, workload=workload, rng=np.random.default_rng(trial))
                scaled_errors(x, run.estimate, workload)
                runs.append(time.perf_counter() - start)
            times[name] = statistics.median(runs)
        for name in names:
            verdict = "yes" if times[name] <= SPEED[domain] else "NO"
            ratio = times[name] / times["Identity"]
            print(
                f"{name:14}{domain:>7}²{times[name]:>10.4f}{ratio:>12.0f}"
                f"{SPEED[domain]:>7.0f}s  {verdict}"
            )

    workload = random_rectangles((DOMAIN, DOMAIN))
    for scale in SCALES:
        rows: dict[str, dict[str, float]] = {}
        rows_l2: dict[str, dict[str, float]] = {}
        for dataset in datasets:
            shape = load(dataset)
            l1: dict[str, list[float]] = {n: [] for n in names}
            l2: dict[str, list[float]] = {n: [] for n in names}
            for trial in range(trials):
                seed = seed_of(dataset, scale, trial)
                print(f"  {dataset} scale {scale:,} trial {trial}: seed {seed}", flush=True)
                x = sample_grid(shape, scale, DOMAIN, np.random.default_rng(seed))
                for name in names:
                    noise = np.random.default_rng([seed, 1])  # independent of the sample
                    run = release(name, x, EPS, workload=workload, rng=noise)
                    e1, e2 = scaled_errors(x, run.estimate, workload)
                    l1[name].append(e1)
                    l2[name].append(e2)
            rows[dataset] = {n: float(np.mean(e)) for n, e in l1.items()}
            rows_l2[dataset] = {n: float(np.mean(e)) for n, e in l2.items()}
        for label, table, unit in (("L1", rows, 1e3), ("L2", rows_l2, 1e5)):
            print(
                f"\n{DOMAIN}², eps {EPS}, scale {scale:,}: mean scaled {label} error x "
                f"{unit:.0e} over {trials} samples (* = best in row)"
            )
            regrets = print_error_rows(table, names, unit, width=14)
            print(f"{'regret mean':12}" + "".join(f"{np.mean(regrets[n]):>13.2f} " for n in names))
            print(
                f"{'vs Identity':12}"
                + "".join(
                    f"{np.mean([table[d][n] / table[d]['Identity'] for d in table]):>13.2f} "
                    for n in names
                )
            )


if __name__ == "__main__":
    main()
