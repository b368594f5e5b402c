"""The app served on 127.0.0.1 and Debian's Chromium flags: shared by the browser tests and
the browser benchmarks (``bench/bench_browser.py``, ``bench/bench_links.py``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import BrowserContext, Playwright

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


@contextmanager
def serve(
    env: dict[str, str] | None = None, app: Path = ROOT, options: Sequence[str] = ()
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run ``streamlit run app_server.py`` of checkout ``app`` (``app.py`` in a checkout
    older than it) headless on a free port (with extra environment ``env`` and Streamlit
    ``options``); yield its URL once healthy and the process; stop it afterwards."""
    port = free_port()
    script = app / "app_server.py"
    if not script.is_file():
        script = app / "app.py"
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "streamlit", "run", str(script)),
            *("--server.address", "127.0.0.1", "--server.port", str(port)),
            *("--server.headless", "true", "--browser.gatherUsageStats", "false"),
            *options,
        ],
        cwd=app,
        env={**os.environ, **(env or {})},
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
            raise RuntimeError("the app did not start within 60 s")
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()  # reaped: an unreaped Popen warns when collected, in another test


ONE_RENDERER = ["--disable-site-isolation-trials", "--renderer-process-limit=1"]
"""Extra flags for the browser tests: every page of the context in one renderer process.

By default each new page starts its own renderer, which compiles Streamlit's and Plotly's
JavaScript afresh; one long-lived renderer keeps the compiled code, and a page load costs
about a third less CPU (measured: the tree page 3.6 -> 2.3 s of Chromium CPU, Laplace 3.2 ->
2.1 s). The pages are separate documents either way. The benchmarks keep the default
process model, because a user's first visit pays for a fresh renderer."""


def persistent_context(
    pw: Playwright,
    chromium: str,
    profile: str,
    width: int,
    height: int,
    extra_flags: list[str] | None = None,
) -> BrowserContext:
    """Debian's Chromium at ``chromium``, headless with ``CHROMIUM_FLAGS`` (and
    ``extra_flags``), on the fresh profile folder ``profile`` and a ``width`` x ``height``
    viewport."""
    return pw.chromium.launch_persistent_context(
        profile,
        executable_path=chromium,
        headless=True,
        args=[*CHROMIUM_FLAGS, *(extra_flags or [])],
        viewport={"width": width, "height": height},
    )
