"""Sweep files: parsing, the messages for bad ones, and cells as pure functions of their key."""

import runpy
import tomllib
from pathlib import Path

import numpy as np
import pytest

from dpcore.algorithms.common import as_workload
from dpcore.algorithms.dpbench import random_ranges, sample, scaled_l1_error
from dpcore.algorithms.registry import NAMES, estimate
from dpcore.sweep import cell, spec

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
name = "t"
seed = 3
trials = 2
datasets = ["MEDCOST"]
scales = [1000, 10_000]
domains = [64, 4096]
epsilons = [1.0, 0.1]
workloads = ["prefix", "random ranges"]
algorithms = ["Identity", "HB"]
"""


def parse(text: str, tmp_path: Path) -> spec.Sweep:
    return spec.parse(text, path=tmp_path / "s.toml", data=DATA)


def test_a_good_file_gives_its_grid_and_loads_its_datasets(tmp_path):
    sweep = parse(GOOD, tmp_path)
    assert (sweep.name, sweep.seed, sweep.trials) == ("t", 3, 2)
    assert sweep.scales == (1000, 10_000) and sweep.domains == (64, 4096)
    assert sweep.epsilons == (1.0, 0.1) and sweep.algorithms == ("Identity", "HB")
    (dataset,) = sweep.datasets
    expected = np.loadtxt(DATA / "MEDCOST.n4096.csv", skiprows=1)
    assert dataset.name == "MEDCOST" and np.array_equal(dataset.counts, expected)
    grid = list(cell.cells(sweep))
    assert len(grid) == sweep.size == 1 * 2 * 2 * 2 * 2 * 2 * 2
    keys = [c.input_key for c in grid]
    assert len(set(grid)) == len(grid) and keys == sorted(keys)  # a trial's cells together


def test_all_means_every_bundled_dataset_and_every_registered_algorithm(tmp_path):
    text = GOOD.replace('["MEDCOST"]', '"all"').replace('["Identity", "HB"]', '"all"')
    sweep = parse(text, tmp_path)
    assert sweep.algorithms == NAMES
    assert {d.name for d in sweep.datasets} == {p.name.split(".")[0] for p in DATA.glob("*.csv")}
    without = parse(GOOD.replace('algorithms = ["Identity", "HB"]\n', ""), tmp_path)
    assert without.algorithms == NAMES


def test_a_dataset_may_be_a_csv_path_relative_to_the_sweep_file(tmp_path):
    (tmp_path / "mine.csv").write_text("count\n" + "\n".join(["1", "2"] * 32) + "\n")
    (tmp_path / "bare.csv").write_text("x\n" + "\n".join(["5"] * 64) + "\n")
    text = GOOD.replace('["MEDCOST"]', '["mine.csv", "./bare.csv"]')
    sweep = parse(text.replace("[64, 4096]", "[64, 32]"), tmp_path)
    assert [d.name for d in sweep.datasets] == ["mine", "bare"]
    assert sweep.datasets[0].counts.tolist() == [1.0, 2.0] * 32
    assert sweep.datasets[0].fingerprint != sweep.datasets[1].fingerprint


def test_a_huge_dataset_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """Issue 37 L1: a 2 GB CSV passed 5 GB of RSS before any check. A sparse file of 3 GB
    (no disk used) is refused by its size, and reading it is never attempted."""
    huge = tmp_path / "huge.csv"
    with huge.open("wb") as file:
        file.truncate(3 * 2**30)
    monkeypatch.setattr(spec.pd, "read_csv", lambda *a, **k: pytest.fail("read the file"))
    text = GOOD.replace('["MEDCOST"]', '["huge.csv"]').replace("[64, 4096]", "[64]")
    with pytest.raises(spec.SweepFileError, match=r"line 4, key 'datasets'.*3,072 MiB.*at most 64"):
        parse(text, tmp_path)


def test_a_dataset_with_too_many_rows_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(spec, "MAX_BINS", 64)
    (tmp_path / "long.csv").write_text("count\n" + "1\n" * 65)
    text = GOOD.replace('["MEDCOST"]', '["long.csv"]').replace("[64, 4096]", "[1]")
    with pytest.raises(spec.SweepFileError, match=r"key 'datasets'.*more than 64 rows"):
        parse(text, tmp_path)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("epsilons = [1.0, 0.1]", 'epsilons = [1.0, "x"]', r"line 7, key 'epsilons'"),
        ("epsilons = [1.0, 0.1]", "epsilons = [1.0, -1]", r"line 7, key 'epsilons'.*positive"),
        ("scales = [1000, 10_000]", "scales = [10.5]", r"line 5, key 'scales'.*whole"),
        ("scales = [1000, 10_000]", "scales = [0]", r"line 5, key 'scales'"),
        ("domains = [64, 4096]", "domains = [100]", r"line 6, key 'domains'.*does not divide"),
        ("trials = 2", "trials = [2]", r"line 3, key 'trials'.*one value"),
        ("trials = 2", "trials = true", r"line 3, key 'trials'"),
        ("seed = 3", "seed = -1", r"line 2, key 'seed'"),
        ('name = "t"', 'name = "a b"', r"line 1, key 'name'"),
        ("scales = [1000, 10_000]", "scales = [1000, 1000]", r"line 5, key 'scales'.*twice"),
        ("scales = [1000, 10_000]", "scales = [1000, 1000.0]", r"line 5, key 'scales'.*twice"),
        ("epsilons = [1.0, 0.1]", "epsilons = [1, 1.0]", r"line 7, key 'epsilons'.*twice"),
        ("scales = [1000, 10_000]", "scales = [true]", r"line 5, key 'scales'.*whole"),
        ("domains = [64, 4096]", "domains = [true]", r"line 6, key 'domains'.*whole"),
        (
            'workloads = ["prefix", "random ranges"]',
            'workloads = ["all"]',
            r"line 8, key 'workloads'.*unknown 'all'; accepted: prefix, random ranges",
        ),
        ("scales = [1000, 10_000]", "scales = []", r"line 5, key 'scales'.*at least one"),
        ("scales = [1000, 10_000]", "scale = [1000]", r"line 5, key 'scale'.*unknown key"),
        ("scales = [1000, 10_000]\n", "", r"missing key 'scales'"),
    ],
)
def test_a_bad_value_names_the_line_and_the_key(tmp_path, old, new, expected):
    assert old in GOOD
    with pytest.raises(spec.SweepFileError, match=expected):
        parse(GOOD.replace(old, new), tmp_path)


def test_malformed_toml_names_the_line(tmp_path):
    with pytest.raises(spec.SweepFileError, match=r"not valid TOML.*line 4"):
        parse(GOOD.replace('datasets = ["MEDCOST"]', "datasets = [MEDCOST"), tmp_path)


def test_unknown_names_list_the_accepted_ones(tmp_path):
    with pytest.raises(spec.SweepFileError, match=r"line 9, key 'algorithms'") as info:
        parse(GOOD.replace('"HB"', '"Nope"'), tmp_path)
    assert all(name in str(info.value) for name in NAMES)
    with pytest.raises(spec.SweepFileError, match=r"line 4, key 'datasets'") as info:
        parse(GOOD.replace("MEDCOST", "NOPE"), tmp_path)
    assert "ADULTFRANK" in str(info.value) and "NETTRACE" in str(info.value)
    with pytest.raises(spec.SweepFileError, match=r"prefix, random ranges"):
        parse(GOOD.replace('"prefix"', '"all ranges"'), tmp_path)
    with pytest.raises(spec.SweepFileError, match=r"no file 'gone.csv'"):
        parse(GOOD.replace('"MEDCOST"', '"gone.csv"'), tmp_path)


def test_the_data_directory_comes_from_the_option_then_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(spec.DATA_ENV, str(tmp_path))
    assert spec.data_dir() == tmp_path
    assert spec.data_dir("elsewhere") == Path("elsewhere")
    monkeypatch.delenv(spec.DATA_ENV)
    assert spec.data_dir() == spec.DEFAULT_DATA


def test_the_bundled_sweeps_parse(tmp_path):
    tiny = spec.load(ROOT / "sweeps" / "tiny.toml", data=DATA)
    assert tiny.size < 200
    headline = spec.load(ROOT / "sweeps" / "dpbench_1d.toml", data=DATA)
    assert headline.scales == (1_000, 100_000, 10_000_000) and headline.domains == (4096,)
    assert headline.epsilons == (1.0, 0.1) and headline.workloads == ("prefix",)
    assert headline.trials == 5
    assert headline.algorithms == tuple(NAMES)  # every algorithm, StructureFirst included
    assert len(headline.datasets) == len(list(DATA.glob("*.csv")))


def test_a_cell_is_the_protocol_run_by_hand_with_its_derived_seeds(tmp_path):
    """Oracle: DPBench's steps called directly with the seeds the module doc describes."""
    sweep = parse(GOOD, tmp_path)
    counts = sweep.datasets[0].counts
    for c in [c for c in cell.cells(sweep) if c.domain == 64][:8]:
        key = (c.dataset, c.scale, c.domain, c.trial)
        x = sample(
            counts, c.scale, c.domain, np.random.default_rng(cell.derive_seed(3, "input", *key))
        )
        if c.workload == "prefix":
            w = as_workload("prefix", c.domain)
        else:
            w = random_ranges(c.domain, np.random.default_rng(cell.derive_seed(3, "ranges", *key)))
        seed = cell.derive_seed(3, "cell", *key, c.eps, c.workload, c.algorithm)
        expected = scaled_l1_error(
            x, estimate(c.algorithm, x, c.eps, workload=w, rng=np.random.default_rng(seed)), w
        )
        (result,), failures = cell.run_chunk(3, [c], {"MEDCOST": counts})
        assert failures == [] and result.seed == seed and result.scaled_l1_error == expected


def test_a_cell_depends_on_its_key_only_not_on_its_chunk_or_order(tmp_path):
    sweep = parse(GOOD, tmp_path)
    grid = list(cell.cells(sweep))
    datasets = {"MEDCOST": sweep.datasets[0].counts}
    whole, _ = cell.run_chunk(3, grid, datasets)
    alone = [cell.run_chunk(3, [c], datasets)[0][0] for c in reversed(grid)][::-1]
    assert [(r.cell, r.seed, r.scaled_l1_error) for r in whole] == [
        (r.cell, r.seed, r.scaled_l1_error) for r in alone
    ]
    # every algorithm of a trial saw the same input; other trials saw other inputs
    inputs = {c.input_key: cell.sampled_input(3, c, datasets["MEDCOST"]).tobytes() for c in grid}
    assert len(set(inputs.values())) == len(inputs)
    assert len({r.seed for r in whole}) == len(whole)


def test_a_failing_cell_is_reported_and_the_others_run(tmp_path):
    sweep = parse(GOOD, tmp_path)
    grid = list(cell.cells(sweep))[:4]
    bad = cell.Cell("MEDCOST", 1000, 64, 0, 1.0, "prefix", "Nope")
    results, failures = cell.run_chunk(
        3, [grid[0], bad, *grid[1:]], {"MEDCOST": sweep.datasets[0].counts}
    )
    assert [r.cell for r in results] == grid
    assert failures == [cell.Failure(bad, failures[0].error)]
    assert failures[0].error.startswith("ValueError: unknown algorithm 'Nope'")


def test_settings_written_as_toml_parse_back(tmp_path):
    settings = {"name": "q-1", "seed": 9, "trials": 3, "datasets": ["MEDCOST", "NETTRACE"],
                "scales": [10, 10**7], "domains": [64], "epsilons": [0.1, 1e-05, 2.0],
                "workloads": ["random ranges"], "algorithms": ["Uniform"]}  # fmt: skip
    sweep = parse(spec.to_toml(settings), tmp_path)
    assert (sweep.name, sweep.seed, sweep.trials) == ("q-1", 9, 3)
    assert [d.name for d in sweep.datasets] == settings["datasets"]
    assert sweep.scales == (10, 10**7) and sweep.epsilons == (0.1, 1e-05, 2.0)
    assert sweep.workloads == ("random ranges",) and sweep.algorithms == ("Uniform",)
    odd = 'dir/a "b" \\ ünï.csv'
    assert tomllib.loads(spec.to_toml({**settings, "datasets": [odd]}))["datasets"] == [odd]
    with pytest.raises(ValueError, match="finite numbers"):
        spec.to_toml({**settings, "epsilons": [float("nan")]})
    with pytest.raises(ValueError, match=r"missing keys \['seed'\]"):
        spec.to_toml({k: v for k, v in settings.items() if k != "seed"})


def test_the_benchs_sweeps_parse(tmp_path):
    """bench/bench_sweep.py's sweeps name registered algorithms and shared datasets (a bench
    stops at parsing otherwise, as one did when an algorithm was renamed)."""
    module = runpy.run_path(str(ROOT / "bench" / "bench_sweep.py"), run_name="bench_sweep")
    for text in (module["TINY"], module["CPU"].format(trials=2)):
        path = tmp_path / "sweep.toml"
        path.write_text(text)
        assert spec.load(path, data=DATA).size > 0
