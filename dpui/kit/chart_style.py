"""The charts' look, written into each figure instead of arriving as a Plotly template.

Streamlit's theme comes as a template, and with a template Plotly draws every chart twice
(:mod:`dpui.kit.plot_once`). This is Streamlit's light look, set only where a figure leaves a
value unset. The app's theme is pinned to light (``.streamlit/config.toml``) to match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

GREY, INK, GRID, TITLE_INK = "#808495", "#262730", "#e6eaf1", "#2F2D2B"
FONT = '"Source Sans", sans-serif'
TEXT, TITLE_TEXT = 12, 14  # font sizes of labels and ticks, and of axis titles

LAYOUT: dict[str, Any] = {
    "font": {"color": GREY, "family": FONT, "size": TEXT},
    "title": {
        "font": {"family": FONT, "size": 16, "color": TITLE_INK, "weight": "bold"},
        "pad": {"l": 4},
        "xanchor": "left",
        "x": 0,
    },
    "legend": {
        "title": {"font": {"size": TEXT, "color": GREY}, "side": "top"},
        "valign": "top",
        "font": {"size": TEXT, "color": INK},
    },
    "paper_bgcolor": "#FFFFFF",
    "plot_bgcolor": "#FFFFFF",
    "colorway": [
        "#0068c9",
        "#83c9ff",
        "#ff2b2b",
        "#ffabab",
        "#29b09d",
        "#7defa1",
        "#ff8700",
        "#ffd16a",
        "#6d3fc0",
        "#d5dae5",
    ],
    "margin": {"pad": 8, "r": 0, "l": 0},
    "hoverlabel": {
        "bgcolor": "#FFFFFF",
        "bordercolor": "#DCD8D4",
        "font": {"color": GREY, "family": FONT, "size": TEXT},
    },
}
_AXIS = {
    "zerolinecolor": GRID,
    "gridcolor": GRID,
    "ticks": "",
    "tickfont": {"color": GREY, "size": TEXT},
}
_AXIS_TITLE = {"font": {"color": GREY, "size": TITLE_TEXT}}
AXES: dict[str, dict[str, Any]] = {  # x axes without vertical grid lines, as Streamlit draws
    "x": _AXIS | {"showgrid": False, "zeroline": False, "title": _AXIS_TITLE | {"standoff": 20}},
    "y": _AXIS | {"title": _AXIS_TITLE | {"standoff": 24}},
}


def unset(defaults: Mapping[str, Any], current: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of ``defaults`` that ``current`` leaves unset (nested dicts compared key by
    key; a value the figure sets, whatever it is, wins).

    >>> unset({"font": {"size": 12, "color": "grey"}, "x": 0}, {"font": {"size": 20}})
    {'font': {'color': 'grey'}, 'x': 0}
    """
    out: dict[str, Any] = {}
    for key, value in defaults.items():
        have = current.get(key)
        if isinstance(value, Mapping) and (have is None or isinstance(have, Mapping)):
            missing = unset(value, have or {})
            if missing:
                out[key] = missing
        elif have is None:
            out[key] = value
    return out


def _merged(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        have = out.get(key)
        if isinstance(value, Mapping) and isinstance(have, Mapping):
            value = _merged(have, value)
        out[key] = value
    return out


def apply(fig: go.Figure) -> go.Figure:
    """``fig`` (changed in place) in the app's look, without a template."""
    fig.layout.template = None
    layout = fig.layout.to_plotly_json()
    axes = {name for name in layout if name.startswith(("xaxis", "yaxis"))} | {"xaxis", "yaxis"}
    defaults = LAYOUT | {name: AXES[name[0]] for name in axes}
    # each missing part set whole: update_layout took 25-60 ms for these few values, a new
    # layout (validating all of it again) 6-11 ms, this 2-3 ms
    for key, value in unset(defaults, layout).items():
        have = layout.get(key)
        both = isinstance(have, Mapping) and isinstance(value, Mapping)
        fig.layout[key] = _merged(have, value) if both else value
    for trace in fig.data:
        if trace.type == "scatter" and trace.marker.line.width is None:
            trace.marker.line.width = 0
        elif trace.type == "icicle" and trace.textfont.color is None:
            trace.textfont.color = "white"
    return fig
