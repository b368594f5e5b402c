"""The lecturer's side of following, in a real browser: shared by the follow test and
``bench/bench_follow.py``."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.settle import settle


def lead(lecturer: Page, url: str, *, limit_s: float = 60.0) -> str:
    """The lecturer on the app at ``url``: load the bundled lesson, let the class follow,
    present it from step 1; returns the follow link (each wait at most ``limit_s``)."""
    ms = limit_s * 1000
    lecturer.goto(f"{url}/lesson", wait_until="domcontentloaded")
    lecturer.get_by_role("button", name="Load the example: DP histograms in 50 minutes").click()
    lecturer.get_by_text("Loaded 10 steps from the example lesson").wait_for(timeout=ms)
    lecturer.get_by_role("button", name="Let the class follow this lesson").click()
    code = lecturer.locator("code", has_text="?f=").first
    code.wait_for(timeout=ms)
    link = code.inner_text()
    lecturer.get_by_role("button", name="Present the lesson").click()
    expect(lecturer.get_by_text(re.compile(r"^Step \d+ of 10$"))).to_have_text(
        "Step 1 of 10", timeout=ms
    )
    settle(lecturer, limit_s=limit_s)
    return link
