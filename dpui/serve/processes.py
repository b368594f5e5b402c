"""The replicas and HAProxy as processes: started, watched, restarted, stopped.

Every process is started in a session (and so a process group) of its own: Ctrl-C at the
terminal reaches only the supervisor, which stops HAProxy and then the replicas, each
group with SIGTERM, then SIGKILL after a grace period, and waits for them. On Linux each
child also gets SIGTERM if the supervisor itself dies (``PR_SET_PDEATHSIG``), so not even a
killed supervisor leaves a replica behind. Each process writes its output to a log file in
the cluster's folder; a replica that fails to start, or dies while serving, is reported with
the last lines of its log.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dpui.serve import haproxy
from dpui.serve.errors import ServeError

START_SECONDS = 60.0
"""How long a replica, or HAProxy, may take to answer its health check."""

STOP_SECONDS = 10.0
"""How long the processes may take to stop after SIGTERM before they get SIGKILL."""

RESTARTS = 3
"""A replica that died is restarted at most this many times within ``RESTART_WINDOW``."""

RESTART_WINDOW = 60.0

RESTART_DELAY = 5.0
"""Seconds between a replica's death and its restart: its browsers reload on the other
replicas first (each reruns its page there, about a second of CPU), and a starting replica
(about 3 s of CPU to import Streamlit and the app) would compete with them for the cores."""

TAIL_LINES = 15
"""Lines of a failed process's log shown to the user."""

BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""One BLAS thread per replica unless set: the replicas already share the cores."""

CLASS_OPTIONS = ("--server.fileWatcherType", "none", "--runner.postScriptGC", "false")
"""Streamlit's options for a replica serving a class (none changes what a page shows).

A class does not edit the app, so no file watcher: each new session's watcher resolved the
path of every loaded module and watched it, 0.28 s of CPU per student opening the lesson's
first step. No full garbage collection after every run (``gc.collect(2)``, about 0.1 s of CPU
a run with this app's heap); Python's own collector still runs. Together a student's CPU on
the lesson's first three steps went from 0.89 s to 0.26 s (``bench/profile_session.py``)."""

_PR_SET_PDEATHSIG = 1
# looked up here, not in the forked child: the child only calls it
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None


def _die_with_parent() -> None:
    """In the child, before it runs: SIGTERM when the supervisor dies (Linux only)."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM)


def free_port() -> int:
    """A loopback port free now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_port(host: str, port: int) -> None:
    """Whether HAProxy could listen on ``host:port``.

    Parameters
    ----------
    host : str
        The address to listen on.
    port : int
        The port.

    Raises
    ------
    ServeError
        If the port is in use or cannot be bound (a privileged port, an unknown address).
    """
    with socket.socket() as s:
        # as HAProxy binds: a port whose last connections are closing is free
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            s.listen()
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise ServeError(
                    f"port {port} on {host} is in use: stop what listens there, or choose "
                    "another port with --port"
                ) from None
            raise ServeError(
                f"cannot listen on {host} port {port} ({error.strerror}): --host takes an "
                "address of this machine (0.0.0.0 for all of them) and --port 1024-65535 "
                "(lower ports need root)"
            ) from None


def tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` lines of the log at ``path`` (empty if there is none)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def healthy(url: str) -> bool:
    """Whether ``url`` (a health endpoint) answers 200 now."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@dataclass
class Process:
    """One child: its name, command, log file and, once started, its ``Popen``."""

    name: str
    command: list[str]
    log: Path
    health: str
    popen: subprocess.Popen[bytes] | None = None
    restarts: list[float] = field(default_factory=list)
    died: float | None = None

    def start(self, *, cwd: Path, env: Mapping[str, str]) -> None:
        """Start the command in a session of its own, its output appended to the log."""
        with self.log.open("ab") as log:
            self.popen = subprocess.Popen(
                self.command,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # safe here: the supervisor runs no threads
                preexec_fn=_die_with_parent,
            )

    def exited(self) -> int | None:
        """Its exit status if it has exited, else None."""
        return None if self.popen is None else self.popen.poll()

    def signal_group(self, signum: int) -> None:
        """Send ``signum`` to its process group, if any of it is left."""
        if self.popen is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signum)

    def failure(self, what: str) -> ServeError:
        """An error saying that it ``what`` (e.g. "exited with status 1"), with its log."""
        lines = tail(self.log)
        said = f"; the last lines of its output ({self.log.name}):\n{lines}" if lines else ""
        return ServeError(f"{self.name} {what}{said}")


def wait_healthy(processes: list[Process], *, limit: float = START_SECONDS) -> None:
    """Wait until every process in ``processes`` answers its health check.

    Parameters
    ----------
    processes : list of Process
        Started processes.
    limit : float
        Seconds to wait in all.

    Raises
    ------
    ServeError
        If one exits first, or has not answered within ``limit``; the message carries the
        last lines of its log.
    """
    waiting = list(processes)
    deadline = time.monotonic() + limit
    while waiting:
        for process in list(waiting):
            status = process.exited()
            if status is not None:
                raise process.failure(f"exited with status {status} while starting")
            if healthy(process.health):
                waiting.remove(process)
        if waiting and time.monotonic() > deadline:
            late = waiting[0]
            raise late.failure(f"did not answer {late.health} within {limit:g} s")
        time.sleep(0.2)


def stop(processes: list[Process], *, grace: float = STOP_SECONDS) -> None:
    """Stop ``processes`` in order: SIGTERM to each group, SIGKILL after ``grace`` seconds.

    Parameters
    ----------
    processes : list of Process
        Processes, started or not; the ones that were never started are skipped.
    grace : float
        Seconds they have in all to stop after SIGTERM.
    """
    started = [p for p in processes if p.popen is not None]
    for process in started:
        process.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for process in started:
        assert process.popen is not None
        try:
            process.popen.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.signal_group(signal.SIGKILL)
            process.popen.wait()
        # whatever the leader left in its group (nothing, for Streamlit and HAProxy)
        process.signal_group(signal.SIGKILL)


@dataclass
class Cluster:
    """N replicas of the app on loopback ports and HAProxy on ``host:port`` in front."""

    app: Path
    replicas: int
    host: str
    port: int
    folder: Path
    env: Mapping[str, str]
    processes: list[Process] = field(default_factory=list)

    def replica_env(self) -> dict[str, str]:
        """A replica's environment: ``env`` (the ``DP_EXPLORER_*`` limits apply to each
        replica alone), with one BLAS thread unless ``env`` says otherwise."""
        return {**dict.fromkeys(BLAS_THREADS, "1"), **self.env}

    def start(self, haproxy_program: str) -> None:
        """Start the replicas, wait for them, then start HAProxy and wait for it.

        Parameters
        ----------
        haproxy_program : str
            The ``haproxy`` program (:func:`dpui.serve.haproxy.executable`).

        Raises
        ------
        ServeError
            If a replica or HAProxy fails to start, or HAProxy refuses its configuration.
            What had started is left running: call :meth:`stop`.
        """
        env = self.replica_env()
        backends = [
            haproxy.Backend(f"r{i + 1}", "127.0.0.1", free_port()) for i in range(self.replicas)
        ]
        for backend in backends:
            replica = Process(
                name=f"replica {backend.name} (port {backend.port})",
                command=[
                    *(sys.executable, "-m", "streamlit", "run", str(self.app)),
                    *("--server.address", backend.host, "--server.port", str(backend.port)),
                    *("--server.headless", "true", "--browser.gatherUsageStats", "false"),
                    *CLASS_OPTIONS,
                ],
                log=self.folder / f"{backend.name}.log",
                health=f"http://{backend.host}:{backend.port}{haproxy.HEALTH}",
            )
            self.processes.append(replica)
            replica.start(cwd=self.app.parent, env=env)
        wait_healthy(self.processes)
        config = haproxy.write(
            haproxy.config(backends, host=self.host, port=self.port), self.folder, haproxy_program
        )
        front = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        balancer = Process(
            name="HAProxy",
            command=[haproxy_program, "-db", "-f", str(config)],
            log=self.folder / "haproxy.log",
            health=f"http://{front}:{self.port}{haproxy.HEALTH}",
        )
        # stopped first: no new connection reaches a replica that is stopping
        self.processes.insert(0, balancer)
        balancer.start(cwd=self.folder, env=os.environ)
        wait_healthy([balancer])

    def watch(self, report: Callable[[str], None], *, every: float = 0.5) -> None:
        """Watch the processes until interrupted; restart a replica that dies.

        HAProxy sends the dead replica's browsers to the others meanwhile; the replica is
        restarted ``RESTART_DELAY`` seconds later and takes new browsers once its health
        check passes. A replica that died more than
        ``RESTARTS`` times within ``RESTART_WINDOW`` seconds is left stopped.

        Parameters
        ----------
        report : callable
            Called with a line to show the user when a replica dies or restarts.
        every : float
            Seconds between two looks.

        Raises
        ------
        ServeError
            If HAProxy stops, or every replica is down for good.
        """
        while True:
            time.sleep(every)
            balancer, *replicas = self.processes
            status = balancer.exited()
            if status is not None:
                raise balancer.failure(f"stopped with status {status}")
            for replica in replicas:
                status = replica.exited()
                if status is None or replica.popen is None:
                    continue
                now = time.monotonic()
                if replica.died is None:
                    replica.died = now
                    said = str(replica.failure(f"stopped with status {status}"))
                    replica.restarts = [t for t in replica.restarts if now - t < RESTART_WINDOW]
                    if len(replica.restarts) >= RESTARTS:
                        report(f"{said}\nit died {RESTARTS + 1} times in a minute: left stopped")
                        replica.popen = None
                        continue
                    report(f"{said}\nits browsers are sent to the other replicas; restarting it")
                if now - replica.died >= RESTART_DELAY:
                    replica.restarts.append(now)
                    replica.died = None
                    replica.start(cwd=self.app.parent, env=self.replica_env())
            if all(r.popen is None for r in replicas):
                raise ServeError("every replica died repeatedly; see the messages above")

    def stop(self) -> None:
        """Stop every process started (HAProxy first), and wait for them."""
        stop(self.processes)

    def pids(self) -> dict[str, int]:
        """The process id of each running process, by name."""
        return {p.name: p.popen.pid for p in self.processes if p.popen is not None}
