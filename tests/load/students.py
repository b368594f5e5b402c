"""A class of students as Locust users, run headless as a library.

Each student arrives (Locust spawns ``students`` of them over ``arrival`` seconds), opens the
lesson's first link in a tab of its own (:class:`tests.load.protocol.Tab`), reads each figure
for ``think`` seconds and follows the next link, as in a lecture; then it keeps its tab open,
as a student does, until every student is done. Each link is one Locust request of type
``figure``, named by its step (``1. epsilon``): its time is from the student's arrival to
the first figure for step 1 (loading the page and the websocket included), from the
``rerun_script`` to the figure for the others; a link that fails is a Locust failure, and the
student leaves.

Import this module before anything that imports ``ssl``: Locust patches the sockets with
gevent when it is imported.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import gevent
import locust
import psutil
from gevent.event import Event
from locust.env import Environment
from locust.exception import StopUser
from locust.stats import StatsEntry

from dpui.reference.lesson_page import EXAMPLE
from tests.load.protocol import LinkError, Tab, split

KIND = "figure"
"""The Locust request type of a link opened until its figure."""


@dataclass(frozen=True)
class Lesson:
    """The links a student follows, the seconds it reads each figure before the next one,
    and the seconds a link may take (after which it fails)."""

    links: tuple[str, ...]
    think: float = 2.0
    timeout: float = 60.0

    def name(self, step: int) -> str:
        """The Locust name of step ``step`` (from 1): ``1. epsilon``."""
        return f"{step}. {split(self.links[step - 1])[0] or 'default page'}"


def bundled(steps: int | None = None, *, think: float = 2.0, timeout: float = 60.0) -> Lesson:
    """The bundled lesson's links (its first ``steps``; all by default) as a :class:`Lesson`
    read for ``think`` seconds a figure, each link failing after ``timeout`` seconds."""
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return Lesson(tuple(step["link"] for step in data["steps"])[:steps], think, timeout)


@dataclass(eq=False)
class Roll:
    """Who is done: students that finished the lesson or left it, and when the last figure
    arrived (``time.monotonic()``); ``everyone`` is set once all ``students`` are done."""

    students: int
    done: int = 0
    last_figure: float = 0.0
    everyone: Event = field(default_factory=Event)

    def leave(self) -> None:
        """One more student done."""
        self.done += 1
        if self.done >= self.students:
            self.everyone.set()


class Student(locust.User):
    """One student following the lesson (see the module's docstring). Subclassed per run by
    :func:`attend`, which sets ``host``, ``lesson`` and ``roll``."""

    abstract = True
    wait_time = locust.constant(0)
    lesson: ClassVar[Lesson]
    roll: ClassVar[Roll]

    @locust.task
    def follow(self) -> None:
        """Follow the lesson once, keep the tab open until everyone is done, then stop."""
        assert self.host is not None
        tab = Tab(self.host, timeout=self.lesson.timeout)
        started = time.monotonic()
        try:
            for step, link in enumerate(self.lesson.links, start=1):
                try:
                    opened = tab.open(link)
                except LinkError as error:
                    self.report(step, time.monotonic() - started, 0, error)
                    break
                self.roll.last_figure = max(self.roll.last_figure, opened.figure)
                self.report(step, opened.figure - started, opened.received, None)
                gevent.sleep(self.lesson.think)
                started = time.monotonic()
            self.roll.leave()
            self.roll.everyone.wait()
        finally:
            tab.close()
        raise StopUser

    def report(self, step: int, seconds: float, received: int, error: Exception | None) -> None:
        """Record step ``step`` in Locust's statistics."""
        self.environment.events.request.fire(
            request_type=KIND,
            name=self.lesson.name(step),
            response_time=seconds * 1000,
            response_length=received,
            exception=error,
            context={},
        )


@dataclass(frozen=True)
class Spread:
    """Times to a figure, in seconds: median, 95th percentile, largest (Locust's rounding:
    two significant digits above 100 ms)."""

    p50: float
    p95: float
    max: float

    @classmethod
    def of(cls, entry: StatsEntry) -> Spread:
        """The spread of a Locust statistics entry (a rounded percentile capped at the
        largest time, which Locust keeps exact)."""
        largest = entry.max_response_time / 1000
        p50, p95 = (min(entry.get_response_time_percentile(p) / 1000, largest) for p in (0.5, 0.95))
        return cls(p50, p95, largest)

    @classmethod
    def of_seconds(cls, seconds: Sequence[float]) -> Spread:
        """The spread of times measured here (not by Locust): the median, the nearest-rank
        95th percentile and the largest of ``seconds`` (at least one)."""
        ordered = sorted(seconds)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        return cls(statistics.median(ordered), p95, ordered[-1])

    def __str__(self) -> str:
        return f"{self.p50:.2f} / {self.p95:.2f} / {self.max:.2f}"


@dataclass(frozen=True)
class Attendance:
    """What a class run measured.

    ``figures`` counts, for each step, the students that got its figure; ``errors`` each
    failure's message and count; ``steps`` each step's times to its figure (the first: to the
    first figure, from the arrival); ``seconds`` the
    time from the first arrival to the last figure; ``server_cpu`` the CPU seconds the given
    server processes used during the run, and ``client_cpu`` this process's (Locust's).
    """

    students: int
    figures: tuple[int, ...]
    errors: dict[str, int]
    steps: tuple[Spread, ...]
    seconds: float
    server_cpu: float
    client_cpu: float

    @property
    def first(self) -> Spread:
        """The times to the first figure."""
        return self.steps[0]


def cpu_seconds(pids: Iterable[int]) -> float:
    """The CPU seconds (user and system, from ``/proc/<pid>/stat``) the processes ``pids``
    have used so far."""
    return sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids)


def attend(
    url: str,
    lesson: Lesson,
    *,
    students: int,
    arrival: float,
    pids: Iterable[int] = (),
    limit: float = 120.0,
) -> Attendance:
    """Run a class of ``students`` on the app at ``url``, arriving over ``arrival`` seconds.

    Parameters
    ----------
    url : str
        The app's root (HAProxy's, for ``dp-explorer serve``).
    lesson : Lesson
        The links each student follows.
    students : int
        How many students.
    arrival : float
        Seconds over which they arrive (Locust's spawn rate is ``students / arrival``).
    pids : iterable of int
        The server's processes, whose CPU time is measured.
    limit : float
        Seconds after which the run stops, done or not.

    Returns
    -------
    Attendance
        What the run measured.
    """
    servers = list(pids)
    roll = Roll(students)
    user = type("Student", (Student,), {"host": url, "lesson": lesson, "roll": roll})
    environment = Environment(user_classes=[user], host=url)
    runner = environment.create_local_runner()
    client = psutil.Process()
    server_before, client_before = cpu_seconds(servers), sum(client.cpu_times()[:2])
    began = time.monotonic()
    runner.start(students, spawn_rate=students / arrival)
    roll.everyone.wait(timeout=limit)
    server_cpu = cpu_seconds(servers) - server_before
    client_cpu = sum(client.cpu_times()[:2]) - client_before
    runner.quit()
    stats = environment.stats
    entries = [stats.get(lesson.name(step), KIND) for step in range(1, len(lesson.links) + 1)]
    return Attendance(
        students=students,
        figures=tuple(e.num_requests - e.num_failures for e in entries),
        errors={str(e.error): e.occurrences for e in stats.errors.values()},
        steps=tuple(Spread.of(e) for e in entries),
        seconds=max(roll.last_figure - began, 0.0),
        server_cpu=server_cpu,
        client_cpu=client_cpu,
    )
