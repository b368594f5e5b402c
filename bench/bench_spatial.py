"""Benchmark: the region-tree engine on 2-D grids (spec 06, issue 38), with a 1-D baseline.

Prints three tables:
1. the exact expected squared error of a DPBench random rectangle at 64 x 64, eps = 1,
   full quadtree, against the issue's targets (0.5 %);
2. per grid side (64, 128, 256; full 2 x 2 quadtree, per-node budgets, GOWALLA's counts
   summed into the grid): tree, coverage, budgets + release + BLUE, exact raw and BLUE
   errors, against the issue's targets (budgets + release + BLUE <= 0.3 s at 256^2, exact
   BLUE error <= 2 s at 128^2 and <= 10 s at 256^2);
3. the baseline measured in the same run: the same steps on a 1-D binary interval tree
   over as many bins (65,536) through the 1-D shortcuts.

Usage: ``python bench/bench_spatial.py [--quick]`` (``--quick``: one repeat, no 256^2 dense
numbers are ever computed).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bench_errors import _timed

from dpcore import spatial
from dpcore.hist import blue_error, budget, consistency, coverage, release, tree
from dpcore.hist.hierarchy import Hierarchy
from dpcore.spatial import allocation, error, rectangles, regions

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "2d" / "GOWALLA.n256x256.csv"
TARGETS_64 = [
    ("per-node", 1393.0),
    ("geometric", 1837.0),
    ("uniform", 4475.0),
    ("identity", 2112.5),
]


def grid_counts(side: int) -> np.ndarray:
    """GOWALLA's 256 x 256 counts summed into ``side x side`` blocks (DPBench's reduction)."""
    counts = np.loadtxt(DATA, delimiter=",") if DATA.exists() else np.ones((256, 256))
    k = 256 // side
    return np.asarray(counts.reshape(side, k, side, k).sum(axis=(1, 3)), dtype=np.float64)


def targets() -> None:
    print("1. Exact E[squared error] of one DPBench rectangle, 64 x 64, eps = 1, full quadtree")
    print(f"{'budgets':>10} {'raw':>10} {'after BLUE':>11} {'target':>8} {'diff':>8}")
    for rule, target in TARGETS_64:
        raw = spatial.expected_error((64, 64), budgets=rule, consistent=False)  # type: ignore[arg-type]
        blue = spatial.expected_error((64, 64), budgets=rule)  # type: ignore[arg-type]
        diff = (blue - target) / target
        verdict = "ok" if abs(diff) <= 0.005 else "MISS"
        print(f"{rule:>10} {raw:>10.1f} {blue:>11.1f} {target:>8.1f} {diff:>+7.2%} {verdict}")
    t = regions.quadtree((64, 64))
    found, secs = _timed(lambda: allocation.level_budgets_after_blue(t, 1.0))
    blue = error.blue_expected_error(t, found, "random rectangles")
    shares = ", ".join(f"{v:.3f}" for v in found[t.level_ptr[:-1]])
    print(
        f"{'per-level after BLUE (search)':>30} {blue:>9.1f}  in {secs:.1f}s; root->leaf {shares}"
    )
    found, secs = _timed(lambda: allocation.node_budgets_after_blue(t, 1.0))
    blue = error.blue_expected_error(t, found, "random rectangles")
    print(f"{'per-node after BLUE (search)':>30} {blue:>9.1f}  in {secs:.1f}s")


def pipeline(
    build: Callable[[], Hierarchy],
    cover: Callable[[Any], np.ndarray],
    sums: Callable[[Any], np.ndarray],
    raw_error: Callable[[Any, np.ndarray, np.ndarray], float],
    blue_error: Callable[[Any, np.ndarray], float],
    repeats: int,
) -> dict[str, float]:
    """Time the steps on one geometry: build, coverage, budgets + node sums + release + BLUE,
    exact errors."""
    t, t_tree = _timed(build, repeats)
    p, t_cov = _timed(lambda: cover(t), repeats)
    rng = np.random.default_rng(0)

    def measure() -> np.ndarray:
        eps = budget.optimal_budgets(t, 1.0, p)
        return consistency.blue(t, release.release_sums(sums(t), eps, rng), eps)

    _, t_release = _timed(measure, repeats)
    eps = budget.optimal_budgets(t, 1.0, p)
    assert abs(budget.release_epsilon(t, eps) - 1.0) < 1e-9
    _, t_raw = _timed(lambda: raw_error(t, eps, p), repeats)
    blue, t_blue = _timed(lambda: blue_error(t, eps), repeats)
    steps = {"tree": t_tree, "coverage": t_cov, "release": t_release, "raw": t_raw}
    return steps | {"nodes": t.size, "blue": t_blue, "blue_value": blue}


def pipeline_2d(side: int, repeats: int) -> dict[str, float]:
    counts = grid_counts(side)
    load = rectangles.rectangle_workload("random rectangles", (side, side))
    return pipeline(
        lambda: regions.quadtree((side, side)),
        lambda t: rectangles.coverage_probabilities(t, load),
        lambda t: regions.node_sums(t, counts),
        lambda t, eps, p: error.raw_expected_error(t, eps, load),
        lambda t, eps: error.blue_expected_error(t, eps, load),
        repeats,
    )


def pipeline_1d(n: int, repeats: int) -> dict[str, float]:
    counts = np.random.default_rng(0).integers(0, 100, n).astype(float)
    return pipeline(
        lambda: tree.kary_tree(n, 2),
        coverage.coverage_probabilities,
        lambda t: release.node_sums(t, counts),
        lambda t, eps, p: budget.raw_expected_error(p, eps),
        blue_error.blue_expected_error,
        repeats,
    )


def speed(repeats: int) -> None:
    print(
        "\n2. Region-tree pipeline, full quadtree, per-node budgets, eps = 1, DPBench "
        f"rectangles (median of {repeats}); 3. the 1-D baseline (binary tree, all ranges)"
    )
    print(
        f"{'grid':>10} {'nodes':>8} {'tree':>7} {'coverage':>9} {'bud+rel+BLUE':>13} "
        f"{'target':>7} {'raw err':>8} {'BLUE err':>9} {'target':>7} {'E[err] BLUE':>12}"
    )
    limits = {64: (None, None), 128: (None, 2.0), 256: (0.3, 10.0)}
    rows = [(f"{s} x {s}", pipeline_2d(s, repeats), *limits[s]) for s in (64, 128, 256)]
    rows.append(("1-D 65,536", pipeline_1d(65_536, repeats), None, None))
    for name, r, release_limit, blue_limit in rows:

        def verdict(value: float, limit: float | None) -> str:
            return "-" if limit is None else ("ok" if value <= limit else "MISS")

        print(
            f"{name:>10} {r['nodes']:>8,} {r['tree']:>6.3f}s {r['coverage']:>8.3f}s "
            f"{r['release']:>12.3f}s {verdict(r['release'], release_limit):>7} "
            f"{r['raw']:>7.3f}s {r['blue']:>8.3f}s {verdict(r['blue'], blue_limit):>7} "
            f"{r['blue_value']:>12.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="one repeat per timing")
    args = parser.parse_args()
    targets()
    speed(1 if args.quick else 3)


if __name__ == "__main__":
    main()
