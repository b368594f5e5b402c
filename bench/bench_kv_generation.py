"""Calibration bench: the key-value generation cost model against measurement.

Run ``python bench/bench_kv_generation.py`` (``--users 20000 100000`` to choose the grid's
users). For users x d x max set length x key model x length model it prints the estimate of
:func:`dpui.ldp.settings.generation_cost` beside the CPU time and tracemalloc peak of
:func:`dpcore.ldp.data.generate`, and the worst ratios (measured / estimate) last.
"""

from __future__ import annotations

import argparse
import itertools
import time
import tracemalloc

import numpy as np

from dpcore.ldp import data as kvdata
from dpui.ldp import settings as kv


def measure(users: int, d: int, max_length: int, keys: str, lengths: str) -> tuple[float, float]:
    """CPU seconds and tracemalloc peak (MB) of one generation (two runs, one traced)."""

    def run() -> object:
        return kvdata.generate(
            users, d, keys=keys, lengths=lengths, max_length=max_length,  # type: ignore[arg-type]
            rng=np.random.default_rng(0),
        )  # fmt: skip

    start = time.process_time()
    run()
    seconds = time.process_time() - start
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--d", type=int, nargs="+", default=[5, 20, 100, 1000, 5000])
    parser.add_argument("--max-length", type=int, nargs="+", default=[10, 50, 200])
    args = parser.parse_args()
    head = ("users", "d", "max", "keys", "lengths", "est s", "meas s", "ratio", "est MB")
    print("{:>8} {:>5} {:>4} {:>7} {:>7} {:>7} {:>7} {:>5} {:>7}".format(*head), end="")
    print(" {:>7} {:>5}".format("meas MB", "ratio"))
    worst_s = worst_mb = (0.0, "")
    grid = itertools.product(
        args.users, args.d, args.max_length, kvdata.KEY_MODELS, kvdata.LENGTH_MODELS
    )
    for users, d, top, keys, lengths in grid:
        est = kv.generation_cost(users, d, top, lengths, keys)
        seconds, peak = measure(users, d, top, keys, lengths)
        rs, rm = seconds / est.seconds, peak / est.megabytes
        name = f"{users} users, d = {d}, max {top}, {keys}, {lengths}"
        worst_s = max(worst_s, (rs, name))
        worst_mb = max(worst_mb, (rm, name))
        print(f"{users:>8} {d:>5} {top:>4} {keys:>7} {lengths:>7} {est.seconds:>7.3f} "
              f"{seconds:>7.3f} {rs:>5.2f} {est.megabytes:>7.1f} {peak:>7.1f} {rm:>5.2f}",
              flush=True)  # fmt: skip
    print(f"worst time ratio (measured / estimate): {worst_s[0]:.2f} at {worst_s[1]}")
    print(f"worst memory ratio (measured / estimate): {worst_mb[0]:.2f} at {worst_mb[1]}")


if __name__ == "__main__":
    main()
