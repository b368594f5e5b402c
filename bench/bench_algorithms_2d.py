"""Issue 39's 2-D table: every registered 2-D algorithm under DPBench's 2-D protocol.

Speed: median seconds per run at 128² and 256² (one release plus the scaled error on
DPBench's 2,000 random rectangles), against Identity measured in the same run (targets
<= 1 s at 128², <= 5 s at 256²). Accuracy: mean scaled L1 error (and L2) over 5 seeded
samples at 128², eps = 0.1, scales 10^4 and 10^6, on a few of ``../shared/data/2d/``'s
grids (the seed of each dataset / scale / trial is printed), with regret.

    PYTHONPATH=. python bench/bench_algorithms_2d.py [--quick] [--only NAME]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import zlib
from pathlib import Path

import numpy as np
from regret_table import print_error_rows

from dpcore.algorithms import NAMES_2D, release
from dpcore.algorithms.dpbench_2d import random_rectangles, sample_grid, scaled_errors

DATA = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "2d"
DATASETS = ("ADULT-2D", "BJ-CABS-E", "GOWALLA", "STROKE")
DOMAIN = 128
SCALES = (10_000, 1_000_000)
EPS = 0.1
SPEED = {128: 1.0, 256: 5.0}


def seed_of(dataset: str, scale: int, trial: int) -> int:
    return zlib.crc32(f"2d/{dataset}/{scale}/{trial}".encode())


def load(dataset: str) -> np.ndarray:
    return np.loadtxt(DATA / f"{dataset}.n256x256.csv", delimiter=",")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 datasets, 2 trials")
    parser.add_argument("--only", help="one algorithm (Identity is always measured)")
    args = parser.parse_args()
    if not DATA.exists():
        sys.exit(f"no datasets: expected DPBench's 2-D grids in {DATA.resolve()}")
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
