"""A follower's page asks the server over HTTP, not by a script run, whether the lecturer moved.

Served by ``app_server.py`` (Streamlit's server with this route: ``st.App``), a follower's page
holds one request open to ``/_dp/follow/<code>`` saying what it shows (the lesson, the step,
whether its figure is revealed, whether the page is the step's); the server answers as soon as
the room (:mod:`dpui.kit.follow_store`) differs from it (:func:`behind`), or after
:data:`HOLD_S` seconds that nothing changed, and the page asks again. When the answer is
"behind", the page's script clicks the step bar's "Catch up", whose run opens the lecturer's
step. The lecturer's move thus reaches a class within about :data:`CHECK_S` seconds plus the
catch-up's run, where a timer rerunning a fragment every second cost each follower's server
3.8 ms of CPU a second (120 followers: 0.45 of a core while nobody moved) and up to a second
of waiting. Served otherwise (``streamlit run app.py``, ``AppTest``), a page has no such route
and :mod:`dpui.kit.lesson_follow` keeps the fragment's timer.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from dpui.kit import follow_store
from dpui.kit.lesson import LessonError

PATH = "/_dp/follow/{code}"
HOLD_S = 20.0
"""Longest a request is held while nothing changes (HAProxy's server timeout is 60 s)."""
CHECK_S = 0.1
"""How often a room with requests held on it is read (once for all of them; a read costs
microseconds: one kept connection)."""
_SERVED = threading.Event()


@dataclass(frozen=True)
class Shown:
    """What a follower's page shows: the stored ``lesson``'s id, the ``step`` (0-based),
    whether its figure is ``revealed``, and whether the page is the step's own (``here``)."""

    lesson: str
    step: int
    revealed: bool
    here: bool

    def query(self) -> str:
        """The request's query string."""
        return (
            f"lesson={self.lesson}&step={self.step}"
            f"&revealed={int(self.revealed)}&here={int(self.here)}"
        )


def behind(room: follow_store.Room, shown: Shown) -> bool:
    """Whether a page showing ``shown`` must catch up with ``room``: another lesson or step,
    the step not yet revealed there, or another page than the step's (a follower who opens
    another page is brought back; Stop following is the way to explore)."""
    return (
        not shown.here
        or room.lesson != shown.lesson
        or room.step != shown.step
        or (room.revealed and not shown.revealed)
    )


def served() -> bool:
    """Whether this process serves the route (it runs ``app_server.py``)."""
    return _SERVED.is_set()


def routes() -> list[Route]:
    """The route, for ``st.App``; the pages of this process then use it."""
    _SERVED.set()
    return [Route(PATH, _follow, methods=["GET"])]


def _shown(request: Request) -> Shown | None:
    given = request.query_params
    step = given.get("step", "")
    if not step.isdigit() or len(step) > 6:
        return None
    flags = (given.get("revealed"), given.get("here"))
    if any(flag not in ("0", "1") for flag in flags):
        return None
    return Shown(given.get("lesson", "")[:64], int(step), flags[0] == "1", flags[1] == "1")


class _Watched:
    """A room read for the requests held on it: one read every :data:`CHECK_S` seconds
    however many followers wait (120 followers on one room: ten reads a second, not 1,200),
    ``changed`` set when what it read changed. Used on the server's event loop only."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.room = self.read()
        self.changed = asyncio.Event()
        self.waiting = 0

    def read(self) -> follow_store.Room | None:
        try:
            return follow_store.room(self.code)
        except LessonError:
            return None  # gone or never opened: a follower's catch-up says why

    async def watch(self) -> None:
        """Read the room until nobody waits on it, waking the waiters at each change."""
        try:
            while self.waiting:
                await asyncio.sleep(CHECK_S)
                now = self.read()
                if now != self.room:
                    self.room, changed = now, self.changed
                    self.changed = asyncio.Event()
                    changed.set()
        finally:  # also when the server's loop stops: a later request starts a new reader
            _WATCHED.pop(self.code, None)


_WATCHED: dict[str, _Watched] = {}
_TASKS: set[asyncio.Task[None]] = set()  # the loop keeps only weak references to its tasks


async def _follow(request: Request) -> JSONResponse:
    """``{"behind": true}`` once the room differs from what the page shows (also when the
    room is gone: the catch-up says why), ``{"behind": false}`` after :data:`HOLD_S` s."""
    shown = _shown(request)
    if shown is None:
        return JSONResponse(
            {"error": "expected lesson, step (a number), revealed and here (0 or 1)"},
            status_code=400,
        )
    code = request.path_params["code"]
    loop = asyncio.get_running_loop()
    watched = _WATCHED.get(code)
    if watched is None:
        watched = _WATCHED[code] = _Watched(code)
        task = loop.create_task(watched.watch())
        _TASKS.add(task)
        task.add_done_callback(_TASKS.discard)
    watched.waiting += 1
    until = loop.time() + HOLD_S
    try:
        while True:
            late = watched.room is None or behind(watched.room, shown)
            left = until - loop.time()
            if late or left <= 0:
                break
            try:  # a page that moved on dropped its request: stop waiting for it
                await asyncio.wait_for(watched.changed.wait(), timeout=min(left, 1.0))
            except TimeoutError:
                if await request.is_disconnected():
                    break
    finally:
        watched.waiting -= 1
    return JSONResponse({"behind": late}, headers={"Cache-Control": "no-store"})
