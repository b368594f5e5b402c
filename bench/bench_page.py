"""Benchmark: how long the Tree & budgets page takes to re-render after a widget change.

Runs the page headless (Streamlit AppTest, which adds its own overhead, so these are upper
bounds) on the 65,536-bin example and times each rerun. The baseline in the same run is the
first render, which builds and caches the tree; the target is < 1 s per change, and < 0.5 s
for choosing a range in the range explorer. Pinning and then changing a setting computes
both views (each cached), so it costs at most the two views' own computations.

Usage: ``python bench/bench_page.py``
"""

from __future__ import annotations

import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

PAGE = Path(__file__).resolve().parents[1] / "pages" / "tree_budgets.py"
CHANGES = [
    ("tree -> 2-ary", "selectbox", "tb_tree", "2"),
    ("tree -> 16-ary", "selectbox", "tb_tree", "16"),
    ("tree -> SC", "selectbox", "tb_tree", "sc"),
    ("allocation -> per-level", "selectbox", "tb_alloc", "level"),
    ("allocation -> per-node", "selectbox", "tb_alloc", "node"),
    ("workload -> prefix", "selectbox", "tb_workload", "prefix"),
    ("colour -> budget", "selectbox", "tb_colour", "budget"),
    ("seed -> 7", "number_input", "tb_seed", 7),
    ("range first bin -> 1000", "number_input", "tb_from", 1000),
    ("range last bin -> 40000", "number_input", "tb_to", 40000),
    ("range first bin -> 3", "number_input", "tb_from", 3),
    ("pin this view", "button", "Pin this view", None),
    ("pinned; tree -> 4-ary", "selectbox", "tb_tree", "4"),
    ("pinned; range last -> 9", "number_input", "tb_to", 9),
]
TARGETS = {"range": 0.5}


def main() -> None:
    at = AppTest.from_file(str(PAGE), default_timeout=300)
    at.session_state["data"] = "spiky-65536"
    start = time.perf_counter()
    at.run()
    first = time.perf_counter() - start
    print("Tree & budgets page, 65,536 bins, AppTest (upper bound of the server-side time)\n")
    print(f"{'change':<26} {'seconds':>8} {'target':>8}")
    print(f"{'first render (baseline)':<26} {first:>8.3f} {'-':>8}")
    for label, kind, key, value in CHANGES:
        if kind == "button":
            next(b for b in at.button if b.label == key).click()
        else:
            getattr(at, kind)(key=key).set_value(value)
        start = time.perf_counter()
        at.run()
        took = time.perf_counter() - start
        assert not at.exception, at.exception
        target = TARGETS.get(label.split()[0], 1.0)
        print(f"{label:<26} {took:>8.3f} {'ok' if took < target else 'MISS':>8} (< {target:g})")


if __name__ == "__main__":
    main()
