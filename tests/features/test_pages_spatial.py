"""The "Spatial data" page through AppTest: the default view, every budget rule, a bad
rectangle, uploads, and the numbers shown against dpcore and independent formulas."""

from __future__ import annotations

import json
import time
import tracemalloc
from pathlib import Path
from urllib.parse import urlencode

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore import spatial
from dpcore.spatial.grid_data import from_grid
from dpcore.spatial.rules import SPATIAL_BUDGETS
from dpui.kit import byte_cache, chart_text, examples, limits
from dpui.kit.page import Inputs
from dpui.spatial import data, figures
from dpui.spatial import view as sv
from dpui.spatial.sections import COLOUR, LEVEL, RELEASES, SECTION
from tests.uploads import uploader

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "spatial.py")


def _page() -> AppTest:
    return AppTest.from_file(PAGE, default_timeout=120)


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _errors(at: AppTest) -> list[str]:
    return [str(e.value) for e in at.error]


def _stroke() -> np.ndarray:
    return np.loadtxt(ROOT / "assets" / "grids" / "stroke-32x32.csv", delimiter=",")


def test_default_view_shows_the_rectangle_and_dpcores_exact_errors():
    at = _page().run()
    assert not at.exception and not _errors(at)
    counts = _stroke()
    x0, x1, y0, y1 = (p.default for p in (sv.X0, sv.X1, sv.Y0, sv.Y1))
    assert _number(_metric(at, "True answer")) == counts[x0 : x1 + 1, y0 : y1 + 1].sum()
    at = _page()
    at.query_params[SECTION.name] = "rules"
    at.run()
    assert not at.exception and not _errors(at)
    errors = at.dataframe[0].value
    for row, rule in enumerate(SPATIAL_BUDGETS):
        for column, consistent in (("raw tree", False), ("after BLUE", True)):
            expected = spatial.expected_error((32, 32), budgets=rule, consistent=consistent)
            assert errors[column].iloc[row] == pytest.approx(expected, rel=1e-12)
    # Identity, independently: 2 E[area] / eps^2, E[width] = (n + 1) / 2 per axis
    assert errors["raw tree"].iloc[-1] == pytest.approx(2 * 16.5**2)
    # BLUE never does worse than the raw tree it starts from
    assert (errors["after BLUE"] <= errors["raw tree"] * (1 + 1e-12)).all()


@pytest.mark.parametrize("rule", SPATIAL_BUDGETS)
def test_every_budget_rule_renders_and_its_rectangle_errors_hold(rule):
    at = _page().run()
    at.selectbox(key=sv.BUDGETS.name).set_value(rule).run()
    assert not at.exception and not _errors(at)
    table = at.dataframe[0].value
    raw, blue = table["exact expected squared error"]
    assert blue <= raw * (1 + 1e-12)
    if rule == "identity":  # every cell Lap(1/eps): 2 * area / eps^2
        x0, x1, y0, y1 = (p.default for p in (sv.X0, sv.X1, sv.Y0, sv.Y1))
        area = (x1 - x0 + 1) * (y1 - y0 + 1)
        assert raw == pytest.approx(2 * area) and blue == pytest.approx(2 * area)
    true = _number(_metric(at, "True answer"))
    for label, column in (("Raw tree", 0), ("After BLUE", 1)):
        shown = _number(_metric(at, label))
        assert shown - true == pytest.approx(table["error of this release"].iloc[column], abs=0.1)


def test_a_bad_rectangle_is_a_message_and_the_input_is_kept():
    at = _page().run()
    at.number_input(key=sv.X0.name).set_value(25).run()  # after x1 = 19
    assert not at.exception
    assert any("after its last" in e for e in _errors(at))
    assert at.number_input(key=sv.X0.name).value == 25
    assert not [m for m in at.metric if m.label == "True answer"]
    at.number_input(key=sv.X0.name).set_value(0).run()
    at.number_input(key=sv.Y1.name).set_value(40).run()  # the grid has columns 0..31
    assert any("not inside the grid of 32 rows and 32 columns" in e for e in _errors(at))


def test_fanout_changes_the_tree_and_a_bad_link_falls_back():
    at = _page()
    at.query_params[sv.BUDGETS.name] = "best"
    at.query_params[sv.FANOUT.name] = "4"
    at.query_params[SECTION.name] = "rules"
    at.run()
    assert not at.exception
    assert any("sp_budgets=best" in str(w.value) for w in at.warning)
    assert at.selectbox(key=sv.BUDGETS.name).value == "per-node"
    expected = spatial.expected_error((32, 32), fanout=(4, 4), budgets="geometric")
    assert at.dataframe[0].value["after BLUE"].iloc[2] == pytest.approx(expected, rel=1e-12)


def test_upload_waits_for_a_file_reads_points_and_keeps_it_after_a_bad_file():
    at = _page().run()
    at.selectbox(key=sv.SOURCE.name).set_value(data.UPLOAD).run()
    assert not at.exception
    assert any("No 2-D file is uploaded" in str(w.value) for w in at.warning)
    for param, value in ((sv.X0, 0), (sv.X1, 3), (sv.Y0, 0), (sv.Y1, 3)):
        at.number_input(key=param.name).set_value(value).run()
    at.selectbox(key=data.LAYOUT).set_value("points").run()
    at.number_input(key=data.BIN_ROWS).set_value(4).run()
    at.number_input(key=data.BIN_COLS).set_value(4).run()
    at.text_input(key=data.BOUNDS).set_value("0, 4, 0, 4").run()
    points = b"lon,lat\n0.5,0.5\n1.5,3.5\n3.9,0.1\n4,4\n"
    uploader(at, data.UPLOAD_WIDGET).set_value(("mine.csv", points, "text/csv")).run()
    assert not at.exception and not _errors(at), _errors(at)
    assert _metric(at, "True answer") == "4"
    outside = b"lon,lat\n0.5,0.5\n5,1\n"
    uploader(at, data.UPLOAD_WIDGET).set_value(("bad.csv", outside, "text/csv")).run()
    assert not at.exception
    message = " ".join(_errors(at))
    assert "bad.csv was not loaded" in message and "Line 3" in message
    assert "outside the bounds" in message
    assert _metric(at, "True answer") == "4"  # the previous grid stays


def test_the_heatmaps_share_one_colour_scale_and_outline_the_rectangle_on_each():
    a, b = np.array([[0.0, 5.0], [1.0, 2.0]]), np.array([[-3.0, 1.0], [np.nan, 9.0]])
    fig = figures.grid_heatmaps([("a", a), ("b", b)], title="t", box=(0, 1, 1, 1))
    assert [t.coloraxis for t in fig.data] == ["coloraxis", "coloraxis"]
    assert (fig.layout.coloraxis.cmin, fig.layout.coloraxis.cmax) == (-3.0, 9.0)
    shapes = fig.layout.shapes
    assert len(shapes) == 2  # rows 0..1, column 1: x spans the column, y the rows
    assert (shapes[0].x0, shapes[0].x1, shapes[0].y0, shapes[0].y1) == (0.5, 1.5, -0.5, 1.5)
    assert "heatmap of 2 by 2 values from 0 to 5" in chart_text.summary(fig)


def test_presentation_mode_and_a_pinned_comparison_render():
    """A pinned geometric view A beside the per-node view B: the compared key numbers are
    dpcore's expected errors of each."""
    at = _page()
    at.query_params["present"] = "1"
    pinned = {p.name: p.encode(p.default) for p in sv.PINNED} | {sv.BUDGETS.name: "geometric"}
    at.query_params["pin"] = urlencode(pinned)
    at.run()
    assert not at.exception and not _errors(at)
    compared = next(d.value for d in at.dataframe if "B / A" in d.value.columns)
    row = compared[compared["quantity"] == "E[error²] of a random rectangle, after BLUE"]
    a = spatial.expected_error((32, 32), budgets="geometric")
    b = spatial.expected_error((32, 32), budgets="per-node")
    assert row["A (pinned)"].iloc[0] == pytest.approx(a)
    assert row["B (current)"].iloc[0] == pytest.approx(b)


def test_the_memory_and_time_estimate_holds_at_128():
    counts = np.random.default_rng(0).integers(0, 50, (128, 128)).astype(np.float64)
    values = {p.name: p.default for p in sv.PINNED} | {sv.SOURCE.name: data.UPLOAD}
    uploaded = {sv.UPLOADED_GRID: from_grid(counts, "g")}
    inputs = Inputs(values, examples.load(examples.DEFAULT), uploaded)
    estimate = sv.cost(inputs)
    assert estimate is not None
    st.cache_data.clear()
    byte_cache.clear_caches()
    tracemalloc.start()
    start = time.process_time()
    try:
        sv.view(inputs)
        seconds = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1] / limits.MB
    finally:
        tracemalloc.stop()
    assert peak <= 2 * estimate.cost.megabytes
    assert seconds <= 2 * estimate.cost.seconds


def _section(show: str, **query: str) -> AppTest:
    at = _page()
    at.query_params[SECTION.name] = show
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception and not _errors(at), _errors(at)
    return at


def _trace(at: AppTest, key: str, which: int | str = 0) -> dict:
    """Trace ``which`` (its index, or its name) of chart ``key``."""
    chart = next(c for c in at.get("plotly_chart") if key in str(c.proto.id))
    data = json.loads(chart.proto.spec)["data"]
    return (
        data[which] if isinstance(which, int) else next(t for t in data if t.get("name") == which)
    )


@pytest.mark.parametrize("colour", ["coverage", "budget", "noise"])
def test_the_tree_over_the_map_colours_each_cell_by_its_nodes_value(colour):
    at = _section("rectangle", **{LEVEL.name: "2", COLOUR.name: colour})
    z = np.array(_trace(at, "sp_tree_map")["z"], dtype=float)
    tree = spatial.regions.quadtree((32, 32))
    rel = sv.released(_stroke(), 2, "per-node", 1.0, 0)
    node_values = {
        "coverage": spatial.coverage_probabilities(tree, "random rectangles"),
        "budget": rel.budgets,
        "noise": np.sqrt(2) / rel.budgets,
    }[colour]
    # level 2 of the quadtree: 16 nodes of 8 x 8 cells, numbered 5..20 breadth-first
    for node in range(5, 21):
        (r0, c0), (r1, c1) = tree.lo[node], tree.hi[node]
        assert (r1 - r0, c1 - c0) == (7, 7)
        np.testing.assert_allclose(z[r0 : r1 + 1, c0 : c1 + 1], node_values[node])
    outlines = _trace(at, "sp_tree_map", 1)
    assert outlines["x"].count(None) == 16  # one closed outline per node of the level


def test_a_level_link_beyond_the_tree_is_kept_inside_it():
    at = _section("rectangle", **{LEVEL.name: "24"})  # the 32 x 32 quadtree has 6 levels
    z = np.array(_trace(at, "sp_tree_map")["z"], dtype=float)
    assert z.shape == (32, 32) and np.isfinite(z).all()


def test_error_vs_size_finds_where_the_tree_starts_to_beat_identity():
    at = _section("size")
    identity, raw, blue = (
        _trace(at, "sp_by_size", name) for name in ("Identity", "raw tree", "after BLUE")
    )
    area = np.array(identity["x"], dtype=float)
    np.testing.assert_allclose(identity["y"], 2 * area)  # 2 * area / eps^2, eps = 1
    # one cell: the tree's leaf measurement alone is noisier than Identity's single cell
    assert blue["y"][0] > identity["y"][0] and blue["y"][-1] < identity["y"][-1]
    assert all(b <= r * (1 + 1e-12) for b, r in zip(blue["y"], raw["y"], strict=True))
    crossing = next(
        k for k, (b, i) in enumerate(zip(blue["y"], identity["y"], strict=True)) if b < i
    )
    words = " ".join(str(c.value) for c in at.caption)
    assert f"({int(area[crossing]):,} cells) up" in words


def test_error_vs_fanout_is_dpcores_and_marks_the_best():
    at = _section("fanout")
    blue = _trace(at, "sp_by_fanout", "after BLUE")
    for b, value in zip(blue["x"], blue["y"], strict=True):
        assert value == pytest.approx(spatial.expected_error((32, 32), fanout=(b, b)), rel=1e-12)
    best = int(blue["x"][int(np.argmin(blue["y"]))])
    assert any(f"the {best}×{best} tree is best" in str(c.value) for c in at.caption)


def test_the_simulation_agrees_with_the_exact_errors_of_its_rectangles():
    at = _section("simulation", **{RELEASES.name: "100"})
    table = at.dataframe[0].value
    for row in table.to_dict("records"):
        assert abs(row["simulated"] - row["exact"]) <= 4 * row["half-width"] / 1.98, row
    assert len(table) == 2


def test_the_map_coloured_by_blue_weights_shows_the_rectangles_weights():
    at = _section("rectangle", **{LEVEL.name: "5", COLOUR.name: "weight"})  # the leaves
    z = np.array(_trace(at, "sp_tree_map")["z"], dtype=float)
    x0, x1, y0, y1 = (p.default for p in (sv.X0, sv.X1, sv.Y0, sv.Y1))
    rel = sv.released(_stroke(), 2, "per-node", 1.0, 0)
    weights = spatial.error.blue_rectangle_weights(rel.tree, rel.budgets, (x0, y0), (x1, y1))
    leaves = spatial.regions.level_of_cells(rel.tree, 5)
    np.testing.assert_allclose(z, weights[leaves])
    assert z[x0 : x1 + 1, y0 : y1 + 1].mean() > np.abs(z[:4, :4]).mean()  # inside weighs more
    # a rectangle outside the grid: no weights, coverage instead, said
    at = _page()
    at.query_params.update({SECTION.name: "rectangle", COLOUR.name: "weight", sv.X1.name: "99"})
    at.run()
    assert not at.exception and any("not inside the grid" in e for e in _errors(at))
    assert any("coloured by coverage instead" in str(c.value) for c in at.caption)
