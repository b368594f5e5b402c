"""Pin and compare (dpui.kit.pin) and its use on the Tree & budgets page."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import budget, raw_error
from dpcore.hist.tree import kary_tree
from dpui.kit import pin

ROOT = Path(__file__).resolve().parents[2]


def test_compare_table_gives_ratios_and_a_dash_where_undefined():
    table = pin.compare_table({"x": 2.0, "y": 0.0, "z": np.inf}, {"x": 3.0, "y": 1.0, "z": 1.0})
    assert list(table["B / A"]) == ["1.5", "—", "—"]
    assert list(table["A (pinned)"]) == [2.0, 0.0, np.inf]


def test_shared_range_covers_both_figures_and_their_error_bars():
    a = go.Figure(go.Bar(x=["u", "v"], y=[2.0, 5.0]))
    b = go.Figure(
        go.Scatter(x=[1, 2], y=[1.0, 3.0], error_y={"array": [0.5, 4.0], "arrayminus": [0.5, 1.0]})
    )
    lo, hi = pin.shared_range([a, b], "yaxis")
    assert lo == 0.0 and 7.0 <= hi <= 7.0 * 1.2  # 3 + 4 from B's error bar is the top
    b.update_yaxes(type="log")
    lo, hi = pin.shared_range([a, b], "yaxis")
    assert lo < np.log10(1.0) and np.log10(7.0) < hi  # log10 units, both figures inside
    assert pin.shared_range([go.Figure()], "yaxis") is None


def _page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120)


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _pin_param(at: AppTest) -> str:
    value = at.query_params["pin"]
    return value[0] if isinstance(value, list) else value


def test_pin_then_change_shows_a_and_b_with_exact_numbers_and_unpin_returns():
    at = _page().run()
    _button(at, "Pin this view").click().run()
    assert dict(parse_qsl(_pin_param(at)))["tb_tree"] == "sc"
    at.selectbox(key="tb_tree").set_value("4").run()
    at.selectbox(key="tb_alloc").set_value("uniform").run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "quantity" in d.value.columns).set_index(
        "quantity"
    )
    # B is a 4-ary tree with uniform budgets over the 1,024-bin default: recompute independently
    t = kary_tree(1024, 4)
    expected = raw_error.raw_expected_error(t, budget.uniform_budgets(t, 1.0), "uniform")
    assert table.loc["mean error, uniform ε/Δ (Boost), raw", "B (current)"] == pytest.approx(
        expected
    )
    assert table.loc["height Δ", "B (current)"] == t.height
    assert table.loc["release ε", "A (pinned)"] == pytest.approx(1.0)
    titles = [m.value for m in at.markdown if m.value.startswith("**A (pinned):**")]
    assert titles and "Struct-Construct" in titles[0]
    _button(at, "Unpin").click().run()
    assert not at.exception and "pin" not in at.query_params
    assert not [m for m in at.markdown if m.value.startswith("**A (pinned):**")]


def test_a_pinned_link_reopens_the_comparison_and_bad_pinned_values_fall_back():
    at = _page()
    at.query_params["pin"] = "tb_tree=16&tb_alloc=level&eps=0.5&tb_from=1&tb_to=8"
    at.run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "quantity" in d.value.columns).set_index(
        "quantity"
    )
    assert table.loc["release ε", "A (pinned)"] == pytest.approx(0.5)
    assert table.loc["height Δ", "A (pinned)"] == 4  # 16-ary over 1,024 bins
    at = _page()
    at.query_params["pin"] = "tb_tree=99&eps=abc"
    at.run()
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "Pinned view" in warnings and "tb_tree=99" in warnings
