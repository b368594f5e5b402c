"""Searches started by a button run once for everyone: a second caller waits (single flight)."""

import threading
import time

import pytest

from dpui.kit import slow


def test_two_sessions_asking_at_once_compute_once_and_share_the_result():
    calls: list[int] = []

    def compute(progress: slow.Progress) -> str:
        calls.append(1)
        progress(0.5)
        time.sleep(0.4)
        return "strategy"

    results: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(slow.run("t-once", 7, compute, "Searching…"))
        )
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert results == ["strategy"] * 3
    assert len(calls) == 1
    assert slow.done("t-once", 7) == "strategy"


def test_a_computation_that_stops_leaves_the_next_caller_to_compute():
    def interrupted(progress: slow.Progress) -> str:
        raise RuntimeError("the session reran")

    with pytest.raises(RuntimeError):
        slow.run("t-stop", 1, interrupted, "Searching…")
    assert slow.done("t-stop", 1) is None
    assert slow.run("t-stop", 1, lambda progress: "done", "Searching…") == "done"
