"""Real browser: a page's settings rerun only the page's part (a fragment of the runner), and
that part is drawn again whole: every chart is still there and the charts that follow the
setting change."""

import pytest

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
def test_a_new_seed_redraws_the_pages_charts(server, browser, path, label):
    page = browser.new_page()
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
    page.close()
