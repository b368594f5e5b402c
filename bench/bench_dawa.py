"""Benchmark: DAWA and GreedyH against the Identity baseline, on DPBench's histograms.

Per algorithm and domain (4,096 bins as stored; 65,536 by splitting every bin into 16),
the median seconds of a few runs over /work/shared/data's datasets, the prefix workload
and eps = 1, with Identity timed in the same run. Targets: each <= 1 s at 4,096; DAWA
and GreedyH <= 2 s at 65,536.

Usage, from the worktree root:
``PYTHONPATH=. python bench/bench_dawa.py [--repeats R] [--workload prefix|"all ranges"]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd

from dpcore.algorithms import release

DATA = Path("/work/shared/data")
NAMES = ("Identity", "GreedyH", "DAWA")
TARGETS = {4096: 1.0, 65536: 2.0}


def histograms() -> dict[str, np.ndarray]:
    """Every stored dataset's counts (4,096 bins)."""
    return {
        p.name.split(".")[0]: pd.read_csv(p)["count"].to_numpy(float)
        for p in sorted(DATA.glob("*.n4096.csv"))
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workload", default="prefix")
    args = parser.parse_args()
    data = histograms()
    print(
        f"workload {args.workload!r}, eps = 1, median of {args.repeats} runs x {len(data)} datasets"
    )
    print(f"{'algorithm':<10} {'n':>7} {'median s':>9} {'max s':>7} {'target':>7}")
    for n in TARGETS:
        for name in NAMES:
            times = []
            for counts in data.values():
                x = counts if n == counts.size else np.repeat(counts / 16, 16)
                for seed in range(args.repeats):
                    start = time.perf_counter()
                    release(name, x, 1.0, workload=args.workload, rng=np.random.default_rng(seed))
                    times.append(time.perf_counter() - start)
            target = "-" if name == "Identity" else f"{TARGETS[n]:.1f}"
            print(
                f"{name:<10} {n:>7} {statistics.median(times):>9.3f} {max(times):>7.3f} {target:>7}"
            )


if __name__ == "__main__":
    main()
