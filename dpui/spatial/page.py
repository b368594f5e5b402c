"""The "Spatial data" page, declared: a 2-D histogram (bundled or uploaded), a region tree
with its budgets, one release shown as three heatmaps, a typed rectangle answered three
ways, and the exact expected error of a random rectangle under every budget rule."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import streamlit as st

from dpui.kit import present, state
from dpui.kit.page import Page, View, sections
from dpui.spatial import data
from dpui.spatial import view as sv
from dpui.spatial.sections import PARAMS as sections_params
from dpui.spatial.sections import SECTION, SECTIONS
from dpui.spatial.view import BUDGETS, FANOUT, SEED, SOURCE, X0, X1, Y0, Y1


def controls() -> None:
    """The data (and the uploader with its options), the tree, its budgets, the rectangle."""
    c = st.columns([2.5, 1, 1.8, 1])
    c[0].selectbox(
        "2-D data",
        data.SOURCES,
        key=SOURCE.name,
        format_func=lambda s: data.DESCRIPTIONS.get(s, "upload a CSV (grid, x,y,count, points)"),
    )
    c[1].number_input(
        "Fan-out b (b × b)",
        FANOUT.lo,
        FANOUT.hi,
        key=FANOUT.name,
        help="Each node's rows and columns are split in b near-equal parts (2: the quadtree).",
    )
    c[2].selectbox("Budgets", tuple(sv.RULES), key=BUDGETS.name, format_func=sv.RULES.__getitem__)
    c[3].number_input("Noise seed", SEED.lo, SEED.hi, key=SEED.name)
    if state.get(SOURCE) == data.UPLOAD:
        data.upload_controls()
    st.markdown("**Rectangle** (0-based, inclusive): rows x0..x1, columns y0..y1")
    labels = ("first row x0", "last row x1", "first column y0", "last column y1")
    for col, param, label in zip(st.columns(4), (X0, X1, Y0, Y1), labels, strict=True):
        col.number_input(label, param.lo, param.hi, key=param.name)


def extra() -> Mapping[str, Any]:
    """This session's uploaded grid (links never carry it)."""
    return {sv.UPLOADED_GRID: data.uploaded()}


def body(view: View | None) -> None:
    """The heatmaps, then one part below them (:mod:`dpui.spatial.sections`)."""
    assert view is not None
    detail: sv.Detail = view.detail
    rows, cols = detail.grid.shape
    present.show_chart(
        view.figure,
        view.stamp,
        key="sp_grids",
        alt=(
            f"Three heatmaps of the {rows} by {cols} grid on one colour scale: the true "
            f"counts (total {detail.grid.total:,.0f}), the cells of one noisy release, and the "
            "grid after BLUE."
        ),
        on_select=partial(sv.select_box, "sp_grids", detail.grid.shape),
        selection_mode="box",
    )
    st.caption("Drag a box on a heatmap to choose the rectangle (or type it in Settings).")
    sections("Below the heatmaps", SECTION, SECTIONS, detail)


PAGE = Page(
    key="spatial",
    title="Spatial data",
    icon=":material/map:",
    group="Central DP: histograms",
    blurb=(
        "2-D histograms on a region tree (quadtree, b × b grid tree): true, noisy and consistent "
        "heatmaps, a rectangle answered three ways, and every budget rule's exact error."
    ),
    notice=(
        "On the 32 x 32 grid a quadtree beats Identity only with per-node budgets and BLUE, and "
        "barely: a rectangle is answered by many small boundary nodes of a 2-D tree, so trees "
        "gain far less than in 1-D, and Cormode et al.'s geometric levels [@cormode-2012] beat "
        "Identity only on larger grids such as 64 x 64."
    ),
    caption=(
        "A 2-D histogram released through a region tree: budgets by rule, one Laplace release "
        "of every node, BLUE consistency, a rectangle's answers, and the exact expected error "
        "of a random rectangle. Teaching and exploration tool: numpy's generator is not a "
        "hardened noise source."
    ),
    data=(
        "a 2-D histogram chosen in Settings (bundled examples coarsened from DPBench's real "
        "grids, or your upload), not the sidebar's 1-D dataset; only the sidebar's ε is used."
    ),
    params=(*sv.PARAMS, *sections_params),
    pinned=sv.PINNED,
    controls=controls,
    cost=sv.cost,
    view=sv.view,
    body=body,
    extra=extra,
)
