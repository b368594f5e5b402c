"""A class following the lecturer, through Streamlit's protocol (no browsers), against
``dp-explorer serve`` on 127.0.0.1 with 1 and then 2 replicas in the same run (issue 42,
item 4: "120 students see the lecturer's next step within 3 s (p95) of the lecturer's click").

Each run starts ``dp-explorer serve`` (``tests/served_class.py``) with the lessons' store of
this process (``DP_EXPLORER_LESSONS``, a fresh folder), opens the lesson's steps once on each
replica (the lecturer's rehearsal), then ``--followers`` students join a room at the bundled
lesson's first step over ``--arrival`` seconds (``tests/load/followers.py``: each a websocket
of its own, polling the room every ``POLL_S`` as the follow page's timer does, and clicking
"Catch up" when the poll says so). After ``--idle`` seconds of polls, this process moves the
room to each next step, as the lecturer's run does, and times every follower from that write
to the step's figure. The lecturer's own run before the write (a key press, a run of the
lecturer's page) is not in these times.

It prints, per run and step, the followers that showed the step, the time to its figure
(p50 / p95 / max), the replicas' CPU from the write until the last follower showed it (per
follower), and the replicas' CPU while the class only polls (per follower per second).

    python bench/bench_followers.py                           # 120 followers, 1 and 2 replicas
    python bench/bench_followers.py --followers 30 --replicas 2 --steps 4

The load generator runs on the same machine as the server: its CPU is printed beside the
server's. Numbers depend on the machine and its load; report them with the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["DP_EXPLORER_LESSONS"] = tempfile.mkdtemp(prefix="bench-followers-")
from tests.load import followers, students  # noqa: E402  (Locust patches the sockets first)
from tests.served_class import serve_class  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from bench_class import rehearse  # noqa: E402


def spread(seconds: tuple[float, ...]) -> str:
    """p50 / p95 / max of ``seconds`` (sorted), or a dash when empty."""
    if not seconds:
        return "—"
    p95 = seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))]
    return f"{statistics.median(seconds):.2f} / {p95:.2f} / {seconds[-1]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--followers", type=int, default=120)
    parser.add_argument("--arrival", type=float, default=10.0, help="seconds they join over")
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=4, help="the bundled lesson's first steps")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of polls first")
    parser.add_argument("--think", type=float, default=3.0, help="seconds on each step")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds a step may take")
    args = parser.parse_args()
    lesson = students.bundled(args.steps, timeout=args.limit)
    print(f"{args.followers} followers; {os.cpu_count()} cores")
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
                followers=args.followers,
                steps=args.steps,
                arrival=args.arrival,
                think=args.think,
                idle=args.idle,
                pids=list(served.replicas.values()),
                limit=args.limit,
            )
        for step, (seconds, cpu) in enumerate(zip(run.seconds, run.step_cpu, strict=True), 2):
            print(
                f"| {replicas} | {lesson.name(step)} | {len(seconds)} | {spread(seconds)} "
                f"| {cpu:.1f} | {cpu / args.followers:.3f} | {os.getloadavg()[0]:.1f} |"
            )
        idle.append((replicas, run))
    print("\n| replicas | polls' server CPU per follower per second (s) | load generator CPU (s) |")
    print("|---|---|---|")
    for replicas, run in idle:
        polls = f"{run.idle_cpu:.4f} (a poll every {run.interval:g} s)"
        print(f"| {replicas} | {polls} | {run.client_cpu:.1f} |")
        for error in sorted(set(run.errors)):
            print(f"    {run.errors.count(error)} x {error}")


if __name__ == "__main__":
    main()
