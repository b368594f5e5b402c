"""A chart's text alternative and data table are computed from the figure drawn."""

import numpy as np
import plotly.graph_objects as go

from dpui.kit import chart_text


def test_summary_names_axes_series_and_the_largest_value_where_it_is():
    fig = go.Figure(
        [
            go.Scatter(x=[1, 2, 3], y=[4.0, 9.5, 1.0], name="true"),
            go.Scatter(x=[1, 2, 3], y=[7.0, 2.0, 3.0], name="noisy"),
        ]
    )
    fig.update_layout(title="<b>Counts</b>", xaxis_title="bin<br>dataset: x", yaxis_title="count")
    text = chart_text.summary(fig)
    assert text.startswith("Chart: Counts. count against bin, 2 series")
    assert "true 9.5 at 2" in text and "noisy 7 at 1" in text
    assert "dataset" not in text  # the stamp line of the axis title is not read twice


def test_table_is_wide_for_shared_positions_and_long_otherwise():
    fig = go.Figure([go.Bar(x=["a", "b"], y=[1, 2], name="u"), go.Bar(x=["a", "b"], y=[3, 4])])
    heads, rows, total = chart_text.table(fig)
    assert heads == ["position", "u", "series 2"] and rows == [["a", "1", "3"], ["b", "2", "4"]]
    assert total == 2
    fig = go.Figure([go.Scatter(x=[1], y=[5], name="u"), go.Scatter(x=[2, 3], y=[6, 7])])
    heads, rows, total = chart_text.table(fig)
    assert heads == ["series", "position", "value"] and total == 3
    assert rows[0] == ["u", "1", "5"] and rows[2] == ["series 2", "3", "7"]


def test_html_table_escapes_labels_and_says_when_it_is_cut():
    n = chart_text.MAX_ROWS + 5
    fig = go.Figure(go.Bar(x=[f"<b>{i}" for i in range(n)], y=np.arange(n), name="a&b<c"))
    out = chart_text.html_table(fig, "Votes & more")
    assert "<b>" not in out and "&lt;b&gt;0" in out and "a&amp;b&lt;c" in out
    assert f"(the first {chart_text.MAX_ROWS} of {n} rows)" in out
    assert out.count("<tr>") == chart_text.MAX_ROWS + 1  # the header row and MAX_ROWS rows
    assert '<th scope="col">' in out and "<caption>Votes &amp; more" in out


def test_heatmap_and_icicle_are_described():
    heat = go.Figure(go.Heatmap(z=[[1, 2], [8, 3]], x=["p", "q"], y=["r", "s"]))
    assert "2 by 2 values from 1 to 8; the largest at row, column s, p" in chart_text.summary(heat)
    assert chart_text.table(heat)[1] == [["r", "1", "2"], ["s", "8", "3"]]
    ice = go.Figure(go.Icicle(labels=["root", "a", "b"], parents=["", "root", "root"]))
    assert "icicle (tree) of 3 nodes" in chart_text.summary(ice)
    assert chart_text.table(ice)[1][1] == ["a", "root", ""]
