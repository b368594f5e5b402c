"""What every test shares: each pytest process (one per xdist worker, or the only one) gets
its own sweep store, so workers running at once never see each other's files, one BLAS
thread, one scan of the installed packages for Streamlit components, and ``AppTest`` waiting
for its script without polling."""

from __future__ import annotations

import functools
import os
import shutil
import tempfile

import pytest
import streamlit.components.v2.manifest_scanner as manifest_scanner
from hypothesis import HealthCheck, settings
from streamlit.testing.v1 import local_script_runner
from threadpoolctl import threadpool_limits

# Several workers share the machine's cores, and OpenBLAS's threads spin while they wait:
# two BLAS threads per worker oversubscribe the cores (measured with four workers on two
# cores: Privelet's two brute-force tests 60 s with one thread, 293 s with two). Servers
# started by the browser tests inherit the variables.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"
threadpool_limits(limits=1)

# Every ``AppTest`` scans the metadata of every installed package for Streamlit components
# before its first run: 0.37 s of CPU per ``AppTest``, measured, in a suite that creates
# hundreds of them (most of the fuzz's CPU). The packages do not change during a test run,
# so the scan's answer is computed once per process; ``discover_and_register_components``
# imports the function from its module at each call, so the cached one is what it gets.
manifest_scanner.scan_component_manifests = functools.cache(
    manifest_scanner.scan_component_manifests
)


def _wait_for_the_script(runner: local_script_runner.LocalScriptRunner, timeout: float = 3) -> None:
    """``AppTest``'s wait for its script run, as a join of the script's thread.

    Streamlit's own wait wakes every millisecond and scans every event of the run for the
    shutdown (a run of this app emits hundreds): that loop took the GIL from the script about
    a thousand times a second, 6 % of the CPU of the fuzz's page runs, measured. The thread
    ends just after it emits the shutdown, and ``run`` joins it next anyway; a run still
    going after ``timeout`` is stopped and reported as Streamlit's wait does.
    """
    thread = runner._script_thread
    if thread is not None:
        thread.join(timeout)
        if not thread.is_alive():
            return
    runner.request_stop()
    runner.join()
    raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")


local_script_runner.require_widgets_deltas = _wait_for_the_script

# Hypothesis's time limits (200 ms an example, and its health check of slow data generation)
# measure the machine, not the code: four workers on a loaded 2-core machine exceeded them
# (a query-string example failed its deadline in a full run, then passed alone). No property
# tested here is about speed; the benchmarks measure that.
settings.register_profile(
    "shared-machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("shared-machine")

_FOLDER = tempfile.mkdtemp(prefix=f"dp-tests-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-")


def pytest_configure(config: pytest.Config) -> None:
    """Point the default sweep store at this process's own folder (never the user's store,
    never another worker's); the servers the browser tests start inherit it."""
    os.environ["DP_EXPLORER_STORE"] = os.path.join(_FOLDER, "sweeps.duckdb")
    os.environ["DP_EXPLORER_LESSONS"] = os.path.join(_FOLDER, "lessons")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_FOLDER, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Spread the browser modules evenly through the run, each module's tests kept together.

    pytest-xdist's ``worksteal`` starts each worker on a contiguous share of the list; with
    the browser tests collected first, one worker got all of them and the others stole them
    at the end, four browsers at once on a loaded machine. Interleaved, every worker's share
    mixes browser tests (mostly waiting) with computing ones from the start.
    """
    blocks: dict[str, list[pytest.Item]] = {}
    for item in items:
        blocks.setdefault(str(item.path), []).append(item)
    browser = [b for path, b in blocks.items() if f"{os.sep}browser{os.sep}" in path]
    others = [b for path, b in blocks.items() if f"{os.sep}browser{os.sep}" not in path]
    if not browser or not others:
        return
    total = sum(len(b) for b in others)
    ordered: list[pytest.Item] = []
    done, waiting = 0, list(browser)
    for block in others:
        # the next browser module goes in once its share of the computing tests has passed
        while waiting and done >= total * (len(browser) - len(waiting)) / len(browser):
            ordered += waiting.pop(0)
        ordered += block
        done += len(block)
    for block in waiting:
        ordered += block
    items[:] = ordered
