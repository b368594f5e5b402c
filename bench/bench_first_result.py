"""Benchmark: the first result of "Which algorithm for my data?" at 4,096 bins.

Runs the page's ranking (:func:`dpui.algorithms.compare.errors`, then
:func:`~dpui.algorithms.compare.summary`) on real 1-D histograms at their own number of
records, prefix workload, ε = 1, the algorithms the page compares by default, with empty
caches: the baseline, measured in the same run, is the page's former default of 3 trials of
every algorithm; now, adaptive trials. Printed per dataset: wall and CPU seconds, the
trials behind the leader, the algorithms within noise of it and the leader's probability of
being best. Target: at most 3 s to the first result at 4,096 bins.

Usage, from the worktree root:
``PYTHONPATH=. python bench/bench_first_result.py /path/to/NAME.n4096.csv [...]``
(the real histograms of DPBench are read where they are kept, never copied here).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import pandas as pd
import streamlit as st

from dpcore.histogram import parse_histogram
from dpui.algorithms import compare

TARGET = 3.0


def measure(s: compare.Setting) -> tuple[float, float, pd.DataFrame]:
    """Wall and CPU seconds of the ranking of ``s`` from empty caches, and the ranking."""
    st.cache_data.clear()
    wall, cpu = time.perf_counter(), time.process_time()
    table = compare.summary(compare.errors(s, s.key()), s)
    return time.perf_counter() - wall, time.process_time() - cpu, table


def line(label: str, wall: float, cpu: float, table: pd.DataFrame) -> str:
    near = [str(n) for n in table.index[table["within noise"].to_numpy()]]
    lead = table.iloc[0]
    chance = "-" if pd.isna(lead["probability best"]) else f"{lead['probability best']:.0%}"
    verdict = "ok" if wall <= TARGET else "MISS"
    return (
        f"{label:<22} {wall:>6.2f} {cpu:>6.2f} {verdict:>5} {int(lead['trials']):>6} "
        f"{chance:>6}  {', '.join(near)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    print("First result at 4,096 bins, prefix, eps = 1, data's own N (seconds)\n")
    print(
        f"{'dataset / trials':<22} {'wall':>6} {'cpu':>6} {'<=3s':>5} {'lead k':>6} {'P best':>6}"
    )
    for path in args.files:
        hist = parse_histogram(path.read_bytes(), name=path.name)
        names = compare.compared(hist.n_bins, "prefix", slow=False)
        n = round(hist.total)
        adaptive = compare.Setting(hist, n, hist.n_bins, "prefix", "", 1.0, 0, 0, names, own=True)
        warm = dataclasses.replace(adaptive, domain=64, trials=1)
        compare.errors(warm, warm.key())  # imports and compiled code: not part of a result
        short = path.name.split(".")[0]
        for label, s in (
            (f"{short} / 3", dataclasses.replace(adaptive, trials=3)),
            (f"{short} / adaptive", adaptive),
        ):
            print(line(label, *measure(s)))


if __name__ == "__main__":
    main()
