"""Real browser: dragging across the tree page's histogram chooses the explored range."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.settle import settle


@pytest.mark.browser
def test_dragging_on_the_histogram_selects_the_range(server, tab):
    page = tab
    page.goto(f"{server}/tree_budgets?data=bimodal-1024&tb_tree=4", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Explore one range").wait_for(timeout=60_000)
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=60_000
    )
    outlined = """() => {  // how many icicle nodes have the thick decomposition border
      const icicle = document.querySelectorAll('.js-plotly-plot')[0];
      const c = icicle.data[0].marker.line.color;
      return Array.isArray(c) ? c.filter(x => x === 'black').length : 0;
    }"""
    before = page.evaluate(outlined)
    first = page.get_by_label("First bin", exact=True)
    last = page.get_by_label("Last bin", exact=True)
    assert (first.input_value(), last.input_value()) == ("2", "11")
    chart = page.locator('[data-testid="stPlotlyChart"]').nth(1)  # the histogram
    chart.scroll_into_view_if_needed()
    area = chart.locator(".nsewdrag").first.bounding_box()
    assert area is not None
    y = area["y"] + area["height"] / 2
    page.mouse.move(area["x"] + area["width"] * 0.3, y)
    page.mouse.down()
    page.mouse.move(area["x"] + area["width"] * 0.5, y, steps=8)
    page.mouse.up()
    expect(first).not_to_have_value("2", timeout=30_000)
    expect(page).to_have_url(re.compile(r"tb_from=[0-9]{3}&"), timeout=30_000)
    # the two inputs are drawn one after the other (a full run once read "283" and "11")
    expect(last).not_to_have_value("11", timeout=30_000)
    lo, hi = int(first.input_value()), int(last.input_value())
    # the drag spanned 30% to 50% of the x axis over bins 1..1,024 (plus axis padding)
    assert 200 < lo < hi < 600 and hi - lo > 100
    # the range reruns only its part of the page (a fragment): the icicle above it follows
    page.wait_for_function(f"({outlined})() !== {before}", timeout=30_000)
    assert page.evaluate(outlined) > 0


@pytest.mark.browser
def test_a_new_noise_seed_updates_the_pinned_trees_icicle_in_place(server, browser):
    """The icicle does not depend on the seed: a rerun must update its chart, not draw a new
    one (an st.empty slot, sent empty first, often made the browser mount the chart anew: a
    full Plotly draw of 8,000 DOM changes, in 6 of 8 seed changes measured)."""
    page = browser.new_page()
    pin = "pin=tb_tree%3D16%26tb_alloc%3Duniform%26eps%3D0.5"
    page.goto(f"{server}/tree_budgets?{pin}", wait_until="domcontentloaded")
    page.get_by_role("heading", name="Explore one range").wait_for(timeout=60_000)
    icicle = '[data-testid="stPlotlyChart"]:has(.js-plotly-plot .icicle)'
    page.locator(icicle).first.wait_for(timeout=60_000)
    mark = f"() => {{ document.querySelector('{icicle} .js-plotly-plot').dpMark = 1; }}"
    marked = f"() => document.querySelector('{icicle} .js-plotly-plot')?.dpMark === 1"
    page.evaluate(mark)
    page.get_by_text("Settings", exact=True).first.click()
    seed = page.get_by_label("Noise seed", exact=True)
    for value in ("1", "2", "3"):
        seed.fill(value)
        seed.press("Enter")
        expect(page).to_have_url(re.compile(rf"tb_seed={value}"), timeout=30_000)
        page.wait_for_function(
            "document.querySelector('[data-testid=stApp]')"
            ".getAttribute('data-test-script-state') === 'notRunning'",
            timeout=30_000,
        )
        assert page.evaluate(marked), f"the icicle was drawn anew after seed {value}"
    page.close()


GROWN_MARGINS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  const asked = gd.layout.margin || {}, drawn = gd._fullLayout._size;
  return ['l', 'r', 't', 'b'].filter(side => !(Math.round(drawn[side]) <= asked[side]));
})"""


@pytest.mark.browser
@pytest.mark.parametrize("path", ["tree_budgets", "matrix_privelet"])
def test_charts_come_with_the_margins_their_labels_need(server, tab, path):
    """Plotly's automargin draws a chart a second time when its labels need more room than
    its margins give; the reserved margins make one draw enough (a chart drawn with wider
    margins than it asked for was drawn twice)."""
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/{path}", wait_until="domcontentloaded")
    page.wait_for_function(
        "document.querySelectorAll('.js-plotly-plot').length >= 3", timeout=60_000
    )
    settle(page)
    grown = page.evaluate(GROWN_MARGINS)
    assert len(grown) >= 3 and grown == [[]] * len(grown)


# Counts, per chart, every full recomputation (Plotly assigns a new gd.calcdata) from the
# moment Plotly marks the element as a plot: the mount's own draw comes first, so what is
# counted is any redraw Streamlit's second hand-over of the figure causes.
RECALCS = """window.__recalcs = [];
new MutationObserver((changes) => { for (const c of changes) {
  const gd = c.target;
  if (!gd.classList || !gd.classList.contains('js-plotly-plot') || gd.__counted) continue;
  gd.__counted = true;
  let value = gd.calcdata;
  const key = (gd.closest('[class*=st-key-]')?.className.match(/st-key-([\\w-]+)/) || [])[1];
  Object.defineProperty(gd, 'calcdata', {configurable: true, get: () => value,
    set: (v) => { if (v) window.__recalcs.push(key); value = v; }});
} }).observe(document, {subtree: true, attributes: true, attributeFilter: ['class']});"""


CHARTS = "[...document.querySelectorAll('.js-plotly-plot')]"
REDRAWN = CHARTS + (  # the charts drawn anew since they were marked
    ".filter(gd => !gd.__marked)"
    ".map(gd => gd.closest('[class*=st-key-]').className.match(/st-key-([\\w-]+)/)[1])"
)


@pytest.mark.browser
def test_a_redrawn_chart_is_computed_once(server, tab):
    """Streamlit hands Plotly each new chart twice; with a template or binary arrays in the
    figure, Plotly computed and drew it all again (dpui.kit.plot_once). Choosing a range redraws
    the histogram and the range's chart: neither may be computed after its first draw.
    (Plotly recomputes an icicle on every hand-over whatever the figure holds: measured.)"""
    page = tab
    page.add_init_script(RECALCS)
    page.goto(f"{server}/tree_budgets", wait_until="domcontentloaded")
    settle(page)
    page.evaluate(f"window.__recalcs = []; {CHARTS}.forEach(gd => {{ gd.__marked = true; }})")
    first = page.get_by_label("First bin", exact=True)
    first.fill("5")
    first.press("Enter")
    expect(page).to_have_url(re.compile(r"tb_from=5"), timeout=30_000)
    settle(page)
    page.wait_for_timeout(1000)  # Streamlit's second hand-over follows the first draw
    recalcs = page.evaluate("window.__recalcs")
    assert {"hist_chart", "range_chart"} <= set(page.evaluate(REDRAWN))  # they were redrawn
    assert [c for c in recalcs if c != "tree_chart"] == []


@pytest.mark.browser
def test_dragging_a_box_on_the_spatial_heatmaps_sets_the_rectangle(server, tab):
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/spatial", wait_until="domcontentloaded")
    chart = page.locator('[data-testid="stPlotlyChart"]').first  # the three heatmaps
    chart.wait_for(timeout=60_000)
    chart.scroll_into_view_if_needed()
    settle(page)
    area = chart.locator(".nsewdrag").first.bounding_box()  # the first panel: 32 x 32 cells
    assert area is not None
    cell = area["width"] / 32  # square cells: the panel spans columns -0.5 .. 31.5
    # from the centre of cell (row 2, column 3) to the centre of cell (row 9, column 14)
    page.mouse.move(area["x"] + 3.5 * cell, area["y"] + 2.5 * cell)
    page.mouse.down()
    page.mouse.move(area["x"] + 14.5 * cell, area["y"] + 9.5 * cell, steps=8)
    page.mouse.up()
    expect(page).to_have_url(re.compile(r"sp_x0=2&sp_x1=9&sp_y0=3&sp_y1=14"), timeout=30_000)
    settle(page)
    assert page.locator('[data-testid="stException"]').count() == 0
