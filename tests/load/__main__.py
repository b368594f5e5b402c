"""``python -m tests.load URL``: a class of students on the app at URL; prints the
:class:`tests.load.students.Attendance` as JSON. With ``--follow N``: N students following
the lecturer instead (:mod:`tests.load.followers`; this process is the lecturer, moving a
room of the bundled lesson through its first ``--steps``); prints the
:class:`tests.load.followers.Following` as JSON."""

from __future__ import annotations

import argparse
import dataclasses
import json

from tests.load import followers, students


def main() -> None:
    """Parse the command line, run the class, print the result."""
    parser = argparse.ArgumentParser(prog="python -m tests.load", description=__doc__)
    parser.add_argument("url", help="the app's root, e.g. http://127.0.0.1:8501")
    parser.add_argument("--students", type=int, default=5)
    parser.add_argument("--follow", type=int, metavar="N", help="N students follow instead")
    parser.add_argument("--arrival", type=float, default=2.0, help="seconds they arrive over")
    parser.add_argument("--steps", type=int, help="the bundled lesson's first steps (all)")
    parser.add_argument("--link", action="append", help="links to follow instead (repeat)")
    parser.add_argument("--think", type=float, default=1.0, help="seconds on each figure")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a link may take")
    parser.add_argument("--limit", type=float, default=120.0, help="seconds the run may take")
    parser.add_argument("--pid", type=int, action="append", default=[], help="server pids")
    args = parser.parse_args()
    if args.follow is not None:
        if args.follow < 1 or (args.steps is not None and args.steps < 2):
            parser.error("--follow needs at least 1 student and --steps at least 2")
        following = followers.follow_class(
            args.url,
            followers=args.follow,
            steps=args.steps or 2,
            arrival=args.arrival,
            think=args.think,
            idle=2.0,
            pids=args.pid,
            limit=args.timeout,
        )
        print(json.dumps(dataclasses.asdict(following)))
        return
    lesson = students.bundled(args.steps, think=args.think, timeout=args.timeout)
    if args.link:
        lesson = dataclasses.replace(lesson, links=tuple(args.link))
    attendance = students.attend(
        args.url,
        lesson,
        students=args.students,
        arrival=args.arrival,
        pids=args.pid,
        limit=args.limit,
    )
    print(json.dumps(dataclasses.asdict(attendance)))


if __name__ == "__main__":
    main()
