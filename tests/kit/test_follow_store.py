"""The rooms a class follows a lecturer through (:mod:`dpui.kit.follow_store`): only the
lecturer's secret moves a room, students read it, codes are checked, old rooms go, and
processes writing and reading at once (replicas) see whole states."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import sys
import time
import types
from pathlib import Path

import pytest

from dpui.kit import follow_store, lesson_store
from dpui.kit.lesson import LessonError


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(lesson_store.FOLDER_VARIABLE, str(tmp_path / "lessons"))
    return tmp_path / "lessons"


def test_only_the_lecturers_secret_moves_the_room_and_students_read_it(folder: Path):
    lead = follow_store.open_room("abcdefghij")
    assert len(lead.code) == follow_store.CODE_LENGTH and lead.secret
    assert follow_store.room(lead.code) == follow_store.Room("abcdefghij", 0, False)
    assert follow_store.move(lead, "abcdefghij", 3, True)
    assert follow_store.room(lead.code) == follow_store.Room("abcdefghij", 3, True)
    # someone who knows the public code but not the secret changes nothing
    assert not follow_store.move(follow_store.Lead(lead.code, "guess"), "zzzzzzzzzz", 9, False)
    assert follow_store.room(lead.code) == follow_store.Room("abcdefghij", 3, True)
    # the store keeps a hash of the secret, never the secret
    with sqlite3.connect(follow_store.path()) as db:
        rows = db.execute("SELECT * FROM rooms").fetchall()
    assert len(rows) == 1 and lead.secret not in map(str, rows[0])
    assert follow_store.open_room("abcdefghij").code != lead.code


def test_reads_share_one_connection_per_store_and_see_every_write(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    made = []
    connect = follow_store._connect
    monkeypatch.setattr(follow_store, "_connect", lambda **kw: made.append(kw) or connect(**kw))
    lead = follow_store.open_room("abcdefghij")
    for step in range(5):  # another connection writes, the kept one reads it at once
        assert follow_store.move(lead, "abcdefghij", step, step % 2 == 1)
        assert follow_store.room(lead.code) == follow_store.Room("abcdefghij", step, step % 2 == 1)
    reads = [kw for kw in made if kw == {"check_same_thread": False}]
    assert len(reads) == 1 and len(made) == 1 + 5 + 1  # open, five moves, one to read
    monkeypatch.setenv(lesson_store.FOLDER_VARIABLE, str(tmp_path / "elsewhere"))
    with pytest.raises(LessonError, match="No class is following"):  # another store, read anew
        follow_store.room(lead.code)


def test_codes_that_are_not_a_rooms_are_refused_in_words(folder: Path):
    with pytest.raises(LessonError, match="eight letters a–z and digits 2–7"):
        follow_store.room("../../etc")
    with pytest.raises(LessonError, match="No class is following a lesson under the code"):
        follow_store.room("abcdefgh")


def test_rooms_left_for_twelve_hours_close_and_the_store_is_bounded(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    old = follow_store.open_room("abcdefghij")
    later = time.time() + follow_store.ROOM_HOURS * 3600 + 1
    monkeypatch.setattr(follow_store.time, "time", lambda: later)
    fresh = follow_store.open_room("abcdefghij")  # opening a room sweeps the old ones
    with pytest.raises(LessonError, match="No class is following"):
        follow_store.room(old.code)
    assert not follow_store.move(old, "abcdefghij", 1, False)
    assert follow_store.room(fresh.code).step == 0
    monkeypatch.setattr(follow_store, "MAX_ROOMS", 2)
    follow_store.open_room("abcdefghij")
    with pytest.raises(LessonError, match="already has 2 classes"):
        follow_store.open_room("abcdefghij")


def test_a_store_that_cannot_be_written_is_said_in_words(folder: Path):
    folder.parent.mkdir(exist_ok=True)
    folder.write_text("a file where the folder should be")
    with pytest.raises(LessonError, match="could not be reached on this server"):
        follow_store.open_room("abcdefghij")


def _lecturer(where: str, code: str, secret: str, steps: int) -> None:
    os.environ[lesson_store.FOLDER_VARIABLE] = where
    lead = follow_store.Lead(code, secret)
    for step in range(1, steps + 1):  # lesson id and step move together: one write
        assert follow_store.move(lead, f"{step:010d}", step, step % 2 == 0)


def _student(where: str, code: str, steps: int, seen: multiprocessing.Queue) -> None:
    os.environ[lesson_store.FOLDER_VARIABLE] = where
    states = set()
    while True:
        room = follow_store.room(code)
        states.add((room.lesson, room.step, room.revealed))
        if room.step == steps:
            break
    seen.put(sorted(states))


def test_replicas_reading_while_the_lecturer_writes_see_whole_states(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    """Three processes (replicas) poll while a fourth moves the room 300 times: no read
    fails or waits out its timeout, and every state read is one the lecturer wrote whole."""
    # a spawned process runs the parent's __main__ first: after an AppTest of app.py in this
    # process that is the app, which fails outside Streamlit (seen with -k follow)
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    lead = follow_store.open_room(f"{0:010d}")
    steps = 300
    context = multiprocessing.get_context("spawn")
    seen: multiprocessing.Queue = context.Queue()
    students = [
        context.Process(target=_student, args=(str(folder), lead.code, steps, seen))
        for _ in range(3)
    ]
    for p in students:
        p.start()
    writer = context.Process(target=_lecturer, args=(str(folder), lead.code, lead.secret, steps))
    writer.start()
    writer.join(240)  # spawned processes start slowly on a loaded machine
    results = [seen.get(timeout=240) for _ in students]
    for p in students:
        p.join(30)
    assert writer.exitcode == 0 and all(p.exitcode == 0 for p in students)
    written = {(f"{s:010d}", s, s % 2 == 0) for s in range(1, steps + 1)}
    written.add((f"{0:010d}", 0, False))  # as opened
    for states in results:
        assert set(map(tuple, states)) <= written and (f"{steps:010d}", steps, True) in states
