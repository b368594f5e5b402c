"""Where a presented lesson is now, for the students following it on any replica.

A lecturer who lets the class follow opens a *room*: a short public code (in the follow
link and its QR code), the stored lesson's id (:mod:`dpui.kit.lesson_store`), the step
presented and whether its figure is revealed. Only the lecturer's session moves the room: it
holds the room's secret, of which the store keeps only a hash. Students' sessions read the
room about once a second.

The rooms live in one SQLite database in the lessons' folder, in WAL mode: every replica of
``dp-explorer serve`` on the machine reads it while the lecturer's replica writes, without
blocking each other. SQLite needs the replicas on one machine (not a network file system);
several machines would need a shared database server, which the app does not provide.
Rooms unused for :data:`ROOM_HOURS` hours are deleted when a new one is opened, and the
store holds at most :data:`MAX_ROOMS`.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import threading
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpui.kit import lesson_store
from dpui.kit.lesson import LessonError

URL_KEY = "f"
"""The query parameter of a follow link: the room's code."""
CODE_LENGTH = 8
_CODE = re.compile(rf"[a-z2-7]{{{CODE_LENGTH}}}")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
ROOM_HOURS = 12.0
"""A room no lecturer moved for this long is deleted (a lecture is shorter)."""
MAX_ROOMS = 1_000
"""Rooms the store holds at most."""
_SCHEMA = """CREATE TABLE IF NOT EXISTS rooms (
    code TEXT PRIMARY KEY, secret TEXT NOT NULL, lesson TEXT NOT NULL,
    step INTEGER NOT NULL, revealed INTEGER NOT NULL, updated REAL NOT NULL)"""


@dataclass(frozen=True)
class Room:
    """What followers read: the stored ``lesson``'s id, the ``step`` presented (0-based) and
    whether its figure is ``revealed``."""

    lesson: str
    step: int
    revealed: bool


@dataclass(frozen=True)
class Lead:
    """The lecturer's hold on a room: its public ``code`` and its ``secret``."""

    code: str
    secret: str


def path() -> Path:
    """The database's file, in the lessons' folder (:func:`dpui.kit.lesson_store.folder`)."""
    return lesson_store.folder() / "follow.sqlite3"


def _connect(*, check_same_thread: bool = True) -> sqlite3.Connection:
    where = path()
    where.parent.mkdir(parents=True, exist_ok=True)
    # a writer holds the lock for microseconds; readers never wait in WAL mode
    db = sqlite3.connect(
        where, timeout=5.0, isolation_level=None, check_same_thread=check_same_thread
    )
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(_SCHEMA)
    return db


class _Reader:
    """This process's connection for reading rooms, made once per database file: every
    follower's page reads its room about once a second, and opening a connection (with its
    pragma and schema) costs 0.34 ms where the read costs 5 µs. In WAL mode each read (a
    transaction of its own) sees the last committed step; sessions' threads take turns on it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: tuple[Path, sqlite3.Connection] | None = None

    def row(self, query: str, args: tuple[str, ...]) -> tuple[Any, ...] | None:
        where = path()
        with self.lock:
            if self.kept is None or self.kept[0] != where:
                if self.kept is not None:
                    self.kept[1].close()
                self.kept = (where, _connect(check_same_thread=False))
            # every row read: a statement left open would hold its read transaction, and
            # this connection would go on seeing that snapshot
            rows = self.kept[1].execute(query, args).fetchall()
        return tuple(rows[0]) if rows else None


_READER = _Reader()


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _failed(err: sqlite3.Error | OSError) -> LessonError:
    return LessonError(f"The class's follow room could not be reached on this server ({err}).")


def open_room(lesson: str, step: int = 0, revealed: bool = False) -> Lead:
    """Open a room showing step ``step`` of the stored lesson ``lesson``.

    Returns
    -------
    Lead
        Its code (for the follow link) and the secret that moves it (for the lecturer only).

    Raises
    ------
    LessonError
        When the store is full or cannot be written.
    """
    code = "".join(secrets.choice(_ALPHABET) for _ in range(CODE_LENGTH))
    secret = secrets.token_urlsafe(24)
    now = time.time()
    try:
        with closing(_connect()) as db:
            db.execute("DELETE FROM rooms WHERE updated < ?", (now - ROOM_HOURS * 3600,))
            (rooms,) = db.execute("SELECT COUNT(*) FROM rooms").fetchone()
            if rooms >= MAX_ROOMS:
                raise LessonError(
                    f"This server already has {MAX_ROOMS:,} classes following lessons, the "
                    "most it keeps; try again later."
                )
            db.execute(
                "INSERT INTO rooms VALUES (?, ?, ?, ?, ?, ?)",
                (code, _hash(secret), lesson, step, int(revealed), now),
            )
    except (sqlite3.Error, OSError) as err:
        raise _failed(err) from None
    return Lead(code, secret)


def move(lead: Lead, lesson: str, step: int, revealed: bool) -> bool:
    """Show step ``step`` of stored lesson ``lesson`` (``revealed`` or not) in ``lead``'s
    room; False when the room is gone (expired) or the secret is not its own.

    Raises
    ------
    LessonError
        When the store cannot be written.
    """
    try:
        with closing(_connect()) as db:
            done = db.execute(
                "UPDATE rooms SET lesson = ?, step = ?, revealed = ?, updated = ? "
                "WHERE code = ? AND secret = ?",
                (lesson, step, int(revealed), time.time(), lead.code, _hash(lead.secret)),
            )
            return done.rowcount == 1
    except (sqlite3.Error, OSError) as err:
        raise _failed(err) from None


def room(code: str) -> Room:
    """The room ``code`` as followers see it.

    Raises
    ------
    LessonError
        When ``code`` is not a room's code (eight letters a–z and digits 2–7), no room has it
        on this server (never opened here, or expired), or the store cannot be read.
    """
    if not _CODE.fullmatch(code):
        raise LessonError(
            f"The class code in this link is not one this app makes (eight letters a–z and "
            f"digits 2–7; the link has {min(len(code), 99)} characters)."
        )
    try:
        found = _READER.row("SELECT lesson, step, revealed FROM rooms WHERE code = ?", (code,))
    except (sqlite3.Error, OSError) as err:
        raise _failed(err) from None
    if found is None:
        raise LessonError(
            f"No class is following a lesson under the code {code} on this server: the "
            "lecturer's follow link opens only on the server that made it, and a room closes "
            f"{ROOM_HOURS:g} hours after the lecturer's last step."
        )
    lesson, step, revealed = found
    return Room(str(lesson), int(step), bool(revealed))
