"""Real browser: a page's settings rerun only the page's part (a fragment of the runner), and
that part is drawn again whole: every chart is still there and the charts that follow the
setting change."""

import pytest
from playwright.sync_api import expect

from tests.browser.settle import settle

CHART_DATA = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
  .map(gd => JSON.stringify(gd.data))"""
CHANGED = f"before => ({CHART_DATA})().some((data, i) => data !== before[i])"
"""Whether any chart's data differs from ``before`` (what ``CHART_DATA`` read earlier)."""


@pytest.mark.browser
@pytest.mark.parametrize(
    ("path", "label"),
    [
        ("tree_budgets", "Noise seed"),
        ("laplace", "Noise seed"),
        ("error_analysis", "Seed"),
        ("kv_ldp", "Simulation seed"),
        ("epsilon", "Seed"),
        ("which_algorithm", "Seed"),
        ("paper_experiments", "Seed"),
    ],
)
def test_a_new_seed_redraws_the_pages_charts(server, tab, path, label):
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/{path}", wait_until="domcontentloaded")
    settle(page)
    page.get_by_text("Settings", exact=True).first.click()
    before = page.evaluate(CHART_DATA)
    assert before, "no chart drawn"
    seed = page.get_by_label(label, exact=True).first
    seed.fill("5")
    seed.press("Enter")
    page.wait_for_url(f"**{path}?*seed=5*", timeout=30_000)
    # the link changes when the rerun starts; the charts follow when it has drawn them
    page.wait_for_function(CHANGED, arg=before, timeout=60_000)
    settle(page)
    after = page.evaluate(CHART_DATA)
    assert len(after) == len(before)
    assert any(a != b for a, b in zip(after, before, strict=True))


FAST_CLICKS = """([testid, label, n, gap]) => new Promise(done => {
  const input = [...document.querySelectorAll('[data-testid=stNumberInput]')]
    .find(box => box.querySelector('label')?.innerText.trim() === label);
  const button = input.querySelector(`[data-testid=${testid}]`);
  let clicked = 0;
  const click = () => {
    button.click();
    clicked += 1;
    if (clicked < n) setTimeout(click, gap); else done();
  };
  click();
})"""
"""Clicks a number input's + (or -) ``n`` times, ``gap`` ms apart, in the page itself (a
Playwright click waits for the element each time, which spaces the clicks unevenly)."""


CLICKS = 30
"""Clicks over 4.5 s: several reruns end while the clicks go on, however loaded the machine
(10 clicks at 70 ms fall within one rerun when the machine is busy, and then all count)."""


@pytest.mark.browser
def test_quick_clicks_on_a_number_inputs_plus_all_count(server, browser):
    """Issue 37 L6: 10 clicks on a number input's + at 70 ms registered 8: every rerun
    assigned the widget's value before drawing it, which sent the browser the value the run
    started from and undid the clicks made meanwhile. All count, in the input and the link."""
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/laplace", wait_until="domcontentloaded")
    settle(page)
    page.get_by_text("Settings", exact=True).first.click()
    seed = page.get_by_label("Noise seed", exact=True)
    start = int(seed.input_value())
    page.evaluate(FAST_CLICKS, ["stNumberInputStepUp", "Noise seed", CLICKS, 150])
    expect(seed).to_have_value(str(start + CLICKS), timeout=60_000)  # 25 of 30 before
    settle(page)
    assert f"lap_seed={start + CLICKS}&" in page.url
    page.close()
