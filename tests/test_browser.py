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
def test_direct_link_renders_the_tree_page_and_the_dataset_carries_over(server, browser):
    page = browser.new_page()
    # the first request to a fresh server is a direct link to a page with its settings
    page.goto(f"{server}/tree_budgets?data=zipf-4096&tb_tree=16", wait_until="domcontentloaded")
    page.get_by_text("True vs noisy vs consistent histogram").wait_for(timeout=60_000)
    # routed by app.py: the navigation has its sections (not the file-name list)
    assert page.get_by_text("Central DP: histograms").first.is_visible()
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=60_000
    )
    # the icicle draws one SVG slice per node
    assert page.locator(".js-plotly-plot g.slice").count() > 100
    metrics = page.locator('[data-testid="stMetricValue"]')
    assert metrics.first.inner_text() == "4,096"
    assert metrics.nth(2).inner_text() == "4"  # 16-ary tree over 4,096 bins: 4 levels
    page.get_by_role("link", name="Overview").click()
    page.get_by_role("heading", name="The shared dataset and ε").wait_for(timeout=60_000)
    page.get_by_text("(4,096 bins, total").wait_for(timeout=30_000)
    page.get_by_role("link", name="Tree & budgets").click()
    page.get_by_text("True vs noisy vs consistent histogram").wait_for(timeout=60_000)
    shot = Path(os.environ.get("DP_SCREENSHOT", tempfile.gettempdir())) / "tree_page.png"
    page.screenshot(path=str(shot))
    page.close()
