"""Run a sweep's cells on Dask distributed and store them as they arrive.

One code path for one machine and a cluster: a :class:`distributed.LocalCluster` of the
machine's cores (processes, one thread each) by default, or the scheduler at an address.
Cells go out in chunks (one task runs several cells, sharing each trial's sampled input),
come back through ``as_completed`` and are written by this process, the only writer, in
small transactional batches (see :mod:`dpcore.sweep.store`). Cells already stored are
skipped, so a rerun after a crash or Ctrl-C resumes where the store ends.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import itertools
import logging
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import distributed
from tqdm import tqdm

from dpcore.algorithms import cost
from dpcore.algorithms.dpbench import RANDOM_RANGES
from dpcore.algorithms.dpbench_2d import RANDOM_RECTANGLES
from dpcore.sweep import store
from dpcore.sweep.cell import Cell, Failure, Result, cells, run_chunk
from dpcore.sweep.spec import REPO_ROOT, Sweep

CONNECT_TIMEOUT = 8.0
"""Seconds to wait for a scheduler to answer (the message comes within 10 s)."""

FLUSH_SECONDS = 1.0
"""Longest a finished cell waits in memory before its batch is committed."""

FLUSH_ROWS = 5_000
"""Most cells one batch commits."""

MAX_CHUNK = 100
"""Most cells one task runs (more tasks than workers keeps them all busy to the end)."""

TASKS_PER_WORKER = 10
"""Tasks per worker aimed at when chunking: enough to balance, few enough that a task's
overhead (a few ms) stays small beside its cells."""

WINDOW_PER_WORKER = 4
"""Tasks in flight per worker: enough that no worker waits for the next one, few enough
that the runner's memory stays bounded and Ctrl-C has little to cancel."""


LOCAL_HTTP = "127.0.0.1:0"
"""Where a local cluster's scheduler serves HTTP: this machine only, any free port."""

WORKER_WAIT = 60.0
"""Seconds to wait for a scheduler's first worker before saying none joined."""


class ClusterError(RuntimeError):
    """No scheduler answers, or no worker joins it: the message names the address."""


@dataclass
class Summary:
    """What a run did.

    Attributes
    ----------
    cells : int
        Cells in the sweep's grid.
    skipped : int
        Cells already stored before the run.
    stored : int
        Cells the run added.
    failures : list of Failure
        Cells that raised, with their errors (not stored: a rerun retries them).
    seconds : float
        Wall time of the run (from connecting to the cluster to the last commit).
    interrupted : bool
        Whether Ctrl-C stopped it (the cells finished before were stored).
    """

    cells: int
    skipped: int
    stored: int = 0
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False

    def lines(self) -> list[str]:
        """The summary as lines for a terminal, the failures grouped by error."""
        out = [
            f"{self.stored} cells stored, {self.skipped} already stored, "
            f"{len(self.failures)} failed, of {self.cells}, in {self.seconds:.1f} s"
        ]
        groups: dict[str, list[Cell]] = {}
        for failure in self.failures:
            groups.setdefault(failure.error, []).append(failure.cell)
        for error, failed in sorted(groups.items(), key=lambda g: -len(g[1])):
            example = failed[0]
            out.append(f"  {len(failed)} failed with {error}")
            out.append(f"    e.g. {example}")
        if self.interrupted:
            out.append("interrupted: rerun the same command to resume")
        return out


@functools.cache
def code_version() -> str:
    """The package's version, and ``git describe`` of the source when it is a checkout (run
    once per process: the source does not change under a running sweep)."""
    try:
        version = importlib.metadata.version("dp-explorer")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    try:
        described = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty", "--tags"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        described = ""
    return f"{version}+git.{described}" if described else version


def chunked(todo: Iterable[Cell], count: int, workers: int) -> Iterator[list[Cell]]:
    """The ``count`` cells of ``todo`` in chunks of consecutive cells, about
    :data:`TASKS_PER_WORKER` per worker, at most :data:`MAX_CHUNK` cells each, as they are
    needed (the grid is never listed: ten million cells would take gigabytes).

    Parameters
    ----------
    todo : iterable of Cell
        The cells to run, in the grid's order.
    count : int
        How many there are (sizes the chunks).
    workers : int
        Worker threads of the cluster.

    Yields
    ------
    list of Cell
    """
    size = max(1, min(MAX_CHUNK, math.ceil(count / (max(workers, 1) * TASKS_PER_WORKER))))
    cells_left = iter(todo)
    while chunk := list(itertools.islice(cells_left, size)):
        yield chunk


@dataclass(frozen=True)
class Estimate:
    """What a sweep will take, estimated before it runs from the algorithms' cost model
    (:mod:`dpcore.algorithms.cost`).

    Attributes
    ----------
    cells : int
        Cells in the grid.
    core_seconds : float
        Seconds of one core for all of them.
    seconds : float
        Wall time on the cluster's workers (the cores shared perfectly).
    worker_megabytes : float
        Peak memory of one worker: its largest cell and the datasets.
    runner_megabytes : float
        Peak memory of this process: the interpreter, the stored cells it skips, the
        tasks in flight.
    """

    cells: int
    core_seconds: float
    seconds: float
    worker_megabytes: float
    runner_megabytes: float

    def line(self, workers: int) -> str:
        """The estimate in words, for the terminal."""
        return (
            f"estimated: about {_duration(self.seconds)} on {workers} worker"
            f"{'s' if workers != 1 else ''} ({_duration(self.core_seconds)} of one core), "
            f"about {self.worker_megabytes:,.0f} MB per worker and "
            f"{self.runner_megabytes:,.0f} MB here"
        )

    def over(self, *, seconds: float, megabytes: float) -> list[str]:
        """What exceeds ``seconds`` of wall time or ``megabytes`` per worker (empty: none)."""
        over = []
        if self.seconds > seconds:
            over.append(f"about {_duration(self.seconds)} (limit {_duration(seconds)})")
        if self.worker_megabytes > megabytes:
            over.append(
                f"about {self.worker_megabytes:,.0f} MB per worker (limit {megabytes:,.0f} MB)"
            )
        return over


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:,.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:,.0f} min"
    return f"{seconds / 3600:,.1f} h"


CELL_SECONDS = 2e-3
"""Seconds of one cell beyond its algorithm: seeds, sampling the input (once per trial in a
chunk), the result's way back and its commit."""
PROCESS_MEGABYTES = 200.0
"""A Python process with numpy, pandas and Dask loaded."""
STORED_CELL_BYTES = 400.0
"""Memory of one stored cell the runner keeps to skip it (a frozen dataclass in a set)."""
MAX_SECONDS = 3600.0
"""Estimated wall time above which ``dp-sweep run`` asks for ``--yes``."""
MAX_WORKER_MEGABYTES = 4000.0
"""Estimated memory per worker above which ``dp-sweep run`` asks for ``--yes``."""


def estimate(sweep: Sweep, workers: int, *, stored: int = 0) -> Estimate:
    """The time and memory ``sweep`` will take on ``workers`` workers, from its axes (the
    grid is not listed).

    Parameters
    ----------
    sweep : Sweep
        The grid.
    workers : int
        Worker threads.
    stored : int, default 0
        Cells of the sweep already stored (skipped; kept in the runner's memory).

    Returns
    -------
    Estimate
    """
    per_setting = 0.0  # one (dataset, scale, trial, eps): every domain, workload, algorithm
    worker_bytes = 0.0
    for domain in sweep.domains:
        for workload in sweep.workloads:
            for name in sweep.algorithms:
                if isinstance(domain, tuple):
                    cells = domain[0] * domain[1]
                    seconds = cost.run_seconds_2d(name, cells, RANDOM_RECTANGLES)
                    work_bytes = cost.run_bytes_2d(name, cells, RANDOM_RECTANGLES)
                else:
                    queries = domain if workload == "prefix" else RANDOM_RANGES
                    seconds = cost.run_seconds(name, domain, workload, queries)
                    work_bytes = cost.run_bytes(name, domain, queries)
                per_setting += seconds + CELL_SECONDS
                worker_bytes = max(worker_bytes, work_bytes)
    settings = len(sweep.datasets) * len(sweep.scales) * sweep.trials * len(sweep.epsilons)
    left = (sweep.size - stored) / sweep.size if sweep.size else 0.0
    shapes = sum(isinstance(domain, tuple) for domain in sweep.domains)
    once = cost.once_seconds_2d(sweep.algorithms) * shapes * max(workers, 1)  # per process
    core = per_setting * settings * left + once
    data_bytes = sum(d.counts.nbytes for d in sweep.datasets)
    window = WINDOW_PER_WORKER * max(workers, 1) * MAX_CHUNK * STORED_CELL_BYTES
    return Estimate(
        cells=sweep.size,
        core_seconds=core,
        seconds=core / max(workers, 1),
        worker_megabytes=PROCESS_MEGABYTES + (worker_bytes + data_bytes) / 1e6,
        runner_megabytes=PROCESS_MEGABYTES
        + (data_bytes + stored * STORED_CELL_BYTES + window + FLUSH_ROWS * 1e3) / 1e6,
    )


def not_stored(sweep: Sweep, path: Path) -> Iterator[Cell]:
    """The grid's cells not yet in the store, in the grid's order, the stored ones read one
    input (dataset, scale, domain) at a time as the cells are reached: a resumed sweep of ten
    million cells never holds them all.

    Parameters
    ----------
    sweep : Sweep
        The grid.
    path : Path
        The store's file.

    Yields
    ------
    Cell
    """
    for (dataset, scale, domain), group in itertools.groupby(
        cells(sweep), key=lambda c: (c.dataset, c.scale, c.domain)
    ):
        done = store.stored(path, sweep.name, dataset=dataset, scale=scale, domain=domain)
        yield from (c for c in group if c not in done)


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@contextmanager
def client_for(
    scheduler: str | None = None,
    *,
    workers: int | None = None,
    timeout: float = CONNECT_TIMEOUT,
) -> Iterator[distributed.Client]:
    """A Dask client: to the scheduler at ``scheduler``, else to a new local cluster.

    Parameters
    ----------
    scheduler : str, optional
        Address such as ``tcp://host:8786``.
    workers : int, optional
        Local worker processes (one thread each); default: this machine's cores.
    timeout : float, default CONNECT_TIMEOUT
        Seconds to wait for the scheduler.

    Yields
    ------
    distributed.Client

    Raises
    ------
    ClusterError
        If no scheduler answers at ``scheduler`` within ``timeout`` seconds.
    """
    if scheduler is not None:
        try:
            client = distributed.Client(scheduler, timeout=f"{timeout}s")
        except (OSError, TimeoutError, ValueError) as error:
            raise ClusterError(
                f"no Dask scheduler answered at {scheduler} within {timeout:g} s: {error}"
            ) from None
        with client:
            yield client
        return
    count = workers if workers is not None else default_workers()
    with _children_ignore_ctrl_c():
        # The scheduler serves HTTP (health, metrics) even without a dashboard; on a free
        # local port, not 8787, which another cluster on the machine may hold (a warning).
        cluster = distributed.LocalCluster(
            n_workers=count, threads_per_worker=1, processes=True, dashboard_address=LOCAL_HTTP
        )
    with _level_restored(DASK_LOGGER), cluster, distributed.Client(cluster) as client:
        try:
            yield client
        finally:
            # here and in the workers, then the client, the cluster, and the level restored
            _log_critical_only()
            with contextlib.suppress(OSError, TimeoutError):  # a cluster already gone
                client.run(_log_critical_only, on_error="ignore")


DASK_LOGGER = "distributed"
"""The logger of Dask distributed's scheduler, nanny and worker messages."""


def _log_critical_only() -> None:
    """Before a local cluster closes: Dask logs nothing below critical. Closing says nothing
    the runner's own message does not, but Dask logs it twice: closing a worker cancels the
    chunk it still executes after Ctrl-C (a thread cannot be stopped mid-cell), a warning
    ("Async instruction ... ended with CancelledError"); and a worker whose heartbeat is in
    flight when the scheduler closes logs the closed connection as an error with a traceback
    ("Failed to communicate with scheduler during heartbeat")."""
    logging.getLogger(DASK_LOGGER).setLevel(logging.CRITICAL)


@contextmanager
def _level_restored(name: str) -> Iterator[None]:
    """The level of the logger ``name`` as it was before, once the block ends."""
    named = logging.getLogger(name)
    level = named.level
    try:
        yield
    finally:
        named.setLevel(level)


@contextmanager
def _children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside ignore SIGINT (an ignored signal stays ignored across exec):
    Ctrl-C in a terminal reaches the whole process group, and the runner, not each worker,
    should handle it (store what finished, then stop the cluster)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def workers_of(client: distributed.Client) -> int:
    """Worker threads the client's cluster has now (at least 1)."""
    info: dict[str, Any] = client.scheduler_info()
    return max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))


def run(
    sweep: Sweep,
    path: Path,
    client: distributed.Client,
    *,
    progress: bool = True,
) -> Summary:
    """Run the cells of ``sweep`` not yet in the store at ``path`` on ``client``'s cluster.

    Parameters
    ----------
    sweep : Sweep
        The grid.
    path : Path
        The store's file.
    client : distributed.Client
        The cluster (see :func:`client_for`).
    progress : bool, default True
        Draw a progress bar (counts, rate, ETA) on stderr.

    Returns
    -------
    Summary
        Counts, failures with their errors, and whether Ctrl-C stopped the run.

    Raises
    ------
    StoreError
        If the store cannot be written; every batch committed before is kept.
    ClusterError
        If the cluster has no worker and none joins within :data:`WORKER_WAIT` seconds.
    """
    start = time.perf_counter()
    version = code_version()
    store.begin(path, sweep.name, sweep.seed, sweep.settings())
    axes = {
        "dataset": [d.name for d in sweep.datasets],
        "scale": sweep.scales,
        "domain": sweep.domains,
        "eps": sweep.epsilons,
        "workload": sweep.workloads,
        "algorithm": sweep.algorithms,
    }
    skipped = store.count_stored(path, sweep.name, axes, sweep.trials)
    summary = Summary(cells=sweep.size, skipped=skipped)
    if skipped == sweep.size:
        summary.seconds = time.perf_counter() - start
        return summary
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT)
    except TimeoutError:
        address = client.scheduler_info().get("address", "")
        raise ClusterError(
            f"no worker joined the scheduler {address} within {WORKER_WAIT:g} s "
            f"(start one: dask worker {address})"
        ) from None
    datasets = {
        d.name: client.scatter(d.counts, broadcast=True, hash=False) for d in sweep.datasets
    }
    workers = workers_of(client)
    todo = not_stored(sweep, path)
    pending = chunked(todo, sweep.size - skipped, workers)
    in_flight: dict[distributed.Future[Any], list[Cell]] = {}
    # On this client's loop: as_completed defaults to the newest client's, and another
    # client's loop thread writing to this client's connections breaks them.
    completed = distributed.as_completed(
        [], loop=client.loop, with_results=True, raise_errors=False
    )

    def submit_next() -> None:
        chunk = next(pending, None)
        if chunk is None:
            return
        future = client.submit(
            run_chunk,
            sweep.seed,
            chunk,
            {name: datasets[name] for name in {c.dataset for c in chunk}},
            pure=False,
        )
        in_flight[future] = chunk
        completed.add(future)

    buffer: list[Result] = []
    flushed = time.monotonic()

    def flush() -> None:
        nonlocal flushed
        if buffer:
            summary.stored += store.write(path, store.frame(sweep.name, buffer, version))
            buffer.clear()
        flushed = time.monotonic()

    bar = tqdm(total=sweep.size - skipped, unit="cell", disable=not progress, file=sys.stderr)
    try:
        for _ in range(WINDOW_PER_WORKER * workers):
            submit_next()
        for batch in completed.batches():
            for future, outcome in batch:
                chunk = in_flight.pop(future)
                if future.status == "error":
                    error = outcome[1]  # (type, exception, traceback)
                    message = f"{type(error).__name__}: {error}"
                    summary.failures += [Failure(c, message) for c in chunk]
                else:
                    results, failures = outcome
                    buffer.extend(results)
                    summary.failures += failures
                bar.update(len(chunk))
                future.release()
                submit_next()
            bar.set_postfix(failed=len(summary.failures), refresh=False)
            if len(buffer) >= FLUSH_ROWS or time.monotonic() - flushed >= FLUSH_SECONDS:
                flush()
        flush()
    except KeyboardInterrupt:
        summary.interrupted = True
        client.cancel(list(in_flight))  # a window of tasks, not the whole grid
        flush()
    finally:
        bar.close()
    summary.seconds = time.perf_counter() - start
    return summary
