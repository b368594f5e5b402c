"""Benchmark: the tree pipeline (tree, coverage, per-node budgets, noise, BLUE) at scale.

Prints three tables:
1. each step's time (median of repeats) and the process's peak memory at n = 2^20, for
   fan-out 16, fan-out 2 and the SC tree, against the issue's targets;
2. the same pipeline written the straightforward way -- one Python object per node,
   recursion, per-node loops, as the published hierarchical implementations do -- run in
   the same process on the same data, as the baseline;
3. how total time scales from 2^10 to 2^22 bins.

Usage: ``python bench/bench_tree.py [--quick]``
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcore.hist import budget, consistency, coverage, release, tree

STEPS = ("tree", "coverage", "budgets", "noise", "BLUE")
TARGETS = {"16": 0.5, "2": 1.0}


def pipeline(n: int, choice: str, counts: np.ndarray, seed: int) -> dict[str, float]:
    times: dict[str, float] = {}

    def timed(name: str, fn: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        out = fn()
        times[name] = time.perf_counter() - start
        return out

    t = timed(
        "tree",
        lambda: tree.struct_construct(n) if choice == "sc" else tree.kary_tree(n, int(choice)),
    )
    p = timed("coverage", lambda: coverage.coverage_probabilities(t))
    b = timed("budgets", lambda: budget.optimal_budgets(t, 1.0, p))
    rng = np.random.default_rng(seed)
    noisy = timed("noise", lambda: release.laplace_release(t, counts, b, rng))
    timed("BLUE", lambda: consistency.blue(t, noisy, b))
    assert abs(budget.release_epsilon(t, b) - 1.0) < 1e-9
    return times


def median_times(n: int, choice: str, repeats: int) -> dict[str, float]:
    counts = np.random.default_rng(0).integers(0, 100, n).astype(float)
    runs = [pipeline(n, choice, counts, seed) for seed in range(repeats)]
    return {step: statistics.median(r[step] for r in runs) for step in STEPS}


# ----------------------------------------------------------- the baseline


class Node:
    __slots__ = ("children", "eps", "hi", "lo", "noisy", "p", "share", "value", "var", "z")

    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi
        self.children: list[Node] = []
        self.p = self.share = self.value = self.eps = self.noisy = self.z = self.var = 0.0


def naive_pipeline(n: int, k: int, counts: np.ndarray, seed: int) -> float:
    """Per-node Python objects and loops (the same maths, not vectorized)."""
    start = time.perf_counter()
    prefix = np.concatenate(([0.0], np.cumsum(counts))).tolist()
    root = Node(0, n - 1)
    order, frontier = [root], [root]
    while frontier:  # build breadth-first
        nxt = []
        for node in frontier:
            length = node.hi - node.lo + 1
            if length == 1:
                continue
            parts = min(k, length)
            base, extra = divmod(length, parts)
            at = node.lo
            for j in range(parts):
                size = base + (j >= parts - extra)
                child = Node(at, at + size - 1)
                at += size
                node.children.append(child)
                nxt.append(child)
        order.extend(nxt)
        frontier = nxt
    total = n * (n + 1) / 2
    parent_g = {id(root): 0.0}
    for node in order:  # coverage
        g = (node.lo + 1) * (n - node.hi)
        node.p = (g - parent_g[id(node)]) / total
        for child in node.children:
            parent_g[id(child)] = g
    for node in reversed(order):  # optimal budgets, bottom-up cost
        if not node.children:
            node.value, node.share = node.p, 1.0
            continue
        rest = sum(c.value for c in node.children) ** (1 / 3)
        own = node.p ** (1 / 3)
        node.value, node.share = (own + rest) ** 3, own / (own + rest)
    remaining = {id(root): 1.0}
    rng = np.random.default_rng(seed)
    for node in order:  # top-down budgets and noise
        left = remaining[id(node)]
        node.eps = left * node.share
        for child in node.children:
            remaining[id(child)] = left - node.eps
        node.noisy = prefix[node.hi + 1] - prefix[node.lo] + rng.laplace(0.0, 1.0 / node.eps)
    for node in reversed(order):  # BLUE upward
        own_prec = node.eps**2
        if not node.children:
            node.z, node.var = node.noisy, 1.0 / own_prec
            continue
        cz = sum(c.z for c in node.children)
        cv = sum(c.var for c in node.children)
        prec = own_prec + 1.0 / cv
        node.z = (own_prec * node.noisy + cz / cv) / prec
        node.var = 1.0 / prec
    root.value = root.z
    for node in order:  # BLUE downward
        if node.children:
            cz = sum(c.z for c in node.children)
            cv = sum(c.var for c in node.children)
            for child in node.children:
                child.value = child.z + child.var / cv * (node.value - cz)
    return time.perf_counter() - start


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sweep")
    args = parser.parse_args()
    repeats = 3 if args.quick else 5
    n = 2**20
    print(
        f"Tree pipeline at n = 2^20 = {n:,} bins, eps = 1, per-node optimal budgets "
        f"(median of {repeats} runs; peak RSS of the process so far)\n"
    )
    header = f"{'tree':>6} {'nodes':>10} " + " ".join(f"{s:>9}" for s in STEPS)
    print(header + f" {'total':>8} {'target':>7} {'peak MiB':>9}")
    for choice in ("16", "2", "sc"):
        times = median_times(n, choice, repeats)
        total = sum(times.values())
        size = (tree.struct_construct(n) if choice == "sc" else tree.kary_tree(n, int(choice))).size
        target = TARGETS.get(choice)
        verdict = (
            "-"
            if target is None
            else (f"<={target:g}s ok" if total <= target else f">{target:g}s MISS")
        )
        print(
            f"{choice:>6} {size:>10,} "
            + " ".join(f"{times[s]:>8.3f}s" for s in STEPS)
            + f" {total:>7.3f}s {verdict:>7} {peak_mib():>9.0f}"
        )

    print(
        "\nBaseline in the same run: one Python object per node, per-node loops "
        "(the same maths; the shape of DPComp/Ektelo-style hierarchical code)\n"
    )
    print(f"{'n':>10} {'fan-out':>8} {'baseline':>10} {'dpcore':>9} {'speed-up':>9}")
    sizes = (2**14, 2**16) if args.quick else (2**14, 2**16, 2**20)
    for size in sizes:
        for k in (16, 2):
            counts = np.random.default_rng(0).integers(0, 100, size).astype(float)
            slow = naive_pipeline(size, k, counts, 0)
            fast = sum(median_times(size, str(k), 3).values())
            print(f"{size:>10,} {k:>8} {slow:>9.3f}s {fast:>8.3f}s {slow / fast:>8.0f}x")

    print("\nScaling of the whole pipeline (fan-out 16 and 2), seconds\n")
    print(f"{'log2 n':>7} {'n':>10} {'k=16':>8} {'k=2':>8} {'ns/node k=2':>12}")
    for m in range(10, 21 if args.quick else 23, 2):
        size = 2**m
        t16 = sum(median_times(size, "16", 3).values())
        t2 = sum(median_times(size, "2", 3).values())
        print(f"{m:>7} {size:>10,} {t16:>7.3f}s {t2:>7.3f}s {t2 / (2 * size - 1) * 1e9:>11.0f}")


if __name__ == "__main__":
    main()
