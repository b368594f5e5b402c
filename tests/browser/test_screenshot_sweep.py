"""The screenshot sweep a lecturer does before class: every page on a 1280x720 screen and a
390x844 phone, normal and presenting. Each view renders without an error and with its
charts; presenting at 1280x720, the main figure's box lies inside the viewport. The
screenshots are written to ``$DP_EXPLORER_SCREENSHOTS`` when it is set (for looking at)."""

import os
from pathlib import Path

import pytest

from dpui.registry import PAGES
from tests.browser.settle import settle

VIEWPORTS = {"desktop": (1280, 720), "phone": (390, 844)}
CHARTED = [page.key for page in PAGES if page.charts and page.view is not None]


@pytest.mark.browser
@pytest.mark.parametrize("key", CHARTED)
def test_every_page_renders_on_desktop_and_phone_normal_and_presenting(server, browser, key):
    out = os.environ.get("DP_EXPLORER_SCREENSHOTS")
    page = browser.new_page()
    for device, (width, height) in VIEWPORTS.items():
        page.set_viewport_size({"width": width, "height": height})
        for mode in ("normal", "present"):
            page.goto(f"{server}/{key}?present={int(mode == 'present')}")
            settle(page)  # every chart drawn at its final size
            chart = page.locator(".js-plotly-plot").first
            where = f"{key} {device} {mode}"
            assert not page.locator('[data-testid="stException"]').count(), where
            if out:
                Path(out).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=f"{out}/{key}-{device}-{mode}.png")
            if mode == "present" and device == "desktop":
                box = chart.bounding_box()
                assert box is not None and 0 <= box["y"] <= box["y"] + box["height"] <= 720, (
                    where,
                    box,
                )
    page.close()
