"""``dp-explorer serve`` run from this checkout on 127.0.0.1: shared by the serve command's
tests, the failover browser test, the load test and ``bench/bench_class.py``."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from tests.foreground import ctrl_c_as_in_a_terminal
from tests.served_app import ROOT, free_port

needs_haproxy = pytest.mark.skipif(
    shutil.which("haproxy") is None and not Path("/usr/sbin/haproxy").exists(),
    reason="Debian's haproxy is not installed (tests/run.sh installs it)",
)
"""Skips a test of ``dp-explorer serve`` where HAProxy is missing."""


@dataclass(frozen=True)
class Served:
    """A running ``dp-explorer serve``: HAProxy's URL, the command's process, each replica's
    pid by its cookie value (``r1``, ``r2``, ...) and HAProxy's pid."""

    url: str
    process: subprocess.Popen[str]
    replicas: dict[str, int]
    haproxy: int

    def children(self) -> set[int]:
        """The pids of every process the command started and that still runs."""
        return {c.pid for c in psutil.Process(self.process.pid).children(recursive=True)}


def still_running(processes: dict[int, float], *, within: float = 3.0) -> list[int]:
    """Which of ``processes`` (pid -> start time, :func:`started_at`) still run ``within``
    seconds from now: the same pid with the same start time and not a zombie. A pid alone
    is not enough: a busy machine wraps its pids (32,768 here) and gives a dead process's pid
    to another (a full suite run did, within seconds). The few seconds are the kernel's: a
    process killed with its group (SIGKILL) was still listed as running right after the
    command returned, on a loaded machine."""
    deadline = time.monotonic() + within
    while True:
        alive = []
        for pid, created in processes.items():
            try:
                process = psutil.Process(pid)
                if process.create_time() == created and process.status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                continue
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.1)


def started_at(pids: set[int]) -> dict[int, float]:
    """Each of ``pids`` (running now) with its start time."""
    return {pid: psutil.Process(pid).create_time() for pid in pids}


@contextmanager
def serve_class(replicas: int, env: dict[str, str] | None = None) -> Iterator[Served]:
    """Run ``python -m dpui.serve --replicas N`` on a free loopback port (with extra
    environment ``env``); yield it once it says it is serving; afterwards stop it with
    SIGINT if it still runs (a test may have stopped it already)."""
    port = free_port()
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "dpui.serve", "--replicas", str(replicas)),
            *("--port", str(port), "--host", "127.0.0.1"),
        ],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )
    try:
        pids: dict[str, int] = {}
        assert process.stdout is not None
        for line in process.stdout:
            if found := re.match(r"replica (r\d+) \(port \d+\): pid (\d+)", line):
                pids[found[1]] = int(found[2])
            elif found := re.match(r"HAProxy: pid (\d+)", line):
                pids["haproxy"] = int(found[1])
            elif line.startswith("serving "):
                break
        else:
            raise RuntimeError(f"dp-explorer serve did not start: {process.communicate()[1]}")
        haproxy = pids.pop("haproxy")
        yield Served(f"http://127.0.0.1:{port}", process, pids, haproxy)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=30)  # also closes the pipes
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
