"""Benchmark: what a class feels - widget change to settled page, in a real browser.

Serves the app on a free port, drives Debian's headless Chromium (Playwright, never a
downloaded browser) and, for each page's main controls, times from the change to the
settled page: the script is not running (``data-test-script-state``) and the DOM has not
changed for 300 ms (the quiet time is subtracted). The same changes are then timed as
AppTest re-renders (server side only) in the same run. Prints median and max per control.

Usage: ``python bench/bench_browser.py [--repeats 3]``. Numbers on a loaded machine are
upper bounds; the issue's targets are for an otherwise idle 2-core machine.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # AppTest's pages import this checkout's dpui, not an installed one
from dpui import tree_view  # noqa: E402  (after the path, for the same reason)
from tests.served_app import CHROMIUM_FLAGS, serve  # noqa: E402

QUIET_S = 0.3


@dataclass(frozen=True)
class Change:
    """One control: its label in the browser, its key for AppTest, and two values to toggle."""

    page: str
    label: str
    kind: str  # "number" or "select"
    key: str
    values: tuple[Any, Any]
    shown: tuple[str, str] = ("", "")  # option texts in the browser, for selects


CHANGES = (
    Change("tree_budgets", "Noise seed", "number", "tb_seed", (1, 0)),
    Change(
        "tree_budgets",
        "Budget allocation",
        "select",
        "tb_alloc",
        ("uniform", "node"),
        (tree_view.ALLOCATIONS["uniform"], tree_view.ALLOCATIONS["node"]),
    ),
    Change("tree_budgets", "Tree", "select", "tb_tree", ("4", "sc"), ("4-ary", "optimise")),
    Change("error_analysis", "Seed", "number", "ea_seed", (1, 0)),
    Change("laplace", "Noise seed", "number", "lap_seed", (1, 0)),
    Change("exponential", "Random seed", "number", "exp_seed", (1, 0)),
    Change("matrix_privelet", "Noise seed", "number", "mp_seed", (1, 0)),
    Change("kv_ldp", "Simulation seed", "number", "kv_seed", (1, 0)),
)


def settle(page: Any, limit_s: float = 120.0) -> float:
    """Seconds until the script stops and the DOM is quiet for QUIET_S (quiet time excluded)."""
    start = time.perf_counter()
    last, since = None, time.perf_counter()
    while time.perf_counter() - start < limit_s:
        signature = page.evaluate(
            "() => (document.querySelector('[data-testid=stApp]')"
            "?.getAttribute('data-test-script-state') || '') + ':' + "
            "document.body.innerHTML.length"
        )
        now = time.perf_counter()
        if signature != last:
            last, since = signature, now
        elif not signature.startswith("running") and now - since >= QUIET_S:
            return since - start
        time.sleep(0.03)
    return float("nan")


def set_in_browser(page: Any, change: Change, i: int) -> None:
    if change.kind == "number":
        box = page.get_by_label(change.label, exact=True)
        box.fill(str(change.values[i]))
        box.press("Enter")
    else:
        page.get_by_label(change.label, exact=True).first.click()
        page.get_by_role("option", name=change.shown[i]).first.click()


def browser_times(url: str, repeats: int) -> dict[Change, list[float]]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    times: dict[Change, list[float]] = {c: [] for c in CHANGES}
    with sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 720},
        )
        page = context.new_page()
        current = None
        for change in CHANGES:
            if change.page != current:
                page.goto(f"{url}/{change.page}", wait_until="domcontentloaded")
                page.locator('[data-testid="stApp"]').wait_for(timeout=120_000)
                settle(page)
                page.get_by_text("Settings", exact=True).first.click()  # open the panel
                settle(page)
                current = change.page
            for _ in range(repeats):
                for i in (0, 1):
                    set_in_browser(page, change, i)
                    times[change].append(settle(page))
        context.close()
    return times


def apptest_times(repeats: int) -> dict[Change, list[float]]:
    times: dict[Change, list[float]] = {c: [] for c in CHANGES}
    tests: dict[str, AppTest] = {}
    for change in CHANGES:
        if change.page not in tests:
            tests[change.page] = AppTest.from_file(
                str(ROOT / "pages" / f"{change.page}.py"), default_timeout=300
            ).run()
        at = tests[change.page]
        widget = at.number_input if change.kind == "number" else at.selectbox
        for _ in range(repeats):
            for value in change.values:
                widget(key=change.key).set_value(value)
                start = time.perf_counter()
                at.run()
                times[change].append(time.perf_counter() - start)
                assert not at.exception, at.exception
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    with serve() as (url, _):
        in_browser = browser_times(url, args.repeats)
    server_side = apptest_times(args.repeats)
    print("Widget change -> settled page (default settings; seconds)\n")
    header = (
        f"{'page':<16} {'control':<20} {'browser med':>11} {'max':>6} "
        f"{'AppTest med':>11} {'max':>6}"
    )
    print(header)
    print("-" * len(header))
    for change in CHANGES:
        b, a = in_browser[change], server_side[change]
        print(
            f"{change.page:<16} {change.label:<20} {statistics.median(b):>11.2f} {max(b):>6.2f} "
            f"{statistics.median(a):>11.2f} {max(a):>6.2f}"
        )


if __name__ == "__main__":
    main()
