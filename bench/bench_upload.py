"""Cost of rejecting (and of accepting) large uploads -- histograms and key-value CSVs.

Each case runs in fresh subprocesses: one timed run (also reporting the growth of the
maximum RSS, which hides allocations when building the input already peaked higher), and
for rejected files one run under tracemalloc for the peak of Python/numpy allocations
while parsing (tracemalloc slows the Python parser a lot, so accepted files skip it).
Issue 10 D's target: a rejected file costs < 2 s and < 300 MB.
Run: ``python bench/bench_upload.py``.

``--served N`` measures instead what the server keeps of uploads (issue 37 M7: a refused
60 MB lesson file added about 58 MB of RSS for the rest of the session): the app is served on
127.0.0.1, one headless Chromium session uploads the same file N times through the page's
uploader, each upload waited for until its message shows, and the server's RSS is read before
the first and after every upload. Each case has a server of its own; the baselines upload a
small valid file the same way. Run: ``python bench/bench_upload.py --served 5``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psutil
from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the served app and its test helpers from this checkout
from tests.browser.settle import CLOCK, settle  # noqa: E402
from tests.served_app import persistent_context, serve  # noqa: E402

HIST = "parse_histogram, HistogramError"
KV = "read_kv_csv, KVDataError"
CASES = {
    "64 MiB of '1\\n' (rejected: rows)": (HIST, "b'1\\n' * (32 * 2**20 - 1)", True),
    "10^7 rows (rejected: rows)": (HIST, "b'1\\n' * 10**7", True),
    "one 60 MiB line of '1,' (rejected: line)": (HIST, "b'1,' * (30 * 2**20)", True),
    "2^22 rows, the limit (accepted)": (HIST, "b'7\\n' * 2**22", False),
    "2^22 labelled rows (accepted)": (
        HIST,
        "b''.join(b'bin%d,%d\\n' % (i, i % 9) for i in range(2**22))",
        False,
    ),
    "KV: 60 MiB of 'u,k,1\\n' (rejected: rows)": (
        KV,
        "b'u,k,v\\n' + b'u,k,1\\n' * (10 * 2**20)",
        True,
    ),
    "KV: 2^21 pairs (accepted)": (
        KV,
        "b'user,key,value\\n' + b''.join(b'u%d,k%d,0.5\\n' % (i, i % 7) for i in range(2**21))",
        False,
    ),
}

SCRIPT = """
import resource, sys, time, tracemalloc
from dpcore.histogram import HistogramError, parse_histogram
from dpcore.ldp.data import KVDataError, read_kv_csv
parse, errors = {parser}
data = {expr}
traced = sys.argv[1] == "traced"
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if traced:
    tracemalloc.start()
start = time.perf_counter()
try:
    parse(data)
    outcome = "accepted"
except errors as err:
    outcome = "rejected: " + str(err)[:60]
seconds = time.perf_counter() - start
growth = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
if traced:
    print(f"{{tracemalloc.get_traced_memory()[1] / 2**20:.0f}}")
else:
    print(f"{{seconds:.2f}}\\t{{growth:.0f}}\\t{{outcome}}")
"""


def _run(parser: str, expr: str, mode: str) -> str:
    code = SCRIPT.format(parser=parser, expr=expr)
    result = subprocess.run(
        [sys.executable, "-c", code, mode], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def parsing() -> None:
    print("case\tseconds\tmax RSS growth MiB\toutcome\ttraced peak MiB")
    for name, (parser, expr, rejected) in CASES.items():
        timed = _run(parser, expr, "timed")
        traced = _run(parser, expr, "traced") if rejected else "-"
        print(f"{name}\t{timed}\t{traced}")


BIG = 60 * 2**20
"""The refused files' size: under the server's 64 MB upload limit, far over what is kept."""
EXAMPLE_LESSON = ROOT / "assets" / "lessons" / "dp_histograms_50min.json"


@dataclass(frozen=True)
class Served:
    """One served case: the page, the uploader (by its label), the file, and the text that
    shows once the upload has been read (refused or loaded)."""

    path: str
    uploader: str
    name: str
    content: bytes
    done: str
    """Shows once the upload has been read; ``{name}`` is the uploaded file's name."""
    opens: str = ""
    """A collapsed expander to open first (the sidebar's uploader)."""


def _served_cases() -> dict[str, Served]:
    lesson = "A lesson file"
    histogram = "CSV or TSV file"
    sidebar = "Upload a histogram (CSV/TSV)"
    small_lesson = EXAMPLE_LESSON.read_bytes()
    assert json.loads(small_lesson)  # a valid lesson, loaded
    return {
        "lesson file, 60 MB (refused: over 200 kB)": Served(
            "lesson", lesson, "big.json", b" " * BIG, "{name} was not loaded"
        ),
        "baseline: the example lesson file (loaded)": Served(
            "lesson", lesson, "example.json", small_lesson, "Loaded 10 steps from {name}"
        ),
        "sidebar CSV, 60 MB (refused: one line)": Served(
            "laplace", histogram, "big.csv", b"1," * (BIG // 2), "{name} was not loaded", sidebar
        ),
        "baseline: sidebar CSV of 64 counts (accepted)": Served(
            "laplace", histogram, "small.csv", b"count\n" + b"5\n" * 64, "{name}", sidebar
        ),
    }


def _rss_mb(pid: int) -> float:
    return float(psutil.Process(pid).memory_info().rss) / 2**20


def _upload(page: Page, case: Served, index: int, folder: Path) -> None:
    box = page.locator("[data-testid=stFileUploader]").filter(has_text=case.uploader)
    name = f"{index}-{case.name}"  # a message of its own for each upload
    file = folder / name  # Playwright sends at most 50 MB from memory, and Chromium reads
    file.write_bytes(case.content)  # the file while it uploads: kept until the message shows
    box.locator("input[type=file]").set_input_files(file)
    expect(page.get_by_text(case.done.format(name=name)).first).to_be_visible(timeout=180_000)
    settle(page, limit_s=180)
    file.unlink()


def served(uploads: int, only: str = "") -> None:
    """The server's RSS around ``uploads`` uploads of each case whose label holds ``only``
    (see the module)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is needed (tests/run.sh installs it)")
    load = " ".join(f"{x:.1f}" for x in psutil.getloadavg())
    print(f"server RSS (MB) around {uploads} uploads in one session; load average {load}")
    print("case\tbefore\tafter each upload\tgrowth\tper upload")
    with sync_playwright() as pw:
        for label, case in _served_cases().items():
            if only not in label:
                continue
            with serve() as (url, proc), tempfile.TemporaryDirectory() as profile:
                context = persistent_context(pw, chromium, profile, 1280, 900)
                context.add_init_script(CLOCK)
                page = context.new_page()
                page.goto(f"{url}/{case.path}", wait_until="domcontentloaded")
                settle(page, limit_s=180)
                if case.opens:
                    page.get_by_text(case.opens, exact=True).click()
                before = _rss_mb(proc.pid)
                after = []
                for i in range(uploads):
                    _upload(page, case, i, Path(profile))
                    after.append(_rss_mb(proc.pid))
                context.close()
            growth = after[-1] - before
            each = " ".join(f"{a:.0f}" for a in after)
            print(f"{label}\t{before:.0f}\t{each}\t{growth:+.0f}\t{growth / uploads:+.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--served", type=int, metavar="N", help="uploads per served case")
    parser.add_argument("--only", default="", help="served cases whose label holds this text")
    args = parser.parse_args()
    if args.served:
        served(args.served, args.only)
    else:
        parsing()


if __name__ == "__main__":
    main()
