"""Benchmark: MWEM, EFPA, PHP and AHP at domain 4,096 against Identity, in one run.

Prints the median seconds per run (prefix workload, eps = 1) on each of the shared
DPBench datasets, and each algorithm's mean scaled L1 prefix error (mean absolute prefix
error divided by the total) for orientation.

Usage: ``python bench/bench_acs.py [--repeats R]``
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import time

import numpy as np
import pandas as pd

from dpcore.algorithms import release
from dpcore.algorithms.common import Ranges

DATA = pathlib.Path("/work/shared/data")
NAMES = ("Identity", "MWEM", "EFPA", "PHP", "AHP")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    workload = Ranges("prefix", 4096)
    print(f"{'dataset':<12}" + "".join(f"{name:>18}" for name in NAMES))
    for path in sorted(DATA.glob("*.n4096.csv")):
        counts = pd.read_csv(path)["count"].to_numpy(dtype=float)
        cells = []
        for name in NAMES:
            times, errors = [], []
            for seed in range(args.repeats):
                rng = np.random.default_rng(seed)
                start = time.perf_counter()
                run = release(name, counts, 1.0, workload=workload, rng=rng)
                times.append(time.perf_counter() - start)
                errors.append(np.abs(workload.answer(run.estimate - counts)).mean() / counts.sum())
            cells.append(f"{statistics.median(times):8.3f}s {np.mean(errors):8.1e}")
        print(f"{path.name.split('.')[0]:<12}" + "".join(f"{c:>18}" for c in cells))


if __name__ == "__main__":
    main()
