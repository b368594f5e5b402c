"""Short lesson links: the lesson stored on the server under an id made from its content
(:mod:`dpui.kit.lesson_store`), and the QR codes a hall scans (:mod:`dpui.kit.qr`)."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from pathlib import Path

import pytest

from dpui import registry
from dpui.kit import lesson, lesson_store, qr
from dpui.reference import lesson_page

TARGETS = lesson_page.targets(registry.PAGES)
EXAMPLE = lesson_page.EXAMPLE.read_bytes()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(lesson_store.FOLDER_VARIABLE, str(tmp_path / "lessons"))
    return tmp_path / "lessons"


def test_a_stored_lesson_comes_back_whole_under_an_id_made_from_its_content(folder: Path):
    text = lesson.to_json(lesson.from_json(EXAMPLE, TARGETS))
    key = lesson_store.put(text)
    # the id: SHA-256 of the UTF-8 text, base32, first ten characters, lower case
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    assert key == base64.b32encode(digest).decode()[:10].lower()
    assert lesson_store.get(key) == text.encode("utf-8")
    assert lesson.from_json(lesson_store.get(key), TARGETS) == lesson.from_json(EXAMPLE, TARGETS)
    assert lesson_store.put(text) == key  # the same lesson again: the same id, one file
    assert [p.name for p in folder.iterdir()] == [f"{key}.json"]
    other = lesson_store.put(text.replace("50 minutes", "49 minutes"))
    assert other != key and len(list(folder.iterdir())) == 2


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("../../etc/passwd", "not one this app makes"),
        ("ABCDEFGHIJ", "not one this app makes"),
        ("abcdefgh1j", "not one this app makes"),  # 1 is not a base32 digit
        ("abcdefghij" * 50, "the link has 99 characters"),
        ("abcdefghij", "No lesson abcdefghij is stored on this server"),
    ],
)
def test_a_bad_or_unknown_id_says_what_is_wrong(folder: Path, key: str, says: str):
    with pytest.raises(lesson.LessonError, match=says):
        lesson_store.get(key)


def test_a_full_folder_or_an_oversized_lesson_is_refused_with_the_reason(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(lesson_store, "MAX_LESSONS", 2)
    kept = [lesson_store.put(json.dumps({"title": f"L{k}", "steps": []})) for k in range(2)]
    with pytest.raises(lesson.LessonError, match="already stores 2 lessons"):
        lesson_store.put(json.dumps({"title": "L2", "steps": []}))
    assert lesson_store.put(json.dumps({"title": "L0", "steps": []})) == kept[0]  # stored
    with pytest.raises(lesson.LessonError, match="at most 200,000"):
        lesson_store.put("x" * (lesson.MAX_FILE + 1))


def test_an_unwritable_folder_is_a_message_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(lesson_store.FOLDER_VARIABLE, str(blocker / "lessons"))
    with pytest.raises(lesson.LessonError, match="could not be stored on this server"):
        lesson_store.put("{}")


def _png_width(data: bytes) -> int:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int(struct.unpack(">I", data[16:20])[0])  # IHDR's width


def test_a_short_lesson_link_makes_a_hall_sized_code_of_version_10_at_most():
    url = f"http://192.168.100.200:8501/lesson?{lesson_store.URL_KEY}=abcdefghij"
    code = qr.make(url)
    assert code is not None and int(code.version) <= qr.MAX_VERSION
    width = _png_width(qr.png(code, qr.HALL_PIXELS))
    assert width >= qr.HALL_PIXELS
    modules = code.symbol_size(scale=1, border=2)[0]
    assert width % modules == 0 and width < qr.HALL_PIXELS + modules  # whole pixels a module
    # the whole bundled lesson as one link does not make a code a hall can scan
    code_of_lesson = lesson.to_link(lesson.from_json(EXAMPLE, TARGETS))
    whole = qr.make(f"http://192.168.100.200:8501/lesson?lesson={code_of_lesson}")
    assert whole is None or int(whole.version) > qr.MAX_VERSION


def test_students_open_what_they_scan_in_normal_mode():
    url = "http://192.168.1.20:8501/laplace?lap_seed=7&present=true&eps=0.5"
    assert qr.for_students(url) == "http://192.168.1.20:8501/laplace?lap_seed=7&eps=0.5"
    assert not qr.on_loopback(url)
    assert qr.on_loopback("http://127.0.0.2:8501/") and qr.on_loopback("http://app.localhost/")
