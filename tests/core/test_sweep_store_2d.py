"""The store with 2-D cells: a 2-D domain kept apart from a 1-D one, and stores written
before 2-D sweeps (no ``domain_cols``) still read and written."""

from datetime import UTC, datetime

import duckdb

from dpcore.sweep import report, store
from dpcore.sweep.cell import Cell, Result

NOW = datetime.now(UTC)
SETTINGS = {
    "seed": 1,
    "trials": 1,
    "datasets": {"D": "f1"},
    "scales": [10],
    "domains": [128, [128, 128], [128, 64]],
    "epsilons": [1.0],
    "workloads": ["prefix", "random rectangles"],
    "algorithms": ["A", "B"],
}
OLD_SCHEMA = store.SCHEMA.replace("    domain_cols INTEGER NOT NULL,\n", "").replace(
    " domain_cols,", ""
)
"""The schema of stores written before 2-D sweeps."""


def result(domain, workload: str, algorithm: str, error: float) -> Result:
    return Result(Cell("D", 10, domain, 0, 1.0, workload, algorithm), 0, error, 0.1, NOW)


def test_a_2d_domain_is_stored_apart_from_a_1d_domain_of_its_rows(tmp_path):
    path = tmp_path / "s.duckdb"
    store.begin(path, "s", 1, SETTINGS)
    rows = [
        result(128, "prefix", "A", 0.1),
        result((128, 128), "random rectangles", "A", 0.2),
        result((128, 128), "random rectangles", "B", 0.4),
        result((128, 64), "random rectangles", "A", 0.8),
        result((128, 64), "random rectangles", "B", 0.2),
    ]
    assert store.write(path, store.frame("s", rows, "v")) == 5
    table = store.query(path, "SELECT domain, domain_cols FROM cells")
    expected = [r.cell.domain if isinstance(r.cell.domain, tuple) else (128, 0) for r in rows]
    assert sorted(map(tuple, table.values.tolist())) == sorted(expected)
    for domain in (128, (128, 128), (128, 64)):
        got = store.stored(path, "s", dataset="D", scale=10, domain=domain)
        assert got == {r.cell for r in rows if r.cell.domain == domain}
    axes = {"scale": [10], "eps": [1.0]}
    assert store.count_stored(path, "s", {**axes, "domain": [(128, 64)]}, 1) == 2
    assert store.count_stored(path, "s", {**axes, "domain": [128, (128, 128)]}, 1) == 3
    # regret compares algorithms within one domain: B is best at 128 x 64, A at 128 x 128
    regret = report.regret(path, "s", workload="random rectangles")
    best = regret[regret["regret"] == 1.0].set_index("domain_cols")["algorithm"]
    assert best.to_dict() == {64: "B", 128: "A"}


def old_store(path) -> None:
    with duckdb.connect(str(path)) as con:
        con.execute(OLD_SCHEMA)
        con.execute(
            "INSERT INTO sweeps VALUES ('old', 1, ?, now(), now())",
            ['{"seed": 1, "trials": 1, "datasets": {"D": "f1"}, "scales": [10], "domains": [64],'
             ' "epsilons": [1.0], "workloads": ["prefix"], "algorithms": ["A"]}'],
        )  # fmt: skip
        con.execute(
            "INSERT INTO cells VALUES ('old', 'D', 10, 64, 1.0, 'prefix', 'A', 0, 7, 0.5, 0.1, "
            "'v0', now())"
        )


def test_a_store_written_before_2d_sweeps_is_read_as_1d_cells(tmp_path):
    path = tmp_path / "old.duckdb"
    old_store(path)
    table = store.query(path, "SELECT domain, domain_cols, scaled_l1_error FROM cells")
    assert table.values.tolist() == [[64, 0, 0.5]]
    assert report.axes(path, "old")["domain_cols"] == [0]
    assert report.regret(path, "old")["regret"].tolist() == [1.0]
    with duckdb.connect(str(path), read_only=True) as con:  # the reader changed nothing
        columns = [row[0] for row in con.execute("DESCRIBE cells").fetchall()]
    assert "domain_cols" not in columns


def test_a_store_written_before_2d_sweeps_is_upgraded_by_its_next_writer(tmp_path):
    path = tmp_path / "old.duckdb"
    old_store(path)
    store.begin(path, "old", 1, {**SETTINGS, "domains": [64]})
    new = [result((64, 64), "random rectangles", "A", 0.3), result(64, "prefix", "A", 0.9)]
    assert store.write(path, store.frame("old", new, "v1")) == 1  # the 1-D cell was stored
    table = store.query(path, "SELECT * FROM cells ORDER BY domain_cols")
    assert list(table.columns) == list(store.COLUMNS)
    assert table[["domain", "domain_cols", "scaled_l1_error", "code_version"]].values.tolist() == [
        [64, 0, 0.5, "v0"],
        [64, 64, 0.3, "v1"],
    ]
    with duckdb.connect(str(path), read_only=True) as con:
        key = con.execute(
            "SELECT constraint_column_names FROM duckdb_constraints() "
            "WHERE table_name = 'cells' AND constraint_type = 'PRIMARY KEY'"
        ).fetchone()
    assert key is not None and list(key[0]) == list(store.KEY)
    assert store.query(path, "SELECT name FROM sweeps")["name"].tolist() == ["old"]
