"""A class arriving on the bundled lesson, through Streamlit's protocol, against
``dp-explorer serve`` on 127.0.0.1 with 1 and then 2 replicas in the same run (issue 42).

Each run starts ``dp-explorer serve`` (``tests/served_class.py``), opens the lesson's steps
once on each replica (the lecturer's rehearsal: a replica's first run imports the pages'
modules, seconds of CPU that no class pays for), then runs the class as Locust users
(``tests/load``: every student a websocket of its own, no browser) and stops everything.
It prints the time to the first figure, the replicas' CPU per student (from
``/proc/<pid>/stat`` before and after), the throughput (students through the lesson per
second, from the first arrival to the last figure; for one step, students with their
figure), the ratio of 2 replicas' throughput to 1's and, for several steps, each step's
times. Targets: p95 ≤ 5 s with 2 replicas, 2 replicas ≥ 1.7x the throughput of 1, CPU per student
≤ 0.15 s.

    python bench/bench_class.py                         # 120 students within 10 s, 1 and 2
    python bench/bench_class.py --arrival 1             # all within 1 s: the throughput
    python bench/bench_class.py --students 30 --replicas 2
    python bench/bench_class.py --steps 10 --think 5    # the whole lesson, 5 s per figure
    python bench/bench_class.py --follow --steps 4      # 120 following the lecturer

With ``--follow`` the students follow the lecturer instead (item 4: "120 students see the
lecturer's next step within 3 s (p95) of the lecturer's click"): they join a room at the
bundled lesson's first step over ``--arrival`` seconds (``tests/load/followers.py``: each a
websocket of its own, holding a request to the server's follow route as the follow page does
(``dpui.kit.follow_http``; a page served without it polls on a timer), and clicking "Catch up"
when the answer says so); after ``--idle`` seconds this process moves the
room to each next step, as the lecturer's run does, and times every follower from that write
to the step's figure (the lecturer's own run before the write is not in these times). It
prints, per run and step, the followers that showed the step, the time to its figure, the
replicas' CPU from the write until the last follower showed it, and their CPU while the
class only waits.

The load generator runs on the same machine as the server: its CPU is printed beside the
server's. Numbers depend on the machine and its load; report them with the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# the replicas and this process (the lecturer, with --follow) share a fresh lessons' store
os.environ["DP_EXPLORER_LESSONS"] = tempfile.mkdtemp(prefix="bench-class-")
from dpui.serve import haproxy  # noqa: E402
from tests.load import followers, students  # noqa: E402  (after the path; Locust patches the sockets)
from tests.load.protocol import Tab  # noqa: E402
from tests.served_class import Served, serve_class  # noqa: E402


@dataclass(frozen=True)
class Run:
    """One class on ``replicas`` replicas, with the load average before and after and the
    replicas' resident memory (MB) after it."""

    replicas: int
    attendance: students.Attendance
    load: tuple[float, float]
    rss: float

    @property
    def throughput(self) -> float:
        """Students through the lesson (its last figure) per second."""
        got = self.attendance.figures[-1]
        return got / self.attendance.seconds if self.attendance.seconds else 0.0

    @property
    def cpu_per_student(self) -> float:
        """The replicas' CPU seconds per student."""
        return self.attendance.server_cpu / self.attendance.students


def rehearse(served: Served, lesson: students.Lesson) -> None:
    """Open the lesson's links once on each replica (through HAProxy, by its cookie)."""
    for name in served.replicas:
        tab = Tab(served.url, cookie=f"{haproxy.COOKIE}={name}", timeout=120)
        try:
            for link in lesson.links:
                tab.open(link)
        finally:
            tab.close()


def attend(replicas: int, lesson: students.Lesson, args: argparse.Namespace) -> Run:
    """Serve the app on ``replicas`` replicas and run the class on it."""
    with serve_class(replicas) as served:
        rehearse(served, lesson)
        before = os.getloadavg()[0]
        attendance = students.attend(
            served.url,
            lesson,
            students=args.students,
            arrival=args.arrival,
            pids=served.replicas.values(),
            limit=args.limit,
        )
        rss = sum(psutil.Process(pid).memory_info().rss for pid in served.replicas.values())
        return Run(replicas, attendance, (before, os.getloadavg()[0]), rss / 2**20)


def table(runs: list[Run], lesson: students.Lesson) -> None:
    """Print the runs' table, then the ratio of throughputs and the students per core."""
    print(f"\n{len(lesson.links)} step(s) from {lesson.links[0]}; {os.cpu_count()} cores")
    print(
        "| replicas | students | first figure | p50 / p95 / max (s) | server CPU (s) "
        "| CPU per student (s) | throughput (students/s) | Locust CPU (s) | replicas' RSS (MB) "
        "| load average |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        a = run.attendance
        print(
            f"| {run.replicas} | {a.students} | {a.figures[0]} "
            f"| {a.first} "
            f"| {a.server_cpu:.1f} | {run.cpu_per_student:.3f} | {run.throughput:.2f} "
            f"| {a.client_cpu:.1f} | {run.rss:.0f} | {run.load[0]:.1f} -> {run.load[1]:.1f} |"
        )
        for error, count in a.errors.items():
            print(f"    {count} x {error}")
    by = {run.replicas: run for run in runs}
    if 1 in by and 2 in by and by[1].throughput:
        print(f"\n2 replicas / 1: {by[2].throughput / by[1].throughput:.2f}x the throughput")
    for run in runs:
        if run.cpu_per_student:
            print(
                f"{run.replicas} replica(s): one core starts {1 / run.cpu_per_student:.1f} "
                f"students a second by CPU; measured {run.throughput / run.replicas:.2f} "
                "per replica a second"
            )


def step_table(runs: list[Run], lesson: students.Lesson) -> None:
    """Print each step's figures and times to its figure, one column per run."""
    heads = [f"{run.replicas} replica(s): figures, p50 / p95 / max (s)" for run in runs]
    print(f"\n| step | {' | '.join(heads)} |")
    print("|---|" + "---|" * len(runs))
    for step in range(len(lesson.links)):
        cells = []
        for run in runs:
            spread = run.attendance.steps[step]
            cells.append(f"{run.attendance.figures[step]}, {spread}")
        print(f"| {lesson.name(step + 1)} | {' | '.join(cells)} |")


def follow(lesson: students.Lesson, args: argparse.Namespace) -> None:
    """Run ``args.students`` followers on each number of replicas; print their tables."""
    print(f"{args.students} followers; {os.cpu_count()} cores")
    print(
        "\n| replicas | step | showed | time to the figure p50 / p95 / max (s) "
        "| server CPU (s) | per follower (s) | load average |"
    )
    print("|---|---|---|---|---|---|---|")
    idle = []
    for replicas in args.replicas:
        with serve_class(replicas) as served:
            rehearse(served, lesson)
            run = followers.follow_class(
                served.url,
                followers=args.students,
                steps=len(lesson.links),
                arrival=args.arrival,
                think=args.think,
                idle=args.idle,
                pids=list(served.replicas.values()),
                limit=args.timeout,
            )
        for step, (seconds, cpu) in enumerate(zip(run.seconds, run.step_cpu, strict=True), 2):
            print(
                f"| {replicas} | {lesson.name(step)} | {len(seconds)} "
                f"| {students.Spread.of_seconds(seconds) if seconds else '—'} "
                f"| {cpu:.1f} | {cpu / args.students:.3f} | {os.getloadavg()[0]:.1f} |"
            )
        idle.append((replicas, run))
    print("\n| replicas | polls' server CPU per follower per second (s) | load generator CPU (s) |")
    print("|---|---|---|")
    for replicas, run in idle:
        how = (
            f"{run.watched} of {run.followers} pages holding a request the server answers at a move"
            if run.watched
            else f"a poll every {run.interval:g} s"
        )
        polls = f"{run.idle_cpu:.4f} ({how})"
        print(f"| {replicas} | {polls} | {run.client_cpu:.1f} |")
        for error in sorted(set(run.errors)):
            print(f"    {run.errors.count(error)} x {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=120)
    parser.add_argument("--arrival", type=float, default=10.0, help="seconds they arrive over")
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=1, help="the bundled lesson's first steps")
    parser.add_argument("--think", type=float, default=2.0, help="seconds on each figure")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a link may take")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds a class may take")
    parser.add_argument("--follow", action="store_true", help="the students follow instead")
    parser.add_argument("--idle", type=float, default=10.0, help="--follow: seconds of polls")
    args = parser.parse_args()
    lesson = students.bundled(args.steps, think=args.think, timeout=args.timeout)
    if args.follow:
        if args.steps < 2:
            parser.error("--follow needs --steps 2 or more: the lecturer moves to steps 2, 3, ...")
        follow(lesson, args)
        return
    runs = []
    for replicas in args.replicas:
        print(f"{args.students} students on {replicas} replica(s)...", flush=True)
        runs.append(attend(replicas, lesson, args))
    table(runs, lesson)
    if len(lesson.links) > 1:
        step_table(runs, lesson)


if __name__ == "__main__":
    main()
