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
    by the rows a phone wraps the entries into (``grow``: their height at the legend's font,
    :func:`rows_px` at :data:`PHONE_PX`, so that the plot keeps its own height); when
    presenting, by the rows they take on a projector's width, at most
    :data:`PRESENT_LEGEND_PX` (more would push the chart below a 720p screen), the plot giving
    up the rest; a legend whose rows would take over :data:`BESIDE_PX` stays beside the plot
    when its entries fit there (:data:`BESIDE_HEIGHT_PX`), each on one line (its first): on a
    projector the plot gives up less of its width than it would of its height.
    """
    legend = fig.layout.legend
    beside = legend.orientation in (None, "v") and (legend.x is None or legend.x >= 1)
    entries = sum(1 for t in fig.data if getattr(t, "showlegend", False) is not False and t.name)
    if fig.layout.showlegend is False or not beside or entries < 2:
        return
    if not grow and projector_legend_px(fig) > BESIDE_PX and _fits_beside(fig, entries):
        # beside the plot each entry keeps its first line: at a projector's font, Error
        # analysis' five two-line entries ran past the plot's height and the legend scrolled
        # its last one out of view
        for trace in fig.data:
            if trace.name and "<br>" in str(trace.name):
                trace.name = str(trace.name).split("<br>")[0]
        return
    height = fig.layout.height or 450  # Plotly's default
    title_px = heading_px(fig)
    height += rows_px(fig, PHONE_PX) if grow else min(projector_legend_px(fig), PRESENT_LEGEND_PX)
    fig.update_layout(
        height=height,
        title=pinned_title(height),
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


TOP_PX, LINE_HEIGHT, ROW_GAP_PX = 8, 1.4, 3


def pinned_title(height: float) -> dict[str, object]:
    """A title's position pinned ``TOP_PX`` below the top of a figure ``height`` pixels high
    (Plotly's own places it by the margin, where legends and colour bars also go)."""
    return {"yref": "container", "y": 1 - TOP_PX / height, "yanchor": "top"}


PROJECTOR_PX = 1120  # a chart's width on a 1280-px screen with the sidebar hidden
PHONE_PX = 300
"""The width a legend's rows wrap at on a 390-px phone: its chart is 358 px wide, and Plotly
wrapped Error analysis' legend into rows at most 292 px wide."""
PRESENT_LEGEND_PX = 40  # the most a presented legend adds to PRESENT_HEIGHT
BESIDE_PX = 80
BESIDE_HEIGHT_PX = 200
"""The height a legend beside a presented plot may take: the plot's, about 200 px of a
480-px chart under its title and above its x-axis title and stamp."""
"""A presented legend with rows taller than this stays beside the plot: on top it would
take 40 px more than it adds from a plot of about 300 px (Error analysis' five two-line
entries: 100 px of rows, its plot 171 px of a 520-px chart)."""


def _fits_beside(fig: go.Figure, entries: int) -> bool:
    """Whether ``entries`` legend entries of one line each, at the figure's legend font, fit
    beside a presented plot (:data:`BESIDE_HEIGHT_PX`); a legend taller than the plot scrolls
    its last entries out of view (Key-value LDP's nine scrolled away "central DP")."""
    font = fig.layout.legend.font.size or fig.layout.font.size or 12
    return entries * (LINE_HEIGHT * font + ROW_GAP_PX) <= BESIDE_HEIGHT_PX


def _entries(fig: go.Figure) -> list[list[str]]:
    """The lines of each legend entry's name."""
    return [
        str(t.name).split("<br>")
        for t in fig.data
        if getattr(t, "showlegend", False) is not False and t.name
    ]


def _wide(font: float, lines: list[str]) -> float:
    """An entry's width: its longest line at about 0.55 em a character, plus its symbol."""
    return 0.55 * font * max(len(line) for line in lines) + 50


def rows_px(fig: go.Figure, width: float) -> float:
    """The height of a horizontal legend's rows at ``width`` pixels once they wrap, as
    Plotly lays them out on a phone: a grid of columns as wide as the widest entry, beside
    the legend's title, each row as tall as its tallest entry's lines (1.4 em each) plus
    :data:`ROW_GAP_PX`.

    Error analysis' five two-line entries measured 177 px on a phone (this gives 183), Key-value
    LDP's nine one-line entries beside their title 181 px (178)."""
    font = fig.layout.legend.font.size or fig.layout.font.size or 12
    names = _entries(fig)
    if not names:
        return 0.0
    title = fig.layout.legend.title.text
    room = width - (0.55 * font * len(title) + 10 if title else 0)
    widest = max(_wide(font, lines) for lines in names)
    per_row = max(1, int(room // widest))
    heights = [LINE_HEIGHT * font * len(lines) + ROW_GAP_PX for lines in names]
    return sum(max(heights[i : i + per_row]) for i in range(0, len(heights), per_row))


def projector_legend_px(fig: go.Figure) -> float:
    """The height of a horizontal legend's rows at :data:`PROJECTOR_PX`: entries packed
    left to right (on a projector's width Plotly keeps a row as long as the entries fit,
    Key-value LDP's nine and their title in one), each as tall as its lines."""
    font = fig.layout.legend.font.size or fig.layout.font.size or 12
    rows: list[tuple[float, float]] = []  # (width used, tallest entry) per row
    for lines in _entries(fig):
        wide, tall = _wide(font, lines), LINE_HEIGHT * font * len(lines)
        if rows and rows[-1][0] + wide <= PROJECTOR_PX:
            rows[-1] = (rows[-1][0] + wide, max(rows[-1][1], tall))
        else:
            rows.append((wide, tall))
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
