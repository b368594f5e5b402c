"""A legend in rows between a chart's title and its plot, and the room it takes.

Beside the plot a legend takes its widest entry's width from every chart (most of a phone's
screen); in rows its entries wrap to the width. :mod:`dpui.kit.present` places every
multi-series legend this way.
"""

from __future__ import annotations

import plotly.graph_objects as go


def place_on_top(fig: go.Figure, *, grow: bool = True) -> None:
    """Move a legend drawn right of the plot to rows between the title and the plot.

    Beside the plot a legend takes its widest entry's width from every chart (most of a
    phone's screen); in rows its entries wrap to the width. The title is pinned to the top
    and the legend placed under it, both in pixels from the top of the figure; a legend
    placed this way pushes the plot's top margin down, so nothing overlaps. The figure grows
    by the rows a phone wraps the entries into (``grow``); when presenting, by the rows they
    take on a projector's width (one per entry would push a one-row legend's chart below a
    720p screen).
    """
    legend = fig.layout.legend
    beside = legend.orientation in (None, "v") and (legend.x is None or legend.x >= 1)
    entries = sum(1 for t in fig.data if getattr(t, "showlegend", False) is not False and t.name)
    if fig.layout.showlegend is False or not beside or entries < 2:
        return
    height = fig.layout.height or 450  # Plotly's default
    title_px = heading_px(fig)
    if grow:
        height += LEGEND_PX_PER_ENTRY * entries  # the rows a phone wraps them into, roughly
    else:  # at most two short rows more: the plot gives up the rest of the legend's room
        height += min(projector_legend_px(fig), PRESENT_LEGEND_PX)
    fig.update_layout(
        height=height,
        title={"yref": "container", "y": 1 - TOP_PX / height, "yanchor": "top"},
        legend={
            "orientation": "h",
            "xref": "container",
            "yref": "container",
            "x": 0,
            "xanchor": "left",
            "y": 1 - (TOP_PX + title_px) / height,
            "yanchor": "top",
            "title_side": "left",
        },
    )


TOP_PX, LEGEND_PX_PER_ENTRY, LINE_HEIGHT = 8, 12, 1.4


PROJECTOR_PX = 1120  # a chart's width on a 1280-px screen with the sidebar hidden
PRESENT_LEGEND_PX = 40  # the most a presented legend adds to PRESENT_HEIGHT


def projector_legend_px(fig: go.Figure) -> float:
    """The height of a horizontal legend's rows at :data:`PROJECTOR_PX`: entries packed
    left to right, each as wide as its longest line (about 0.55 em a character, plus its
    symbol) and as tall as its lines."""
    font = fig.layout.legend.font.size or fig.layout.font.size or 12
    rows: list[tuple[float, float]] = []  # (width used, tallest entry) per row
    for trace in fig.data:
        if getattr(trace, "showlegend", False) is False or not trace.name:
            continue
        lines = str(trace.name).split("<br>")
        width = 0.55 * font * max(len(line) for line in lines) + 50
        tall = LINE_HEIGHT * font * len(lines)
        if rows and rows[-1][0] + width <= PROJECTOR_PX:
            rows[-1] = (rows[-1][0] + width, max(rows[-1][1], tall))
        else:
            rows.append((width, tall))
    return sum(tall for _, tall in rows)


def heading_px(fig: go.Figure) -> float:
    """The pixels a figure's title and subtitle take at their font sizes (presenting enlarges
    them: a fixed allowance let the legend run over the subtitle on a projector)."""
    title, font = fig.layout.title, fig.layout.font.size or 12
    px = 0.0
    if title.text:
        px += LINE_HEIGHT * (title.font.size or 16) + 6
    if title.subtitle.text:
        px += LINE_HEIGHT * (title.subtitle.font.size or font) + 4
    return px
