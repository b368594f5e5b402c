"""One real-browser test: serve the app on 127.0.0.1 and drive Debian's chromium (Playwright)."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(ROOT / "app.py"),
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            pytest.fail("the app did not start within 60 s")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium")
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: tests/run.sh installs it")
        pytest.skip("Debian's chromium is not installed (tests/run.sh installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 1000},
        )
        yield context
        context.close()


@pytest.mark.browser
def test_tree_page_renders_its_charts_and_keeps_the_dataset(server, browser):
    page = browser.new_page()
    page.goto(f"{server}/?data=zipf-4096", wait_until="domcontentloaded")
    page.get_by_role("heading", name="The shared dataset and ε").wait_for(timeout=60_000)
    page.get_by_text("(4,096 bins, total").wait_for(timeout=30_000)
    page.get_by_role("link", name="Tree & budgets").click()
    page.get_by_text("True vs noisy vs consistent histogram").wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=60_000
    )
    # the icicle draws one SVG path per node
    assert page.locator(".js-plotly-plot g.slice").count() > 100
    bins = page.locator('[data-testid="stMetricValue"]').first.inner_text()
    assert bins == "4,096", "the dataset chosen on the overview carries over to the tree page"
    shot = Path(os.environ.get("DP_SCREENSHOT", tempfile.gettempdir())) / "tree_page.png"
    page.screenshot(path=str(shot), full_page=True)
    page.close()
