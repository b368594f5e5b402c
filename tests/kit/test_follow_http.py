"""A follower's page asks the server over HTTP whether the lecturer moved
(``dpui.kit.follow_http``): the request is held while the page shows the room's step and
answered as soon as the lecturer moves; every request on a room shares one reader."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from starlette.applications import Starlette

from dpui.kit import follow_http, follow_store, lesson_store

LESSON = "abcdefghij"
T = TypeVar("T")


@pytest.fixture(autouse=True)
def _served_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """``routes()`` marks the process as served by ``app_server.py``; that mark stays with
    these tests: left set, a later AppTest in the same worker drew the served watch instead
    of the timer's click (a full run failed a follower test that way)."""
    monkeypatch.setattr(follow_http, "_SERVED", threading.Event())


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(lesson_store.FOLDER_VARIABLE, str(tmp_path / "lessons"))
    return tmp_path / "lessons"


def _shown(lesson: str = LESSON, step: int = 0, revealed: bool = False, here: bool = True) -> str:
    return follow_http.Shown(lesson, step, revealed, here).query()


async def _ask(code: str, query: str, *, leaves: float | None = None) -> tuple[int, Any, float]:
    """GET the route as the ASGI server would; ``leaves``: the page drops the request after
    that many seconds. Returns the status, the JSON answer and the seconds it took."""
    app = Starlette(routes=follow_http.routes())
    path = f"/_dp/follow/{code}"
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "headers": [],
        "http_version": "1.1",
        "scheme": "http",
        "server": ("127.0.0.1", 80),
        "client": ("127.0.0.1", 1),
        "root_path": "",
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:  # as uvicorn: the disconnect, once the page left
        if leaves is not None and time.monotonic() - start >= leaves:
            return {"type": "http.disconnect"}
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    start = time.monotonic()
    await app(scope, receive, send)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body), time.monotonic() - start


def _run(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run`` of ``make()`` in a thread of its own: a worker that ran the browser
    tests has Playwright's event loop running in its main thread."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


def test_a_page_showing_the_rooms_step_is_answered_when_the_lecturer_moves(folder: Path):
    lead = follow_store.open_room(LESSON)

    async def lecture() -> tuple[int, Any, float]:
        asked = asyncio.create_task(_ask(lead.code, _shown()))
        await asyncio.sleep(0.5)
        assert not asked.done()  # held: nothing changed
        follow_store.move(lead, LESSON, 1, False)
        moved = time.monotonic()
        status, answer, _ = await asked
        return status, answer, time.monotonic() - moved

    status, answer, after_the_move = _run(lecture)
    assert status == 200 and answer == {"behind": True}
    assert after_the_move < 3 * follow_http.CHECK_S + 0.5


def test_a_page_still_on_the_step_hears_so_after_the_hold(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(follow_http, "HOLD_S", 0.4)
    lead = follow_store.open_room(LESSON)
    status, answer, took = _run(lambda: _ask(lead.code, _shown(revealed=True)))
    assert status == 200 and answer == {"behind": False} and 0.4 <= took < 2.0


@pytest.mark.parametrize(
    ("shown", "late"),
    [
        ({}, False),
        ({"lesson": "zzzzzzzzzz"}, True),  # the lecturer edited the lesson
        ({"step": 2}, True),
        ({"here": False}, True),  # another page than the step's
        ({"revealed": True}, False),  # revealed here, not yet in the room: nothing to do
    ],
)
def test_a_page_behind_the_room_is_answered_at_once(
    folder: Path, monkeypatch: pytest.MonkeyPatch, shown: dict[str, Any], late: bool
):
    # held 0.3 s when nothing is late; when something is, a hold of 5 s that an answer "at
    # once" must not wait out (under 1 s: a loaded full run took over 0.25 s to answer)
    monkeypatch.setattr(follow_http, "HOLD_S", 5.0 if late else 0.3)
    lead = follow_store.open_room(LESSON, 1)
    status, answer, took = _run(lambda: _ask(lead.code, _shown(**{"step": 1, **shown})))
    assert status == 200 and answer == {"behind": late}
    assert took < 1.0 if late else took >= 0.3


def test_a_revealed_room_asks_a_page_not_showing_the_figure_to_catch_up(folder: Path):
    lead = follow_store.open_room(LESSON, 2, revealed=True)
    status, answer, _ = _run(lambda: _ask(lead.code, _shown(step=2, revealed=False)))
    assert status == 200 and answer == {"behind": True}


@pytest.mark.parametrize("code", ["abcdefgh", "ABCDEFGH"])
def test_a_room_that_is_gone_or_no_rooms_code_sends_the_page_to_catch_up(folder: Path, code):
    status, answer, _ = _run(lambda: _ask(code, _shown()))  # the catch-up says why, in words
    assert status == 200 and answer == {"behind": True}


@pytest.mark.parametrize(
    "query",
    [
        "lesson=a&revealed=0&here=1",
        "lesson=a&step=-1&revealed=0&here=1",
        "lesson=a&step=1e9&revealed=0&here=1",
        "lesson=a&step=1&revealed=yes&here=1",
        "lesson=a&step=1&revealed=0",
    ],
)
def test_a_request_not_saying_what_the_page_shows_is_refused_in_words(folder: Path, query):
    status, answer, _ = _run(lambda: _ask("abcdefgh", query))
    assert status == 400 and "step (a number)" in answer["error"]


def test_a_class_waiting_on_one_room_shares_one_reader(
    folder: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(follow_http, "HOLD_S", 1.0)
    lead = follow_store.open_room(LESSON)
    reads = []
    room = follow_store.room
    monkeypatch.setattr(follow_store, "room", lambda code: reads.append(code) or room(code))

    async def class_of(n: int) -> list[tuple[int, Any, float]]:
        answers = await asyncio.gather(*(_ask(lead.code, _shown()) for _ in range(n)))
        await asyncio.sleep(3 * follow_http.CHECK_S)  # the reader's next check finds nobody
        return answers

    answers = _run(lambda: class_of(50))
    assert all(a[:2] == (200, {"behind": False}) for a in answers)
    # one read when the first asks, then one every CHECK_S for the second held: not 50 each
    assert len(reads) <= 1 + round(1.0 / follow_http.CHECK_S) + 2
    assert not follow_http._WATCHED  # nobody waits: the reader stopped


def test_a_page_that_drops_its_request_stops_being_waited_for(folder: Path):
    lead = follow_store.open_room(LESSON)
    status, answer, took = _run(lambda: _ask(lead.code, _shown(), leaves=0.2))
    assert status == 200 and answer == {"behind": False} and took < 2.0 < follow_http.HOLD_S
