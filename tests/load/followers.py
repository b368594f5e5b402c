"""A class following the lecturer through Streamlit's protocol, without browsers (issue 42).

What a follower's browser does on the follow page (:mod:`dpui.kit.lesson_follow`), from the
installed Streamlit's frontend (1.67): it opens the follow link as any link
(:class:`tests.load.protocol.Tab`); the server's ``auto_rerun`` message names the poll's
fragment and its interval, and the browser reruns that fragment every interval (a
``rerun_script`` with the fragment's id, ``is_auto_rerun``, the page's script hash and its
query string, the last ``page_info_changed``). When the lecturer's step differs from the
page's, the fragment's output is the app's click script (an ``html`` element that clicks
"Catch up"): the browser clicks the button, a ``rerun_script`` of the page whose widget
states hold the button's trigger. That run opens the lecturer's step; when the step is on
another page the run switches page (a ``new_session`` naming the new page's script hash).

Served by ``app_server.py`` the page has no timer but a watch (:mod:`dpui.kit.follow_http`):
a hidden mark saying what the page shows and a script holding one HTTP request open with it;
when the answer is "behind" the script clicks "Catch up". A follower here does what the
page's browser does, either way, and records when each step's figure arrived: the first
``plotly_chart`` after the bar's "Following the lecturer · step k of n". The class's
lecturer is the caller, who moves the room (:func:`dpui.kit.follow_store.move`) and times
each follower from that write. Every follower runs in a greenlet of its own: the sockets must
be gevent's: this module imports Locust, which patches them, before ``websocket``.
"""

from __future__ import annotations

import html
import json
import os
import re
import time
import urllib.request
from dataclasses import dataclass, field

import gevent
import locust  # noqa: F401  (before websocket imports ssl: Locust patches the sockets)
import websocket
from gevent.event import Event
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from dpui import registry
from dpui.kit import follow_store, lesson, lesson_store
from dpui.kit.lesson_follow import POLL_S
from dpui.reference import lesson_page
from tests.load.protocol import LinkError, Tab, split
from tests.load.students import cpu_seconds

CATCH_UP = "-_follow_sync"
"""How the "Catch up" button's widget id ends (its key)."""
CLICKS = "_follow_sync button')?.click()"
"""What the app's click script holds."""
WATCH = re.compile(r'data-dp-follow="([^"]*)" data-dp-shown="([^"]*)"')
"""The watch's mark: the room's code and what the page shows (:mod:`dpui.kit.follow_http`)."""
STEP = re.compile(r"Following the lecturer · step (\d+) of \d+")
DONE = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


@dataclass
class Follower:
    """One student's page following room ``code`` on the app at ``url``: what it shows, and
    when (``time.monotonic()``) each step's figure arrived (``shown``, by step from 1)."""

    url: str
    code: str
    timeout: float = 60.0
    shown: dict[int, float] = field(default_factory=dict)
    error: str = ""
    """Why the page stopped following (a failed run), if it did."""
    joined: float = 0.0
    """When the page got its poll's timer (``time.monotonic()``): its ticks follow from it."""
    _tab: Tab | None = None
    _page: str = ""
    _query: str = ""
    _fragment: str = ""
    _catch_up: str = ""
    _watch: str = ""
    """The watch's question (``<code>?<what the page shows>``), when the page has one."""

    def join(self) -> None:
        """Open the follow link and wait for its step's figure.

        Raises
        ------
        tests.load.protocol.LinkError
            When the page fails (see :mod:`tests.load.protocol`) or shows no poll.
        """
        link = f"lesson?{follow_store.URL_KEY}={self.code}"
        self._tab = Tab(self.url, timeout=self.timeout)
        self._tab.connect(link)
        page, query = split(link)
        message = BackMsg()
        message.rerun_script.query_string = query
        message.rerun_script.page_name = page
        message.rerun_script.context_info.url = f"{self.url}/{link}"
        self._send(message)
        if self._receive() and self._catch_up:
            self._click()
        self.joined = time.monotonic()
        if not (self._fragment or self._watch) or not self._catch_up:
            raise LinkError(f"{link}: the page shows no poll or no Catch up button")

    def poll(self) -> None:
        """One tick of the poll's timer: rerun its fragment, and click "Catch up" when the
        fragment asks for it."""
        message = self._rerun()
        message.rerun_script.fragment_id = self._fragment
        message.rerun_script.is_auto_rerun = True
        self._send(message)
        if self._receive():
            self._click()

    @property
    def watching(self) -> bool:
        """Whether the page has the server's watch (else the fragment's timer)."""
        return bool(self._watch)

    def watch(self) -> None:
        """One question of the page's watch: hold a request to the server until it answers
        (at the lecturer's move, or after its hold), and click "Catch up" when it says the
        page is behind."""
        asked = self._watch
        with urllib.request.urlopen(
            f"{self.url.rstrip('/')}/_dp/follow/{asked}",
            timeout=self.timeout,
        ) as answer:
            late = json.load(answer).get("behind") is True
        if late and self._watch == asked:
            self._click()

    def follow(self, stop: Event, interval: float) -> None:
        """Poll every ``interval`` seconds from the page's join (a run longer than that
        delays the next tick, as the browser's timer does), or keep the page's watch asking
        (:meth:`watch`), until ``stop`` is set."""
        while self._watch and not stop.is_set():
            try:
                self.watch()
            except (LinkError, OSError, ValueError, websocket.WebSocketException) as error:
                self.error = str(error)
                return
        tick = self.joined + interval * (1 + (time.monotonic() - self.joined) // interval)
        while not stop.is_set():
            gevent.sleep(max(0.0, tick - time.monotonic()))
            if stop.is_set():
                return
            tick = max(tick + interval, time.monotonic())
            try:
                self.poll()
            except (LinkError, OSError, websocket.WebSocketException) as error:
                self.error = str(error)
                return

    def close(self) -> None:
        """Close the page's websocket."""
        if self._tab is not None:
            self._tab.close()

    def _click(self) -> None:
        message = self._rerun()
        trigger = message.rerun_script.widget_states.widgets.add()
        trigger.id = self._catch_up
        trigger.trigger_value = True
        self._send(message)
        self._receive()

    def _rerun(self) -> BackMsg:
        message = BackMsg()
        message.rerun_script.query_string = self._query
        message.rerun_script.page_script_hash = self._page
        message.rerun_script.context_info.url = f"{self.url}/?{self._query}"
        return message

    def _send(self, message: BackMsg) -> None:
        assert self._tab is not None and self._tab.socket is not None
        self._tab.socket.send_binary(message.SerializeToString())

    def _receive(self) -> bool:
        """Read one run's messages (through page switches) until it finishes; True when its
        output asked for a click on "Catch up"."""
        assert self._tab is not None and self._tab.socket is not None
        deadline = time.monotonic() + self.timeout
        clicks, step = False, 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LinkError(f"room {self.code}: a run did not finish in {self.timeout:g} s")
            self._tab.socket.settimeout(left)
            data = self._tab.socket.recv()
            if not data:
                raise LinkError(f"room {self.code}: the server closed the connection")
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "new_session":
                self._page = msg.new_session.page_script_hash
            elif kind == "page_info_changed":
                self._query = msg.page_info_changed.query_string
            elif kind == "auto_rerun":
                self._fragment = msg.auto_rerun.fragment_id
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                shown = element.WhichOneof("type")
                if shown == "exception":
                    raise LinkError(f"room {self.code}: {element.exception.message}")
                if shown == "html" and (mark := WATCH.search(element.html.body)):
                    self._watch = f"{html.unescape(mark[1])}?{html.unescape(mark[2])}"
                elif shown == "html" and CLICKS in element.html.body:
                    clicks = True
                elif shown == "button" and element.button.id.endswith(CATCH_UP):
                    self._catch_up = element.button.id
                elif shown == "markdown" and (found := STEP.search(element.markdown.body)):
                    step = int(found.group(1))
                elif shown == "plotly_chart" and step and step not in self.shown:
                    self.shown[step] = time.monotonic()
            elif kind == "script_finished" and msg.script_finished in DONE:
                return clicks


@dataclass(frozen=True)
class Following:
    """What a class following the lecturer measured.

    ``seconds`` holds, for each step the lecturer moved to (the bundled lesson's 2nd, 3rd,
    ...), each follower's seconds from the room's write to that step's figure (a follower
    that did not show it within the limit is left out: ``followers`` minus its length);
    ``step_cpu`` the replicas' CPU seconds from each write until the last follower showed
    the step; ``idle_cpu`` their CPU seconds per follower per second while nobody moved
    (polls only); ``client_cpu`` this process's CPU seconds over the whole run;
    ``errors`` why followers stopped.
    """

    followers: int
    interval: float
    """Seconds between a follower's polls (a page with a timer)."""
    watched: int
    """Followers whose page held a request to the server instead (``app_server.py``)."""
    seconds: tuple[tuple[float, ...], ...]
    step_cpu: tuple[float, ...]
    idle_cpu: float
    client_cpu: float
    errors: tuple[str, ...]


def follow_class(
    url: str,
    *,
    followers: int,
    steps: int,
    arrival: float,
    think: float,
    idle: float,
    pids: list[int],
    limit: float,
    interval: float = POLL_S,
) -> Following:
    """Store the bundled lesson, open a room at its first step (revealed) and let
    ``followers`` students join it through ``url`` over ``arrival`` seconds; after ``idle``
    seconds of polling every ``interval``, move the room to each of steps 2 to ``steps``
    (revealed), ``think`` seconds after every follower showed the step before or ``limit``
    seconds passed. The lessons' store is the one of this process's environment
    (``DP_EXPLORER_LESSONS``): the servers' must be the same."""
    lessons = lesson.from_json(
        lesson_page.EXAMPLE.read_bytes(), lesson_page.targets(registry.PAGES)
    )
    stored = lesson_store.put(lesson.to_json(lessons))
    lead = follow_store.open_room(stored, 0, revealed=True)
    group = [Follower(url, lead.code, timeout=limit) for _ in range(followers)]
    client_before = cpu_seconds([os.getpid()])

    def arrive(follower: Follower, delay: float) -> None:
        gevent.sleep(delay)
        try:
            follower.join()
        except (LinkError, OSError, websocket.WebSocketException) as error:
            follower.error = str(error)

    gevent.joinall([gevent.spawn(arrive, f, arrival * i / followers) for i, f in enumerate(group)])
    stop = Event()
    joined = [f for f in group if not f.error]
    loops = [gevent.spawn(f.follow, stop, interval) for f in joined]
    before = cpu_seconds(pids)
    gevent.sleep(idle)
    idle_cpu = (cpu_seconds(pids) - before) / max(len(joined), 1) / idle
    seconds, step_cpu = [], []
    for step in range(2, steps + 1):
        before, moved = cpu_seconds(pids), time.monotonic()
        follow_store.move(lead, stored, step - 1, revealed=True)
        while time.monotonic() < moved + limit and any(
            step not in f.shown for f in joined if not f.error
        ):
            gevent.sleep(0.02)
        step_cpu.append(cpu_seconds(pids) - before)
        seconds.append(tuple(sorted(f.shown[step] - moved for f in joined if step in f.shown)))
        gevent.sleep(think)
    stop.set()
    gevent.joinall(loops, timeout=interval + 1.0)
    gevent.killall(loops)  # a watch holds its request up to follow_http.HOLD_S
    for follower in group:
        follower.close()
    return Following(
        followers=followers,
        interval=interval,
        watched=sum(f.watching for f in joined),
        seconds=tuple(seconds),
        step_cpu=tuple(step_cpu),
        idle_cpu=idle_cpu,
        client_cpu=cpu_seconds([os.getpid()]) - client_before,
        errors=tuple(f.error for f in group if f.error),
    )
