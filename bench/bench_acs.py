"""Benchmark: MWEM, EFPA, PHP and AHP at domain 4,096 against Identity, in one run.

Prints the median seconds per run (prefix workload, eps = 1) on each of the shared
DPBench datasets, and each algorithm's mean scaled L1 prefix error (mean absolute prefix
error divided by the total) for orientation.

``--php-cell T`` instead runs PHP and Identity on the held-out cell of issue 36 (MEDCOST,
100,000 records drawn afresh for every trial, 4,096 bins, prefix workload, eps = 1), T
trials each, and prints the mean scaled L1 error with its standard error and the spread of
5-trial means (DPComp's published cells average 5 trials). The reference it is read
against was measured once and is printed as stated, not rerun: a line-by-line
transcription of DPComp's ``Clustering.py`` (the authors' P-HP as DPComp runs it), 120
trials on the same protocol, mean 6.42e-4 +- 0.30e-4, median 5.48e-4; on the same
protocol 400 trials of dpcore's PHP gave 6.60e-4 +- 0.19e-4, median 6.00e-4, and the two
samples' distributions do not differ (two-sample KS p = 0.87, Mann-Whitney p = 0.76).

Usage: ``python bench/bench_acs.py [--repeats R] [--php-cell T]``
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
from dpcore.algorithms.dpbench import sample, scaled_l1_error

DATA = pathlib.Path("/work/shared/data")
NAMES = ("Identity", "MWEM", "EFPA", "PHP", "AHP")
REFERENCE = "DPComp's Clustering.py, transcribed (120 trials, measured once): 6.42e-04 +- 3.0e-05"


def php_cell(trials: int) -> None:
    """PHP and Identity on issue 36's held-out cell, ``trials`` fresh samples each."""
    shape = pd.read_csv(DATA / "MEDCOST.n4096.csv")["count"].to_numpy(dtype=float)
    workload = Ranges("prefix", 4096)
    errors: dict[str, list[float]] = {"Identity": [], "PHP": []}
    for trial in range(trials):
        x = sample(shape, 100_000, 4096, np.random.default_rng([36, trial]))
        for name, values in errors.items():
            run = release(name, x, 1.0, workload=workload, rng=np.random.default_rng([37, trial]))
            values.append(scaled_l1_error(x, run.estimate, workload))
    print(f"MEDCOST, 100,000 records, 4,096 bins, prefix, eps = 1: {trials} trials")
    print(
        f"{'algorithm':10}{'mean':>10}{'+- se':>9}{'median':>10}{'5-trial means 5%..95%':>24}"
        f"{'P(<= mean/1.5)':>16}"
    )
    draws = np.random.default_rng(0)
    for name, values in errors.items():
        e = np.array(values)
        fives = np.array([draws.choice(e, 5, replace=False).mean() for _ in range(20_000)])
        low, high = np.quantile(fives, [0.05, 0.95])
        below = np.mean(fives <= e.mean() / 1.5)
        print(
            f"{name:10}{e.mean():>10.2e}{e.std(ddof=1) / np.sqrt(e.size):>9.1e}"
            f"{np.median(e):>10.2e}{low:>12.2e}..{high:.2e}{below:>16.3f}"
        )
    print(f"reference: {REFERENCE}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--php-cell", type=int, metavar="T", help="issue 36's PHP cell, T trials")
    args = parser.parse_args()
    if args.php_cell:
        php_cell(args.php_cell)
        return
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
