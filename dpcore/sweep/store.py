"""The results store: one DuckDB file holding every finished cell of every sweep.

Why the writer holds the file only while it commits
---------------------------------------------------
DuckDB lets one process open a database file read-write, or several processes open it
read-only, never both: while a process holds the file read-write, another process cannot
open it at all (DuckDB's documentation, "Concurrency"). A sweep runs for minutes to hours
and the dashboard must read meanwhile, so the runner (the only writing process: workers
return results to it) never keeps the file open: each batch is ``connect, BEGIN, INSERT,
COMMIT, close`` (about 30 ms), at most about once a second. Readers open it read-only for
one query and close it. Either side that finds the other's lock retries with backoff
(:data:`LOCK_WAIT` seconds, then a clear :class:`StoreError`). A Parquet snapshot for
readers was the alternative; it would double the disk and lag the store, and the lock is
held for so little time that waiting is cheaper.

Transactions keep the store whole: a batch is committed entirely or not at all (a crash,
a kill or a full disk mid-batch loses only that uncommitted batch, which a rerun
recomputes), so readers never see half a batch. The primary key on a cell's parameters and
``INSERT OR IGNORE`` keep every cell exactly once.

A 2-D cell's domain is two columns: ``domain`` its rows and ``domain_cols`` its columns; a
1-D cell has ``domain_cols = 0``. A store written before 2-D sweeps (without
``domain_cols``) still loads: a writer adds the column (every old cell 1-D) in one
transaction, a reader sees the old table through a temporary view with ``domain_cols = 0``.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import platformdirs

from dpcore.sweep.cell import Cell, Result
from dpcore.sweep.grid_files import Domain

STORE_ENV = "DP_EXPLORER_STORE"
"""Environment variable naming the store's file."""

LOCK_WAIT = 30.0
"""Seconds to keep retrying a store another process holds before saying so."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS sweeps (
    name VARCHAR PRIMARY KEY,
    seed UBIGINT NOT NULL,
    settings VARCHAR NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS cells (
    sweep VARCHAR NOT NULL,
    dataset VARCHAR NOT NULL,
    scale BIGINT NOT NULL,
    domain INTEGER NOT NULL,
    domain_cols INTEGER NOT NULL,
    eps DOUBLE NOT NULL,
    workload VARCHAR NOT NULL,
    algorithm VARCHAR NOT NULL,
    trial INTEGER NOT NULL,
    seed UBIGINT NOT NULL,
    scaled_l1_error DOUBLE NOT NULL,
    seconds DOUBLE NOT NULL,
    code_version VARCHAR NOT NULL,
    finished_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (sweep, dataset, scale, domain, domain_cols, eps, workload, algorithm, trial)
);
"""

COLUMNS = (
    "sweep",
    "dataset",
    "scale",
    "domain",
    "domain_cols",
    "eps",
    "workload",
    "algorithm",
    "trial",
    "seed",
    "scaled_l1_error",
    "seconds",
    "code_version",
    "finished_at",
)
"""The columns of table ``cells``, in order."""

KEY = COLUMNS[:9]
"""The columns of a cell's key (table ``cells``' primary key)."""


class StoreError(RuntimeError):
    """The store cannot be opened, read or written: the message says why and what is kept."""


def default_path() -> Path:
    """The store's file: ``$DP_EXPLORER_STORE``, else ``sweeps.duckdb`` in the user's data
    directory (``platformdirs.user_data_dir("dp-explorer")``)."""
    env = os.environ.get(STORE_ENV)
    if env:
        return Path(env)
    return Path(platformdirs.user_data_dir("dp-explorer")) / "sweeps.duckdb"


CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
}
"""DuckDB settings of every connection: never load or download an extension (a SQLite or
Parquet file given as the store would otherwise make DuckDB fetch one from the network)."""

MAGIC = b"DUCK"
"""The bytes at offset 8 of a DuckDB database file."""


@functools.cache
def _expected_columns() -> dict[str, tuple[tuple[str, str], ...]]:
    """Table -> its (column, type) pairs as :data:`SCHEMA` creates them."""
    with duckdb.connect(":memory:", config=CONFIG) as con:
        con.execute(SCHEMA)
        return _columns(con)


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[tuple[str, str], ...]]:
    """Table -> its (column, type) pairs, as a query names them (a temporary view first)."""
    tables = {}
    for table in ("cells", "sweeps"):
        try:
            rows = con.execute(f"DESCRIBE {table}").fetchall()
        except duckdb.CatalogException:  # not created yet
            continue
        tables[table] = tuple((str(row[0]), str(row[1])) for row in rows)
    return tables


def _before_2d() -> tuple[tuple[str, str], ...]:
    """Table ``cells`` as stores written before 2-D sweeps hold it (no ``domain_cols``)."""
    return tuple(c for c in _expected_columns()["cells"] if c[0] != "domain_cols")


def _upgrade(con: duckdb.DuckDBPyConnection, *, read_only: bool) -> None:
    """Let a store written before 2-D sweeps be read and written (every old cell is 1-D):
    a writer adds column ``domain_cols`` (0) and the key including it in one transaction;
    a reader gets a temporary view ``cells`` with it."""
    if _columns(con).get("cells") != _before_2d():
        return
    old = ", ".join(c if c != "domain_cols" else "0::INTEGER AS domain_cols" for c in COLUMNS)
    if read_only:
        (database,) = con.execute("SELECT current_database()").fetchone() or ("",)
        catalog = str(database).replace('"', '""')
        con.execute(f'CREATE TEMP VIEW cells AS SELECT {old} FROM "{catalog}".main.cells')
        return
    con.execute("BEGIN")
    con.execute("ALTER TABLE cells RENAME TO cells_before_2d")
    con.execute(SCHEMA)
    con.execute(f"INSERT INTO cells SELECT {old} FROM cells_before_2d")
    con.execute("DROP TABLE cells_before_2d")
    con.execute("COMMIT")


def check_schema(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a store whose tables are not the ones :data:`SCHEMA` creates.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        An open connection to the store.
    path : Path
        The store's file (named in the message).

    Raises
    ------
    StoreError
        Naming the first column that is missing, extra or of another type, and the
        expected columns.
    """
    expected = _expected_columns()
    for table, columns in _columns(con).items():
        want = expected[table]
        if columns == want:
            continue
        found, wanted = dict(columns), dict(want)
        differences = [
            f"column {c!r} is {found.get(c, 'missing')}, expected {t}"
            for c, t in want
            if found.get(c) != t
        ] + [f"column {c!r} is not expected" for c in found if c not in wanted]
        differences.append("its columns are in another order")
        layout = ", ".join(f"{c} {t}" for c, t in want)
        raise StoreError(
            f"{path} is not a sweep store this version reads: table {table!r}: "
            f"{differences[0]} (expected: {layout})"
        )


def _check_magic(path: Path) -> None:
    try:
        with path.open("rb") as file:
            head = file.read(16)
    except OSError as error:
        raise StoreError(f"cannot open the store {path}: {error}") from None
    if head and head[8:12] != MAGIC:
        kind = "a SQLite file" if head.startswith(b"SQLite format") else "another kind of file"
        raise StoreError(
            f"{path} is not a DuckDB database (it is {kind}): pass --store with a DuckDB file "
            f"(or a new path, for a new store), or set ${STORE_ENV}"
        )


def _is_lock(error: duckdb.Error) -> bool:
    text = str(error)
    return "lock" in text.lower() and ("Conflicting" in text or "Could not set" in text)


@contextmanager
def connect(
    path: Path, *, read_only: bool, wait: float = LOCK_WAIT
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the store, closed on exit; retried while another process holds it.

    Parameters
    ----------
    path : Path
        The store's file (created, with its directory, when opened read-write).
    read_only : bool
        Open read-only (the file must exist).
    wait : float, default LOCK_WAIT
        Seconds to keep retrying while another process holds the file.

    Yields
    ------
    duckdb.DuckDBPyConnection

    Raises
    ------
    StoreError
        If the file is missing (read-only), is not a DuckDB file or not a sweep store
        (:func:`check_schema`), is still locked after ``wait`` seconds, or cannot be opened.
    """
    if read_only and not path.is_file():
        raise StoreError(f"no store at {path} (run a sweep first, or pass --store)")
    if path.is_file():
        _check_magic(path)
    deadline = time.monotonic() + wait
    delay = 0.01
    while True:
        try:
            if not read_only:
                path.parent.mkdir(parents=True, exist_ok=True)
            connection = duckdb.connect(str(path), read_only=read_only, config=CONFIG)
            break
        except duckdb.Error as error:
            if not _is_lock(error):
                raise StoreError(f"cannot open the store {path}: {error}") from None
            if time.monotonic() + delay > deadline:
                raise StoreError(
                    f"the store {path} is locked by another process for more than {wait:g} s "
                    f"(another sweep writing to it?): {error}"
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        except OSError as error:
            raise StoreError(f"cannot open the store {path}: {error}") from None
    try:
        try:
            _upgrade(connection, read_only=read_only)
            check_schema(connection, path)
        except duckdb.Error as error:
            raise StoreError(f"cannot read the store {path}: {error}") from None
        yield connection
    finally:
        try:
            connection.close()
        except duckdb.Error as error:  # closing checkpoints: it writes too
            raise StoreError(f"could not close the store {path}: {error}") from None


def begin(path: Path, name: str, seed: int, settings: dict[str, Any]) -> None:
    """Create the tables if new and record the sweep (its stored cells are read per input
    by :func:`stored`, never all at once: a sweep may hold ten million).

    Parameters
    ----------
    path : Path
        The store's file.
    name : str
        The sweep's name.
    seed : int
        Its base seed.
    settings : dict
        Its grid (see :meth:`dpcore.sweep.spec.Sweep.settings`); ``settings["datasets"]``
        maps each dataset to its fingerprint.

    Raises
    ------
    StoreError
        If the store cannot be written, or sweep ``name`` is stored with another seed or
        other contents under one of its datasets' names (its cells would not be this
        sweep's).
    """
    now = datetime.now(UTC)
    with connect(path, read_only=False) as con:
        try:
            con.execute("BEGIN")
            con.execute(SCHEMA)
            row = con.execute("SELECT seed, settings FROM sweeps WHERE name = ?", [name]).fetchone()
            if row is not None:
                _check_same(name, int(row[0]), json.loads(row[1]), seed, settings)
                merged = json.loads(row[1])
                merged["datasets"] = {**merged["datasets"], **settings["datasets"]}
                for key in ("scales", "domains", "epsilons", "workloads", "algorithms"):
                    merged[key] = merged[key] + [v for v in settings[key] if v not in merged[key]]
                merged["trials"] = max(merged["trials"], settings["trials"])
                con.execute(
                    "UPDATE sweeps SET settings = ?, updated_at = ? WHERE name = ?",
                    [json.dumps(merged), now, name],
                )
            else:
                con.execute(
                    "INSERT INTO sweeps VALUES (?, ?, ?, ?, ?)",
                    [name, seed, json.dumps(settings), now, now],
                )
            con.execute("COMMIT")
        except duckdb.Error as error:
            raise StoreError(f"cannot record sweep {name!r} in {path}: {error}") from None


def _sides(domain: Domain) -> tuple[int, int]:
    """A domain as columns ``domain`` and ``domain_cols`` (0 for a 1-D domain)."""
    return domain if isinstance(domain, tuple) else (domain, 0)


def _domain(rows: int, columns: int) -> Domain:
    return (int(rows), int(columns)) if columns else int(rows)


def stored(path: Path, name: str, *, dataset: str, scale: int, domain: Domain) -> set[Cell]:
    """The cells of sweep ``name`` already stored for one input (dataset, scale, domain).

    Parameters
    ----------
    path : Path
        The store's file.
    name : str
        The sweep's name.
    dataset : str
    scale : int
    domain : int or tuple of int
        Bins, or (rows, columns) of a 2-D input.

    Returns
    -------
    set of Cell
        Those cells (a rerun skips them).

    Raises
    ------
    StoreError
        If the store is missing or unreadable.
    """
    rows = query(
        path,
        "SELECT dataset, scale, domain, domain_cols, trial, eps, workload, algorithm FROM cells "
        "WHERE sweep = ? AND dataset = ? AND scale = ? AND domain = ? AND domain_cols = ?",
        [name, dataset, scale, *_sides(domain)],
    )
    return {
        Cell(d, s, _domain(rows_, cols), t, e, w, a)
        for d, s, rows_, cols, t, e, w, a in rows.itertuples(index=False)
    }


def count_stored(path: Path, name: str, axes: Mapping[str, Sequence[Any]], trials: int) -> int:
    """How many cells of sweep ``name`` in a grid are stored.

    Parameters
    ----------
    path : Path
        The store's file.
    name : str
        The sweep's name.
    axes : mapping
        Column of table ``cells`` (``dataset``, ``scale``, ``domain``, ``eps``,
        ``workload``, ``algorithm``) -> the grid's values (a 2-D domain is (rows, columns)).
    trials : int
        Trials of the grid (trials ``0 .. trials - 1``).

    Returns
    -------
    int

    Raises
    ------
    StoreError
        If the store is missing or unreadable.
    """
    clauses, params = ["sweep = ?", "trial < ?"], [name, trials]
    for column, values in axes.items():
        if column not in COLUMNS:
            raise ValueError(f"no column {column!r} in table cells")
        if column == "domain":
            pairs = [_sides(v) for v in values]
            either = " OR ".join(["(domain = ? AND domain_cols = ?)"] * len(pairs))
            clauses.append(f"({either})" if pairs else "FALSE")
            params += [side for pair in pairs for side in pair]
            continue
        clauses.append(f"{column} IN ({', '.join('?' * len(values))})" if values else "FALSE")
        params += list(values)
    table = query(path, f"SELECT count(*) AS n FROM cells WHERE {' AND '.join(clauses)}", params)
    return int(table["n"].iloc[0])


def _check_same(
    name: str, seed: int, stored: dict[str, Any], new_seed: int, settings: dict[str, Any]
) -> None:
    if seed != new_seed:
        raise StoreError(
            f"sweep {name!r} is stored with seed {seed}, this file says {new_seed}: "
            "rename the sweep (or restore its seed) so the stored cells stay reproducible"
        )
    for dataset, fingerprint in settings["datasets"].items():
        if stored["datasets"].get(dataset, fingerprint) != fingerprint:
            raise StoreError(
                f"sweep {name!r} stored dataset {dataset!r} with other contents: "
                "rename the sweep or the dataset's file"
            )


def frame(sweep: str, results: Sequence[Result], code_version: str) -> pd.DataFrame:
    """Finished cells as rows of table ``cells``."""
    rows = [
        (
            sweep,
            r.cell.dataset,
            r.cell.scale,
            *_sides(r.cell.domain),
            r.cell.eps,
            r.cell.workload,
            r.cell.algorithm,
            r.cell.trial,
            r.seed,
            r.scaled_l1_error,
            r.seconds,
            code_version,
            r.finished_at,
        )
        for r in results
    ]
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table["seed"] = table["seed"].astype("uint64")
    return table


def write(path: Path, rows: pd.DataFrame, *, wait: float = LOCK_WAIT) -> int:
    """Add rows to table ``cells`` in one transaction (all or none; a stored cell is kept).

    Parameters
    ----------
    path : Path
        The store's file.
    rows : pandas.DataFrame
        Columns :data:`COLUMNS` (from :func:`frame`).
    wait : float, default LOCK_WAIT
        Seconds to wait for a reader or another writer to let go of the file.

    Returns
    -------
    int
        Rows added (a cell already stored is left as it was).

    Raises
    ------
    StoreError
        If the store stays locked or the write fails (a full disk, say); the batch is
        rolled back and every cell stored before is intact.
    """
    with connect(path, read_only=False, wait=wait) as con:
        try:
            con.execute("BEGIN")
            con.register("batch", rows)
            added = con.execute(
                f"INSERT OR IGNORE INTO cells SELECT {', '.join(COLUMNS)} FROM batch"
            ).fetchone()
            con.execute("COMMIT")
            return int(added[0]) if added else 0
        except duckdb.Error as error:
            raise StoreError(
                f"could not store {len(rows)} results in {path} ({error}); the batch was "
                "rolled back, every cell stored before is intact (a full disk? free space "
                "and rerun: stored cells are skipped)"
            ) from None


def query(
    path: Path, sql: str, params: Sequence[Any] = (), *, wait: float = LOCK_WAIT
) -> pd.DataFrame:
    """Run one read-only query on the store.

    Parameters
    ----------
    path : Path
        The store's file.
    sql : str
        A query with ``?`` placeholders.
    params : sequence
        The placeholders' values.
    wait : float, default LOCK_WAIT
        Seconds to wait while a sweep commits a batch.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    StoreError
        If the store is missing, stays locked, or the query fails.
    """
    with connect(path, read_only=True, wait=wait) as con:
        try:
            return con.execute(sql, list(params)).df()
        except duckdb.Error as error:
            raise StoreError(f"cannot read the store {path}: {error}") from None


def export(path: Path, out: Path, *, sweep: str | None = None, overwrite: bool = False) -> int:
    """Copy table ``cells`` (or one sweep's cells) to a Parquet or CSV file.

    Parameters
    ----------
    path : Path
        The store's file.
    out : Path
        The file to write: ``.parquet`` or ``.csv``.
    sweep : str, optional
        Only this sweep's cells.
    overwrite : bool, default False
        Replace ``out`` if it exists.

    Returns
    -------
    int
        Rows written.

    Raises
    ------
    StoreError
        For another suffix, an existing ``out`` (unless ``overwrite``), a sweep the store
        does not hold (the message lists those it holds), a missing store, or a failed write.
    """
    formats = {".parquet": "parquet", ".csv": "csv"}
    kind = formats.get(out.suffix.lower())
    if kind is None:
        raise StoreError(f"export writes .parquet or .csv files, got {out.name!r}")
    if out.exists() and not overwrite:
        raise StoreError(f"{out} exists: choose another file name, or pass --force to replace it")
    where = "WHERE sweep = ?" if sweep is not None else ""
    select = f"SELECT * FROM cells {where} ORDER BY {', '.join(KEY)}"
    params = [sweep] if sweep is not None else []
    with connect(path, read_only=True) as con:
        try:
            if sweep is not None:
                held = con.execute("SELECT name FROM sweeps ORDER BY name").fetchall()
                names = [row[0] for row in held]
                if sweep not in names:
                    listed = ", ".join(map(repr, names)) or "none"
                    raise StoreError(f"no sweep {sweep!r} in {path}; it holds: {listed}")
            count = con.execute(f"SELECT count(*) FROM ({select})", params).fetchone()
            escaped = str(out).replace("'", "''")
            con.execute(f"COPY ({select}) TO '{escaped}' (FORMAT {kind})", params)
        except duckdb.Error as error:
            raise StoreError(f"cannot export {path} to {out}: {error}") from None
    return int(count[0]) if count else 0
