"""2-D sweep files: grids as datasets, [rows, columns] domains, their bad inputs, and a 2-D
cell as DPBench's 2-D protocol run by hand."""

from dataclasses import astuple
from pathlib import Path

import numpy as np
import pytest

from dpcore.algorithms import NAMES_2D, estimate
from dpcore.algorithms.dpbench import sample
from dpcore.algorithms.dpbench_2d import random_rectangles, sample_grid, scaled_errors
from dpcore.sweep import cell, spec

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
GRIDS = DATA / "2d"
ROOT = Path(__file__).resolve().parents[2]

GOOD = """\
name = "g"
seed = 5
trials = 2
datasets = ["STROKE"]
scales = [1000, 10_000]
domains = [[32, 32], [64, 16]]
epsilons = [0.1]
workloads = ["random rectangles"]
algorithms = ["Identity", "HB-2D"]
"""


def parse(text: str, tmp_path: Path) -> spec.Sweep:
    return spec.parse(text, path=tmp_path / "s.toml", data=DATA)


def test_a_2d_file_gives_its_grid_and_loads_its_grids(tmp_path):
    sweep = parse(GOOD, tmp_path)
    assert sweep.domains == ((32, 32), (64, 16))
    (dataset,) = sweep.datasets
    expected = np.loadtxt(GRIDS / "STROKE.n256x256.csv", delimiter=",")
    assert dataset.name == "STROKE" and np.array_equal(dataset.counts, expected)
    assert sweep.settings()["domains"] == [[32, 32], [64, 16]]
    grid = list(cell.cells(sweep))
    assert len(grid) == len(set(grid)) == sweep.size == 1 * 2 * 2 * 2 * 2
    assert {c.domain for c in grid} == {(32, 32), (64, 16)}


def test_all_means_every_bundled_grid_and_every_2d_algorithm(tmp_path):
    text = GOOD.replace('["STROKE"]', '"all"').replace('["Identity", "HB-2D"]', '"all"')
    sweep = parse(text, tmp_path)
    assert sweep.algorithms == NAMES_2D
    assert {d.name for d in sweep.datasets} == {p.name.split(".")[0] for p in GRIDS.glob("*.csv")}
    assert all(d.counts.shape == (256, 256) for d in sweep.datasets)


def test_the_bundled_2d_sweep_is_dpbenchs_figure_1b():
    sweep = spec.load(ROOT / "sweeps" / "dpbench_2d.toml", data=DATA)
    assert len(sweep.datasets) == 9 and sweep.domains == ((128, 128),)
    assert sweep.scales == (10**4, 10**6, 10**8) and sweep.epsilons == (0.1,)
    assert sweep.trials == 5 and sweep.algorithms == NAMES_2D
    assert sweep.workloads == ("random rectangles",)


def test_a_grid_may_be_a_csv_path_relative_to_the_sweep_file(tmp_path):
    rows = np.arange(32 * 16).reshape(32, 16) % 7
    np.savetxt(tmp_path / "mine.csv", rows, delimiter=",", fmt="%d")
    text = GOOD.replace('["STROKE"]', '["mine.csv"]').replace("[[32, 32], [64, 16]]", "[[8, 4]]")
    (dataset,) = parse(text, tmp_path).datasets
    assert dataset.name == "mine" and np.array_equal(dataset.counts, rows)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("[[32, 32], [64, 16]]", "[[100, 128]]", r"line 6, key 'domains'.*100x128 does not divide"),
        ("[[32, 32], [64, 16]]", "[[32, 32], 64]", r"line 6, key 'domains'.*mixes bins and"),
        ("[[32, 32], [64, 16]]", "[[32, 32, 2]]", r"line 6, key 'domains'.*\[rows, columns\]"),
        ("[[32, 32], [64, 16]]", "[[32, 0]]", r"line 6, key 'domains'.*whole number >= 1, got 0"),
        ("[[32, 32], [64, 16]]", "[[32, true]]", r"line 6, key 'domains'.*whole"),
        ("[[32, 32], [64, 16]]", "[[32, 32], [32, 32]]", r"line 6, key 'domains'.*twice"),
        ('["random rectangles"]', '["prefix"]', r"line 8, key 'workloads'.*random rectangles"),
        ('"HB-2D"]', '"HB"]', r"line 9, key 'algorithms'.*unknown 'HB'; accepted: Identity"),
        ('["STROKE"]', '["MEDCOST"]', r"line 4, key 'datasets'.*MEDCOST is a 1-D dataset"),
        ('["STROKE"]', '["NOPE"]', r"line 4, key 'datasets'.*unknown 2-D dataset 'NOPE'"),
    ],
)
def test_a_bad_2d_value_names_the_file_the_line_and_the_key(tmp_path, old, new, expected):
    assert old in GOOD
    with pytest.raises(spec.SweepFileError, match=expected) as info:
        parse(GOOD.replace(old, new), tmp_path)
    assert str(info.value).startswith(str(tmp_path / "s.toml"))


def test_a_2d_dataset_in_a_1d_sweep_says_how_to_ask_for_2d(tmp_path):
    text = GOOD.replace("[[32, 32], [64, 16]]", "[64]")
    text = text.replace('["random rectangles"]', '["prefix"]')
    text = text.replace('["Identity", "HB-2D"]', '["Identity"]')
    with pytest.raises(spec.SweepFileError, match=r"line 4, key 'datasets'.*STROKE is a 2-D"):
        parse(text, tmp_path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("a,b\n1,2\n", r"not a 2-D dataset.*no header"),  # a header row
        ("1,2,3\n4,5\n", r"not a 2-D dataset.*every row as long"),  # ragged rows
        ("1,2\n-3,4\n", r"line 2, column 1 holds -3; accepted: counts"),
        ("1,2\n3,nan\n", r"line 2, column 2 holds nan; accepted: counts"),
    ],
)
def test_a_bad_grid_file_names_the_line_and_the_key(tmp_path, content, expected):
    (tmp_path / "bad.csv").write_text(content)
    text = GOOD.replace('["STROKE"]', '["bad.csv"]').replace("[[32, 32], [64, 16]]", "[[1, 1]]")
    with pytest.raises(spec.SweepFileError, match=rf"line 4, key 'datasets'.*bad.csv.*{expected}"):
        parse(text, tmp_path)


def test_a_2d_cell_is_dpbenchs_2d_protocol_run_by_hand(tmp_path):
    """Oracle: sample_grid, random_rectangles, estimate and scaled_errors called directly
    with the seeds the cell module describes (a 2-D domain flattened into its two sides)."""
    sweep = parse(GOOD, tmp_path)
    counts = sweep.datasets[0].counts
    for c in list(cell.cells(sweep))[::3]:
        key = (c.dataset, c.scale, *c.domain, c.trial)
        x = sample_grid(
            counts, c.scale, c.domain, np.random.default_rng(cell.derive_seed(5, "input", *key))
        )
        w = random_rectangles(c.domain, seed=cell.derive_seed(5, "ranges", *key) % 2**32)
        seed = cell.derive_seed(5, "cell", *key, c.eps, c.workload, c.algorithm)
        guess = estimate(c.algorithm, x, c.eps, workload=w, rng=np.random.default_rng(seed))
        (result,), failures = cell.run_chunk(5, [c], {"STROKE": counts})
        assert failures == [] and result.seed == seed
        assert result.scaled_l1_error == scaled_errors(x, guess, w)[0]
        assert x.shape == c.domain and x.sum() == c.scale


def test_1d_seeds_are_those_of_stores_written_before_2d_sweeps():
    """A 1-D cell's seeds keep the formula of the stores written before (the JSON of the
    cell's fields in order), so a resumed 1-D sweep stays reproducible."""
    c = cell.Cell("MEDCOST", 1000, 64, 1, 0.1, "prefix", "HB")
    assert cell.cell_seed(3, c) == cell.derive_seed(3, "cell", *astuple(c))
    counts = np.ones(4096)
    x = cell.sampled_input(3, c, counts)
    old = np.random.default_rng(cell.derive_seed(3, "input", *c.input_key))
    assert np.array_equal(x, sample(counts, 1000, 64, old))


def test_2d_settings_written_as_toml_parse_back(tmp_path):
    settings = {"name": "q2", "seed": 9, "trials": 3, "datasets": ["STROKE"], "scales": [10],
                "domains": [[128, 128], [64, 32]], "epsilons": [0.1],
                "workloads": ["random rectangles"], "algorithms": ["AGrid"]}  # fmt: skip
    sweep = parse(spec.to_toml(settings), tmp_path)
    assert sweep.domains == ((128, 128), (64, 32)) and sweep.algorithms == ("AGrid",)
    assert sweep.settings()["domains"] == settings["domains"]
