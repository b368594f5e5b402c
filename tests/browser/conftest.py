"""The browser tests' fixtures: one served app and one Chromium per pytest process.

Under pytest-xdist every worker is its own process, so every worker that runs browser tests
starts its own server (on a free loopback port) and its own browser; the tests of all modules
in that worker share them. A test that needs a server nobody has visited yet asks for
``fresh_server`` instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from dpui.serve.processes import CLASS_OPTIONS
from tests.browser.settle import CLOCK
from tests.served_app import ONE_RENDERER, persistent_context, serve


@pytest.fixture(scope="session")
def server() -> Iterator[str]:
    """The URL of the app served for this process's browser tests, with the options a
    replica serving a class runs with (no file watcher, no full garbage collection after each
    run; they change nothing a page shows): a page load then costs the server about 0.2 s of
    CPU instead of 0.55 s, on a suite that spends most of its time loading pages."""
    with serve(options=CLASS_OPTIONS) as (url, _):
        yield url


@pytest.fixture
def fresh_server() -> Iterator[str]:
    """The URL of an app started for this test alone (its caches empty), with Streamlit's
    default options, as the README's command starts it."""
    with serve() as (url, _):
        yield url


@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium (a persistent context on a fresh profile, its pages in
    one renderer process) for this process; every page it opens records its last DOM change
    for ``settle``."""
    chromium = shutil.which("chromium")
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: tests/run.sh installs it")
        pytest.skip("Debian's chromium is not installed (tests/run.sh installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw, tempfile.TemporaryDirectory() as profile:
        context = persistent_context(pw, chromium, profile, 1400, 1000, ONE_RENDERER)
        context.add_init_script(CLOCK)
        yield context
        context.close()
