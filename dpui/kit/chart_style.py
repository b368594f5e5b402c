"""The charts' look, written into each figure instead of arriving as a Plotly template.

Streamlit's theme comes as a template, and with a template Plotly draws every chart twice
(:mod:`dpui.kit.plot_once`). This is Streamlit's light look, set only where a figure leaves a
value unset. The app's theme is pinned to light (``.streamlit/config.toml``) to match.

Accessibility (WCAG 2.1 AA): chart text is dark enough for 4.5:1 on the white paper (SC 1.4.3,
presentation mode only enlarges it); the series colours are Okabe and Ito's palette, which
stays distinguishable under protanopia, deuteranopia and tritanopia (tests/kit/test_colours.py
simulates each and states the smallest colour difference); and no series is told apart by
colour alone (SC 1.4.1): :func:`apply` gives each line its own dash, each marker series its
own symbol and each bar series its own fill pattern, where the figure has not set one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

# chart text: GREY 6.1:1 on white (Streamlit's #808495 was 3.7:1), INK 15:1
GREY, INK, GRID, TITLE_INK = "#5f6270", "#262730", "#e6eaf1", "#2F2D2B"
PAPER = "#FFFFFF"
OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
"""Okabe and Ito's colour-blind-safe palette (Color Universal Design, 2008), blue first;
yellow last, as it is faint on white."""
DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS = ("circle", "diamond", "square", "triangle-up", "x", "cross", "star", "triangle-down")
PATTERNS = ("", "/", ".", "x", "\\", "+", "-", "|")
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
    "paper_bgcolor": PAPER,
    "plot_bgcolor": PAPER,
    "colorway": list(OKABE_ITO),
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
    distinguish(fig)
    return fig


def distinguish(fig: go.Figure) -> go.Figure:
    """``fig`` (changed in place) with a dash per line series, a symbol per marker series and
    a fill pattern per bar series, where the figure sets none and has two or more of that kind:
    so that no series is told apart by colour alone (WCAG 2.1 SC 1.4.1)."""
    lines = [t for t in fig.data if t.type == "scatter" and "lines" in (t.mode or "lines")]
    marks = [t for t in fig.data if t.type == "scatter" and "markers" in (t.mode or "")]
    bars = [t for t in fig.data if t.type == "bar"]
    if len(lines) > 1:
        for i, trace in enumerate(lines):
            if trace.line.dash is None:
                trace.line.dash = DASHES[i % len(DASHES)]
    if len(marks) > 1:
        for i, trace in enumerate(marks):
            if trace.marker.symbol is None:
                trace.marker.symbol = SYMBOLS[i % len(SYMBOLS)]
    if len(bars) > 1:
        for i, trace in enumerate(bars):
            if trace.marker.pattern.shape is None:
                trace.marker.pattern.shape = PATTERNS[i % len(PATTERNS)]
    return fig
