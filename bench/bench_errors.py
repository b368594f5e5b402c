"""Benchmark: exact error of BLUE trees, the empirical harness, Privelet's O(log n) coefficient.

Run ``python bench/bench_errors.py`` (``--quick`` for fewer repeats and no 2^20 harness).
Targets (issue 3):

1. exact average error of a BLUE-consistent tree with per-node budgets:
   n = 65,536 in <= 0.5 s, n = 2^20 in <= 5 s; baseline in the same run: the dense
   ``(A^T W A)^{-1}`` at n = 1024, 2048, 4096 (and the two values compared);
2. empirical harness: 100 releases x 1000 random ranges at n = 65,536, every tree
   algorithm, <= 2 s;
3. Privelet: 10^5 random ranges at n = 2^20 by algorithm 3 (O(log n) each), beside
   the O(n)-per-range transform form (timed on 20 ranges and extrapolated).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcore.hist import (
    blue_error,
    budget,
    coverage,
    empirical,
    plans,
    privelet_error,
)
from dpcore.hist import matrix_mechanism as mm
from dpcore.hist.tree import Tree, kary_tree, struct_construct


def _timed(fn: Callable[[], Any], repeats: int = 1) -> tuple[Any, float]:
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return out, statistics.median(times)


def _optimal(t: Tree) -> np.ndarray:
    return budget.optimal_budgets(t, 1.0, coverage.coverage_probabilities(t))


def blue_exact(repeats: int) -> None:
    print("1. Exact uniform-workload MSE of a BLUE tree, per-node optimal budgets, eps = 1")
    print(f"{'tree':>8} {'n':>10} {'height':>7} {'MSE':>12} {'seconds':>9} {'target':>10}")
    targets = {2**16: 0.5, 2**20: 5.0}
    for n in (2**16, 2**20):
        for name, build in (("binary", lambda m: kary_tree(m, 2)), ("SC", struct_construct)):
            t = build(n)
            eps = _optimal(t)
            value, secs = _timed(lambda: blue_error.blue_expected_error(t, eps), repeats)  # noqa: B023
            verdict = f"<={targets[n]:g}s " + ("ok" if secs <= targets[n] else "MISS")
            print(f"{name:>8} {n:>10,} {t.height:>7} {value:>12.2f} {secs:>8.3f}s {verdict:>10}")
    print("\n   Baseline in the same run: dense (A^T W A)^{-1} (binary tree), then the average")
    print("   over all ranges via the same prefix identity (the cheapest dense route)")
    print(f"{'n':>10} {'dense s':>9} {'ours s':>9} {'speed-up':>9} {'rel. diff':>10}")
    for n in (1024, 2048, 4096):
        t = kary_tree(n, 2)
        eps = _optimal(t)

        def dense(t: Tree = t, eps: np.ndarray = eps, n: int = n) -> float:
            cov = mm.reconstruction_covariance(mm.interval_strategy(n, t.lo, t.hi), eps)
            prefix_var = np.cumsum(np.cumsum(cov, axis=0), axis=1).diagonal()
            weights = (n - np.arange(n)).astype(float)
            total = (n + 1) * prefix_var.sum() - weights @ cov @ weights
            return float(total / (n * (n + 1) / 2))

        ref, dense_s = _timed(dense)
        ours, ours_s = _timed(lambda: blue_error.blue_expected_error(t, eps), repeats)  # noqa: B023
        print(
            f"{n:>10,} {dense_s:>8.3f}s {ours_s:>8.4f}s {dense_s / ours_s:>8.0f}x "
            f"{abs(ours - ref) / ref:>10.1e}"
        )


def harness(repeats: int) -> None:
    n, releases, queries = 2**16, 100, 1000
    print(f"\n2. Empirical harness: {releases} releases x {queries} random ranges at n = {n:,}")
    print(f"{'algorithm':>12} {'seconds':>9} {'target':>9} {'simulated MSE':>22} {'exact':>10}")
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 100, n).astype(float)
    a, b = empirical.random_ranges(n, queries, rng)
    for key, spec in plans.ALGORITHMS.items():
        plan = plans.prepare(key, n, 1.0)

        def run(plan: plans.Plan = plan) -> empirical.EmpiricalErrors:
            rng = np.random.default_rng(1)
            return empirical.simulate_range_errors(plan, counts, a, b, releases=releases, rng=rng)

        result, secs = _timed(run, repeats)
        mean, half = result.overall()
        exact = plans.plan_range_errors(plan, a, b).mean()
        verdict = "-" if spec.kind != "tree" else ("<=2s ok" if secs <= 2 else ">2s MISS")
        print(f"{key:>12} {secs:>8.3f}s {verdict:>9} {mean:>12.1f} ± {half:>7.1f} {exact:>10.1f}")


def privelet_ranges() -> None:
    n, count = 2**20, 10**5
    print(f"\n3. Privelet error coefficient of {count:,} random ranges at n = 2^20")
    a, b = empirical.random_ranges(n, count, np.random.default_rng(2))
    coef, secs = _timed(lambda: privelet_error.range_error_coefficients(n, a, b), 3)
    few = 20
    w = np.zeros((few, n))
    for q in range(few):
        w[q, a[q] : b[q] + 1] = 1.0
    slow, slow_secs = _timed(lambda: privelet_error.linear_query_coefficient(w))
    per_range = slow_secs / few
    agree = float(np.max(np.abs(coef[:few] - slow) / slow))
    print(f"{'method':>34} {'seconds':>10} {'us/range':>9}")
    print(f"{'algorithm 3, O(log n), vectorized':>34} {secs:>9.3f}s {secs / count * 1e6:>9.2f}")
    print(
        f"{'||B^T w||^2 transform, O(n) each':>34} {per_range * count:>9.1f}s "
        f"{per_range * 1e6:>9.0f}  (extrapolated from {few} ranges)"
    )
    print(f"   max relative difference on the {few} shared ranges: {agree:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="one repeat per timing")
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    blue_exact(repeats)
    harness(1)
    privelet_ranges()


if __name__ == "__main__":
    main()
