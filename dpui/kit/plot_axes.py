"""What Plotly will draw on a figure's axes: the traces on each, the lowest x axis, and the
margins their tick labels and titles need.

Plotly's ``automargin`` measures the labels after a first full draw and, when they need
more room than the margins give, draws the whole figure again: every chart was drawn twice
(measured in Chromium: about 90 ms instead of 50 ms for the range explorer's chart, more
inside the page). :func:`reserve_margins` gives the left and bottom margins that room in
advance from the numbers on the axes, so one draw suffices; ``automargin`` stays on as the
safety net for labels estimated short (category names, wrapped legends on a phone). Colour
bars get their room the same way.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from dpui.kit.chart_style import TEXT as TICK_FONT
from dpui.kit.chart_style import TITLE_TEXT as TITLE_FONT
from dpui.kit.legend_rows import TOP_PX, heading_px, pinned_title

CARTESIAN = {"scatter", "scattergl", "bar", "heatmap", "histogram", "box", "violin"}
DIGIT_EM = 0.6  # a digit's width in Plotly's fonts, in font sizes (upper end)
LINE_EM = 1.3  # a text line's height, in font sizes
PLOTLY_MARGINS = {"l": 80, "r": 80, "t": 100, "b": 80}  # Plotly's defaults
COLOUR_BAR_PX = 50  # a vertical colour bar and its pads (Plotly's thickness 30, pads 10)
TOP_COLOUR_BAR_PX = 112  # a horizontal one above the plot with its title (measured, Chromium)
TOP_BAR_Y = 0.9999
"""Where a horizontal colour bar above the plot sits (``yanchor="bottom"``, in the plot's
fraction): the plot's top edge, all but exactly. At ``y >= 1`` Plotly lifts the figure's
title by a line (31.5 px at 16 px; Plotly 4.1), out of the figure, whatever room the margin
gives it; just under 1 the bar is drawn in the same place and the title stays put."""
# between the plot and its tick labels, and between those and the title (with a few pixels
# to spare: a margin a little wide costs nothing, one a pixel short a second draw)
TICK_GAP_PX, TITLE_GAP_PX, Y_TITLE_GAP_PX = 12, 28, 20


def axis_traces(fig: go.Figure, axis: str) -> Iterator[tuple[Any, np.ndarray]]:
    """The traces drawn on layout axis ``axis`` ('xaxis', 'yaxis2'), each with its values on
    that axis as floats (NaN where not a number, e.g. a category name)."""
    letter = axis[0]
    ref = letter + axis[5:]  # 'xaxis2' -> 'x2'
    for trace in fig.data:
        if (getattr(trace, f"{letter}axis", None) or letter) != ref:
            continue
        data = getattr(trace, letter, None)
        if data is not None:
            values = pd.Series(np.asarray(data, dtype=object).ravel())
            yield trace, pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)


def bottom_xaxis(fig: go.Figure) -> str | None:
    """The layout name of the lowest x axis ('xaxis', 'xaxis2', ...), None without axes."""
    if not any(trace.type in CARTESIAN for trace in fig.data):
        return None
    names = [k for k in fig.layout.to_plotly_json() if k.startswith("xaxis")] or ["xaxis"]

    def bottom(name: str) -> float:
        anchor = fig.layout[name].anchor or "y"
        yaxis = fig.layout["yaxis" + anchor[1:]] if anchor.startswith("y") else None
        return float(yaxis.domain[0]) if yaxis is not None and yaxis.domain else 0.0

    return str(min(names, key=bottom))


def tick_chars(fig: go.Figure, axis: str) -> int | None:
    """Characters in the longest tick label Plotly will write on ``axis``, or None when it
    cannot be told here (categories, custom formats, no data).

    Linear axes: see :func:`number_chars`. Log axes: '10' and a superscript power.

    >>> fig = go.Figure(go.Bar(y=[0.0, 0.08]))
    >>> tick_chars(fig, "yaxis")  # '0.008' at most: 0.02 steps need fewer
    5
    >>> tick_chars(go.Figure(go.Bar(y=[-5.0, 12_345.0])), "yaxis")  # '-12,345'
    7
    """
    ax = fig.layout[axis]
    if ax.ticktext is not None:
        return max((len(str(t)) for t in ax.ticktext), default=0)
    if ax.tickformat or ax.tickprefix or ax.ticksuffix or ax.type in ("category", "date"):
        return None
    columns = list(axis_traces(fig, axis))
    if not columns:
        return None
    values = np.concatenate([v for _, v in columns])
    if np.isnan(values).all():  # names, not numbers: a category axis
        return None
    if ax.type == "log":
        return 5  # '10' and a small superscript power such as '-12'
    return number_chars(values)


def number_chars(values: np.ndarray) -> int:
    """Characters of the longest of Plotly's tick labels over ``values`` on a linear scale:
    the integer digits of the largest magnitude with thousands separators, the decimals of
    a tenth of it (Plotly's steps are coarser), a minus sign if any value is negative."""
    finite = values[np.isfinite(values)]
    top = float(np.abs(finite).max()) if finite.size else 0.0
    if top == 0:
        return 1
    digits = max(1, math.floor(math.log10(top)) + 1)
    decimals = max(0, -math.floor(math.log10(top / 10)))
    sign = 1 if finite.min() < 0 else 0
    return sign + digits + (digits - 1) // 3 + (decimals + 1 if decimals else 0)


def category_rows(fig: go.Figure) -> int:
    """The most names a y axis of ``fig`` lists as its ticks (0 for numeric axes)."""
    names = [
        len(ax.tickvals)
        for key in fig.layout.to_plotly_json()
        if key.startswith("yaxis")
        and (ax := fig.layout[key]).tickvals is not None
        and any(isinstance(v, str) for v in ax.tickvals)
    ]
    return max(names, default=0)


def _title_px(ax: Any, title_font: float, gap: float = TITLE_GAP_PX) -> float:
    """Height of an axis title: every '<br>' line takes the title font's line height, the
    smaller print of a stamp's lines included (Plotly spaces the lines of one text so)."""
    text = ax.title.text
    return LINE_EM * title_font * (text.count("<br>") + 1) + gap if text else 0.0


def _colour_bars(fig: go.Figure, font: float) -> tuple[int, int]:
    """Room for colour bars: right of the plot (a heatmap's: bar, pads and tick labels of
    its values) and above it (a horizontal one with its title, as on the tree)."""
    right, top = 0, 0
    for trace in fig.data:
        if trace.type == "heatmap" and trace.showscale is not False:
            z = np.asarray(trace.z, dtype=float).ravel()
            labels = DIGIT_EM * font * number_chars(z)
            right = max(right, math.ceil(COLOUR_BAR_PX + labels + TICK_GAP_PX))
        marker = getattr(trace, "marker", None)
        if marker is not None and getattr(marker, "showscale", None):
            bar = marker.colorbar
            if bar.orientation == "h" and (bar.y or 0) >= TOP_BAR_Y:
                top = TOP_COLOUR_BAR_PX
    return right, top


def _title_above_colour_bar(fig: go.Figure, top: int) -> int:
    """The top margin for a colour bar that needs ``top`` pixels above the plot, with the
    figure's title (if any) pinned to the top of the figure above the bar: in the same margin
    they overprinted, and on a projector's larger title the title was cut at the top."""
    if not top or not fig.layout.title.text:
        return top
    height = fig.layout.height or 450
    fig.update_layout(title=pinned_title(height))
    return math.ceil(top + TOP_PX + heading_px(fig))


def reserve_margins(fig: go.Figure) -> None:
    """Widen the margins (in place, never narrow them) to hold the y tick labels and titles,
    the lowest x axis's tick labels and title, and colour bars, as estimated from the data
    (see the module's note)."""
    layout = fig.layout
    tick_font = layout.font.size or TICK_FONT
    left = 0
    for name in [k for k in layout.to_plotly_json() if k.startswith("yaxis")] or ["yaxis"]:
        ax = layout[name]
        if ax.side == "right" or ax.visible is False or ax.showticklabels is False:
            continue
        chars = tick_chars(fig, name)
        if chars is None:
            continue
        font = ax.tickfont.size or tick_font
        title = _title_px(ax, ax.title.font.size or TITLE_FONT, Y_TITLE_GAP_PX)
        left = max(left, math.ceil(DIGIT_EM * font * chars + TICK_GAP_PX + title))
    bottom = 0
    name = bottom_xaxis(fig)
    if name is not None and layout[name].showticklabels is not False:
        ax = layout[name]
        if tick_chars(fig, name) is not None:  # numbers: one horizontal line of labels
            font = ax.tickfont.size or tick_font
            title = _title_px(ax, ax.title.font.size or TITLE_FONT)
            bottom = math.ceil(LINE_EM * font + TICK_GAP_PX + title)
    right, top = _colour_bars(fig, tick_font)
    top = _title_above_colour_bar(fig, top)
    for side, needed in {"l": left, "b": bottom, "r": right, "t": top}.items():
        if needed:
            asked = layout.margin[side]
            layout.margin[side] = max(PLOTLY_MARGINS[side] if asked is None else asked, needed)
