"""Figure factories for the tree page: pure functions from arrays to Plotly figures."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from dpcore.hist.tree import Tree
from dpui.kit import untrusted
from dpui.kit.plot_axes import TOP_BAR_Y

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

MAX_DRAWN_NODES = 1500
MAX_DRAWN_POINTS = 1000
# a node narrower than this (at a ~800 px wide chart) is drawn without its white border,
# else the border alone fills it and a deep level shows as an empty grey band
MIN_BORDERED_PX = 4.0
CHART_PX = 800.0
MAX_LEVEL_NODES = int(CHART_PX / 2)  # a drawn level's nodes are >= ~2 px wide
# true / noisy / consistent: Okabe-Ito black, orange, blue (colour-blind safe)
SERIES_COLOURS = ("#000000", "#E69F00", "#0072B2")


def visible_nodes(
    tree: Tree,
    first: int,
    last: int,
    max_nodes: int = MAX_DRAWN_NODES,
    max_level_nodes: int = MAX_LEVEL_NODES,
) -> IntArray:
    """Nodes meeting bins ``[first, last]``, whole levels from the root while they fit in
    ``max_nodes`` and a level has at most ``max_level_nodes`` of them (narrower nodes blur
    into a pale band under a pixel wide). The root level always fits. Closed under
    ancestors."""
    chosen: list[IntArray] = []
    total = 0
    for level in tree.levels():
        lo, hi = tree.lo[level], tree.hi[level]
        start = int(np.searchsorted(hi, first, side="left"))
        stop = int(np.searchsorted(lo, last, side="right"))
        if stop <= start:
            break
        if chosen and (total + (stop - start) > max_nodes or stop - start > max_level_nodes):
            break
        chosen.append(np.arange(level.start + start, level.start + stop, dtype=np.int64))
        total += stop - start
    return np.concatenate(chosen)


def tree_icicle(
    tree: Tree,
    nodes: IntArray,
    first: int,
    last: int,
    colour: FloatArray,
    colour_label: str,
    hover: Mapping[str, FloatArray],
    outline: IntArray | None = None,
) -> go.Figure:
    """Icicle of ``nodes`` (root on top, bins left to right), box width = bins inside the window;
    the nodes in ``outline`` (e.g. a range's canonical decomposition) get a thick black border."""
    width = np.minimum(tree.hi[nodes], last) - np.maximum(tree.lo[nodes], first) + 1
    ids = nodes.astype(str)
    parents = np.where(tree.parent[nodes] >= 0, tree.parent[nodes].astype(str), "")
    labels = [f"[{a + 1}, {b + 1}]" for a, b in zip(tree.lo[nodes], tree.hi[nodes], strict=True)]
    names = list(hover)
    custom = np.column_stack([hover[name][nodes] for name in names])
    template = "<b>bins %{label}</b><br>" + "<br>".join(
        f"{name}: %{{customdata[{i}]:.4g}}" for i, name in enumerate(names)
    )
    shown = colour[nodes]
    finite = np.isfinite(shown)
    px = width / max(last - first + 1, 1) * CHART_PX
    values = shown[finite]
    constant = values.size > 0 and bool(np.ptp(values) <= 1e-9 * max(abs(values).max(), 1e-300))
    fig = go.Figure(
        go.Icicle(
            ids=ids,
            parents=parents,
            labels=labels,
            values=width,
            branchvalues="total",
            sort=False,
            tiling={"orientation": "v"},
            customdata=custom,
            hovertemplate=template + "<extra></extra>",
            marker={
                "colors": np.where(finite, shown, np.nan),
                "colorscale": "Viridis",
                # a constant is one value, not a colour bar inventing variation
                "showscale": not constant,
                # above the tree, not beside it: the full width stays the tree's (a phone)
                "colorbar": {
                    "title": {"text": colour_label, "side": "top"},
                    "orientation": "h",
                    "x": 0,
                    "xanchor": "left",
                    "y": TOP_BAR_Y,
                    "yanchor": "bottom",
                    # in pixels, wider than its title at projector size: a fraction of a
                    # phone's width was narrower than the title, which then ran off the left
                    "lenmode": "pixels",
                    "len": 280,
                    "thickness": 12,
                },
                "line": _borders(px, nodes, outline),
            },
            maxdepth=-1,
            leaf={"opacity": 1.0},  # Plotly fades leaves to 0.7 by default: a washed-out row
        )
    )
    fig.update_layout(margin={"t": 10, "l": 10, "r": 10, "b": 10}, height=420)
    if constant:
        fig.update_layout(
            margin_t=30,
            title={"text": f"{colour_label} = {values[0]:.4g} at every node", "font_size": 13},
        )
    return fig


def _borders(px: FloatArray, nodes: IntArray, outline: IntArray | None) -> dict[str, Any]:
    """White borders on nodes wide enough to show them; thick black ones on ``outline``."""
    width = np.where(px >= MIN_BORDERED_PX, 1.0, 0.0)
    if outline is None:
        return {"width": width, "color": "white"}
    marked = np.isin(nodes, outline)
    return {
        "width": np.where(marked, 3.0, width),
        "color": np.where(marked, "black", "white").tolist(),
    }


def _bucket(values: FloatArray, size: int) -> FloatArray:
    """Sums of consecutive blocks of ``size`` bins (NaN-aware: NaN if a block has any NaN)."""
    pad = (-values.size) % size
    padded = np.concatenate([values, np.zeros(pad)])
    sums: FloatArray = padded.reshape(-1, size).sum(axis=1)
    return sums


def block_size(n: int) -> int:
    """Bins summed per drawn point of :func:`histogram_comparison` (1 while n fits)."""
    return max(1, -(-n // MAX_DRAWN_POINTS))


def histogram_comparison(
    series: Mapping[str, FloatArray],
    labels: tuple[str, ...] | None,
    selected: tuple[int, int] | None = None,
    *,
    first: int = 1,
) -> go.Figure:
    """True vs noisy vs consistent counts of bins ``first, first + 1, ...`` (1-based);
    beyond ``MAX_DRAWN_POINTS`` bins, blocks are summed. Series take ``SERIES_COLOURS``
    in order.

    With ``selected`` (a 1-based bin range), that range is shaded and dragging selects a
    new one: an invisible marker trace over the drawn points makes every x selectable
    (Plotly does not select line-only traces), its ``point_index`` being the block's index.
    """
    n = next(iter(series.values())).size
    block = block_size(n)
    fig = go.Figure()
    if block == 1 and labels is not None:
        x: list[str] | IntArray = untrusted.plot_labels(labels)
    else:
        x = np.arange(0, n, block) + first
    for i, (name, values) in enumerate(series.items()):
        y = _bucket(values, block)
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        if n <= 64:
            fig.add_bar(x=x, y=y, name=name, marker_color=colour)
        else:
            fig.add_scatter(
                x=x, y=y, name=name, mode="lines", line={"shape": "hv", "width": 1, "color": colour}
            )
    if selected is not None:
        lo, hi = selected
        fig.add_scatter(
            x=x,
            y=_bucket(next(iter(series.values())), block),
            mode="markers",
            # selection uses the data, not the drawn markers: drawing one instead of up to
            # 1,000 invisible ones saves the browser a few tenths of a second per redraw
            marker={"opacity": 0, "maxdisplayed": 1},
            hoverinfo="skip",
            showlegend=False,
        )
        if isinstance(x, list):  # category axis: bar i is centred on position i
            x0, x1 = lo - first - 0.5, hi - first + 0.5
        else:
            x0, x1 = lo - 0.5, hi + 0.5
        fig.add_vrect(x0=x0, x1=x1, fillcolor="#F0E442", opacity=0.35, line_width=0, layer="below")
        fig.update_layout(dragmode="select", selectdirection="h")
    title = "count per bin" if block == 1 else f"count per block of {block} bins"
    fig.update_layout(
        barmode="group",
        height=360,
        margin={"t": 30, "l": 10, "r": 10, "b": 10},
        yaxis_title=title,
        xaxis_title="bin" if block == 1 else "first bin of block",
        legend={"orientation": "h", "y": 1.1},
    )
    return fig


def allocation_errors(errors: Mapping[str, Mapping[str, float]], chosen: str) -> go.Figure:
    """Horizontal grouped bars: per allocation (one row each, its full name readable), the
    expected squared error of a random workload range, one bar per way of answering
    (``errors[answering][allocation]``, told apart by pattern as well as colour); ``chosen``
    is outlined and marked in its row label."""
    fig = go.Figure()
    rows: list[str] = []
    for (answering, by_allocation), pattern in zip(errors.items(), ("", "/"), strict=False):
        names = list(by_allocation)
        rows = ["<br>".join(textwrap.wrap(f"▶ {n}" if n == chosen else n, 26)) for n in names]
        fig.add_bar(
            y=rows,
            x=[by_allocation[name] for name in names],
            orientation="h",
            name=answering,
            text=[f"{by_allocation[name]:,.4g}" for name in names],
            textposition="outside",
            cliponaxis=False,
            marker_pattern_shape=pattern,
            marker_line_width=[3 if name == chosen else 0 for name in names],
            marker_line_color="black",
        )
    fig.update_layout(
        barmode="group",
        height=130 + 56 * len(rows),
        margin={"t": 40, "l": 10, "r": 60, "b": 10},
        xaxis_title="expected squared error of a random range",
        yaxis={"autorange": "reversed", "automargin": True},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
    )
    return fig
