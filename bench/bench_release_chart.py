"""Benchmark: the "One release vs its input" chart of "Which algorithm for my data?".

Builds the chart of one release (4,096 bins, or as many as the buckets need) with a given
number of buckets, every other one shaded, and serializes it as Streamlit does (after
:func:`dpui.kit.plot_once.prepare`). The baseline, measured in the same run, is the way the
chart was drawn before (one ``add_vrect`` per shaded bucket, at most 400 of them: each call
copies every shape before it, so the work is quadratic in the buckets). Target: at most
0.3 s for 1,000 buckets. The median of a few builds is printed.

A second table: domains of 65,536 to 1,048,576 bins (a bucket per 8 bins), drawn with every
bin (the baseline, ``most`` unbounded) and as now (adjacent bins summed into at most
:data:`dpui.algorithms.figures.DRAWN_BINS` bars): seconds and the size of the JSON the
browser receives and draws.

Usage, from the worktree root: ``PYTHONPATH=. python bench/bench_release_chart.py [--repeats R]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from dpui.algorithms import figures
from dpui.kit import plot_once

BUCKETS = (100, 1_000, 10_000)
TARGET = {1_000: 0.3}
DOMAINS = (65_536, 262_144, 1_048_576)


def quadratic(
    truth: NDArray[np.float64], guess: NDArray[np.float64], buckets: NDArray[np.int64], name: str
) -> go.Figure:
    """The chart as it was drawn before: one ``add_vrect`` per shaded bucket (at most 400)."""
    fig = figures.release(truth, guess, None, name=name)
    ends = np.append(buckets[1:], truth.size)
    for lo, hi in list(zip(buckets, ends, strict=True))[::2][:400]:
        fig.add_vrect(
            x0=lo - 0.5, x1=hi - 0.5, fillcolor=figures.BUCKET, line_width=0, layer="below"
        )
    return fig


def linear(
    truth: NDArray[np.float64], guess: NDArray[np.float64], buckets: NDArray[np.int64], name: str
) -> go.Figure:
    """The chart as drawn now (:func:`dpui.algorithms.figures.release`)."""
    return figures.release(truth, guess, buckets, name=name)


def seconds(build: Callable[..., go.Figure], count: int, repeats: int) -> float:
    """Median seconds to build and serialize the chart of a release with ``count`` buckets."""
    rng = np.random.default_rng(count)
    bins = max(4096, 4 * count)
    starts = np.sort(rng.choice(np.arange(1, bins), count - 1, replace=False))
    buckets = np.r_[0, starts].astype(np.int64)
    truth = rng.poisson(30.0, bins).astype(float)
    guess = truth + rng.laplace(0.0, 1.0, bins)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        plot_once.prepare(build(truth, guess, buckets, "DAWA")).to_json()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def domain_run(bins: int, most: int, repeats: int) -> tuple[float, int]:
    """Median seconds to build and serialize the chart at ``bins`` bins (a bucket per 8),
    drawn with at most ``most`` bars, and the JSON's length."""
    rng = np.random.default_rng(bins)
    starts = np.sort(rng.choice(np.arange(1, bins), bins // 8 - 1, replace=False))
    buckets = np.r_[0, starts].astype(np.int64)
    truth = rng.poisson(30.0, bins).astype(float)
    guess = truth + rng.laplace(0.0, 1.0, bins)
    times, size = [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        text = plot_once.prepare(figures.release(truth, guess, buckets, name="DAWA", most=most))
        size = len(text.to_json())
        times.append(time.perf_counter() - start)
    return statistics.median(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    seconds(linear, 10, 1)  # plotly loads its validators on first use: not part of a build
    print("Release chart: build + serialize, median seconds\n")
    header = ("buckets", "shaded", "before (add_vrect)", "now (one path)", "target")
    print(f"{header[0]:>8} {header[1]:>7} {header[2]:>19} {header[3]:>15} {header[4]:>8}")
    for count in BUCKETS:
        before = seconds(quadratic, count, args.repeats)
        now = seconds(linear, count, args.repeats)
        target = TARGET.get(count)
        verdict = "-" if target is None else ("ok" if now <= target else "MISS")
        print(f"{count:>8,} {(count + 1) // 2:>7,} {before:>19.3f} {now:>15.3f} {verdict:>8}")
    print("\nLarge domains: build + serialize, median seconds (JSON size)\n")
    print(f"{'bins':>10} {'before (every bin)':>26} {'now (grouped)':>24}")
    for bins in DOMAINS:
        old, old_size = domain_run(bins, bins, args.repeats)
        new, new_size = domain_run(bins, figures.DRAWN_BINS, args.repeats)
        print(
            f"{bins:>10,} {old:>9.3f} s ({old_size / 1e6:>6.1f} MB) "
            f"{new:>9.3f} s ({new_size / 1e6:>6.2f} MB)"
        )


if __name__ == "__main__":
    main()
