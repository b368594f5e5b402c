"""DPBench's protocol: sampled inputs, random ranges, the scaled L1 error and regret."""

import numpy as np
import pytest

from dpcore.algorithms.common import Ranges
from dpcore.algorithms.dpbench import (
    random_ranges,
    reduce_domain,
    regret,
    sample,
    scaled_l1_error,
)

SHAPE = np.array([0, 10, 30, 0, 40, 20, 0, 0], dtype=float)


def test_a_sample_has_the_scale_and_on_average_the_shape():
    """Simulation oracle (seed 1, 2,000 draws of 1,000 records): each bin's mean is
    m p_i within 4 standard errors sqrt(m p_i (1 - p_i) / 2000)."""
    rng = np.random.default_rng(1)
    draws = np.array([sample(SHAPE, 1000, 8, rng) for _ in range(2000)])
    assert (draws.sum(axis=1) == 1000).all()
    assert (draws == np.round(draws)).all()
    p = SHAPE / SHAPE.sum()
    tolerance = 4 * np.sqrt(1000 * p * (1 - p) / 2000)
    assert (np.abs(draws.mean(axis=0) - 1000 * p) <= tolerance + 1e-12).all()
    assert (draws[:, p == 0] == 0).all()


def test_reducing_the_domain_sums_adjacent_groups():
    reduced = reduce_domain(SHAPE, 2)
    assert reduced.tolist() == [SHAPE[:4].sum(), SHAPE[4:].sum()]
    assert np.array_equal(sample(SHAPE, 500, 2, np.random.default_rng(4)).sum(), 500.0)
    with pytest.raises(ValueError, match="must divide"):
        reduce_domain(SHAPE, 3)


def test_bad_inputs_say_what_is_accepted():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="all zeros"):
        sample(np.zeros(4), 10, 4, rng)
    with pytest.raises(ValueError, match="scale must be a whole number"):
        sample(SHAPE, 0, 8, rng)
    with pytest.raises(ValueError, match="no records"):
        scaled_l1_error(np.zeros(2), np.ones(2), Ranges("prefix", 2))
    with pytest.raises(ValueError, match="at least one"):
        regret({})


def test_random_ranges_draw_a_uniform_length_then_a_uniform_place():
    """Simulation oracle (seed 2, 200,000 ranges over 5 bins): each length has
    probability 1/5 and, given length L, each of the 6 - L starts is equally likely;
    frequencies within 0.005 of these."""
    w = random_ranges(5, np.random.default_rng(2), size=200_000)
    assert w.size == 200_000
    length = w.hi - w.lo + 1
    assert ((w.lo >= 0) & (w.hi < 5) & (length >= 1)).all()
    for ell in range(1, 6):
        assert np.mean(length == ell) == pytest.approx(0.2, abs=0.005)
        starts = w.lo[length == ell]
        for start in range(6 - ell):
            assert np.mean(starts == start) == pytest.approx(1 / (6 - ell), abs=0.01)


def test_scaled_l1_error_matches_a_loop_over_the_queries():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 9, 12).astype(float)
    x_hat = x + rng.normal(0, 2, 12)
    for w in (Ranges("prefix", 12), Ranges("all ranges", 12), random_ranges(12, rng, size=50)):
        lo, hi = w.bounds()
        gaps = [
            abs(x[a : b + 1].sum() - x_hat[a : b + 1].sum()) for a, b in zip(lo, hi, strict=True)
        ]
        expected = sum(gaps) / (len(gaps) * x.sum())
        assert scaled_l1_error(x, x_hat, w) == pytest.approx(expected, rel=1e-12)


def test_regret_is_relative_to_the_best():
    out = regret({"A": 3.0, "B": 1.5, "C": 6.0})
    assert out == {"A": 2.0, "B": 1.0, "C": 4.0}
