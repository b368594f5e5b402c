"""dpcore.algorithms: the shared entry point and the data-independent algorithms."""

import random

import numpy as np
import pytest

from dpcore.algorithms import ALGORITHMS, NAMES, estimate, release
from dpcore.algorithms.common import as_workload
from dpcore.hist.hb import hb_tree
from dpcore.hist.plans import plan_range_errors, prepare
from dpcore.hist.release import laplace_release, node_sums

COUNTS = np.array([5, 0, 0, 12, 3, 3, 40, 1, 0, 7, 2, 9], dtype=float)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("workload", ["prefix", "all ranges", [(0, 3), (2, 11)]])
def test_every_algorithm_estimates_every_bin_and_spends_exactly_eps(name, workload):
    run = release(name, COUNTS, 0.7, workload=workload, rng=np.random.default_rng(3))
    assert run.estimate.shape == COUNTS.shape
    assert np.isfinite(run.estimate).all()
    assert sum(run.budget.values()) == pytest.approx(0.7, rel=1e-12)
    assert all(part >= 0 for part in run.budget.values())


@pytest.mark.parametrize("name", NAMES)
def test_only_the_given_generator_is_random(name):
    def once():
        return estimate(name, COUNTS, 1.0, workload="prefix", rng=np.random.default_rng(11))

    np.random.seed(1)  # noqa: NPY002 - the global state must not matter
    random.seed(1)
    first = once()
    np.random.seed(2)  # noqa: NPY002 - the global state must not matter
    random.seed(2)
    assert np.array_equal(first, once())


def test_unknown_names_and_bad_inputs_say_what_is_accepted():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="accepted: Identity"):
        estimate("nope", COUNTS, 1.0, workload="prefix", rng=rng)
    with pytest.raises(ValueError, match="at least one bin"):
        estimate("Identity", [], 1.0, workload="prefix", rng=rng)
    with pytest.raises(ValueError, match=r"counts\[1\]"):
        estimate("Identity", [1, -2], 1.0, workload="prefix", rng=rng)
    with pytest.raises(ValueError, match="eps must be"):
        estimate("Identity", COUNTS, 0.0, workload="prefix", rng=rng)
    with pytest.raises(ValueError, match="0 <= a <= b < n = 12"):
        estimate("Identity", COUNTS, 1.0, workload=[(3, 12)], rng=rng)
    with pytest.raises(ValueError, match="'prefix', 'all ranges'"):
        estimate("Identity", COUNTS, 1.0, workload="ranges", rng=rng)
    with pytest.raises(ValueError, match="whole numbers"):
        as_workload([(0.5, 2)], 12)


def test_workload_answers_match_brute_force_sums():
    x = np.arange(6.0) ** 2
    for spec in ("prefix", "all ranges", [(1, 4), (5, 5)]):
        ranges = as_workload(spec, 6)
        lo, hi = ranges.bounds()
        assert ranges.size == lo.size
        expected = [x[a : b + 1].sum() for a, b in zip(lo, hi, strict=True)]
        assert np.array_equal(ranges.answer(x), expected)


def test_identity_and_uniform_errors_match_their_closed_forms():
    """Simulation oracle (seed 5, 4,000 runs): E|Lap(1/eps)| = 1/eps per bin; Uniform is
    unbiased for total/n with standard deviation sqrt(2)/(eps n) per bin."""
    rng = np.random.default_rng(5)
    runs = np.array(
        [estimate("Identity", COUNTS, 2.0, workload="prefix", rng=rng) for _ in range(4000)]
    )
    assert np.abs(runs - COUNTS).mean() == pytest.approx(0.5, rel=0.02)
    flat = np.array(
        [estimate("Uniform", COUNTS, 2.0, workload="prefix", rng=rng)[0] for _ in range(4000)]
    )
    assert flat.mean() == pytest.approx(COUNTS.mean(), abs=4 * np.sqrt(2) / 2 / 12 / np.sqrt(4000))
    assert flat.std() == pytest.approx(np.sqrt(2) / 2 / 12, rel=0.05)


def test_hb_is_the_least_squares_fit_of_its_noisy_tree():
    """Dense oracle: the same noise, solved with weighted lstsq over the measured nodes."""
    run = release("HB", COUNTS, 1.0, workload="prefix", rng=np.random.default_rng(9))
    tree = hb_tree(COUNTS.size)
    budgets = np.array([0.0] + [1.0 / (tree.height - 1)] * (tree.size - 1))
    noisy = laplace_release(tree, COUNTS, budgets, np.random.default_rng(9))
    rows = np.array([node_sums(tree, e) for e in np.eye(COUNTS.size)]).T  # node x bin
    measured = budgets > 0
    weights = budgets[measured][:, None]
    fit = np.linalg.lstsq(rows[measured] * weights, noisy[measured] * weights[:, 0], rcond=None)
    assert np.allclose(run.estimate, fit[0])
    assert sum(run.budget.values()) == pytest.approx(1.0)


def test_registry_says_which_algorithms_learn_the_data():
    assert not any(ALGORITHMS[name].data_dependent for name in ("Identity", "HB", "Privelet"))
    assert all(ALGORITHMS[name].cite for name in NAMES)


@pytest.mark.parametrize("name", [n for n in NAMES if ALGORITHMS[n].plan])
def test_linear_algorithms_match_their_closed_form_per_query_error(name):
    """Simulation oracle (seed 7, 3,000 releases): each prefix query's mean squared error is
    the closed form of ``dpcore.hist.plans`` within 4 standard errors (a Laplace error has
    E e^4 = 6 MSE^2 and sums of them less, so the squared error's variance is <= 5 MSE^2)."""
    plan = prepare(ALGORITHMS[name].plan, COUNTS.size, 1.0, "prefix")
    lo, hi = np.zeros(COUNTS.size, int), np.arange(COUNTS.size)
    exact = plan_range_errors(plan, lo, hi)
    rng = np.random.default_rng(7)
    runs = np.array([estimate(name, COUNTS, 1.0, workload="prefix", rng=rng) for _ in range(3000)])
    squared = (np.cumsum(runs, axis=1) - np.cumsum(COUNTS)) ** 2
    assert (np.abs(squared.mean(axis=0) - exact) <= 4 * np.sqrt(5 * exact**2 / 3000)).all()


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("eps", [1e-5, 100.0])
def test_every_algorithm_stays_finite_at_the_pages_eps_bounds(name, eps):
    """The sidebar's ε bounds: noise far larger than the data, and almost none (numpy
    warnings are errors in this suite, so an overflow fails here)."""
    counts = np.repeat(COUNTS, 20)
    for workload in ("prefix", "all ranges"):
        guess = estimate(name, counts, eps, workload=workload, rng=np.random.default_rng(2))
        assert np.isfinite(guess).all()
