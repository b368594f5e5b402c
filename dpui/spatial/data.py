"""The "Spatial data" page's data: the bundled 2-D examples and this session's upload.

An upload is parsed by :func:`dpcore.spatial.grid_data.parse_grid` when the file is chosen
(or an upload option changes); a refused file leaves the previous grid in place and says
why. The kept grid counts against the sessions' upload budget
(:mod:`dpui.kit.session_memory`); links never carry it.
"""

from __future__ import annotations

import math
from pathlib import Path

import streamlit as st

from dpcore.spatial.grid_data import Grid, GridError, parse_grid
from dpui.kit import session_memory, untrusted
from dpui.kit.sidebar import HEADERS

GRIDS_DIR = Path(__file__).resolve().parents[2] / "assets" / "grids"
DESCRIPTIONS = {
    "stroke-32x32": "International Stroke Trial: age x systolic blood pressure, 19,435 patients "
    "(DPBench's STROKE, 8 x 8 blocks of cells summed)",
    "md-salary-64x64": "Maryland state employees 2012: annual salary x overtime, 70,526 people "
    "(DPBench's MD-SAL-2D, 4 x 4 blocks summed)",
    "sf-taxi-64x64": "San Francisco taxi trips: start points, 464,040 trips (DPBench's "
    "SF-CABS-S, 4 x 4 blocks summed)",
    "gowalla-128x128": "Gowalla check-in locations, 6,442,863 check-ins (DPBench's GOWALLA, "
    "2 x 2 blocks summed)",
}
UPLOAD = "upload"
SOURCES: tuple[str, ...] = (*DESCRIPTIONS, UPLOAD)
MAX_UPLOAD_CELLS = 512 * 512
"""Largest uploaded grid kept (the work limit decides what the page then computes)."""

UPLOADED = "sp_uploaded_grid"  # session key of the last valid upload (a Grid)
UPLOAD_WIDGET = "sp_upload_widget"
UPLOAD_ERROR = "sp_upload_error"
LAYOUT = "sp_upload_layout"
HEADER = "sp_upload_header"
BIN_ROWS = "sp_upload_rows"
BIN_COLS = "sp_upload_cols"
BOUNDS = "sp_upload_bounds"
LAYOUTS = {
    "auto": "auto-detect (grid, or x,y,count)",
    "grid": "grid: one line per row of counts",
    "long": "long form: x,y,count",
    "points": "raw points: two numeric columns, binned",
}
NO_UPLOAD = (
    "No 2-D file is uploaded in this session. Upload a CSV in Settings (a grid of counts, "
    "x,y,count, or raw points); links carry settings, never files."
)


@st.cache_resource(show_spinner=False)
def bundled(name: str) -> Grid:
    """The bundled grid ``name`` (one of :data:`DESCRIPTIONS`); shared and never mutated."""
    return parse_grid((GRIDS_DIR / f"{name}.csv").read_bytes(), name=name)


def parse_bounds(text: str) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Four numbers ``low1, high1, low2, high2`` (the first and the second coordinate's
    ranges), or None for an empty text.

    Raises
    ------
    GridError
        Saying what is accepted, when ``text`` is not four finite numbers.
    """
    if not text.strip():
        return None
    try:
        a, b, c, d = (float(part) for part in text.replace(";", ",").split(","))
    except ValueError:
        raise GridError(
            "The bounds are not four numbers separated by commas; write "
            "'low1, high1, low2, high2' (e.g. -122.52, -122.35, 37.70, 37.82), or leave them "
            "empty to use the points' own range."
        ) from None
    if not all(math.isfinite(v) for v in (a, b, c, d)):
        raise GridError("Bounds must be finite numbers.")
    return (a, b), (c, d)


def on_upload() -> None:
    """Keep the chosen file's grid when it is valid and fits the sessions' budget; otherwise
    keep the previous grid and say why. The uploader keeps the file, so that changing an
    option reads it again."""
    file = session_memory.uploaded(UPLOAD_WIDGET)
    if file is None:
        st.session_state.pop(UPLOAD_ERROR, None)
        return
    name = untrusted.file_name(file.name)
    if wrong := untrusted.wrong_file_type(file.name, ("csv", "tsv", "txt")):
        refuse(wrong)
        return
    try:
        grid = parse_grid(
            file.getvalue(),
            name=name,
            layout=st.session_state.get(LAYOUT, "auto"),
            header={"yes": True, "no": False}.get(st.session_state.get(HEADER, "auto")),
            bins=(int(st.session_state.get(BIN_ROWS, 64)), int(st.session_state.get(BIN_COLS, 64))),
            bounds=parse_bounds(str(st.session_state.get(BOUNDS, ""))),
            max_cells=MAX_UPLOAD_CELLS,
        )
    except GridError as err:
        refuse(f"{name} was not loaded: {untrusted.markdown(err, 600)}")
        return
    refused = session_memory.admit("2-D upload", grid, session_memory.size_of(grid) + file.size)
    if refused is not None:
        refuse(f"{name} was not loaded: {refused}")
        return
    st.session_state.pop(UPLOAD_ERROR, None)
    st.session_state[UPLOADED] = grid


def refuse(why: str) -> None:
    """Say why the file was not loaded, and let it go (upload it again to retry)."""
    session_memory.release_upload(UPLOAD_WIDGET)
    st.session_state[UPLOAD_ERROR] = (
        f"{why} The previous data are still in use; upload the file again to retry."
    )


def grid_of(source: str, uploaded: Grid | None) -> Grid | None:
    """The grid a view shows: a bundled one, or this session's upload (None if none)."""
    if source == UPLOAD:
        return uploaded
    return bundled(source)


def upload_controls() -> None:
    """The uploader and its options, and the grid in use or why the last file was refused
    (on every page that reads a 2-D map)."""
    o = st.columns([2, 1.2, 1, 1, 2])
    o[0].selectbox(
        "Layout", tuple(LAYOUTS), format_func=LAYOUTS.__getitem__, key=LAYOUT,
        on_change=on_upload,
    )  # fmt: skip
    o[1].selectbox(
        "First row", tuple(HEADERS), format_func=HEADERS.__getitem__, key=HEADER,
        on_change=on_upload,
    )  # fmt: skip
    o[2].number_input("Points: rows", 2, 512, 64, key=BIN_ROWS, on_change=on_upload)
    o[3].number_input("Points: columns", 2, 512, 64, key=BIN_COLS, on_change=on_upload)
    o[4].text_input(
        "Points: bounds low1, high1, low2, high2",
        key=BOUNDS,
        max_chars=200,
        on_change=on_upload,
        help="The first coordinate's range (binned along the rows), then the second's (along "
        "the columns). Empty: the points' own range. A point outside is an error.",
    )
    st.file_uploader(
        "2-D CSV or TSV file",
        key=session_memory.uploader_key(UPLOAD_WIDGET),
        on_change=on_upload,
    )
    grid = st.session_state.get(UPLOADED)
    if grid is not None:
        st.caption(f"In use: {grid.name}, {grid.shape[0]} x {grid.shape[1]} cells.")
        for note in grid.notes:
            st.caption(untrusted.markdown(note, 300))
    if error := st.session_state.get(UPLOAD_ERROR):
        st.error(f"Upload rejected. {error}", icon=":material/upload_file:")


def uploaded() -> Grid | None:
    """This session's uploaded grid (links never carry it), or None."""
    grid = st.session_state.get(UPLOADED)
    return grid if isinstance(grid, Grid) else None
