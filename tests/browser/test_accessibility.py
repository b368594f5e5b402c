"""WCAG 2.1 AA in a real browser: axe-core on every page, keyboard-only use, reduced motion.

axe-core comes from the ``axe-playwright-python`` package (its bundled ``axe.min.js``, injected
into the page; nothing is fetched at run time). The rules run are axe's WCAG 2.0 and 2.1 A and
AA rules; a serious or critical violation fails the test, with the rule, its impact and the
offending markup in the message.
"""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page

from dpui.registry import PAGES
from tests.browser.test_browser import _settle, browser, server  # noqa: F401  (fixtures)

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
FAILING = ("serious", "critical")
VIEWPORTS = {"desktop": (1280, 720), "phone": (390, 844)}
MODES = {"normal": "", "presenting": "present=1"}

HEADINGS = """() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
  .map(h => [Number(h.tagName[1]), h.textContent.trim().slice(0, 60)])"""


def violations(page: Page) -> list[str]:
    """axe-core's serious and critical WCAG 2.0/2.1 A/AA violations on ``page``, one line each."""
    options = {"runOnly": {"type": "tag", "values": WCAG_TAGS}, "resultTypes": ["violations"]}
    found = Axe().run(page, options=options).response["violations"]
    return [
        f"{v['id']} ({v['impact']}): " + " | ".join(n["html"][:160] for n in v["nodes"][:4])
        for v in found
        if v["impact"] in FAILING
    ]


def skipped_levels(headings: list[list]) -> list[str]:
    """Headings that skip a level (an h3 right after an h1), and a first heading that is not
    the page's h1."""
    wrong = []
    previous = 0
    for level, text in headings:
        if level > previous + 1:
            wrong.append(f"h{level} {text!r} after h{previous}")
        previous = level
    return wrong


@pytest.mark.browser
@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", [p.key for p in PAGES])
def test_no_serious_axe_violation_and_headings_in_order(server, browser, key, mode, viewport):  # noqa: F811
    page = browser.new_page()
    width, height = VIEWPORTS[viewport]
    page.set_viewport_size({"width": width, "height": height})
    path = "" if key == "home" else key
    page.goto(f"{server}/{path}?{MODES[mode]}", wait_until="domcontentloaded")
    _settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert violations(page) == []
    headings = page.evaluate(HEADINGS)
    assert headings and headings[0][0] == 1, headings
    assert skipped_levels(headings) == []
    page.close()


def test_skipped_levels_finds_a_skip_and_only_a_skip():
    assert skipped_levels([[1, "a"], [2, "b"], [3, "c"], [2, "d"], [3, "e"]]) == []
    assert skipped_levels([[1, "a"], [3, "b"]]) == ["h3 'b' after h1"]
    assert skipped_levels([[2, "a"]]) == ["h2 'a' after h0"]
