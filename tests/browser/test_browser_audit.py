"""Real browser: the audit page's "Use ε = ..." button changes the sidebar's ε, which is drawn
outside the page's part (a fragment of the runner): the button must ask for a full run, which
AppTest, running every click as a full run, cannot show."""

import pytest

from tests.browser.settle import settle


@pytest.mark.browser
def test_the_gallery_claim_button_moves_the_sidebar_epsilon_and_the_link(server, tab):
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/audit?au_mech=truncated_geometric&eps=1", wait_until="domcontentloaded")
    settle(page)
    page.get_by_role("button", name="Use ε = 0.1").click()
    page.wait_for_url("**audit?*eps=0.1*", timeout=30_000)
    settle(page)
    assert page.get_by_role("spinbutton", name="Privacy budget ε").input_value() == "0.1"
    assert page.get_by_text("claimed ε = 0.1", exact=False).first.is_visible()
