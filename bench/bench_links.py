"""Replay issue 10's expensive links against the real server, and a class-sized load test.

Serves ``app_server.py`` (``python -m streamlit run``, headless, 127.0.0.1, a random free port)
and drives Debian's chromium through Playwright (never a downloaded browser). For each
link it measures the time until the page answers (the script finished: a result or a
limit message) and the server's resident memory (sampled every 0.1 s, plus the kernel's
peak ``VmHWM``). Targets: every link within 5 s, the server below 2 GB throughout.

    python bench/bench_links.py               # the links under the default limits
    python bench/bench_links.py --baseline    # also each link with the limits lifted
                                              # (fresh server per link, time-out, RSS cap)
    python bench/bench_links.py --load 30     # 30 concurrent sessions, one browser
    python bench/bench_links.py --load 30 --app /tmp/old  # the same against another checkout

Without ``--baseline`` the table shows the numbers the issue measured before the limits.
Numbers depend on the machine and its load; report them with both.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.served_app import CHROMIUM_FLAGS, serve  # noqa: E402  (after the path)

UPLOAD_BINS = 2**22
ALL_ALGORITHMS = "&".join(
    f"ea_{k}=true"
    for k in (
        "dwork", "binary_raw", "boost", "boost_un", "sc_raw", "sc_tree", "lue_dptree", "privelet"
    )
)  # fmt: skip


@dataclass(frozen=True)
class Link:
    name: str
    path: str
    upload: bool  # a 2^22-bin histogram uploaded in the sidebar first
    before: str  # what issue 10 measured before the limits


LINKS = (
    Link("PrivKVM c = 7", "/kv_ldp?kv_privkvm_c=7", False, "> 600 s"),
    Link(
        "KV data 1M x 5000 x 200",
        "/kv_ldp?kv_users=1000000&kv_d=5000&kv_max_len=200&kv_lengths=uniform",
        False,
        "38 s, 10.5 GB",
    ),
    Link(
        "KV 1M users, 200 reps, paper grid",
        "/kv_ldp?kv_users=1000000&kv_reps=200&kv_grid=paper",
        False,
        "> 300 s",
    ),
    Link(
        "Errors eps view, all, 1000 x 2000",
        f"/error_analysis?ea_view=epsilon&{ALL_ALGORITHMS}&ea_releases=1000&ea_queries=2000"
        "&data=spiky-65536",
        False,
        "344 s",
    ),
    Link(
        "Errors index view m = 22",
        f"/error_analysis?ea_view=index&ea_index_m=22&{ALL_ALGORITHMS}",
        False,
        "46 s, 1.9 GB",
    ),
    Link("Tree page, 2^22 upload", "/tree_budgets", True, "~1 GB cached per histogram"),
    Link("Laplace, 2^22 sidebar", "/laplace?lap_source=sidebar", True, "42 s, ~3 GB"),
    Link("Exponential, 2^22 sidebar", "/exponential?exp_source=sidebar", True, "17 s"),
)
PAGES = sorted({link.path.split("?")[0] for link in LINKS})
LOAD_PATH = "/tree_budgets"
HEAVY_PATHS = (  # the heaviest links the default limits allow, one page each
    "/tree_budgets?data=spiky-65536&tb_show=errors",
    "/error_analysis?data=spiky-65536&ea_view=length",
    "/kv_ldp?kv_users=100000&kv_reps=10",
    "/epsilon?eps_part=reconstruction&re_n=512&re_queries=4",
    "/paper_experiments?px_view=table2",
)


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """Resident memory (or its peak, ``VmHWM``) of process ``pid`` in MB, from /proc."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Sampler:
    """Samples a process's RSS every 0.1 s; ``window()`` gives the peak since the last call."""

    def __init__(self, pid: int, cap_mb: float) -> None:
        self.pid, self.cap_mb = pid, cap_mb
        self.peak = self.window_peak = 0.0
        self.capped = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            now = rss_mb(self.pid)
            self.peak = max(self.peak, now)
            self.window_peak = max(self.window_peak, now)
            if now > self.cap_mb and not self.capped:
                self.capped = True
                os.kill(self.pid, 9)  # the server we started; protects the shared machine

    def window(self) -> float:
        peak, self.window_peak = self.window_peak, rss_mb(self.pid)
        return peak

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


@contextmanager
def browser() -> Iterator[Any]:
    """Debian's chromium, headless; Playwright gives it a fresh temporary user-data directory."""
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("Debian's chromium is missing: apt-get install chromium (tests/run.sh does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chrome = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        try:
            yield chrome
        finally:
            chrome.close()


IDLE = "document.querySelector('[data-testid=\"stApp\"]')?.dataset.testScriptState"
DONE = f"() => {IDLE} === 'notRunning' && document.querySelector('h1') !== null"


def wait_idle(page: Any, timeout_s: float) -> None:
    """Wait for the script to start (if it has not yet) and then to finish."""
    with contextlib.suppress(Exception):  # already finished: the next wait decides
        page.wait_for_function(f"() => {IDLE} === 'running'", timeout=3_000)
    page.wait_for_function(DONE, timeout=timeout_s * 1000)  # a connected page is 'notRunning'
    # before its first run: the page title (st.title, first on every page) marks a real run


def replay(
    context: Any, url: str, link: Link, csv: Path, timeout_s: float
) -> tuple[str, float, str]:
    """Seconds until ``link`` answered, and what it answered (limit message or result).

    For an upload link: the seconds of the upload (parsing included) and then of one
    rerun of the page (Streamlit's "r" shortcut), which is what every later click costs.
    """
    page = context.new_page()
    upload = ""
    start = time.perf_counter()
    try:
        page.goto(url + link.path, wait_until="commit")
        wait_idle(page, timeout_s)
        if link.upload:
            page.get_by_text("Upload a histogram (CSV/TSV)").click()
            start = time.perf_counter()
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(csv))
            page.get_by_text("Uploaded: bins-2-22.csv").wait_for(timeout=timeout_s * 1000)
            wait_idle(page, timeout_s)
            upload = f"{time.perf_counter() - start:.1f}"
            page.locator("h1").first.click()  # focus outside any input, then rerun
            start = time.perf_counter()
            page.keyboard.press("r")
            wait_idle(page, timeout_s)
        seconds = time.perf_counter() - start
        limited = page.get_by_text("Not computed:").count() > 0
        return upload, seconds, "limit message" if limited else "result"
    except Exception as err:  # a time-out or a killed server
        return upload, time.perf_counter() - start, f"no answer ({type(err).__name__})"
    finally:
        page.close()


def warm_up(context: Any, url: str, paths: list[str], timeout_s: float) -> None:
    """One visit to each page at its defaults, so that a link does not pay the server's
    one-time imports (a few seconds per page on a loaded 2-core machine)."""
    for path in paths:
        page = context.new_page()
        page.goto(url + path, wait_until="commit")
        wait_idle(page, timeout_s)
        page.close()


def big_csv(directory: Path) -> Path:
    path = directory / "bins-2-22.csv"
    path.write_bytes(b"count\n" + b"1\n" * UPLOAD_BINS)
    return path


UNLIMITED = {"DP_EXPLORER_WORK_SECONDS": "1e9", "DP_EXPLORER_MEMORY_MB": "1e9"}


def run_links(args: argparse.Namespace, csv: Path) -> None:
    rows = []
    with serve({}) as (url, proc), browser() as chrome:
        context = chrome.new_context()
        warm_up(context, url, PAGES, args.timeout)
        sampler = Sampler(proc.pid, cap_mb=args.rss_cap_mb)
        for link in LINKS:
            upload, seconds, answer = replay(context, url, link, csv, args.timeout)
            rows.append([link.name, upload, f"{seconds:.1f}", answer, f"{sampler.window():.0f}"])
        sampler.stop()
        hwm = rss_mb(proc.pid, "VmHWM")
    baseline: dict[str, list[str]] = {}
    if args.baseline:
        for link in LINKS:
            with serve(UNLIMITED) as (url, proc), browser() as chrome:
                context = chrome.new_context()
                warm_up(context, url, [link.path.split("?")[0]], args.timeout)
                sampler = Sampler(proc.pid, cap_mb=args.rss_cap_mb)
                _, seconds, answer = replay(context, url, link, csv, args.timeout)
                sampler.stop()
                mem = f"{sampler.peak:.0f}"
                if sampler.capped:
                    mem = f"> {args.rss_cap_mb:.0f} (killed)"
                baseline[link.name] = [f"{seconds:.1f}", answer, mem]
    header = ["link", "upload s", "answer s", "answer", "peak RSS MB"]
    if args.baseline:
        header += ["no limits: s", "answer", "peak RSS MB"]
    else:
        header += ["before (issue 10)"]
    table = [
        row + (baseline[row[0]] if args.baseline else [link.before])
        for row, link in zip(rows, LINKS, strict=True)
    ]
    print_table(header, table)
    print(
        f"\nServer peak RSS over all links (VmHWM): {hwm:.0f} MB. Targets: answer <= 5 s, "
        "RSS < 2048 MB. 'upload s' is sending and parsing a 2^22-bin CSV in the sidebar "
        "(once); 'answer s' is then one rerun of the page."
    )


def run_load(args: argparse.Namespace) -> None:
    """``args.load`` sessions open ``LOAD_PATH`` (or, with ``--heavy``, the heaviest links
    the limits allow, in turn) at once: one browser, one context (its own cookies and
    storage) per student; each tab is its own Streamlit session. After the tabs close, the
    server's memory is sampled again ``--after`` seconds later (sessions are dropped 30 s
    after their tab closes)."""
    paths = HEAVY_PATHS if args.heavy else (LOAD_PATH,)
    with serve({}, args.app) as (url, proc), browser() as chrome:
        context = chrome.new_context()
        sampler = Sampler(proc.pid, cap_mb=args.rss_cap_mb)
        warm_up(context, url, ["/"], args.timeout)
        sampler.window()
        contexts = [chrome.new_context() for _ in range(args.load)]
        pages = [c.new_page() for c in contexts]
        cpu = cpu_seconds(proc.pid)
        start = time.perf_counter()
        for i, page in enumerate(pages):
            page.goto(url + paths[i % len(paths)], wait_until="commit")
        finished: dict[int, float] = {}
        while len(finished) < len(pages) and time.perf_counter() - start < args.timeout:
            for i, page in enumerate(pages):
                if i not in finished and page.evaluate(DONE):
                    finished[i] = time.perf_counter() - start
            time.sleep(0.1)
        peak = sampler.window()
        cpu = cpu_seconds(proc.pid) - cpu
        for c in contexts:
            c.close()
        time.sleep(args.after)
        after = rss_mb(proc.pid)
        sampler.stop()
    times = sorted(finished.values())
    shown = "heaviest allowed links" if args.heavy else LOAD_PATH
    row = [f"{args.load}", shown, f"{len(times)}", f"{times[0]:.1f}" if times else "-"]
    row += [f"{times[len(times) // 2]:.1f}" if times else "-", f"{times[-1]:.1f}" if times else "-"]
    print_table(
        [
            "sessions",
            "path",
            "answered",
            "first s",
            "median s",
            "last s",
            "server CPU s",
            "peak RSS MB",
            f"RSS MB {args.after:.0f} s after closing",
        ],
        [[*row, f"{cpu:.1f}", f"{peak:.0f}", f"{after:.0f}"]],
    )
    print(
        "\nTimes are wall-clock from the first request; 'server CPU s' is the Streamlit process's "
        "CPU time for all sessions (the browser's rendering runs on the same machine)."
    )


def print_table(header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, ["-" * w for w in widths], *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", action="store_true", help="also replay with no limits")
    parser.add_argument("--load", type=int, default=0, help="concurrent sessions instead")
    parser.add_argument("--heavy", action="store_true", help="load: the heaviest allowed links")
    parser.add_argument("--after", type=float, default=60.0, help="load: RSS this long after")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per link")
    parser.add_argument(
        "--app", type=Path, default=ROOT, help="--load: serve this checkout (e.g. an older one)"
    )
    parser.add_argument("--rss-cap-mb", type=float, default=6000.0, help="kill the server above")
    args = parser.parse_args()
    if args.load:
        run_load(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        run_links(args, big_csv(Path(tmp)))


if __name__ == "__main__":
    main()
