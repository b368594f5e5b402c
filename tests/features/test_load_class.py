"""The load generator (``tests/load``) against ``dp-explorer serve`` with one replica on
127.0.0.1: every student of a small class gets its figures, a bad link is an error and not a
hang, and nothing it started is left running. Timing is measured by ``bench/bench_class.py``,
not here."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.load.protocol import LinkError, Tab
from tests.served_app import ROOT
from tests.served_class import Served, needs_haproxy, serve_class, started_at, still_running

pytestmark = needs_haproxy

LIMIT = 50.0
"""Seconds a class run may take (the first run on a cold replica imports the app's modules)."""


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """One replica behind HAProxy; afterwards, every process it started has stopped."""
    with serve_class(1) as served:
        identities = started_at(served.children())
        yield served
    assert still_running(identities) == []


def attend(served: Served, *options: str) -> dict[str, object]:
    """Run ``python -m tests.load`` (Locust, in a process of its own: it patches the sockets
    with gevent) on ``served`` with ``options``; its JSON result."""
    pids = [arg for pid in served.replicas.values() for arg in ("--pid", str(pid))]
    done = subprocess.run(
        [sys.executable, "-m", "tests.load", served.url, *pids, *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=LIMIT + 30,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_five_students_get_every_figure_of_the_lesson(served):
    result = attend(
        served, "--students", "5", "--steps", "2", "--think", "0.2", "--limit", str(LIMIT)
    )
    assert result["errors"] == {}
    assert result["figures"] == [5, 5]
    steps = result["steps"]
    assert isinstance(steps, list)
    for step in steps:
        assert 0 < step["p50"] <= step["p95"] <= step["max"] < LIMIT
    assert isinstance(result["server_cpu"], float)
    assert result["server_cpu"] > 0


def test_a_link_to_no_page_is_an_error_not_a_hang(served):
    started = time.monotonic()
    tab = Tab(served.url, timeout=LIMIT)
    try:
        with pytest.raises(LinkError, match=r"no_such_page\?eps=1: page not found"):
            tab.open("no_such_page?eps=1")
    finally:
        tab.close()
    assert time.monotonic() - started < LIMIT

    result = attend(served, "--students", "2", "--link", "no_such_page", "--limit", str(LIMIT))
    assert result["figures"] == [0]
    assert result["errors"] == {"no_such_page: page not found": 2}


def test_three_followers_see_each_step_the_lecturer_moves_to(served):
    """Issue 42: followers speaking Streamlit's protocol (``tests/load/followers.py``) join a
    room, poll it, click "Catch up" when the poll says so and show each step's figure after
    the lecturer's move; the replica's CPU is measured. Their times are benched
    (``bench/bench_class.py --follow``), not tested."""
    pids = [arg for pid in served.replicas.values() for arg in ("--pid", str(pid))]
    options = ["--follow", "3", "--steps", "3", "--think", "0.2", "--timeout", str(LIMIT)]
    done = subprocess.run(
        [sys.executable, "-m", "tests.load", served.url, *pids, *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=3 * LIMIT,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["errors"] == []
    assert [len(step) for step in result["seconds"]] == [3, 3]  # steps 2 and 3, all three
    assert all(0 < s < LIMIT for step in result["seconds"] for s in step)
    assert all(cpu > 0 for cpu in result["step_cpu"]) and result["idle_cpu"] > 0
