"""A pytest plugin for ``bench/bench_suite.py``: each test's wall time and the CPU time of
its process and every process below it (servers, Chromium, Dask workers), as JSON lines in
``$DP_TEST_CPU_LOG``. Off unless loaded (``-p tests.cpu_profile``).

A process that exits during a test is not counted for it (its CPU since the test began is
gone with it); a process started during the test is counted whole.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator

import psutil
import pytest

LOG_VARIABLE = "DP_TEST_CPU_LOG"
_ME = psutil.Process()


def _cpu_by_process() -> dict[int, float]:
    """CPU seconds (user + system) of this process and each process below it, by pid."""
    found: dict[int, float] = {}
    for process in (_ME, *_ME.children(recursive=True)):
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue
        found[process.pid] = times.user + times.system
    return found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    before, start = _cpu_by_process(), time.time()
    yield
    after, end = _cpu_by_process(), time.time()
    cpu = sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())
    record = {
        "test": item.nodeid,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "start": start,
        "end": end,
        "cpu": cpu,
    }
    with open(os.environ[LOG_VARIABLE], "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")
