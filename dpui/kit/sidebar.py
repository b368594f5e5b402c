"""The shared sidebar: the dataset and epsilon every page reuses.

Every page calls :func:`shared_controls` first (so a page run on its own has
its real sidebar), then reads the choice through :func:`current_histogram` and
:func:`current_epsilon`. The values survive page switches (see
:mod:`dpui.kit.state`). A failed upload shows its error and leaves the previous
valid histogram in place.
"""

from __future__ import annotations

import hashlib

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from dpcore.histogram import MAX_BINS, Histogram, HistogramError, parse_histogram
from dpui.kit import epsilon_input, examples, routing, session_memory, state, untrusted
from dpui.kit.params import ChoiceParam, FloatParam, IntParam

UPLOADED = "your uploaded file"
UPLOAD_MARK = "upload"  # data= value of a link made while an upload was in use
_UPLOAD_LINK = "_opened_an_upload_link"
_UPLOAD_WIDGET = "upload_file"
DATASET = ChoiceParam("data", examples.DEFAULT, examples.NAMES)
EPSILON = FloatParam("eps", 1.0, 1e-5, 100.0)
SHARED = (DATASET, EPSILON)
LAYOUTS = {
    "auto": "auto-detect (counts, or label + count)",
    "counts": "one column of counts",
    "labelled": "label column + count column",
    "values": "raw values, to be binned",
}
HEADERS = {"auto": "detect", "yes": "is a header", "no": "is data"}
UPLOAD_OPTIONS = (
    ChoiceParam("upload_layout", "auto", tuple(LAYOUTS)),
    ChoiceParam("upload_header", "auto", tuple(HEADERS)),
    IntParam("upload_bins", 64, 1, MAX_BINS),
)


def shared_controls() -> None:
    """Dataset picker, upload and epsilon, in the sidebar."""
    routing.leave_pages_folder_mode()
    if st.query_params.get(DATASET.name) == UPLOAD_MARK and UPLOADED not in st.session_state:
        # a link made while an upload was in use: the file is not in it (say so, once loaded)
        del st.query_params[DATASET.name]
        st.session_state[_UPLOAD_LINK] = True
    state.load(SHARED + UPLOAD_OPTIONS)
    if st.session_state.get(_UPLOAD_LINK) and UPLOADED not in st.session_state:
        st.warning(
            "This link was made while an uploaded file was in use. Uploads are not part of "
            f"links, so the bundled dataset **{current_dataset_name()}** is shown instead; "
            "upload the file again in the sidebar to see it.",
            icon=":material/link_off:",
        )
    options = list(examples.NAMES)
    if UPLOADED in st.session_state:
        options.append(UPLOADED)
    with st.sidebar:
        st.selectbox(
            "Dataset",
            options,
            key=DATASET.name,
            help="Every page uses this histogram. Bundled examples are described on the Overview.",
        )
        if current_dataset_name() == UPLOADED:
            uploaded: Histogram = st.session_state.get(UPLOADED, current_histogram())
            st.caption(f"Uploaded: {uploaded.name}")
            for note in (uploaded.header_note, *uploaded.notes):
                if note:
                    st.caption(untrusted.markdown(note, 300))
        with st.expander("Upload a histogram (CSV/TSV)"):
            st.radio(
                "Layout",
                tuple(LAYOUTS),
                format_func=LAYOUTS.__getitem__,
                key="upload_layout",
                on_change=_parse_upload,
            )
            st.radio(
                "First row",
                tuple(HEADERS),
                format_func=HEADERS.__getitem__,
                key="upload_header",
                horizontal=True,
                on_change=_parse_upload,
                help="Detect: the first row is a header when its count cell has no digit.",
            )
            st.number_input(
                "Bins (raw values only)",
                1,
                MAX_BINS,
                key="upload_bins",
                on_change=_parse_upload,
            )
            st.file_uploader(
                "CSV or TSV file",
                key=session_memory.uploader_key(_UPLOAD_WIDGET),
                on_change=_parse_upload,
            )
            if error := st.session_state.get("upload_error"):
                st.error(error, icon=":material/error:")
        epsilon_input.epsilon_controls(
            EPSILON,
            help="The total epsilon of one release (the max root-to-leaf budget sum for trees).",
        )
        st.caption(
            "Teaching and exploration tool: noise comes from numpy's generator, "
            "which is not a hardened source for real releases."
        )
    if error := st.session_state.get("upload_error"):  # also where the eye is, not only here
        st.error(f"**Upload rejected.** {error}", icon=":material/upload_file:")
    # an upload cannot be reproduced from a link: the URL then says data=upload, and opening
    # it tells which bundled dataset is shown instead
    from_upload = current_dataset_name() == UPLOADED
    state.save(SHARED + UPLOAD_OPTIONS, in_url=(EPSILON,) if from_upload else SHARED)
    if from_upload and st.query_params.get(DATASET.name) != UPLOAD_MARK:
        st.query_params[DATASET.name] = UPLOAD_MARK


UPLOAD_TYPES = ("csv", "tsv", "txt")


def _parse_upload() -> None:
    file = session_memory.uploaded(_UPLOAD_WIDGET)
    if file is None:
        st.session_state.pop("upload_error", None)
        return
    if refused := _refusal(file):
        # the file's bytes are not kept: upload it again (with other options) to retry
        session_memory.release_upload(_UPLOAD_WIDGET)
        st.session_state["upload_error"] = (
            f"{refused} The previous dataset is still in use; upload the file again to retry."
        )


def _refusal(file: UploadedFile) -> str | None:
    """Why ``file`` is not the session's histogram now, or None once it is."""
    if wrong := untrusted.wrong_file_type(file.name, UPLOAD_TYPES):
        return wrong
    try:
        hist = parse_histogram(
            file.getvalue(),
            name=untrusted.file_name(file.name),
            layout=st.session_state.get("upload_layout", "auto"),
            header={"yes": True, "no": False}.get(st.session_state.get("upload_header", "auto")),
            bins=int(st.session_state.get("upload_bins", 64)),
        )
    except HistogramError as err:
        return f"{untrusted.file_name(file.name)} was not loaded: {untrusted.markdown(err, 600)}"
    # the uploader keeps the file too (to read it again with other options): both count
    size = session_memory.size_of(hist) + file.size
    refused = session_memory.admit("histogram upload", hist, size)
    if refused is not None:
        return f"{untrusted.file_name(file.name)} was not loaded: {refused}"
    st.session_state.pop("upload_error", None)
    st.session_state[UPLOADED] = hist
    st.session_state[DATASET.name] = UPLOADED
    return None


def current_dataset_name() -> str:
    name = state.get(DATASET)
    if name == UPLOADED and UPLOADED not in st.session_state:
        return str(DATASET.default)
    return str(name)


def current_histogram() -> Histogram:
    """The histogram chosen in the sidebar (the default example when none is chosen)."""
    name = current_dataset_name()
    uploaded = st.session_state.get(UPLOADED) if name == UPLOADED else None
    if isinstance(uploaded, Histogram):
        return uploaded
    return examples.load(name)


def current_epsilon() -> float:
    return float(state.get(EPSILON))


def histogram_digest(hist: Histogram) -> str:
    """A content key for caching computations on ``hist``."""
    return hashlib.blake2b(hist.counts.tobytes(), digest_size=16).hexdigest()
