"""WCAG 2.1 AA in a real browser: axe-core on every page, keyboard-only use, reduced motion.

axe-core comes from the ``axe-playwright-python`` package (its bundled ``axe.min.js``, injected
into the page; nothing is fetched at run time). The rules run are axe's WCAG 2.0 and 2.1 A and
AA rules; a serious or critical violation fails the test, with the rule, its impact and the
offending markup in the message.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import ConsoleMessage, Error, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from dpui.algorithms.page import SECTION as WA_SECTION
from dpui.algorithms.page import SECTIONS as WA_SECTIONS
from dpui.errors.settings import VIEW as EA_VIEW
from dpui.errors.settings import VIEWS as EA_VIEWS
from dpui.ldp.settings import SECTION as KV_SECTION
from dpui.ldp.settings import SECTIONS as KV_SECTIONS
from dpui.ldp_ranges.page import SECTION as LR_SECTION
from dpui.ldp_ranges.page import SECTIONS as LR_SECTIONS
from dpui.meaning.parts import PART, PARTS
from dpui.mechanisms.laplace import SECTION as LAP_SECTION
from dpui.mechanisms.laplace import SECTIONS as LAP_SECTIONS
from dpui.papers.view import EXPERIMENT, EXPERIMENTS
from dpui.registry import PAGES
from dpui.spatial.sections import SECTION as SP_SECTION
from dpui.spatial.sections import SECTIONS as SP_SECTIONS
from dpui.tree.view import SECTION as TB_SECTION
from dpui.tree.view import SECTIONS as TB_SECTIONS
from tests.browser.settle import settle
from tests.browser.text_boxes import cut_text, overlapping_text, small_plot_areas

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


CHARTED = {page.key for page in PAGES if page.charts}
"""The pages that draw charts."""
FIGURED = {page.key for page in PAGES if page.charts and page.view is not None}
"""The pages with a main figure (a view), sized to fit a projector when presenting."""


@contextmanager
def console_errors(page: Page, errors: list[tuple[str, str]]) -> Iterator[None]:
    """Within the block, the page's console errors and uncaught exceptions are appended to
    ``errors`` as (text, script URL); a reused tab keeps no listener afterwards."""

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append((message.text, message.location.get("url", "")))

    def thrown(error: Error) -> None:
        errors.append((str(error), ""))

    page.on("console", console)
    page.on("pageerror", thrown)
    try:
        yield
    finally:
        page.remove_listener("console", console)
        page.remove_listener("pageerror", thrown)


def real_console_errors(messages: list[tuple[str, str]]) -> list[str]:
    """The console errors of a page load, less the two 404s Streamlit's frontend expects: it
    probes '<page>/_stcore/health' and '<page>/_stcore/host-config' to find its base path on a
    deep link and falls back to '/'."""
    return [
        text
        for text, url in messages
        if not (url.endswith(("/_stcore/health", "/_stcore/host-config")) and "404" in text)
    ]


@pytest.mark.browser
@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key", [p.key for p in PAGES])
def test_no_serious_axe_violation_and_headings_in_order(server, tab, key, mode, viewport):
    """Every page's default view, on a 1280x720 screen and a 390x844 phone, normal and
    presenting, loaded once and checked for all a view must do: no exception and no console
    error; the toolbar first ("Copy link"); a charted page draws its charts; presenting at
    1280x720, the sidebar and settings are hidden and the main figure's box lies inside the
    viewport (a projector); no serious axe violation, no chart text printed over other chart
    text (but presenting on a phone), and headings in order; presenting at 1280x720 and on
    a phone in normal mode, no chart text cut at the chart's edge and no plot area under the
    minimum (``text_boxes``). Screenshots go to
    ``$DP_EXPLORER_SCREENSHOTS`` when it is set (the sweep a lecturer does before class)."""
    page = tab
    width, height = VIEWPORTS[viewport]
    page.set_viewport_size({"width": width, "height": height})
    errors: list[tuple[str, str]] = []
    path = "" if key == "home" else key
    with console_errors(page, errors):
        page.goto(f"{server}/{path}?{MODES[mode]}", wait_until="domcontentloaded")
        settle(page)
    if out := os.environ.get("DP_EXPLORER_SCREENSHOTS"):
        Path(out).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{out}/{key}-{viewport}-{mode}.png")
    assert page.locator('[data-testid="stException"]').count() == 0
    assert real_console_errors(errors) == []
    assert page.get_by_role("button", name="Copy link").is_visible()
    if key in CHARTED:
        chart = page.locator(".js-plotly-plot").first
        assert chart.count() == 1, "no chart drawn"
    if mode == "presenting" and viewport == "desktop":
        assert not page.locator('[data-testid="stSidebar"]').is_visible()
        assert not page.get_by_text("Settings", exact=True).is_visible()
        if key in FIGURED:
            box = chart.bounding_box()
            assert box is not None and 0 <= box["y"] <= box["y"] + box["height"] <= height, box
    assert violations(page) == []
    # presenting sizes a chart for a projector: on a phone its legend rows wrap past the room
    # kept for them (known; QR codes open students' phones in normal mode)
    if not (mode == "presenting" and viewport == "phone"):
        assert overlapping_text(page) == []
    # the screens a class sees: the projector, and students' phones (issue 35)
    if (mode, viewport) in (("presenting", "desktop"), ("normal", "phone")):
        assert cut_text(page) == []
        assert small_plot_areas(page) == []
    headings = page.evaluate(HEADINGS)
    assert headings and headings[0][0] == 1, headings
    assert skipped_levels(headings) == []


OTHER_VIEWS = [
    (page, f"{param.name}={value}")
    for page, param, values in (
        ("tree_budgets", TB_SECTION, TB_SECTIONS),
        ("error_analysis", EA_VIEW, EA_VIEWS),
        ("paper_experiments", EXPERIMENT, EXPERIMENTS),
        ("which_algorithm", WA_SECTION, WA_SECTIONS),
        ("laplace", LAP_SECTION, LAP_SECTIONS),
        ("kv_ldp", KV_SECTION, KV_SECTIONS),
        ("ldp_ranges", LR_SECTION, LR_SECTIONS),
        ("epsilon", PART, PARTS),
        ("spatial", SP_SECTION, SP_SECTIONS),
    )
    for value in values
    if value != param.default
]
"""Every section or view a page opens besides its default one (the test above scans those)."""


SCREENS = {"projector": (1280, 720, "present=1"), "phone": (390, 844, "")}
"""The two screens a class sees (issue 35): a 1280x720 projector presenting, and a 390x844
phone in normal mode (students' links open interactive)."""


FITTING = [(key, query, screen) for key, query in OTHER_VIEWS for screen in SCREENS]


@pytest.mark.browser
@pytest.mark.parametrize(("key", "query", "screen"), FITTING)
def test_every_other_section_fits_both_screens(server, tab, key, query, screen):
    """Every other section on the projector (presenting) and on a phone, each a test of its
    own: no chart text over other chart text, none cut at the chart's edge, no plot area or
    panel under the minimum (``text_boxes``). On the projector, the sidebar and settings
    are hidden and the section's first figure lies inside 1280x720 (a presenting
    ``/paper_experiments?px_view=custom`` put its prose above the figure, pushing it below
    the fold). axe and the heading order run on the phone only (normal mode: every control
    of the section is there; presenting hides the sidebar), once per section. Screenshots
    go to ``$DP_EXPLORER_SCREENSHOTS`` when set."""
    page = tab
    width, height, mode = SCREENS[screen]
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{server}/{key}?{query}&{mode}".rstrip("&"), wait_until="domcontentloaded")
    settle(page)
    if out := os.environ.get("DP_EXPLORER_SCREENSHOTS"):
        Path(out).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{out}/{key}-{query.replace('=', '-')}-{screen}.png")
    assert query in page.url  # the view was accepted (a rejected value leaves the link)
    assert page.locator('[data-testid="stException"]').count() == 0
    found = {
        "overlapping": overlapping_text(page),
        "cut": cut_text(page),
        "small": small_plot_areas(page),
    }
    assert found == {"overlapping": [], "cut": [], "small": []}
    if screen == "projector":  # the section's figure fits, without the sidebar and settings
        assert not page.locator('[data-testid="stSidebar"]').is_visible()
        settings = page.locator(".st-key-dp-settings")  # dpui.kit.present.settings_panel
        assert settings.count() == 1 and not settings.is_visible()
        box = page.locator(".js-plotly-plot").first.bounding_box()
        assert box is not None and 0 <= box["y"] <= box["y"] + box["height"] <= height, box
    if screen == "phone":
        assert violations(page) == []
        assert skipped_levels(page.evaluate(HEADINGS)) == []


def test_skipped_levels_finds_a_skip_and_only_a_skip():
    assert skipped_levels([[1, "a"], [2, "b"], [3, "c"], [2, "d"], [3, "e"]]) == []
    assert skipped_levels([[1, "a"], [3, "b"]]) == ["h3 'b' after h1"]
    assert skipped_levels([[2, "a"]]) == ["h2 'a' after h0"]


FOCUSED = r"""() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const text = ['SUMMARY', 'BUTTON', 'A'].includes(el.tagName)
    ? el.textContent.replace(/\s+/g, ' ') : '';
  return {
    name: [el.getAttribute('aria-label') || '', text].join(' | '),
    ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
  };
}"""


def tab_to(page: Page, name: str, *, limit: int = 250) -> None:
    """Press Tab until the focused control is ``name``: its aria-label, or else its text
    (after an icon's ligature), and check that it shows a focus ring."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        label, text = (p.strip() for p in focused["name"].split(" | ")) if focused else ("", "")
        if label == name or (not label and text.endswith(name)):
            assert focused["ring"], f"{name!r} has no visible focus ring"
            return
    pytest.fail(f"Tab never reached {name!r}")


def choose(page: Page, name: str, option: str) -> None:
    """Type ``option`` into select box ``name`` and take it with Enter once it is offered."""
    tab_to(page, name)
    offered = page.get_by_role("option", name=option, exact=True)
    for _ in range(3):  # a rerun landing while typing can redraw the box: type afresh
        page.keyboard.type(option)
        for _ in range(5):  # typing opens the list, but not always at once: ArrowDown opens it
            if offered.is_visible():
                break
            page.keyboard.press("ArrowDown")
            with contextlib.suppress(PlaywrightTimeoutError):
                offered.wait_for(timeout=500)
        if offered.is_visible():
            break
        page.keyboard.press("Escape")
        page.keyboard.press("Control+A")
        page.keyboard.press("Backspace")
        settle(page)
    offered.wait_for(timeout=10_000)
    page.keyboard.press("Enter")


def enter_number(page: Page, name: str, value: str) -> None:
    tab_to(page, name)
    page.keyboard.press("Control+A")
    page.keyboard.type(value)
    page.keyboard.press("Enter")


@pytest.mark.browser
def test_the_tree_pages_main_flow_works_with_the_keyboard_alone(server, browser):
    """Dataset, fan-out, ε, a range by its number inputs (the keyboard path beside dragging on
    the histogram), pin, and Copy link: no mouse event at all."""
    browser.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/tree_budgets", wait_until="domcontentloaded")
    settle(page)
    choose(page, "Dataset", "bimodal-1024")
    expect(page).to_have_url(re.compile(r"data=bimodal-1024"), timeout=30_000)
    settle(page)
    tab_to(page, "Settings")  # the collapsed settings panel opens with Enter
    page.keyboard.press("Enter")
    settle(page)
    choose(page, "Tree", "4-ary")
    expect(page).to_have_url(re.compile(r"tb_tree=4(&|$)"), timeout=30_000)
    settle(page)
    enter_number(page, "Privacy budget ε", "0.5")
    expect(page).to_have_url(re.compile(r"eps=0\.5(&|$)"), timeout=30_000)
    settle(page)
    enter_number(page, "First bin", "100")
    expect(page).to_have_url(re.compile(r"tb_from=100(&|$)"), timeout=30_000)
    settle(page)
    enter_number(page, "Last bin", "300")
    expect(page).to_have_url(re.compile(r"tb_to=300(&|$)"), timeout=30_000)
    settle(page)
    tab_to(page, "Pin this view")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Unpin").wait_for(timeout=30_000)
    expect(page).to_have_url(re.compile(r"pin=.*tb_tree%3D4"), timeout=30_000)
    settle(page)
    tab_to(page, "Copy link")
    page.keyboard.press("Enter")
    page.get_by_role("button", name="Link copied").wait_for(timeout=5_000)
    copied = page.evaluate("navigator.clipboard.readText()")
    assert "tb_from=100" in copied and "tb_to=300" in copied and "eps=0.5" in copied
    page.close()


LONGEST_TRANSITION = """() => Math.max(0, ...[...document.querySelectorAll('*')].map(
  e => parseFloat(getComputedStyle(e).transitionDuration) || 0))"""


@pytest.mark.browser
@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_the_exponential_mechanisms_animation_honours_reduced_motion(server, browser, motion):
    page = browser.new_page()
    page.emulate_media(reduced_motion=motion)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/exponential", wait_until="domcontentloaded")
    settle(page)
    play = page.get_by_role("button", name="Play")
    everything = page.get_by_role("button", name="All at once")
    assert everything.is_visible()
    if motion == "no-preference":  # the batch-by-batch reveal is offered
        assert play.is_visible()
        return page.close()
    assert not play.is_visible()  # only the one-step reveal
    assert page.evaluate(LONGEST_TRANSITION) == 0
    everything.focus()
    page.keyboard.press("Enter")
    page.get_by_text(re.compile(r"^([\d,]+) of \1 runs$")).wait_for(timeout=30_000)
    page.close()


@pytest.mark.browser
def test_overlapping_text_finds_a_title_under_a_legend_and_only_that(tab):
    """The check can fail: a chart's title and a legend entry drawn at one spot are found;
    two tick labels of one axis at one spot (Plotly's own spacing) and far-apart text are
    not."""
    page = tab
    page.set_content(
        '<div class="js-plotly-plot"><svg width="400" height="200">'
        '<text class="gtitle" x="10" y="20" font-size="16">True vs noisy values</text>'
        '<g class="legend"><text class="legendtext" x="40" y="22" font-size="14">noisy</text></g>'
        '<g class="xtick"><text x="10" y="150">10</text></g>'
        '<g class="xtick"><text x="12" y="150">20</text></g>'
        '<text class="ytitle" x="300" y="100">value</text></svg></div>'
    )
    (found,) = overlapping_text(page)
    assert found[1:5] == ["title", "True vs noisy values", "legend", "noisy"]


@pytest.mark.browser
def test_overlapping_text_finds_y_axis_labels_printed_over_each_other(tab):
    """Plotly prints every name of a category axis and four ticks on any y axis: two names
    11 px apart at an 18-px font are found (a presented ranking had its 13 algorithms so),
    and two numbers (Laplace's two panels, '0' over '5'); two 26 px apart are not."""
    page = tab
    page.set_content(
        '<div class="js-plotly-plot"><svg width="400" height="200">'
        '<g class="ytick"><text x="10" y="40" font-size="18">MWEM</text></g>'
        '<g class="ytick"><text x="10" y="51" font-size="18">Uniform</text></g>'
        '<g class="ytick"><text x="10" y="120" font-size="18">HB</text></g>'
        '<g class="ytick"><text x="10" y="146" font-size="18">DAWA</text></g>'
        '<g class="ytick"><text x="200" y="40" font-size="18">0</text></g>'
        '<g class="ytick"><text x="200" y="51" font-size="18">5</text></g></svg></div>'
    )
    found = sorted(f[1:5] for f in overlapping_text(page))
    assert found == [["ytick", "0", "ytick", "5"], ["ytick", "MWEM", "ytick", "Uniform"]]


@pytest.mark.browser
def test_overlapping_text_counts_data_labels(tab):
    """A data label is text like any other: a bar's value under a method's name and two
    points' labels at one spot are found (the Tree page's method panel and the HISKV
    frontier had both); labels apart are not."""
    page = tab
    page.set_content(
        '<div class="js-plotly-plot"><svg width="400" height="200">'
        '<text class="annotation-text" x="10" y="20" font-size="11">per-node, BLUE</text>'
        '<text class="bartext" x="30" y="26" font-size="11">52.82</text>'
        '<g class="textpoint"><text x="200" y="100">0.76</text></g>'
        '<g class="textpoint"><text x="204" y="102">1</text></g>'
        '<g class="textpoint"><text x="300" y="180">0.05</text></g></svg></div>'
    )
    found = sorted(f[1:5] for f in overlapping_text(page))
    expected = [["annotation", "per-node, BLUE", "data", "52.82"], ["data", "0.76", "data", "1"]]
    assert found == expected
