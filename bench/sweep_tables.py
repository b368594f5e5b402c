"""The README's DPBench tables from a store: regret per algorithm and winners per setting.

    dp-sweep run sweeps/dpbench_1d.toml --store /tmp/dpbench.duckdb
    python bench/sweep_tables.py --store /tmp/dpbench.duckdb
    dp-sweep run sweeps/dpbench_2d.toml --store /tmp/dpbench.duckdb
    python bench/sweep_tables.py --store /tmp/dpbench.duckdb --sweep dpbench_2d

Regret is an algorithm's mean scaled error over the best one's on the same dataset and
setting (``dpcore.sweep.report.regret``); a column is one (ε, scale), a row the geometric
mean of an algorithm's regret over the datasets, best first in the first column.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

from dpcore.sweep import report


def columns(table: pd.DataFrame) -> list[tuple[float, int]]:
    """(ε, scale) pairs, larger ε first, then scales ascending."""
    pairs = table[["eps", "scale"]].drop_duplicates()
    return sorted(map(tuple, pairs.to_numpy().tolist()), key=lambda p: (-p[0], p[1]))


def label(eps: float, scale: int) -> str:
    return f"ε={eps:g}, 10^{round(np.log10(scale))}"


def markdown(rows: list[list[str]], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--sweep", default="dpbench_1d")
    args = parser.parse_args()
    table = report.regret(args.store, args.sweep, limit=report.MAX_ROWS)
    pairs = columns(table)
    log_mean = (
        table.assign(log=np.log(table["regret"]))
        .groupby(["algorithm", "eps", "scale"])["log"]
        .mean()
    )
    geo = log_mean.apply(math.exp)
    order = sorted(table["algorithm"].unique(), key=lambda name: geo[(name, *pairs[0])])
    header = ["algorithm", *(label(*p) for p in pairs)]
    rows = [[name, *(f"{geo[(name, *p)]:.2f}" for p in pairs)] for name in order]
    print(markdown(rows, header), end="\n\n")
    best = table[table["regret"] == 1.0]
    winners = []
    for eps, scale in pairs:
        counts = best[(best["eps"] == eps) & (best["scale"] == scale)]["algorithm"].value_counts()
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        winners.append(", ".join(f"{name} {count}" for name, count in ranked))
    print(markdown([["", *winners]], ["winners (datasets)", *(label(*p) for p in pairs)]))


if __name__ == "__main__":
    main()
