"""Benchmark: budgets optimal after BLUE, H_b, and the optimised p-Identity strategy (issue 12).

Run ``python bench/bench_allocation.py`` (``--quick``: no n = 65,536 per-node search and no
p-Identity at n = 4,096). Exact mean squared errors over all ranges, eps = 1.

Targets:

1. k-ary trees, n = 4,096 and 65,536, k = 2, 4, 8, 16: consistent per-level <= H_b
   (n = 4,096, k = 16: <= 261.0), consistent per-node <= consistent per-level; per-level
   search <= 2 s and per-node search <= 10 s at n = 65,536;
2. per-node after BLUE at n = 256: <= 76.7 (k = 16), <= 80.7 (k = 4);
3. p-Identity: n = 256 <= 67.2, n = 1,024 <= 126.5 (<= 10 s), n = 4,096 <= 212.3 (<= 60 s).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from dpcore.hist import (
    blue_error,
    budget,
    coverage,
    pidentity,
)
from dpcore.hist import consistent_budget as cb
from dpcore.hist.tree import kary_tree


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _verdict(ok: bool) -> str:
    return "ok" if ok else "MISS"


def trees(sizes: tuple[int, ...], node_limit: int) -> None:
    print("1. k-ary trees, exact mean MSE over all ranges after BLUE, eps = 1")
    header = (
        f"{'n':>7} {'k':>3} {'uniform':>9} {'H_b':>9} {'raw opt':>9} {'cons lvl':>9} "
        f"{'s':>6} {'cons node':>9} {'s':>6}  checks"
    )
    print(header)
    for n in sizes:
        for k in (2, 4, 8, 16):
            t = kary_tree(n, k)
            p = coverage.coverage_probabilities(t)
            uniform = blue_error.blue_expected_error(t, budget.uniform_budgets(t, 1.0))
            hb = blue_error.blue_expected_error(
                t, budget.uniform_budgets(t, 1.0, measure_root=False)
            )
            raw = blue_error.blue_expected_error(t, budget.optimal_budgets(t, 1.0, p))
            level_b, level_s = _timed(lambda: cb.consistent_optimal_budgets(t, 1.0))  # noqa: B023
            level = blue_error.blue_expected_error(t, level_b)
            checks = [f"lvl<=H_b {_verdict(level <= hb)}"]
            if n == 4096 and k == 16:
                checks.append(f"lvl<=261.0 {_verdict(level <= 261.0)}")
            if n == 65536:
                checks.append(f"lvl<=2s {_verdict(level_s <= 2.0)}")
            node_text, node_s_text = "-", "-"
            if n <= node_limit:
                node_b, node_s = _timed(
                    lambda: cb.consistent_optimal_budgets(t, 1.0, granularity="node")  # noqa: B023
                )
                node = blue_error.blue_expected_error(t, node_b)
                node_text, node_s_text = f"{node:9.2f}", f"{node_s:6.2f}"
                checks.append(f"node<=lvl {_verdict(node <= level * (1 + 1e-12))}")
                if n == 65536:
                    checks.append(f"node<=10s {_verdict(node_s <= 10.0)}")
            print(
                f"{n:>7,} {k:>3} {uniform:9.2f} {hb:9.2f} {raw:9.2f} {level:9.2f} "
                f"{level_s:6.2f} {node_text:>9} {node_s_text:>6}  {', '.join(checks)}"
            )


def small_node() -> None:
    print("\n2. Per-node search after BLUE at n = 256")
    for k, target in ((16, 76.7), (4, 80.7)):
        t = kary_tree(256, k)
        b, secs = _timed(lambda: cb.consistent_optimal_budgets(t, 1.0, granularity="node"))  # noqa: B023
        value = blue_error.blue_expected_error(t, b)
        print(
            f"   k = {k:>2}: {value:8.3f} (target <= {target}) {_verdict(value <= target)}, "
            f"{secs:.2f} s; release eps = {budget.release_epsilon(t, b)!r}"
        )


def p_identity(sizes: tuple[int, ...]) -> None:
    print("\n3. Optimised p-Identity strategy (p = n/16, at most 128; 300 iterations per start)")
    targets = {256: (67.2, None), 1024: (126.5, 10.0), 4096: (212.3, 60.0)}
    print(f"{'n':>6} {'p':>4} {'starts':>6} {'MSE':>9} {'seconds':>8}  checks")
    for n in sizes:
        starts = pidentity.default_starts(n)
        s, secs = _timed(lambda: pidentity.optimise(n))  # noqa: B023
        value = s.expected_error(1.0)
        error_target, time_target = targets[n]
        checks = [f"<= {error_target} {_verdict(value <= error_target)}"]
        if time_target is not None:
            checks.append(f"<= {time_target:g} s {_verdict(secs <= time_target)}")
        print(
            f"{n:>6,} {pidentity.default_rows(n):>4} {starts:>6} {value:9.2f} {secs:8.2f}  "
            f"{', '.join(checks)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="skip the slowest cases")
    args = parser.parse_args()
    trees((4096, 65536), node_limit=4096 if args.quick else 65536)
    small_node()
    p_identity((256, 1024) if args.quick else (256, 1024, 4096))


if __name__ == "__main__":
    main()
