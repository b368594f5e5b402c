"""The command line: ``dp-sweep run SWEEP.toml``, ``dp-sweep list``, ``dp-sweep export OUT``.

Before a run starts, ``run`` prints an estimate of its time and memory
(:func:`dpcore.sweep.runner.estimate`) and refuses one above
:data:`~dpcore.sweep.runner.MAX_SECONDS` or :data:`~dpcore.sweep.runner.MAX_WORKER_MEGABYTES`
per worker unless given ``--yes``.

Exit status: 0 when every cell is stored, 1 when some cells failed (the others are
stored), 2 for a bad sweep file, a sweep over the limits without ``--yes``, an unreachable
scheduler or a store that cannot be written, 130 after Ctrl-C (what finished is stored:
rerun to resume).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dpcore.sweep import report, runner, spec, store


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``dp-sweep``."""
    top = argparse.ArgumentParser(
        prog="dp-sweep",
        description="Run DPBench-style sweeps on Dask and keep their results in DuckDB.",
    )
    commands = top.add_subparsers(dest="command", required=True)
    store_help = f"the store's file (default ${store.STORE_ENV}, else {store.default_path()})"

    run = commands.add_parser("run", help="run a sweep file's cells not yet stored")
    run.add_argument("sweep", type=Path, help="the sweep file (TOML)")
    run.add_argument("--store", type=Path, help=store_help)
    run.add_argument("--scheduler", help="a Dask scheduler's address, e.g. tcp://host:8786")
    run.add_argument("--workers", type=int, help="local worker processes (default: the cores)")
    run.add_argument(
        "--data-dir",
        type=Path,
        help=f"the bundled datasets (default ${spec.DATA_ENV}, else {spec.DEFAULT_DATA})",
    )
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument(
        "--yes",
        action="store_true",
        help=f"run even when the estimate exceeds {runner.MAX_SECONDS / 3600:g} h or "
        f"{runner.MAX_WORKER_MEGABYTES:,.0f} MB per worker",
    )

    listing = commands.add_parser("list", help="the sweeps in the store")
    listing.add_argument("--store", type=Path, help=store_help)

    export = commands.add_parser("export", help="copy stored cells to Parquet or CSV")
    export.add_argument("out", type=Path, help="the file to write (.parquet or .csv)")
    export.add_argument("--store", type=Path, help=store_help)
    export.add_argument("--sweep", help="only this sweep's cells")
    export.add_argument("--force", action="store_true", help="replace OUT if it exists")
    return top


def _run(args: argparse.Namespace, path: Path) -> int:
    if args.workers is not None and args.workers < 1:
        raise spec.SweepFileError(f"--workers must be at least 1, got {args.workers}")
    sweep = spec.load(args.sweep, data=spec.data_dir(args.data_dir))
    workers = args.workers or runner.default_workers()
    where = args.scheduler or f"a local cluster of {workers}"
    print(f"sweep {sweep.name}: {sweep.size:,} cells on {where}, into {path}", file=sys.stderr)
    guess = runner.estimate(sweep, workers)
    print(f"{guess.line(workers)} (stored cells are skipped)", file=sys.stderr)
    over = guess.over(seconds=runner.MAX_SECONDS, megabytes=runner.MAX_WORKER_MEGABYTES)
    if over and not args.yes:
        raise spec.SweepFileError(
            f"{args.sweep}: this sweep would take {' and '.join(over)}; run it with --yes, "
            "or reduce its trials, scales, datasets, domains or algorithms"
        )
    with runner.client_for(args.scheduler, workers=args.workers) as client:
        summary = runner.run(sweep, path, client, progress=not args.no_progress)
    print("\n".join(summary.lines()), file=sys.stderr)
    if summary.interrupted:
        return 130
    return 1 if summary.failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dp-sweep`` with ``argv`` (default: the command line).

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
    path = args.store if args.store is not None else store.default_path()
    try:
        if args.command == "run":
            return _run(args, path)
        if args.command == "list":
            print(report.sweeps(path).drop(columns="settings").to_string(index=False))
            return 0
        rows = store.export(path, args.out, sweep=args.sweep, overwrite=args.force)
        print(f"{rows} cells written to {args.out}", file=sys.stderr)
        return 0
    except (spec.SweepFileError, store.StoreError, runner.ClusterError) as error:
        print(f"dp-sweep: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dp-sweep: interrupted; committed cells are stored, rerun to resume", file=sys.stderr)
        return 130
