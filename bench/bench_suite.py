"""Where the test suite's time goes (issue 34): runs pytest as ``tests/run.sh`` does (its
workers, ``--dist worksteal``) with the ``tests.cpu_profile`` plugin and prints, per layer
(core, kit, features, browser, doctests) the tests, their summed wall time and the CPU time
of the test processes and everything they started (servers, Chromium, Dask workers); the
tests that take the most CPU and the most wall time; and when each worker finished (a
spread means a tail of long tests at the end; none means the run is bound by throughput).

    python bench/bench_suite.py                          # the whole suite
    python bench/bench_suite.py tests/kit -n 2           # a part, two workers
    python bench/bench_suite.py --log old.jsonl --against new.jsonl   # compare two logs

Run it on an idle machine: CPU times grow on a loaded one (shared caches and cores).
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.cpu_profile import LOG_VARIABLE  # noqa: E402

LAYERS = ("core", "kit", "features", "browser", "load")
Row = dict[str, Any]
"""One test's record in the log."""


def layer(test: str) -> str:
    """The layer of a test id: its folder under ``tests/``, or "doctests"."""
    parts = test.split("::")[0].split("/")
    return parts[1] if parts[0] == "tests" and parts[1] in LAYERS else "doctests"


def run(log: Path, workers: str, extra: list[str]) -> float:
    """Run pytest with the profile plugin, appending to ``log``; returns its wall seconds."""
    start = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", workers, "--dist", "worksteal",
         "-p", "tests.cpu_profile", *extra],
        cwd=ROOT,
        # bytecode caches on, as tests/run.sh has them
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
             LOG_VARIABLE: str(log)},
        check=False,
    )  # fmt: skip
    return time.monotonic() - start


FIELDS = {"test": str, "worker": str, "start": float, "end": float, "cpu": float}


def read(log: Path) -> list[Row]:
    """The records of ``log``, one per test (ValueError, saying where, if it is not such a
    log: a line that is not JSON, or lacks a field)."""
    rows = []
    for number, line in enumerate(log.read_text(encoding="utf-8", errors="replace").splitlines()):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise ValueError(f"{log}, line {number + 1}: not JSON") from None
        if not isinstance(row, dict) or any(
            not isinstance(row.get(k), (int, float) if kind is float else kind)
            for k, kind in FIELDS.items()
        ):
            raise ValueError(f"{log}, line {number + 1}: needs the fields {', '.join(FIELDS)}")
        rows.append(row)
    return rows


def layers(rows: list[Row]) -> dict[str, tuple[int, float, float]]:
    """Per layer: (tests, summed wall seconds, CPU seconds)."""
    out: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for r in rows:
        one = out[layer(r["test"])]
        one[0] += 1
        one[1] += r["end"] - r["start"]
        one[2] += r["cpu"]
    return {k: (int(v[0]), v[1], v[2]) for k, v in sorted(out.items())}


def _value(row: Row, key: str) -> float:
    return float(row["cpu"]) if key == "cpu" else float(row["end"] - row["start"])


def report(rows: list[Row], wall: float | None, against: list[Row] | None, top: int) -> None:
    print(f"\n{len(rows)} tests" + (f", pytest wall {wall:.0f} s" if wall else ""))
    base = layers(against) if against else {}
    print("\n| layer | tests | summed wall (s) | CPU (s) |" + (" CPU before (s) |" if base else ""))
    print("|---|---|---|---|" + ("---|" if base else ""))
    now = layers(rows)
    for name in sorted(set(now) | set(base)):
        n, w, c = now.get(name, (0, 0.0, 0.0))
        extra = f" {base[name][2]:.0f} |" if name in base else (" – |" if base else "")
        print(f"| {name} | {n} | {w:.0f} | {c:.0f} |{extra}")
    total = sum(v[2] for v in now.values())
    print(f"| all | {len(rows)} | {sum(v[1] for v in now.values()):.0f} | {total:.0f} |")
    for key, what in (("cpu", "CPU"), ("wall", "wall time")):
        print(f"\nThe {top} tests taking the most {what}:\n")
        print("| CPU (s) | wall (s) | test |\n|---|---|---|")
        for r in sorted(rows, key=functools.partial(_value, key=key), reverse=True)[:top]:
            print(f"| {r['cpu']:.1f} | {r['end'] - r['start']:.1f} | {r['test']} |")
    begin = min(r["start"] for r in rows)
    ends: dict[str, float] = collections.defaultdict(float)
    for r in rows:
        ends[r["worker"]] = max(ends[r["worker"]], r["end"] - begin)
    spread = ", ".join(f"{w} {s:.0f}" for w, s in sorted(ends.items()))
    print(f"\nEach worker's last test ended at (s after the first began): {spread}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", type=Path, help="read this log instead of running pytest")
    parser.add_argument("--against", type=Path, help="a log to compare the layers with")
    parser.add_argument("-n", default=os.environ.get("DP_TEST_WORKERS", "4"), help="workers")
    parser.add_argument("--top", type=int, default=20)
    args, extra = parser.parse_known_args()
    for given in (args.log, args.against):
        if given is not None and not given.is_file():
            parser.error(f"no log at {given}: give a file an earlier run printed after 'log:'")
    wall = None
    if args.log is None:
        log = Path(tempfile.mkdtemp(prefix="bench-suite-")) / "cpu.jsonl"
        wall = run(log, args.n, extra)
        print(f"log: {log}")
    else:
        log = args.log
    try:
        rows, against = read(log), read(args.against) if args.against else None
    except ValueError as error:
        parser.error(f"{error} (a log this script wrote: its lines are JSON records)")
    report(rows, wall, against, args.top)


if __name__ == "__main__":
    main()
