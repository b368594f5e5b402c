"""Calibration: the "Range queries under local DP" page's cost models against measured CPU.

For each setting (domain x fan-out x oracle x levels x repetitions) it times the main view's
computation (:func:`dpui.ldp_ranges.view.curves`) and the three sections' with cold caches,
and prints each estimate beside the CPU seconds measured (``time.process_time``). An
estimate should be within a factor of about two of the measure.

Usage: ``python bench/bench_ldp_ranges_page.py [--quick]`` (``--quick``: fewer settings).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import streamlit as st

from dpui.ldp_ranges import sections as sec
from dpui.ldp_ranges import view as lr

SETTINGS = ((4, "oue", "sample", 0), (4, "oue", "sample", 20), (2, "hrr", "split", 20),
            (16, "olh", "sample", 5))  # fmt: skip


def _cpu(fn: Callable[[], Any]) -> float:
    st.cache_data.clear()
    start = time.process_time()
    fn()
    return time.process_time() - start


def _setting(domain: int, fanout: int, oracle: str, levels: str, reps: int) -> lr.Setting:
    bins = np.arange(domain)
    counts = np.exp(-0.5 * ((bins - 0.33 * domain) / (domain / 10)) ** 2) * 1000 + 1
    return lr.Setting(
        f"bench-{domain}", tuple(counts), 100_000, fanout, oracle, levels, reps, 0, 1.0, 1.0
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    domains = (1024, 4096) if args.quick else (256, 1024, 3000, 4096, 16384, 65536)
    print(f"{'D':>6} {'B':>3} {'FO':>4} {'levels':>7} {'reps':>5} {'part':>9} {'est s':>7} "
          f"{'cpu s':>7} {'ratio':>6}")  # fmt: skip
    for d in domains:
        for fanout, oracle, levels, reps in SETTINGS:
            s = _setting(d, fanout, oracle, levels, reps)
            parts: dict[str, tuple[float, Callable[[], Any]]] = {
                "main": (
                    lr.page_cost(d, fanout, reps, s.padded, oracle, levels).seconds,
                    partial(lr.curves, s),
                ),
            }
            if reps == 20 and levels == "sample":
                parts |= {
                    "fanout": (sec.fanout_cost(s).cost.seconds, partial(sec.fanout_table, s)),
                    "crossover": (sec.crossover_cost(s).cost.seconds, partial(sec.crossover, s)),
                    "release": (sec.release_cost(s).cost.seconds, partial(sec.one_release, s)),
                }
            for part, (estimate, fn) in parts.items():
                measured = _cpu(fn)
                print(f"{d:>6} {fanout:>3} {oracle:>4} {levels:>7} {reps:>5} {part:>9} "
                      f"{estimate:>7.3f} {measured:>7.3f} {estimate / measured:>6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
