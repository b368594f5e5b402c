"""Issue 23's target table: every registered algorithm under DPBench's protocol.

Domain 4,096, prefix workload, eps = 1, scales 1,000 and 100,000, on every
``../shared/data/*.csv`` histogram: mean scaled L1 error over seeded samples (the seed of
each dataset / scale / trial is printed), regret, and median seconds per run against
Identity measured in the same run (targets: <= 1 s at 4,096; DAWA and GreedyH <= 2 s at
65,536, each bin split into 16), with each algorithm's slowest run, its CPU seconds (what
the machine's other load does not change) and the load average while it ran.

    python bench/bench_algorithms.py [--quick] [--only NAME]
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
from regret_table import print_error_rows

from dpcore.algorithms import NAMES, release
from dpcore.algorithms.common import Ranges
from dpcore.algorithms.dpbench import sample, scaled_l1_error

DATA = Path(__file__).resolve().parent.parent / ".." / "shared" / "data"
DOMAIN = 4096
SCALES = (1_000, 100_000)
EPS = 1.0
LARGE = {"DAWA": 65_536, "GreedyH": 65_536}
REFERENCE = {
    "SF": "before issue 36's change (c2f5d1a, this bench, same machine, load 10-19): "
    "median 0.59-0.81 s, slowest 2.9-5.8 s, CPU max 1.09-1.12 s"
}
"""Earlier numbers, measured once and printed as stated (not rerun) under the speed table."""


def seed_of(dataset: str, scale: int, trial: int) -> int:
    return zlib.crc32(f"{dataset}/{scale}/{trial}".encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 datasets, 2 trials")
    parser.add_argument("--only", help="one algorithm (Identity is always measured)")
    parser.add_argument(
        "--skip", action="append", default=[], help="leave an algorithm out (repeatable)"
    )
    args = parser.parse_args()
    files = sorted(DATA.resolve().glob("*.csv")) if DATA.exists() else []
    if not files:
        sys.exit(f"no datasets: expected DPBench's histograms as CSV files in {DATA.resolve()}")
    if args.only and args.only not in NAMES:
        sys.exit(f"unknown algorithm {args.only!r}; registered: {', '.join(NAMES)}")
    names = [n for n in NAMES if (args.only in (None, n) or n == "Identity") and n not in args.skip]
    files = files[:2] if args.quick else files
    trials = 2 if args.quick else 5
    workload = Ranges("prefix", DOMAIN)
    seconds: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    load_before = os.getloadavg()[0]
    for scale in SCALES:
        rows = {}
        for path in files:
            shape = pd.read_csv(path)["count"].to_numpy(dtype=float)
            dataset = path.name.split(".")[0]
            errors: dict[str, list[float]] = {n: [] for n in names}
            for trial in range(trials):
                seed = seed_of(dataset, scale, trial)
                print(f"  {dataset} scale {scale:,} trial {trial}: seed {seed}", flush=True)
                x = sample(shape, scale, DOMAIN, np.random.default_rng(seed))
                for name in names:
                    start, start_cpu = time.perf_counter(), time.process_time()
                    noise = np.random.default_rng([seed, 1])  # independent of the sample
                    run = release(name, x, EPS, workload=workload, rng=noise)
                    seconds[name].append(time.perf_counter() - start)
                    cpu[name].append(time.process_time() - start_cpu)
                    errors[name].append(scaled_l1_error(x, run.estimate, workload))
            rows[dataset] = {n: float(np.mean(e)) for n, e in errors.items()}
        print(f"\nAccuracy at scale {scale:,} (mean scaled L1 error x 1e3, * = best in row)")
        regrets = print_error_rows(rows, names, 1e3)
        print(f"{'regret':12}" + "".join(f"{max(regrets[n]):>11.2f} " for n in names))
        print(f"{'(mean)':12}" + "".join(f"{np.mean(regrets[n]):>11.2f} " for n in names))
    load = f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(f"\nSpeed (seconds per run; 1-minute load average {load}, {os.cpu_count()} cores)")
    print(
        f"{'algorithm':12}{'domain':>8}{'median':>10}{'slowest':>10}{'CPU max':>10}"
        f"{'x Identity':>12}{'target':>8}  pass"
    )
    base = statistics.median(seconds["Identity"])
    for name in names:
        median, slowest = statistics.median(seconds[name]), max(seconds[name])
        verdict = "yes" if median <= 1.0 else "NO"
        print(
            f"{name:12}{DOMAIN:>8}{median:>10.4f}{slowest:>10.4f}{max(cpu[name]):>10.4f}"
            f"{median / base:>12.0f}{'1 s':>8}  {verdict}"
        )
        if name in REFERENCE:
            print(f"{'':12}reference, {REFERENCE[name]}")
        if name in LARGE:
            big = LARGE[name]
            x = np.repeat(sample(shape, 100_000, DOMAIN, np.random.default_rng(0)) / 16, 16)
            times = []
            for trial in range(3 if args.quick else 5):
                start = time.perf_counter()
                release(name, x, EPS, workload="prefix", rng=np.random.default_rng(trial))
                times.append(time.perf_counter() - start)
            median = statistics.median(times)
            verdict = "yes" if median <= 2.0 else "NO"
            print(f"{name:12}{big:>8}{median:>10.4f}{'':>12}{'2 s':>8}  {verdict}")


if __name__ == "__main__":
    main()
