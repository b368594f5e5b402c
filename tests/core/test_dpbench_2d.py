"""DPBench's 2-D protocol: sampled grids, its random rectangles, scaled L1/L2 errors."""

import numpy as np
import pytest

from dpcore.algorithms import estimate
from dpcore.algorithms.dpbench import MAX_SCALE, regret
from dpcore.algorithms.dpbench_2d import (
    random_rectangles,
    reduce_grid,
    sample_grid,
    scaled_errors,
)
from dpcore.spatial.rectangles import rectangle_workload

SHAPE = np.zeros((4, 6))
SHAPE[0, :2] = [10, 30]
SHAPE[2:, 3:] = 15
SHAPE[3, 0] = 5


def test_reducing_sums_blocks_by_brute_force():
    grid = np.random.default_rng(0).poisson(3.0, (6, 4)).astype(float)
    for domain, (d1, d2) in [(2, (2, 2)), ((3, 2), (3, 2)), ((6, 1), (6, 1))]:
        k1, k2 = 6 // d1, 4 // d2
        expected = [
            [grid[i * k1 : (i + 1) * k1, j * k2 : (j + 1) * k2].sum() for j in range(d2)]
            for i in range(d1)
        ]
        assert reduce_grid(grid, domain).tolist() == expected


def test_a_sample_has_the_scale_and_on_average_the_reduced_shape():
    """Simulation oracle (seed 1, 2,000 draws of 500 records at 2 x 3): each cell's mean is
    m p_ij within 4 standard errors sqrt(m p (1 - p) / 2000); cells of p = 0 stay 0."""
    rng = np.random.default_rng(1)
    draws = np.array([sample_grid(SHAPE, 500, (2, 3), rng) for _ in range(2000)])
    assert (draws.sum(axis=(1, 2)) == 500).all()
    assert (draws == np.round(draws)).all()
    p = reduce_grid(SHAPE, (2, 3)) / SHAPE.sum()
    tolerance = 4 * np.sqrt(500 * p * (1 - p) / 2000)
    assert (np.abs(draws.mean(axis=0) - 500 * p) <= tolerance + 1e-12).all()
    assert (draws[:, p == 0] == 0).all()
    sparse = sample_grid(SHAPE, 3, 2, rng)  # fewer records than cells, as DPBench's 10^4 at 128²
    assert sparse.sum() == 3


def test_random_rectangles_are_dpbenchs_draws():
    """Spec 06 §3: RandomState(0) at 128² gives ((64,67),(108,114)), ((1,19),(124,86)),
    ((36,7),(57,121)) first; the first 2,000 average 4,303 cells. Brute force: the draws in
    RandomRange's order (widths per axis, then lower corners), one randint at a time."""
    w = random_rectangles((128, 128))
    assert w.lo.shape == (2000, 2)
    assert w.lo[:3].tolist() == [[64, 67], [1, 19], [36, 7]]
    assert w.hi[:3].tolist() == [[108, 114], [124, 86], [57, 121]]
    assert np.prod(w.hi - w.lo + 1, axis=1).mean() == pytest.approx(4303, abs=0.5)
    rs = np.random.RandomState(7)
    expected = []
    for _ in range(50):
        width = [rs.randint(1, 17), rs.randint(1, 9)]
        lower = [rs.randint(0, 16 - width[0] + 1), rs.randint(0, 8 - width[1] + 1)]
        expected.append([*lower, lower[0] + width[0] - 1, lower[1] + width[1] - 1])
    mine = random_rectangles((16, 8), size=50, seed=7)
    assert np.hstack([mine.lo, mine.hi]).tolist() == expected


def test_scaled_errors_are_brute_force_sums():
    rng = np.random.default_rng(3)
    truth = rng.poisson(5.0, (8, 8)).astype(float)
    guess = truth + rng.normal(0, 2, truth.shape)
    w = random_rectangles((8, 8), size=40, seed=1)
    gaps = np.array(
        [
            truth[a[0] : b[0] + 1, a[1] : b[1] + 1].sum()
            - guess[a[0] : b[0] + 1, a[1] : b[1] + 1].sum()
            for a, b in zip(w.lo, w.hi, strict=True)
        ]
    )
    l1, l2 = scaled_errors(truth, guess, w)
    assert l1 == pytest.approx(np.abs(gaps).sum() / (40 * truth.sum()), rel=1e-12)
    assert l2 == pytest.approx(np.sqrt((gaps**2).sum()) / (40 * truth.sum()), rel=1e-12)
    assert regret({"A": l1, "B": 2 * l1}) == {"A": 1.0, "B": 2.0}


@pytest.mark.slow
def test_identitys_scaled_l1_error_on_one_rectangle_is_its_closed_form():
    """E|sum of a Laplace cells| has no closed form, but for a one-cell rectangle it is 1/eps:
    the mean scaled L1 error over 4,000 releases (seed 9) is 1/(eps scale) within 5 %."""
    truth = np.full((3, 3), 4.0)
    w1 = rectangle_workload([((1, 1), (1, 1))], (3, 3))
    rng = np.random.default_rng(9)
    errors = [
        scaled_errors(truth, estimate("Identity", truth, 0.5, workload=w1, rng=rng), w1)[0]
        for _ in range(4000)
    ]
    assert np.mean(errors) == pytest.approx(1 / (0.5 * 36), rel=0.05)


def test_bad_protocol_inputs_say_what_is_accepted():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="all zeros"):
        sample_grid(np.zeros((4, 4)), 10, 2, rng)
    with pytest.raises(ValueError, match="at least one cell"):
        sample_grid(np.zeros((0, 4)), 10, 2, rng)
    for scale in (0, 2.5, MAX_SCALE + 1):
        with pytest.raises(ValueError, match="scale must be a whole number"):
            sample_grid(SHAPE, scale, 2, rng)
    with pytest.raises(ValueError, match="must divide"):
        sample_grid(SHAPE, 10, 3, rng)
    with pytest.raises(ValueError, match="must divide"):
        reduce_grid(SHAPE, (4, 4))
    with pytest.raises(ValueError, match="domain must be a whole number"):
        reduce_grid(SHAPE, 0)
    w = random_rectangles((4, 6), size=5)
    with pytest.raises(ValueError, match="workload's shape"):
        scaled_errors(SHAPE, np.zeros((4, 5)), w)
    with pytest.raises(ValueError, match="no records"):
        scaled_errors(np.zeros((4, 6)), np.zeros((4, 6)), w)
    with pytest.raises(ValueError, match="size must be a whole number"):
        random_rectangles((4, 6), size=0)
