"""Data a session holds for itself (uploads), counted against one budget for all sessions.

One server holds every student's uploads in memory: a 2^22-bin labelled histogram is about
375 MB in Python objects. Before a session keeps an upload, :func:`admit` adds its size to
what the live sessions already hold and refuses it, saying so, when the total would pass
``DP_EXPLORER_SESSIONS_MB`` (default 1,500). What a session holds is released with the
session: Streamlit drops a closed tab's session state after ``server.disconnectedSessionTTL``
(30 s in ``.streamlit/config.toml``), and the registry here only holds weak references.

An uploader's file is held twice outside that budget, by Streamlit's upload store and by the
widget's value, for as long as the widget shows it: :func:`release_upload` lets both go once
the file is read (a refused 60 MB file otherwise stayed for the whole session). The
uploader's key then changes (:func:`uploader_key`), so that it is drawn empty.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from typing import Any

import numpy as np
import streamlit as st
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import UploadedFile

VARIABLE = "DP_EXPLORER_SESSIONS_MB"
DEFAULT_MB = 1500.0
MB = 1e6

_LOCK = threading.Lock()
_HELD: dict[tuple[str, str], tuple[weakref.ref[Any], int]] = {}


def budget_mb() -> float:
    """The budget in MB from the environment (the default for unset or invalid values)."""
    try:
        value = float(os.environ.get(VARIABLE, ""))
    except ValueError:
        return DEFAULT_MB
    return value if value > 0 else DEFAULT_MB


def size_of(value: Any) -> int:
    """Bytes of an upload as held: numpy arrays, bytes, and tuples of strings (labels)."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, bytes | str):
        return sys.getsizeof(value)
    if isinstance(value, tuple | list):
        return sys.getsizeof(value) + sum(size_of(v) for v in value)
    if hasattr(value, "__dataclass_fields__"):
        return sum(size_of(getattr(value, name)) for name in value.__dataclass_fields__)
    return 0


def held_bytes() -> int:
    """What the live sessions hold now (entries whose object is gone are dropped)."""
    with _LOCK:
        for key in [k for k, (ref, _) in _HELD.items() if ref() is None]:
            del _HELD[key]
        return sum(size for _, size in _HELD.values())


def _session() -> str:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "bare"


class Held:
    """A handle kept in a session's state beside data that cannot be weakly referenced
    (bytes): the data counts while the handle lives."""


def admit(kind: str, owner: Any, size: int) -> str | None:
    """Count ``size`` bytes as this session's ``kind`` (replacing what it held under that
    name) for as long as ``owner`` (kept in the session's state) lives; a message saying why,
    and nothing counted, when the budget would be exceeded."""
    key = (_session(), kind)
    budget = budget_mb() * MB
    with _LOCK:
        others = sum(s for k, (ref, s) in _HELD.items() if k != key and ref() is not None)
        if others + size > budget:
            return (
                f"This server keeps at most {budget / MB:,.4g} MB of uploads for all its "
                f"sessions together; this file needs about {size / MB:,.0f} MB and the other "
                f"sessions hold {others / MB:,.0f} MB. Upload a smaller file (fewer bins or "
                "rows, no labels), or try again when other sessions have closed."
            )
        _HELD[key] = (weakref.ref(owner), size)
    return None


def _generation(name: str) -> str:
    return f"_upload_generation.{name}"


def uploader_key(name: str, session: Any = None) -> str:
    """The widget key of the uploader called ``name`` now: ``name``, then ``name.1``, ... after
    each :func:`release_upload`.

    Parameters
    ----------
    name : str
        The uploader's name (its first key).
    session : mapping, optional
        A session state (an AppTest's, in tests); this session's by default.

    Returns
    -------
    str
        The key to draw the uploader with.
    """
    state = st.session_state if session is None else session
    at = state.get(_generation(name), 0)
    return f"{name}.{at}" if at else name


def uploaded(name: str) -> UploadedFile | None:
    """The file in the uploader called ``name``, if any."""
    found = st.session_state.get(uploader_key(name))
    return found if isinstance(found, UploadedFile) else None


def release_upload(name: str) -> None:
    """Let go of the file in the uploader called ``name`` (call it from the uploader's
    callback once the file is read, or refused): its bytes leave Streamlit's upload store and
    the widget's value, and the uploader is drawn empty under a new key on the next run.

    Parameters
    ----------
    name : str
        The uploader's name, as given to :func:`uploader_key`.
    """
    file = uploaded(name)
    ctx = get_script_run_ctx()
    if file is not None and ctx is not None:
        store = ctx.uploaded_file_mgr
        if isinstance(store, MemoryUploadedFileManager):  # the server's store (and AppTest's)
            store.remove_file(ctx.session_id, file.file_id)
    st.session_state.pop(uploader_key(name), None)
    st.session_state[_generation(name)] = st.session_state.get(_generation(name), 0) + 1
