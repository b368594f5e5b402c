"""The browser tests' fixtures: one served app and one Chromium per pytest process.

Under pytest-xdist every worker is its own process, so every worker that runs browser tests
starts its own server (on a free loopback port) and its own browser; the tests of all modules
in that worker share them. A test that needs a server nobody has visited yet asks for
``fresh_server`` instead. A test that loads one page asks for ``tab``: the worker's one tab,
which each test navigates anew.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Page
from playwright.sync_api import Error as PlaywrightError

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


VIEWPORT = (1400, 1000)
"""The browser's window size, unless a test sets its own."""


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
        context = persistent_context(pw, chromium, profile, *VIEWPORT, ONE_RENDERER)
        context.add_init_script(CLOCK)
        yield context
        context.close()


@pytest.fixture(scope="session")
def _tabs(browser: BrowserContext) -> list[Page]:
    """The worker's reused tab, once opened (a list, so that a test can replace it)."""
    return []


@pytest.fixture
def tab(browser: BrowserContext, _tabs: list[Page]) -> Iterator[Page]:
    """The worker's one tab, at the browser's window size, for a test to navigate: each
    ``goto`` loads a new document with its own app session, as a new tab does, for about a
    third less of Chromium's CPU than opening and closing a tab per test (measured: 12 page
    loads, 28–31 s of CPU in new tabs against 20–22 s in one; the suite loads some 200).
    Afterwards it is left on ``about:blank``, which ends the app's session; a tab the test
    broke (closed, or stuck) is replaced."""
    if not _tabs or _tabs[0].is_closed():
        _tabs[:] = [browser.new_page()]
    page = _tabs[0]
    page.set_viewport_size({"width": VIEWPORT[0], "height": VIEWPORT[1]})
    yield page
    try:
        page.goto("about:blank", timeout=10_000)
    except PlaywrightError:  # whatever broke it, the next test gets a new tab
        if not page.is_closed():
            page.close()
