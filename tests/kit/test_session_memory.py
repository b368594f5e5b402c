"""Uploads count against one memory budget for all sessions and are released with them."""

import gc
from pathlib import Path

import numpy as np
import pytest
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFile
from streamlit.testing.v1 import AppTest

from dpcore.histogram import from_counts
from dpui.kit import session_memory, sidebar
from dpui.ldp import settings as kv
from tests.uploads import uploader

ROOT = Path(__file__).resolve().parents[2]


def test_a_labelled_histogram_counts_its_arrays_and_its_labels():
    hist = from_counts(np.ones(1000), "h", labels=tuple(f"bin {i}" for i in range(1000)))
    size = session_memory.size_of(hist)
    assert size >= 8_000 + 1000 * 50  # the counts, and at least 50 bytes per label string


def test_admitted_data_is_counted_while_its_owner_lives_and_refused_over_the_budget(monkeypatch):
    monkeypatch.setenv(session_memory.VARIABLE, "1")  # 1 MB for every session together
    before = session_memory.held_bytes()
    owner = session_memory.Held()
    assert session_memory.admit("test upload", owner, 600_000) is None
    assert session_memory.held_bytes() - before == 600_000
    other = session_memory.Held()
    message = session_memory.admit("another upload", other, 600_000)
    assert message is not None and "at most 1 MB" in message
    del owner
    gc.collect()
    assert session_memory.held_bytes() == before  # released with its session's state
    assert session_memory.admit("another upload", other, 600_000) is None


def test_an_upload_over_the_budget_is_refused_and_the_previous_dataset_kept(monkeypatch):
    monkeypatch.setenv(session_memory.VARIABLE, "0.001")  # 1 kB
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    big = "count\n" + "\n".join(str(i % 7) for i in range(2000)) + "\n"
    uploader(at, "upload_file").set_value(("big.csv", big.encode(), "text/csv"))
    at.run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "big.csv was not loaded" in errors and "at most 0.001 MB of uploads" in errors
    assert at.session_state["data"] != sidebar.UPLOADED


def test_a_key_value_file_over_the_work_limit_is_refused_before_it_is_read(monkeypatch):
    monkeypatch.setenv("DP_EXPLORER_WORK_SECONDS", "0.001")
    at = AppTest.from_file(str(ROOT / "pages" / "kv_ldp.py"), default_timeout=120).run()
    at.selectbox(key=kv.SOURCE.name).set_value(kv.UPLOAD).run()
    rows = "".join(f"u{u},k{k},0.5\n" for u in range(300) for k in range(10))
    uploader(at, kv.UPLOAD_WIDGET).set_value(
        ("many.csv", ("user,key,value\n" + rows).encode(), "text/csv")
    )
    at.run()
    assert not at.exception
    shown = " ".join(e.value for e in at.error)
    assert "Not computed: reading a" in shown and "key-value file" in shown
    assert kv.UPLOADED not in at.session_state or at.session_state[kv.UPLOADED] is None


LESSON_PAGE = ROOT / "pages" / "lesson.py"


@pytest.mark.parametrize(
    ("script", "name", "file", "said"),
    [
        (LESSON_PAGE, "_lesson_upload", ("big.json", b" " * 300_000), "at most 200,000"),
        (ROOT / "app.py", "upload_file", ("bad.csv", b"count\n5\n-1\n"), "negative"),
        (ROOT / "app.py", "upload_file", ("photo.png", b"\x89PNG"), "not a .csv"),
        (ROOT / "pages" / "kv_ldp.py", kv.UPLOAD_WIDGET, ("bad.csv", b"user,key\n"), "missing"),
    ],
)
def test_a_refused_upload_leaves_neither_the_upload_store_nor_the_session(
    monkeypatch, script, name, file, said
):
    """A refused 60 MB lesson file stayed in the server's memory for the whole session, in
    Streamlit's upload store and in the uploader's value (issue 37, M7)."""
    removed: list[str] = []
    remove = MemoryUploadedFileManager.remove_file

    def recording(store, session_id, file_id):
        removed.append(file_id)
        remove(store, session_id, file_id)

    monkeypatch.setattr(MemoryUploadedFileManager, "remove_file", recording)
    at = AppTest.from_file(str(script), default_timeout=120).run()
    if name == kv.UPLOAD_WIDGET:
        at.selectbox(key=kv.SOURCE.name).set_value(kv.UPLOAD).run()
    uploader(at, name).set_value((*file, "text/plain")).run()
    assert not at.exception
    assert said in " ".join(e.value for e in at.error)
    assert len(removed) == 1  # the file's bytes left the upload store
    held = [k for k, v in at.session_state.items() if isinstance(v, UploadedFile)]
    assert held == []  # and no widget value holds them
    assert uploader(at, name).value is None  # a new, empty uploader


def test_an_accepted_histogram_upload_counts_the_file_the_uploader_keeps(monkeypatch):
    """The sidebar keeps an accepted file (to read it again with another layout): its bytes
    count against the budget beside the parsed histogram."""
    admitted: list[int] = []
    admit = session_memory.admit

    def recording(kind, owner, size):
        admitted.append(size)
        return admit(kind, owner, size)

    monkeypatch.setattr(session_memory, "admit", recording)
    content = ("count\n" + "\n".join(str(i % 7) for i in range(5000)) + "\n").encode()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    uploader(at, "upload_file").set_value(("many.csv", content, "text/csv")).run()
    assert not at.exception and at.session_state["data"] == sidebar.UPLOADED
    hist = at.session_state[sidebar.UPLOADED]
    assert admitted == [session_memory.size_of(hist) + len(content)]
