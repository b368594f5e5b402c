"""Which algorithm for my data? on a 2-D map in a real browser: the ranking and the release
drawn as two heatmaps with PrivTree's cells outlined, at 1280x720."""

import os
import tempfile
from pathlib import Path

import pytest

from tests.browser.settle import settle

LINK = "which_algorithm?wa_data=2d&wa_trials=2&wa_show_2d=release&wa_release_2d=PrivTree"


@pytest.mark.browser
def test_the_2d_ranking_and_privtrees_cells_on_the_heatmaps_are_drawn(server, tab):
    page = tab
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{server}/{LINK}", wait_until="domcontentloaded")
    settle(page)
    folder = Path(os.environ.get("DP_SCREENSHOT") or tempfile.mkdtemp(prefix="dp-pages-"))
    page.screenshot(path=str(folder / "which_algorithm_2d.png"), full_page=True)
    assert not page.locator('[data-testid="stException"]').count()
    charts = page.evaluate(
        "() => [...document.querySelectorAll('.js-plotly-plot')].map(p => ({"
        "types: p._fullData.map(t => t.type),"
        "shapes: (p._fullLayout.shapes || []).map(s => [s.type, s.path.split('M').length - 1]),"
        "names: p._fullData.map(t => t.name)}))"
    )
    heatmaps = [c for c in charts if c["types"] == ["heatmap", "heatmap"]]
    assert len(heatmaps) == 1, charts
    shapes = heatmaps[0]["shapes"]
    assert [kind for kind, _ in shapes] == ["path", "path"]
    assert shapes[0][1] == shapes[1][1] > 1  # the same cells outlined on input and release
    ranking = [c for c in charts if "scatter" in c["types"] and "heatmap" not in c["types"]]
    assert ranking, charts
    assert page.get_by_text("PrivTree spent ε = 1").count() >= 1
