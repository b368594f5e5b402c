"""Figure factories for "Which algorithm for my data?": pure functions of computed tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from numpy.typing import NDArray

from dpui.kit import untrusted
from dpui.kit.chart_style import GREY, INK
from dpui.spatial.figures import grid_heatmaps

FloatArray = NDArray[np.float64]

# Okabe-Ito colours (colour-blind safe); the two families also differ by bar pattern and
# line dash, so colour is never needed to tell them apart
DEPENDENT = {"color": "#D55E00", "pattern": "/", "dash": "solid", "symbol": "circle"}
INDEPENDENT = {"color": "#0072B2", "pattern": "", "dash": "dash", "symbol": "square"}
CLOSED_FORM = "#000000"
TRUTH, ESTIMATE, BUCKET = "#999999", "#D55E00", "rgba(0, 114, 178, 0.10)"
MARKS = ("#000000", "#009E73")
"""Colours of the scales marked on error vs scale: the data's own N, then a what-if."""


def _family(dependent: bool) -> dict[str, str]:
    return DEPENDENT if dependent else INDEPENDENT


def ranking(table: pd.DataFrame) -> go.Figure:
    """Error per algorithm, best on top, on a log axis: a dot at the mean of the trials with
    its 95% interval (marker by family), a black diamond at an exact expected error, a hollow
    diamond at an approximate closed form (the workload is in the settings stamped under it).

    An interval reaching 0 or below, which a log axis cannot show, is drawn to the axis's
    left end (:func:`left_end`) and its hover says so."""
    ordered = table.iloc[::-1]  # Plotly draws the first category at the bottom
    left = left_end(table)
    trial = ordered["how"] != "exact"
    fig = go.Figure()
    for dependent, label in ((True, "data-dependent"), (False, "data-independent")):
        part = ordered[trial & (ordered["data-dependent"] == dependent)]
        if part.empty:
            continue
        style = _family(dependent)
        half = part["half width"].fillna(0.0)
        low = part["mean"] - half
        fig.add_trace(
            go.Scatter(
                x=part["mean"],
                y=part.index,
                mode="markers",
                name=f"{label}: mean of trials, 95% interval",
                marker={"color": style["color"], "symbol": style["symbol"], "size": 10},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": half,
                    "arrayminus": np.minimum(half, part["mean"] - left),
                    "color": style["color"],
                    "thickness": 2,
                },
                customdata=np.where(low > 0, "", " (the interval reaches 0)"),
                hovertemplate="%{y}: %{x:.3g} ± %{error_x.array:.2g}%{customdata}<extra></extra>",
            )
        )
    approximate = ordered[trial & ordered["closed form"].notna()]
    for rows, column, name, symbol in (  # an exact row's mean is its exact value
        (ordered[~trial], "mean", "exact expected error", "diamond"),
        (approximate, "closed form", "closed form (approximate)", "diamond-open"),
    ):
        if rows.empty:
            continue
        fig.add_trace(
            go.Scatter(
                x=rows[column],
                y=rows.index,
                mode="markers",
                name=name,
                marker={"symbol": symbol, "size": 11, "color": CLOSED_FORM},
                hovertemplate=f"%{{y}}: {name} %{{x:.3g}}<extra></extra>",
            )
        )
    fig.update_layout(
        title="Error per algorithm, best on top",
        xaxis={"type": "log", "title": {"text": "scaled per-query L1 error (log scale)"}},
        yaxis={
            "categoryorder": "array",
            "categoryarray": list(ordered.index),
            "tickmode": "array",
            "tickvals": list(ordered.index),  # every name, never every other one
        },
        height=max(320, 34 * len(table) + 140),
    )
    return fig


def left_end(table: pd.DataFrame) -> float:
    """Where the ranking's log axis may start: half the smallest positive interval end or
    mean (an interval reaching 0 or below ends there).

    >>> left_end(pd.DataFrame({"mean": [1.0, 2.0], "half width": [2.0, 0.5]}))
    0.5
    """
    low = table["mean"] - table["half width"].fillna(0.0)
    values = pd.concat([low, table["mean"]])
    return float(values[values > 0].min()) / 2


HIGHLIGHT = ("#D55E00", "#0072B2", "#009E73")
"""Colours of the highlighted lines of error vs scale (Okabe-Ito); the rest are muted."""
MUTED = "#C8C8C8"
LABEL_PX = 17
"""Vertical room of one line's label at the right end of error vs scale, in pixels."""
LEADER_PX = 24
"""How far right of a line's end its label starts, joined to it by a thin leader line."""
PLOT_PX = 300
"""About the height of error vs scale's plotting area, in pixels (the figure is 460 high)."""


def spread(values: NDArray[np.float64], gap: float) -> NDArray[np.float64]:
    """Positions for labels wanted at ``values``, moved apart until neighbours are at least
    ``gap`` apart: labels that would come closer are merged into a group laid out ``gap``
    apart and centred on the mean of their wanted positions.

    >>> spread(np.array([0.1, 0.0, 5.0]), 1.0).tolist()
    [0.55, -0.45, 5.0]
    """
    order = np.argsort(values, kind="stable")
    wanted = np.asarray(values, dtype=np.float64)[order]

    def place(group: list[int]) -> NDArray[np.float64]:
        offsets = gap * (np.arange(len(group)) - (len(group) - 1) / 2)
        return np.asarray(wanted[group].mean() + offsets, dtype=np.float64)

    groups: list[list[int]] = []
    for i in range(wanted.size):
        groups.append([i])
        while len(groups) > 1 and place(groups[-1])[0] - place(groups[-2])[-1] < gap * (1 - 1e-9):
            groups[-2:] = [groups[-2] + groups[-1]]
    placed = np.concatenate([place(g) for g in groups]) if groups else wanted
    out = np.empty_like(placed)
    out[order] = placed
    return out


def by_scale(
    table: pd.DataFrame,
    dependent: dict[str, bool],
    marks: Mapping[str, int] | None = None,
    *,
    highlight: Sequence[str] = (),
) -> go.Figure:
    """Mean error vs scale per algorithm (log-log), dash by family, so the scale where
    data-independent algorithms take over is visible: the algorithms of ``highlight`` (the
    top few) in colour, the rest muted, every line named by a label at its right end (moved
    apart where lines end close together); each of ``marks`` (label -> scale, e.g. the data's
    own number of records) a vertical line across the curves, named in the legend."""
    fig = go.Figure()
    low, high = table["mean"].min(), table["mean"].max()
    for i, (label, scale) in enumerate((marks or {}).items()):
        fig.add_trace(
            go.Scatter(
                x=[scale, scale],
                y=[low, high],
                mode="lines",
                name=label,
                line={"color": MARKS[i % len(MARKS)], "dash": "dot", "width": 2},
                hovertemplate=f"{label}<extra></extra>",
            )
        )
    ends = []
    groups = list(table.groupby("algorithm", sort=False))
    rank = {name: i for i, name in enumerate(highlight)}
    # the muted first, then the highlighted, the best last: drawn over the others
    order = sorted(range(len(groups)), key=lambda i: -rank.get(str(groups[i][0]), len(rank)))
    for i in order:
        name, rows = groups[i]
        style = _family(dependent[str(name)])
        shown = str(name) in highlight
        colour = HIGHLIGHT[rank[str(name)] % len(HIGHLIGHT)] if shown else MUTED
        label = untrusted.plot_label(name)  # a stored sweep's names are anyone's text
        fig.add_trace(
            go.Scatter(
                x=rows["scale"],
                y=rows["mean"],
                mode="lines+markers",
                name=label,
                showlegend=False,
                line={"dash": style["dash"], "width": 3 if shown else 1.5, "color": colour},
                marker={"symbol": style["symbol"], "size": 7 if shown else 5, "color": colour},
                hovertemplate="%{fullData.name}: %{y:.3g} at %{x:,} records<extra></extra>",
            )
        )
        last = rows.sort_values("scale").iloc[-1]
        if last["mean"] > 0:
            ends.append((label, float(last["scale"]), float(last["mean"]), shown))
    _label_ends(fig, ends, low, high)
    fig.update_layout(
        title="Error vs number of records (solid: data-dependent, dashed: data-independent)",
        xaxis={"type": "log", "title": {"text": "scale (records)"}},
        yaxis={"title": {"text": "mean scaled L1 error"}},
        height=460,
        margin={"r": 110},
    )
    return fig


def _label_ends(
    fig: go.Figure, ends: list[tuple[str, float, float, bool]], low: float, high: float
) -> None:
    """Name every line at its right end (``ends``: label, last scale, last mean, whether
    highlighted), the labels moved apart by :func:`spread` in log10 units, each joined to
    its line's end by a leader, and the log y axis's range set to hold them."""
    if not ends or not low > 0:
        fig.update_yaxes(type="log")
        return
    wanted = np.log10([e[2] for e in ends])
    span = max(np.log10(high) - np.log10(low), 1.0)
    gap = span * LABEL_PX / PLOT_PX
    placed = spread(wanted, gap)
    for (label, scale, end, shown), y in zip(ends, placed, strict=True):
        fig.add_annotation(  # a thin leader from the label to its line's end
            x=np.log10(scale),
            y=np.log10(end),
            ax=LEADER_PX,
            axref="pixel",
            ay=y,
            ayref="y",
            text=f"<b>{label}</b>" if shown else label,
            showarrow=True,
            arrowhead=0,
            arrowwidth=1,
            arrowcolor=GREY,
            xanchor="left",
            font={"color": INK if shown else GREY, "size": 12},
        )
    bottom = min(placed.min(), np.log10(low)) - gap / 2
    top = max(placed.max(), np.log10(high)) + gap / 2
    fig.update_yaxes(type="log", range=[bottom, top])


DRAWN_BINS = 8_192
"""Most bars the release chart draws: a larger domain is drawn with adjacent bins summed in
equal groups (the browser draws 8,192 bars at once; a million took seconds and 37 MB)."""


def release(
    truth: FloatArray,
    guess: FloatArray,
    buckets: NDArray[np.int64] | None,
    *,
    name: str,
    most: int = DRAWN_BINS,
) -> go.Figure:
    """One release against the sampled input, with the algorithm's buckets shaded (every
    other one, as one path shape: :func:`bucket_path`); over ``most`` bins, adjacent bins are
    summed in groups of ``k`` (the title says so) and the buckets drawn at that resolution."""
    k = -(-truth.size // most)
    drawn_truth, drawn_guess = _grouped(truth, k), _grouped(guess, k)
    bins = np.arange(drawn_truth.size) * k
    fig = go.Figure()
    fig.add_trace(
        go.Bar(x=bins, y=drawn_truth, name="sampled input", marker={"color": TRUTH}, opacity=0.7)
    )
    fig.add_trace(
        go.Scatter(
            x=bins,
            y=drawn_guess,
            mode="lines",
            name=f"{name}'s estimate",
            line={"color": ESTIMATE, "width": 1.5, "shape": "hvh"},
        )
    )
    count = "" if buckets is None else f", {buckets.size:,} buckets (every other one shaded)"
    grouped = "" if k == 1 else f"; bins summed in groups of {k:,} to draw"
    fig.update_layout(
        title=f"One release of {name}{count}{grouped}",
        xaxis={"title": {"text": "bin"}},
        yaxis={"title": {"text": "count" if k == 1 else f"count per {k:,} bins"}},
        bargap=0,
        height=420,
    )
    if buckets is not None and buckets.size > 1:
        # one shape for all the buckets: a shape per bucket (``add_vrect``) copies the list
        # of shapes at every call, quadratic in the buckets (8.2 s for DAWA's at 120,000
        # records), and the browser draws one SVG path faster than thousands of rectangles
        starts = np.unique(buckets // k) * k  # buckets within one drawn group merge
        fig.layout.shapes = (
            {
                "type": "path",
                "path": bucket_path(starts, truth.size, width=k),
                "xref": "x",
                "yref": "paper",
                "fillcolor": BUCKET,
                "line": {"width": 0},
                "layer": "below",
            },
        )
    return fig


def _grouped(values: FloatArray, k: int) -> FloatArray:
    """``values`` summed over groups of ``k`` adjacent entries (the last group may be short)."""
    if k == 1:
        return values
    padded = np.zeros(-(-values.size // k) * k)
    padded[: values.size] = values
    return np.asarray(padded.reshape(-1, k).sum(axis=1), dtype=np.float64)


def bucket_path(starts: NDArray[np.int64], bins: int, *, width: int = 1) -> str:
    """An SVG path of every other bucket (the first, third, …) as a rectangle over its bins,
    from the bottom of the plot (0) to its top (1), for a shape on ``xref="x"``,
    ``yref="paper"``.

    Parameters
    ----------
    starts : ndarray of int64
        The first bin of each bucket, increasing, the first 0.
    bins : int
        Number of bins (the last bucket ends there).
    width : int, default 1
        Bins per drawn bar (its centre at its first bin): 1, or the group of summed bins
        when :func:`release` draws a large domain in groups.

    Returns
    -------
    str
        ``M a,0 H b V 1 H a Z`` per shaded bucket, from ``a`` = its first bin − ``width``/2 to
        ``b`` = the next bucket's first bin − ``width``/2.

    Examples
    --------
    >>> bucket_path(np.array([0, 2, 5]), 8)
    'M-0.5,0H1.5V1H-0.5ZM4.5,0H7.5V1H4.5Z'
    """
    ends = np.append(starts[1:], bins)
    half = width / 2
    return "".join(
        f"M{lo - half:g},0H{hi - half:g}V1H{lo - half:g}Z"
        for lo, hi in zip(starts[::2].tolist(), ends[::2].tolist(), strict=True)
    )


def regret_heat_map(table: pd.DataFrame) -> go.Figure:
    """Regret per algorithm (rows) and dataset (columns) on a log colour scale, each cell's
    value written in it (so colour is never the only cue)."""
    values = table.to_numpy(dtype=float)
    fig = go.Figure(
        go.Heatmap(
            z=np.log10(values),
            x=untrusted.plot_labels(list(table.columns)),  # file names: Plotly renders HTML
            y=untrusted.plot_labels(list(table.index)),
            text=[[f"{v:.3g}" for v in row] for row in values],
            texttemplate="%{text}",
            colorscale="Cividis",
            colorbar={"title": {"text": "regret (log10)"}},
            hovertemplate="%{y} on %{x}: regret %{text}<extra></extra>",
        )
    )
    fig.update_layout(
        title="Regret per algorithm and dataset (1 = the best there)",
        yaxis={"autorange": "reversed"},
        height=max(320, 30 * len(table) + 160),
    )
    return fig


def release_map(
    truth: FloatArray,
    estimate: FloatArray,
    buckets: NDArray[np.int64] | None,
    *,
    name: str,
) -> go.Figure:
    """A 2-D release beside its input: two heatmaps on one colour scale, and where the
    algorithm partitions the grid (PrivTree's leaves, UGrid's and AGrid's cells, DPCube's
    boxes), its cells outlined on both as one path shape per panel (thousands of rectangle
    shapes would be slow to build and to draw), unless they are nearly as fine as the grid
    (:func:`outlined`).

    Parameters
    ----------
    truth, estimate : ndarray of float64, shape (n1, n2)
        The sampled input and the algorithm's estimate of it.
    buckets : ndarray of int64, shape (k, 4), or None
        The partition's cells as rows ``(r0, c0, r1, c1)`` (inclusive), or None.
    name : str
        The algorithm.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    fig = grid_heatmaps(
        [("input (one sample)", truth), (f"{name}'s release", estimate)],
        title=f"One release of {name} against its input",
    )
    if outlined(buckets, truth.size):
        assert buckets is not None
        path = cells_path(buckets)
        fig.layout.shapes = tuple(
            {
                "type": "path",
                "path": path,
                "xref": f"x{k}",
                "yref": f"y{k}",
                "line": {"color": "white", "width": 1 if len(buckets) <= 500 else 0.5},
                "name": f"{name}'s cells",
            }
            for k in ("", "2")
        )
    return fig


def outlined(buckets: NDArray[np.int64] | None, cells: int) -> bool:
    """Whether :func:`release_map` outlines a partition of ``cells`` grid cells: when it has
    at least two cells and at most half as many as the grid (finer, the outlines would
    cover the map: AGrid's second level is often the grid itself at large counts)."""
    return buckets is not None and 2 <= len(buckets) <= cells // 2


def cells_path(buckets: NDArray[np.int64]) -> str:
    """An SVG path of every cell ``(r0, c0, r1, c1)`` as a closed rectangle around its grid
    cells (x along the columns, y down the rows, cell ``c`` spanning ``c - 0.5 .. c + 0.5``).

    >>> cells_path(np.array([[0, 0, 1, 2]]))
    'M-0.5,-0.5H2.5V1.5H-0.5Z'
    """
    return "".join(
        f"M{c0 - 0.5:g},{r0 - 0.5:g}H{c1 + 0.5:g}V{r1 + 0.5:g}H{c0 - 0.5:g}Z"
        for r0, c0, r1, c1 in np.asarray(buckets).tolist()
    )
