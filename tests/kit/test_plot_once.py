"""Figures Plotly can take twice for one draw: plain lists, a datarevision naming the data,
no template; the look written into the figure only where it leaves a value unset."""

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from dpui.kit import chart_style, plot_once


def _figure(y: np.ndarray) -> go.Figure:
    fig = go.Figure(go.Scatter(x=np.arange(y.size), y=y, text=[f"bin {i}" for i in range(y.size)]))
    fig.add_bar(x=np.arange(3), y=np.array([1.5, 2.5, 3.5]), marker_color=np.array([0.1, 0.2, 0.3]))
    return fig


def test_arrays_become_lists_with_their_values_and_a_digest_names_them():
    y = np.linspace(0.0, 1.0, 7)
    fig = plot_once.prepare(_figure(y))
    spec = json.loads(pio.to_json(fig))
    assert "bdata" not in json.dumps(spec)  # no binary arrays left to decode afresh
    assert spec["data"][0]["y"] == y.tolist() and spec["data"][0]["x"] == list(range(7))
    assert spec["data"][1]["marker"]["color"] == [0.1, 0.2, 0.3]
    # the same data (text included) names the same revision; any changed value another
    assert plot_once.prepare(_figure(y.copy())).layout.datarevision == fig.layout.datarevision
    changed = y.copy()
    changed[3] += 1e-12
    assert plot_once.prepare(_figure(changed)).layout.datarevision != fig.layout.datarevision
    relabelled = _figure(y)
    relabelled.data[0].text = [f"key {i}" for i in range(7)]
    assert plot_once.prepare(relabelled).layout.datarevision != fig.layout.datarevision


def test_a_figure_over_the_limit_keeps_its_binary_arrays():
    big = plot_once.prepare(_figure(np.zeros(plot_once.MAX_LISTED)))
    assert big.layout.datarevision is None
    assert "bdata" in pio.to_json(big)


def test_the_look_fills_only_what_a_figure_leaves_unset_and_drops_the_template():
    fig = go.Figure(go.Scatter(y=[1, 2]), layout={"font": {"size": 20}, "xaxis2": {"anchor": "y"}})
    fig.update_layout(yaxis_title={"text": "count", "standoff": 5})
    chart_style.apply(fig)
    spec = json.loads(pio.to_json(fig))["layout"]
    assert "template" not in spec
    assert spec["font"] == {"size": 20, "color": chart_style.GREY, "family": chart_style.FONT}
    assert spec["yaxis"]["title"]["standoff"] == 5  # the figure's own value wins
    assert spec["yaxis"]["title"]["font"]["size"] == 14
    assert spec["xaxis2"]["showgrid"] is False  # every axis, not only the first
    assert spec["paper_bgcolor"] == "#FFFFFF"


def test_an_icicle_keeps_its_binary_arrays_but_gets_a_revision():
    # Plotly recomputes an icicle on every hand-over anyway: lists would only cost time
    fig = go.Figure(go.Icicle(ids=["a", "b"], parents=["", "a"], values=np.array([2, 1])))
    plot_once.prepare(fig)
    assert fig.layout.datarevision is not None and "bdata" in pio.to_json(fig)
