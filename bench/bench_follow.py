"""A class following the lecturer, in real browsers, against ``dp-explorer serve`` on
127.0.0.1 with 1 and then 2 replicas in the same run (issue 42, item 4).

For each number of followers K, a lecturer's page (headless Debian Chromium, 1280 x 720)
loads the bundled lesson, lets the class follow and presents it; K follower pages (390 x
844, each in a browser context of its own, so that HAProxy's cookie spreads them over the
replicas) open the follow link and wait at step 1. Then:

1. **Idle followers**: the replicas' CPU (``/proc/<pid>/stat``) over ``--idle`` seconds while
   nobody moves (each follower's page polls the room every ``POLL_S``), minus the same with K
   pages on the same step's link that do not follow (measured after the steps), per
   follower per second.
2. **The lecturer's steps**: the lecturer presses → ``--presses`` times; for each press, the
   time from the key press until each follower shows "Following the lecturer · step k of
   10" and, on a figure's step, its figure drawn after that (on a predict step, the bar;
   on a reveal, the answer and the figure drawn after it). Each follower's page records the
   moment itself (``WATCH``, with the machine's clock, ``Date.now()``), so the K pages are
   timed alike however the bench polls them. Also printed: the "Catch up" clicks per
   follower (1 is one full run per step; more is a follower that clicked again while behind)
   and the replicas' CPU per follower per step (from the press until the last follower
   caught up; it includes the polls of that window).

The browsers run on the same machine and cores as the server, and their CPU is printed
beside it: on a 2-core machine they, not the server, bound how many followers one run can
hold. Report the numbers with the load average.

    python bench/bench_follow.py                          # K = 5, 10, 20 on 1 and 2 replicas
    python bench/bench_follow.py --followers 10 --replicas 2 --idle 20
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from playwright.sync_api import Error as PlaywrightError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from dpui.kit import lesson_follow  # noqa: E402
from dpui.reference.lesson_page import EXAMPLE  # noqa: E402
from dpui.serve import haproxy  # noqa: E402
from tests.browser.lecturer import lead  # noqa: E402
from tests.browser.settle import CLOCK, settle  # noqa: E402
from tests.served_app import CHROMIUM_FLAGS  # noqa: E402
from tests.served_class import Served, serve_class  # noqa: E402

WATCH = """(() => {
  const seen = window.__dpSeen = {}, bar = {}, answer = {};
  window.__dpCatchUps = 0;
  let plotted = 0;
  document.addEventListener('click', e => {
    if (e.target.closest && e.target.closest('.st-key-_follow_sync')) window.__dpCatchUps++;
  }, true);
  const inPlot = r => {
    const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    return !!(el && el.closest('.js-plotly-plot'));
  };
  const look = records => {
    const now = Date.now();
    if (records.some(inPlot)) plotted = now;
    const app = document.querySelector('[data-testid=stApp]');
    if (!app) return;
    const state = app.dataset.testScriptState;
    const text = [...document.querySelectorAll(
      '.st-key-dp-lesson-bar [data-testid=stMarkdownContainer]')]
      .map(e => e.textContent).find(t => t.startsWith('Following the lecturer'));
    const found = text && text.match(/step (\\d+) of/);
    if (!found) return;
    const step = found[1];
    bar[step] ??= now;
    if (document.querySelector('.st-key-dp-lesson-bar .dp-lesson-answer')) answer[step] ??= now;
    if (state !== 'notRunning') return;
    const mark = key => { seen[key] ??= now; };
    mark('bar ' + step);
    const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
    const drawn = charts.length > 0 && charts.every(c => c.querySelector('.main-svg'));
    if (drawn && plotted >= bar[step]) mark('figure ' + step);
    if (drawn && step in answer && plotted >= answer[step]) mark('answer ' + step);
  };
  const watch = () => new MutationObserver(look).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();"""
"""Init script of a follower's page: ``window.__dpSeen[key]`` is the time (``Date.now()``)
the page first showed ``key``, with its script not running: ``"bar k"`` (the bar says step
k), ``"figure k"`` (and every chart drawn, one of them changed since the bar said k) and
``"answer k"`` (the step's answer shown, and a chart drawn or changed since it appeared);
and ``__dpCatchUps`` counts clicks of "Catch up"."""

STATE = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  return {url: location.href, script: app?.dataset.testScriptState,
    connection: app?.dataset.testConnectionState, seen: window.__dpSeen,
    catchUps: window.__dpCatchUps,
    busy: document.querySelectorAll('[data-testid=stSkeleton], [data-testid=stSpinner]').length,
    charts: document.querySelectorAll('[data-testid=stPlotlyChart]').length,
    drawn: document.querySelectorAll('[data-testid=stPlotlyChart] .main-svg').length,
    quiet: performance.now() - (window.__dpChanged ?? 0),
    answer: !!document.querySelector('.dp-lesson-answer'),
    predict: document.body.innerText.includes('Predict first'),
    bar: document.querySelector('.st-key-dp-lesson-bar')?.innerText.slice(0, 60)};
}"""
"""What a page shows, for a page that did not settle."""

FOLLOWING = re.compile(r"^Following the lecturer · step \d+ of 10$")


@dataclass(frozen=True)
class Spread:
    """Times in seconds: how many, median, 95th percentile and maximum."""

    n: int
    p50: float
    p95: float
    max: float

    @classmethod
    def of(cls, times: Sequence[float]) -> Spread:
        """The spread of ``times`` (all zero for none)."""
        if not times:
            return cls(0, 0.0, 0.0, 0.0)
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
        return cls(len(ordered), statistics.median(ordered), p95, ordered[-1])

    def __str__(self) -> str:
        return f"{self.p50:.2f} / {self.p95:.2f} / {self.max:.2f}"


@dataclass(frozen=True)
class Press:
    """One → of the lecturer: what the followers waited for (``want``), each one's time,
    how many never showed it, their "Catch up" clicks, the replicas' and the browsers' CPU
    over the press, and the load average after it."""

    want: str
    times: list[float]
    missing: int
    clicks: int
    server_cpu: float
    browser_cpu: float
    load: float


@dataclass(frozen=True)
class Idle:
    """The replicas' and the browsers' CPU seconds over ``seconds`` with the pages idle, and
    the load average after it."""

    seconds: float
    server_cpu: float
    browser_cpu: float
    load: float


@dataclass(frozen=True)
class Class:
    """One class: ``followers`` pages on ``replicas`` replicas, each replica's followers, the
    presses, and idle following vs idle non-following pages."""

    replicas: int
    followers: int
    spread: dict[str, int]
    presses: list[Press]
    following: Idle
    baseline: Idle

    @property
    def idle_cost(self) -> float:
        """Server CPU seconds per idle follower per second, over the baseline."""
        extra = self.following.server_cpu / self.following.seconds
        extra -= self.baseline.server_cpu / self.baseline.seconds
        return extra / self.followers


def expected(presses: int) -> list[str]:
    """What each of ``presses`` → shows a follower, on the bundled lesson from step 1:
    ``"bar k"`` for a predict step, ``"figure k"`` for a figure's, ``"answer k"`` for a reveal."""
    steps = json.loads(EXAMPLE.read_text(encoding="utf-8"))["steps"]
    at, shown, wants = 0, not steps[0]["predict"], []
    for _ in range(presses):
        if not shown:
            shown = True
            wants.append(f"answer {at + 1}")
            continue
        at += 1
        shown = not steps[at]["predict"]
        wants.append(f"{'figure' if shown else 'bar'} {at + 1}")
    return wants


def cpu(pids: Iterable[int]) -> float:
    """User and system CPU seconds of the processes ``pids`` and their children so far, from
    ``/proc/<pid>/stat`` (psutil); a process gone since counts nothing."""
    total = 0.0
    for pid in pids:
        try:
            process = psutil.Process(pid)
            for one in (process, *process.children(recursive=True)):
                times = one.cpu_times()
                total += times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return total


def browser_pids(served: Served) -> list[int]:
    """This process's children but ``served``'s: Playwright's driver, whose children are the
    browsers."""
    return [c.pid for c in psutil.Process().children() if c.pid != served.process.pid]


@contextmanager
def contexts(browser: Browser, n: int, width: int, height: int) -> Iterator[list[BrowserContext]]:
    """``n`` fresh browser contexts (own cookies), each page recording ``CLOCK`` and
    ``WATCH``; closed afterwards."""
    made = []
    try:
        for _ in range(n):
            context = browser.new_context(viewport={"width": width, "height": height})
            context.add_init_script(CLOCK)
            context.add_init_script(WATCH)
            made.append(context)
        yield made
    finally:
        for context in made:
            context.close()


def open_pages(made: list[BrowserContext], url: str, limit_s: float) -> list[Page]:
    """A page in each of ``made`` opening ``url``, all at once; settled."""
    pages = [context.new_page() for context in made]
    for page in pages:
        page.on("pageerror", lambda error: print(f"    a page's error: {error}"))
        page.goto(url, wait_until="commit", timeout=limit_s * 1000)
    for page in pages:
        settle(page, limit_s=limit_s)
    return pages


def idle(pages: list[Page], served: Served, seconds: float) -> Idle:
    """The CPU of ``served``'s replicas and of the browsers over ``seconds`` with ``pages``
    idle."""
    servers = served.replicas.values()
    server, browsers = cpu(servers), cpu(browser_pids(served))
    start = time.monotonic()
    time.sleep(seconds)
    took = time.monotonic() - start
    server, browsers = cpu(servers) - server, cpu(browser_pids(served)) - browsers
    return Idle(took, server, browsers, os.getloadavg()[0])


def press(lecturer: Page, followers: list[Page], want: str, served: Served) -> Press:
    """The lecturer's →: each follower's time until it shows ``want`` (a ``WATCH`` key)."""
    servers = served.replicas.values()
    clicks = sum(page.evaluate("window.__dpCatchUps") for page in followers)
    server, browsers = cpu(servers), cpu(browser_pids(served))
    pressed = time.time() * 1000
    lecturer.keyboard.press("ArrowRight")
    times: dict[int, float] = {}
    deadline = time.monotonic() + 60
    while len(times) < len(followers) and time.monotonic() < deadline:
        for i, page in enumerate(followers):
            if i not in times:
                at = page.evaluate("key => window.__dpSeen[key] ?? null", want)
                if at is not None:
                    times[i] = (at - pressed) / 1000
        time.sleep(0.05)
    server, browsers = cpu(servers) - server, cpu(browser_pids(served)) - browsers
    for i, page in enumerate(followers):
        if i not in times:
            print(f"    a follower never showed {want}: {page.evaluate(STATE)}")
    shown = [page for i, page in enumerate(followers) if i in times]
    for who, page in (("the lecturer", lecturer), *(("a follower", f) for f in shown)):
        try:
            settle(page, limit_s=60)
        except PlaywrightError:
            print(f"    {who}'s page did not settle after {want}: {page.evaluate(STATE)}")
    clicks = sum(page.evaluate("window.__dpCatchUps") for page in followers) - clicks
    return Press(
        want,
        sorted(times.values()),
        len(followers) - len(times),
        clicks,
        server,
        browsers,
        os.getloadavg()[0],
    )


def spread_over(served: Served, made: list[BrowserContext]) -> dict[str, int]:
    """How many of the contexts ``made`` each replica serves (by HAProxy's cookie)."""
    found = {name: 0 for name in served.replicas}
    for context in made:
        for cookie in context.cookies():
            if cookie["name"] == haproxy.COOKIE and cookie["value"] in found:
                found[cookie["value"]] += 1
    return found


def rehearse(browser: Browser, served: Served, links: list[str]) -> None:
    """Open the lesson's first ``links`` once on each replica (HAProxy's cookie set): a
    replica's first run of a page imports its modules, seconds that no class pays for."""
    host = served.url.split("//", 1)[1].split(":")[0]
    for name in served.replicas:
        with contexts(browser, 1, 1280, 720) as (context,):
            context.add_cookies(
                [{"name": haproxy.COOKIE, "value": name, "domain": host, "path": "/"}]
            )
            page = context.new_page()
            for link in links:
                page.goto(f"{served.url}/{link}", wait_until="commit")
                settle(page, limit_s=180)


def attend(browser: Browser, served: Served, followers: int, args: argparse.Namespace) -> Class:
    """One class of ``followers`` on ``served``: idle, the presses, then the baseline."""
    with contexts(browser, 1, 1280, 720) as (teacher,):
        lecturer = teacher.new_page()
        link = lead(lecturer, served.url, limit_s=120)
        with contexts(browser, followers, 390, 844) as made:
            pages = open_pages(made, link, 300)
            for page in pages:
                expect(page.get_by_text(FOLLOWING)).to_have_text(
                    "Following the lecturer · step 1 of 10", timeout=120_000
                )
                settle(page, limit_s=120)
            spread = spread_over(served, made)
            hidden = [p for p in pages if p.evaluate("document.visibilityState") != "visible"]
            if hidden:
                print(f"    {len(hidden)} follower page(s) not visible: timers may be throttled")
            time.sleep(2)
            following = idle(pages, served, args.idle)
            presses = [press(lecturer, pages, want, served) for want in expected(args.presses)]
            for page in pages:
                if page.locator("[data-testid=stException]").count():
                    print(f"    an exception on a follower's page: {page.url}")
        first = json.loads(EXAMPLE.read_text(encoding="utf-8"))["steps"][0]["link"]
        with contexts(browser, followers, 390, 844) as made:
            pages = open_pages(made, f"{served.url}/{first}", 300)
            time.sleep(2)
            baseline = idle(pages, served, args.idle)
    return Class(len(served.replicas), followers, spread, presses, following, baseline)


def report(classes: list[Class], poll_s: float) -> None:
    """Print the tables: the followers' times per press, then idle costs and estimates."""
    print(f"\nPOLL_S = {poll_s:g} s; {os.cpu_count()} cores; server and browsers share them")
    print(
        "\n| replicas | K (per replica) | press → shows | p50 / p95 / max (s) | never "
        "| Catch up clicks per follower | server CPU per follower (s) | browsers' CPU (s) "
        "| load average |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for one in classes:
        spread = ", ".join(str(n) for n in one.spread.values())
        for p in one.presses:
            print(
                f"| {one.replicas} | {one.followers} ({spread}) | {p.want} "
                f"| {Spread.of(p.times)} | {p.missing} | {p.clicks / one.followers:.2f} "
                f"| {p.server_cpu / one.followers:.3f} | {p.browser_cpu:.1f} | {p.load:.1f} |"
            )
        every = [t for p in one.presses for t in p.times]
        print(f"| {one.replicas} | {one.followers} ({spread}) | **all** | {Spread.of(every)} |")
    print(
        "\n| replicas | K | idle following: server CPU (s/s) | not following (s/s) "
        "| per follower (ms CPU/s) | one core holds (followers) "
        "| browsers' CPU following / not (s/s) | load average |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for one in classes:
        f, b = one.following, one.baseline
        holds = f"{1 / one.idle_cost:.0f}" if one.idle_cost > 0 else "n/a"
        print(
            f"| {one.replicas} | {one.followers} | {f.server_cpu / f.seconds:.3f} "
            f"| {b.server_cpu / b.seconds:.3f} | {1000 * one.idle_cost:.1f} "
            f"| {holds} "
            f"| {f.browser_cpu / f.seconds:.2f} / {b.browser_cpu / b.seconds:.2f} "
            f"| {f.load:.1f} / {b.load:.1f} |"
        )
    print(
        "\nEstimate for 120 followers (not measured): the poll's wait (up to POLL_S) plus 120 "
        "catch-ups' server CPU shared by min(replicas, cores) cores:"
    )
    cores = os.cpu_count() or 1
    for one in classes:
        per = statistics.median(p.server_cpu / one.followers for p in one.presses)
        busy = 120 * per / min(one.replicas, cores)
        print(
            f"  {one.replicas} replica(s), from K = {one.followers}: {per:.3f} s per catch-up "
            f"-> about {0.95 * poll_s + busy:.1f} s at p95 ({busy:.1f} s of server CPU per step)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--followers", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--presses", type=int, default=6, help="→ presses from step 1 (≤ 9)")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle measure")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed")
    lesson = json.loads(EXAMPLE.read_text(encoding="utf-8"))["steps"]
    links = [step["link"] for step in lesson[: args.presses]]
    classes = []
    with tempfile.TemporaryDirectory(prefix="bench-follow-") as lessons, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
        try:
            for replicas in args.replicas:
                with serve_class(replicas, {"DP_EXPLORER_LESSONS": lessons}) as served:
                    print(f"{replicas} replica(s): pids {served.replicas}", flush=True)
                    rehearse(browser, served, links)
                    for k in args.followers:
                        print(f"  {k} followers...", flush=True)
                        classes.append(attend(browser, served, k, args))
        finally:
            browser.close()
    report(classes, lesson_follow.POLL_S)


if __name__ == "__main__":
    main()
