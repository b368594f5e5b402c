"""MWEM-2D: its update against the literal formula with dense masks, its selection's
frequencies against the exponential mechanism's probabilities, its candidates and budget."""

import numpy as np
import pytest

from dpcore.algorithms import release
from dpcore.algorithms.grid2d import mwem2d
from dpcore.spatial.rectangles import rectangle_workload


def literal_update(x, rects, measured, passes):
    """Hardt et al.'s update as written: x <- x exp(q (m - q.x) / (2S)), rescaled to S."""
    x = x.copy()
    total = x.sum()
    masks = []
    for (r0, c0), (r1, c1) in rects:
        q = np.zeros(x.shape)
        q[r0 : r1 + 1, c0 : c1 + 1] = 1
        masks.append(q)
    for _ in range(passes):
        for q, m in zip(masks, measured, strict=True):
            x = x * np.exp(q * (m - (q * x).sum()) / (2 * total))
            x *= total / x.sum()
    return x


def test_the_update_is_the_literal_formula():
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 3.0, (5, 4))
    rects = np.array([((0, 0), (2, 1)), ((1, 1), (4, 3)), ((3, 0), (3, 0))])
    measured = np.array([30.0, -4.0, 9.0])
    got = mwem2d.multiplicative_weights_2d(x, rects[:, 0], rects[:, 1], measured, 7)
    assert np.allclose(got, literal_update(x, rects, measured, 7), rtol=1e-10)
    assert got.sum() == pytest.approx(x.sum())


def test_selection_frequencies_are_the_exponential_mechanisms():
    """10,000 draws (seed 1): each frequency within 4 standard errors of
    exp(eps s_i / 2) / sum_j exp(eps s_j / 2) over the rectangles not chosen."""
    scores = np.array([0.0, 1.0, 3.0, 2.0, 5.0])
    rng = np.random.default_rng(1)
    draws = np.array([mwem2d.select_rectangle(scores.copy(), [4], 0.8, rng) for _ in range(10000)])
    w = np.exp(0.8 * scores / 2)
    w[4] = 0
    p = w / w.sum()
    freq = np.bincount(draws, minlength=5) / draws.size
    assert (np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / draws.size) + 1e-12).all()


def test_candidates_lie_in_the_grid_and_listed_ones_are_kept():
    for kind in ("random rectangles", "all rectangles"):
        lo, hi = mwem2d.candidates(rectangle_workload(kind, (7, 5)))
        assert lo.shape == (mwem2d.CANDIDATES, 2)
        assert ((lo >= 0) & (lo <= hi) & (hi < np.array([7, 5]))).all()
    listed = rectangle_workload([((0, 0), (1, 1)), ((2, 2), (6, 4))], (7, 5))
    lo, hi = mwem2d.candidates(listed)
    assert lo.tolist() == [[0, 0], [2, 2]] and hi.tolist() == [[1, 1], [6, 4]]


def test_mwem_2d_pays_for_the_total_and_keeps_its_estimate_positive():
    grid = np.zeros((6, 6))
    grid[:2, :2] = 50
    run = release(
        "MWEM-2D", grid, 1.0, workload=[(0, 0, 1, 1), (2, 2, 5, 5)], rng=np.random.default_rng(3)
    )
    assert run.budget == pytest.approx(
        {"records N": 0.05, "selection": 0.475, "measurement": 0.475}
    )
    assert (run.estimate > 0).all()
    # two rectangles, both measured: the estimate's answers are pulled towards the truth
    assert run.estimate[:2, :2].sum() > 100


def test_a_huge_step_moves_all_mass_into_the_box_without_overflow():
    """A measurement far above the box's answer (step ~ 1,400): the literal update's factor
    overflows, its limit is the box's cells rescaled to the total and 0 outside."""
    x = np.arange(1.0, 13.0).reshape(3, 4)
    got = mwem2d.multiplicative_weights_2d(
        x, np.array([[0, 0]]), np.array([[1, 1]]), np.array([1e5]), 2
    )
    box = x[:2, :2]
    assert np.isfinite(got).all()
    assert np.allclose(got[:2, :2], box * x.sum() / box.sum())
    assert np.allclose(np.delete(got.ravel(), [0, 1, 4, 5]), 0.0)


def test_an_estimate_whose_weights_all_underflowed_stays_zero_not_a_division_by_zero():
    """At eps = 1e-5 on the page's default map (stroke-32x32, 19,435 records) the noisy
    answers pushed every weight to 0 in one round, and the next round divided by the total 0
    (ZeroDivisionError). An all-zero estimate now comes back unchanged."""
    zero = np.zeros((4, 4))
    rects = np.array([[[0, 0], [1, 1]]])
    got = mwem2d.multiplicative_weights_2d(zero, rects[:, 0], rects[:, 1], np.array([5.0]), 3)
    assert np.array_equal(got, zero)
    grid = np.random.default_rng(0).poisson(20.0, (32, 32)).astype(float)
    for seed in range(20):
        run = mwem2d.mwem_2d(
            grid, 1e-5, rectangle_workload("random rectangles", (32, 32)),
            np.random.default_rng(seed),
        )  # fmt: skip
        assert np.isfinite(run.estimate).all()
