"""dpcore.algorithms on grids: the 2-D entry point, its budgets and its bad inputs."""

import random

import numpy as np
import pytest

from dpcore.algorithms import NAMES, NAMES_2D, estimate, release
from dpcore.algorithms.grid2d.inputs import as_rectangles, rectangle_answers

GRID = np.array(
    [
        [5, 0, 0, 12, 3, 3],
        [40, 1, 0, 7, 2, 9],
        [0, 0, 0, 0, 1, 1],
        [8, 2, 6, 0, 0, 30],
        [1, 1, 1, 1, 1, 1],
    ],
    dtype=float,
)
WORKLOADS = ["random rectangles", "all rectangles", [(0, 0, 4, 5), (1, 2, 3, 3)]]


@pytest.mark.parametrize("name", NAMES_2D)
@pytest.mark.parametrize("workload", WORKLOADS)
def test_every_2d_algorithm_estimates_every_cell_and_spends_exactly_eps(name, workload):
    run = release(name, GRID, 0.7, workload=workload, rng=np.random.default_rng(3))
    assert run.estimate.shape == GRID.shape
    assert np.isfinite(run.estimate).all()
    assert sum(run.budget.values()) == pytest.approx(0.7, rel=1e-12)
    assert all(part >= 0 for part in run.budget.values())


@pytest.mark.parametrize("name", NAMES_2D)
def test_partitions_tile_the_grid_and_estimates_are_even_inside_them(name):
    run = release(name, GRID, 1.0, workload="random rectangles", rng=np.random.default_rng(8))
    if run.buckets is None:
        return
    cover = np.zeros(GRID.shape, dtype=int)
    for r0, c0, r1, c1 in run.buckets:
        cover[r0 : r1 + 1, c0 : c1 + 1] += 1
        block = run.estimate[r0 : r1 + 1, c0 : c1 + 1]
        assert np.allclose(block, block.flat[0])
    assert (cover == 1).all()


@pytest.mark.parametrize("name", NAMES_2D)
def test_only_the_given_generator_is_random_in_2d(name):
    def once():
        return estimate(
            name, GRID, 1.0, workload="random rectangles", rng=np.random.default_rng(11)
        )

    np.random.seed(1)  # noqa: NPY002 - the global state must not matter
    random.seed(1)
    first = once()
    np.random.seed(2)  # noqa: NPY002 - the global state must not matter
    random.seed(2)
    assert np.array_equal(first, once())


def test_one_dimensional_calls_are_unchanged_and_names_are_listed():
    assert "Identity" in NAMES and "HB-2D" not in NAMES
    assert {"Identity", "Uniform", "HB-2D", "QuadTree", "UGrid", "AGrid", "PrivTree"} <= set(
        NAMES_2D
    )
    one = estimate("Identity", GRID[0], 1.0, workload="prefix", rng=np.random.default_rng(0))
    assert one.shape == (6,)
    with pytest.raises(ValueError, match="accepted: Identity"):
        estimate("HB-2D", GRID[0], 1.0, workload="prefix", rng=np.random.default_rng(0))


def test_rectangles_are_answered_as_brute_force_sums():
    load = as_rectangles([(0, 0, 4, 5), (1, 2, 3, 3), (4, 5, 4, 5)], GRID.shape)
    expected = [
        GRID[a : c + 1, b : d + 1].sum()
        for a, b, c, d in [(0, 0, 4, 5), (1, 2, 3, 3), (4, 5, 4, 5)]
    ]
    assert np.array_equal(rectangle_answers(GRID, load.lo, load.hi), expected)


def test_identity_and_uniform_errors_match_their_closed_forms():
    """Simulation oracle (seed 5, 3,000 runs): Identity's cells are unbiased with variance
    2/eps^2; Uniform's cells all equal N~/cells with N~ - N ~ Lap(1/eps)."""
    rng = np.random.default_rng(5)
    eps = 2.0
    runs = np.array(
        [
            estimate("Identity", GRID, eps, workload="random rectangles", rng=rng)
            for _ in range(3000)
        ]
    )
    assert (runs - GRID).var() == pytest.approx(2 / eps**2, rel=0.03)
    assert abs((runs - GRID).mean()) < 4 * np.sqrt(2 / eps**2 / runs.size)
    totals = np.array(
        [
            estimate("Uniform", GRID, eps, workload="random rectangles", rng=rng).sum()
            for _ in range(3000)
        ]
    )
    assert (totals - GRID.sum()).var() == pytest.approx(2 / eps**2, rel=0.08)
    flat = estimate("Uniform", GRID, eps, workload="random rectangles", rng=rng)
    assert np.allclose(flat, flat[0, 0])


@pytest.mark.parametrize("name", NAMES_2D)
def test_eps_at_its_bounds(name):
    rng = np.random.default_rng(0)
    for bad in (0.0, -1.0, np.inf, np.nan, 1e-301, "x"):
        with pytest.raises(ValueError, match="eps must be"):
            estimate(name, GRID, bad, workload="random rectangles", rng=rng)
    tiny = estimate(name, GRID, 1e-12, workload="random rectangles", rng=rng)
    assert tiny.shape == GRID.shape and np.isfinite(tiny).all()


@pytest.mark.parametrize("name", ["Identity", "HB-2D", "QuadTree", "KronPIdentity"])
def test_a_huge_eps_gives_back_the_data(name):
    x = estimate(name, GRID, 1e6, workload="random rectangles", rng=np.random.default_rng(1))
    assert np.allclose(x, GRID, atol=1e-3)


def test_bad_grids_and_rectangles_say_what_is_accepted():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="2-D grid with at least one cell"):
        estimate("Identity", np.zeros((0, 3)), 1.0, workload="random rectangles", rng=rng)
    with pytest.raises(ValueError, match=r"counts\[1\]"):
        estimate("Identity", [[1, -2]], 1.0, workload="random rectangles", rng=rng)
    with pytest.raises(ValueError, match=r"counts\[0\]"):
        estimate("Identity", [[np.nan]], 1.0, workload="random rectangles", rng=rng)
    with pytest.raises(ValueError, match="accepted: Identity"):
        estimate("nope", GRID, 1.0, workload="random rectangles", rng=rng)
    with pytest.raises(ValueError, match="not inside the grid"):
        estimate("Identity", GRID, 1.0, workload=[(0, 0, 5, 5)], rng=rng)
    with pytest.raises(ValueError, match="not inside the grid"):
        estimate("Identity", GRID, 1.0, workload=[(2, 2, 1, 3)], rng=rng)
    with pytest.raises(ValueError, match=r"\(r0, c0, r1, c1\)"):
        estimate("Identity", GRID, 1.0, workload=[(0, 0, 1)], rng=rng)
    with pytest.raises(ValueError, match="random rectangles"):
        estimate("Identity", GRID, 1.0, workload="prefix", rng=rng)
    with pytest.raises(TypeError, match="Generator"):
        estimate("Identity", GRID, 1.0, workload="random rectangles", rng=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", NAMES_2D)
def test_an_all_zero_grid_is_released_like_any_other(name):
    """All zeros is valid data (a DP release of it is noise); only sampling from its shape
    is refused (tests/core/test_dpbench_2d.py)."""
    x = estimate(
        name, np.zeros((4, 6)), 1.0, workload="random rectangles", rng=np.random.default_rng(2)
    )
    assert x.shape == (4, 6) and np.isfinite(x).all()
