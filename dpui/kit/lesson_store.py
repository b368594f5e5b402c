"""Lessons kept on the server under a short id, for a link a hall can type or scan.

A lesson as one link (:func:`dpui.kit.lesson.to_link`) carries the whole lesson: hundreds
of characters, a QR code too dense to scan from the back of a room. Here the lesson's JSON
is stored in a folder under an id made from its content (the first 50 bits of its SHA-256
in base32: ten characters), and ``/lesson?l=<id>`` opens it. The same lesson always gets the
same id, so storing it again writes nothing new; every replica on the machine reads the same
folder (``dp-explorer serve``), and a server on another machine does not know the id (it
says so).

The folder is ``$DP_EXPLORER_LESSONS``, else the user's data folder. It holds at most
:data:`MAX_LESSONS` lessons of at most :data:`dpui.kit.lesson.MAX_FILE` bytes each; when
full, a new lesson is refused with the reason (the long link and the file still work).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import tempfile
from pathlib import Path

import platformdirs

from dpui.kit.lesson import MAX_FILE, LessonError

FOLDER_VARIABLE = "DP_EXPLORER_LESSONS"
"""Environment variable naming the folder lessons are stored in."""
URL_KEY = "l"
"""The query parameter holding a stored lesson's id."""
MAX_LESSONS = 5_000
"""Lessons the folder holds at most (5,000 x 200 kB: 1 GB at worst)."""
ID_LENGTH = 10
_ID = re.compile(rf"[a-z2-7]{{{ID_LENGTH}}}")


def folder() -> Path:
    """Where lessons are stored: ``$DP_EXPLORER_LESSONS``, else the user's data folder."""
    chosen = os.environ.get(FOLDER_VARIABLE)
    if chosen:
        return Path(chosen)
    return Path(platformdirs.user_data_dir("dp-explorer")) / "lessons"


def lesson_id(text: str) -> str:
    """The short id of a lesson's JSON ``text``: ten lower-case base32 characters.

    >>> lesson_id('{"title": "My lesson", "steps": []}')
    'ggb6kksykw'
    """
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return base64.b32encode(digest).decode("ascii")[:ID_LENGTH].lower()


def put(text: str) -> str:
    """Store a lesson's JSON ``text`` (as :func:`dpui.kit.lesson.to_json` writes it) and
    return its id.

    Raises
    ------
    LessonError
        When the text is over :data:`~dpui.kit.lesson.MAX_FILE` bytes, the folder is full,
        or cannot be written.
    """
    data = text.encode("utf-8")
    if len(data) > MAX_FILE:
        raise LessonError(
            f"This lesson is {len(data):,} bytes; a stored lesson holds at most {MAX_FILE:,}."
        )
    key = lesson_id(text)
    where = folder()
    path = where / f"{key}.json"
    if path.exists():
        return key
    try:
        where.mkdir(parents=True, exist_ok=True)
        if sum(1 for _ in where.glob("*.json")) >= MAX_LESSONS:
            raise LessonError(
                f"This server already stores {MAX_LESSONS:,} lessons, the most it keeps; use "
                "the long link or the lesson's file instead."
            )
        # written whole, then renamed: a replica reading at the same moment never sees half
        with tempfile.NamedTemporaryFile("wb", dir=where, suffix=".part", delete=False) as out:
            out.write(data)
        os.replace(out.name, path)
    except OSError as err:
        raise LessonError(
            f"The lesson could not be stored on this server ({err.strerror}); use the long "
            "link or the lesson's file instead."
        ) from None
    return key


def get(key: str) -> bytes:
    """The stored lesson ``key``'s JSON bytes.

    Raises
    ------
    LessonError
        When ``key`` is not an id (ten letters a–z and digits 2–7) or no lesson is stored
        under it on this server.
    """
    if not _ID.fullmatch(key):
        raise LessonError(
            f"The lesson id in this link is not one this app makes (ten letters a–z and "
            f"digits 2–7; the link has {min(len(key), 99)} characters)."
        )
    try:
        return (folder() / f"{key}.json").read_bytes()
    except FileNotFoundError:
        raise LessonError(
            f"No lesson {key} is stored on this server. A short lesson link opens only on the "
            "server that made it; ask for the long link or the lesson's file."
        ) from None
    except OSError as err:
        raise LessonError(f"The stored lesson {key} could not be read ({err.strerror}).") from None
