"""The command line: ``dp-explorer serve --replicas N --port 8501`` (also ``python -m
dpui.serve --replicas N --port 8501``).

It checks its input before it starts anything (the replica count, the port, HAProxy
installed, the app's file), starts the N replicas and waits until each answers its health
check, then starts HAProxy in front and waits for it; it then watches them (restarting a
replica that dies) until Ctrl-C or SIGTERM, and stops all of them. A failure at any point
stops what was started before the message is printed.

Exit status: 0 after Ctrl-C or SIGTERM, 2 for bad input or a process that failed to start
(the message says which, with the last lines of its output), 130 if interrupted while
stopping.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from dpui.serve import haproxy, processes
from dpui.serve.errors import ServeError

APP = Path(__file__).resolve().parents[2] / "app_server.py"
"""The checkout's app, with its HTTP route (the package is installed in editable mode beside
it)."""

PER_CORE = 4
"""At most this many replicas per core: more only compete for the cores and the memory."""


def cores() -> int:
    """The cores this process may use (its CPU affinity, else the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``dp-explorer``."""
    top = argparse.ArgumentParser(prog="dp-explorer", description="DP Explorer's commands.")
    commands = top.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve",
        help="serve a class: N app processes behind HAProxy",
        description="Serve the app to a class: N Streamlit processes on loopback ports behind "
        "HAProxy, which keeps each browser on its process with a cookie and moves it to "
        "another one if its process dies. Ctrl-C stops everything.",
    )
    serve.add_argument(
        "--replicas",
        type=int,
        default=cores(),
        metavar="N",
        help=f"app processes (default: the cores, {cores()}; at most {PER_CORE} per core)",
    )
    serve.add_argument("--port", type=int, default=8501, help="the port students open (8501)")
    serve.add_argument(
        "--host",
        default="0.0.0.0",
        help="the address to listen on (default 0.0.0.0: every interface, for phones on the "
        "room's network; 127.0.0.1 for this machine only)",
    )
    serve.add_argument("--app", type=Path, default=APP, help=f"the app's script ({APP})")
    return top


def check(args: argparse.Namespace) -> str:
    """Check ``serve``'s arguments before anything starts.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments.

    Returns
    -------
    str
        The ``haproxy`` program.

    Raises
    ------
    ServeError
        For a replica count outside 1 to ``PER_CORE`` x the cores, a port outside 1-65535
        or in use, HAProxy missing, or no app script.
    """
    most = PER_CORE * cores()
    if args.replicas < 1:
        raise ServeError(f"--replicas must be at least 1, got {args.replicas}")
    if args.replicas > most:
        raise ServeError(
            f"--replicas {args.replicas} is more than {PER_CORE} per core ({most} on this "
            f"machine's {cores()} cores): each replica runs one core of Python, so more only "
            "compete for the cores and the memory; use at most the cores, or more machines "
            "(README, Serving a class)"
        )
    if not 1 <= args.port <= 65535:
        raise ServeError(f"--port must be between 1 and 65535, got {args.port}")
    if not args.app.is_file():
        raise ServeError(
            f"no app script at {args.app}: give the checkout's app_server.py with --app"
        )
    program = haproxy.executable()
    processes.check_port(args.host, args.port)
    return program


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def serve(args: argparse.Namespace) -> int:
    """Run ``dp-explorer serve`` with the parsed ``args`` until interrupted.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of ``serve``.

    Returns
    -------
    int
        0 once stopped by Ctrl-C or SIGTERM.

    Raises
    ------
    ServeError
        For bad input, or a process that failed to start or stopped (after everything
        started was stopped).
    """
    program = check(args)
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    handlers = {s: signal.signal(s, _interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    with tempfile.TemporaryDirectory(prefix="dp-explorer-serve-") as folder:
        cluster = processes.Cluster(
            app=args.app.resolve(),
            replicas=args.replicas,
            host=args.host,
            port=args.port,
            folder=Path(folder),
            env=os.environ,
        )
        try:
            many = "replica" if args.replicas == 1 else "replicas"
            print(f"starting {args.replicas} {many} of {args.app} (logs in {folder})", flush=True)
            cluster.start(program)
            for name, pid in cluster.pids().items():
                print(f"{name}: pid {pid}", flush=True)
            shown = "localhost" if args.host in ("0.0.0.0", "") else args.host
            print(f"serving http://{shown}:{args.port} (Ctrl-C stops)", flush=True)
            cluster.watch(lambda line: print(line, file=sys.stderr, flush=True))
        except KeyboardInterrupt:
            print("stopping", flush=True)
        finally:
            # a second Ctrl-C must not interrupt the stop and orphan a replica
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
            cluster.stop()
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    print("stopped", flush=True)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dp-explorer`` with ``argv`` (default: the command line).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program's name.

    Returns
    -------
    int
        The exit status (see the module's docstring).
    """
    args = parser().parse_args(argv)
    try:
        return serve(args)
    except ServeError as error:
        print(f"dp-explorer: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
