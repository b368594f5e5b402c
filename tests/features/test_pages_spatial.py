"""The "Spatial data" page through AppTest: the default view, every budget rule, a bad
rectangle, uploads, and the numbers shown against dpcore and independent formulas."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore import spatial
from dpcore.spatial.rules import SPATIAL_BUDGETS
from dpui.spatial import data
from dpui.spatial import view as sv
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
    errors = at.dataframe[1].value
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
    at.run()
    assert not at.exception
    assert any("sp_budgets=best" in str(w.value) for w in at.warning)
    assert at.selectbox(key=sv.BUDGETS.name).value == "per-node"
    expected = spatial.expected_error((32, 32), fanout=(4, 4), budgets="geometric")
    assert at.dataframe[1].value["after BLUE"].iloc[2] == pytest.approx(expected, rel=1e-12)


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
