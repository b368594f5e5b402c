"""Public dpcore functions reject out-of-range arguments with ValueError (issue 10 B and G)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import _validate
from dpcore.hist import (
    budget,
    flat_error,
    privelet,
    release,
    tree,
)
from dpcore.ldp import hiskv, mechanisms, privacy
from dpcore.ldp.data import generate
from dpcore.mechanisms import exponential
from dpcore.mechanisms.score_table import ScoreTableError, parse_score_table

T = tree.kary_tree(8, 2)  # 15 nodes


def test_the_perturbable_rule_keeps_noise_to_a_millionth_of_its_scale():
    """At |v| = 2^32 b float64 returns v + n - v within 2^-20 b of n; at 2^53 the noise vanishes."""
    noise = np.random.default_rng(0).laplace(0.0, 1.0, 10_000)
    for b in (1e-3, 1.0, 7.5):
        v = b * _validate.PERTURBABLE_RATIO
        assert np.max(np.abs((v + b * noise) - v - b * noise)) <= 2.0**-20 * b
    assert np.mean((2.0**53 + noise) - 2.0**53 == 0) > 0.2  # the "24% of nodes"


def test_laplace_release_refuses_what_float64_cannot_perturb():
    counts = np.zeros(8)
    counts[0] = 1e20
    with pytest.raises(ValueError, match=r"2\^32 x noise scale"):
        release.laplace_release(T, counts, np.full(T.size, 0.25), np.random.default_rng(0))
    counts[0] = 2.0**32 / 0.25  # the limit itself: root sum = 2^32 x scale 4
    noisy = release.laplace_release(T, counts, np.full(T.size, 0.25), np.random.default_rng(0))
    assert np.isfinite(noisy).all()


@pytest.mark.parametrize(
    "counts,budgets,message",
    [
        (np.r_[np.nan, np.ones(7)], np.ones(15), r"counts\[0\] is nan"),
        (np.ones(8), np.r_[1e-320, np.ones(14)], ">= 1e-300"),
        (np.ones(8), np.r_[-1.0, np.ones(14)], "finite numbers >= 0"),
        (np.ones(8), np.ones(14), "must be 15 values"),
        (np.ones(7), np.ones(15), "must be 8 values"),
    ],
)
def test_laplace_release_rejects_bad_arguments(counts, budgets, message):
    with pytest.raises(ValueError, match=message):
        release.laplace_release(T, counts, budgets, np.random.default_rng(0))


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_release_epsilon_rejects_negative_or_nan_budgets(bad):
    with pytest.raises(ValueError, match="budgets"):
        budget.release_epsilon(T, np.r_[bad, np.ones(14)])


@pytest.mark.parametrize("rule", ["per_level", "optimal"])
@pytest.mark.parametrize(
    "coverage", [np.r_[-1.0, np.ones(14)], np.r_[math.nan, np.ones(14)], np.ones(14)]
)
def test_budget_rules_reject_bad_coverage(rule, coverage):
    with pytest.raises(ValueError, match="coverage"):
        budget.allocate(rule, T, 1.0, coverage)


@pytest.mark.parametrize("eps", [0.0, -1.0, math.nan, math.inf])
def test_epsilon_checks(eps):
    with pytest.raises(ValueError, match="epsilon"):
        privelet.release(np.ones(8), eps, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        privelet.noise_variance(8, eps)
    with pytest.raises(ValueError, match="epsilon"):
        flat_error.flat_expected_error(8, eps)
    with pytest.raises(ValueError, match="eps"):
        hiskv.perturbation_probabilities(eps, 3, 2)


def test_privelet_refuses_counts_float64_cannot_perturb():
    with pytest.raises(ValueError, match="Haar coefficient"):
        privelet.release(np.full(8, 1e20), 1.0, rng=np.random.default_rng(0))


def test_ldp_eps_cap_is_enforced_and_exact_below_it():
    data = generate(200, 5, max_length=3, rng=np.random.default_rng(0))
    cap = _validate.MAX_LDP_EPS
    for name in mechanisms.MECHANISMS:
        mechanisms.run(name, data, cap, rng=np.random.default_rng(1))
        assert privacy.check(name, cap, 3, 2).holds, name
        with pytest.raises(ValueError, match=r"\[1e-300, 10\]"):
            mechanisms.run(name, data, 25.0, rng=np.random.default_rng(1))
        with pytest.raises(ValueError, match=r"\[1e-300, 10\]"):
            privacy.check(name, 37.0, 3, 2)


def test_tree_builders_clamp_fanouts_to_the_bins():
    big, exact = tree.kary_tree(8, 2**64), tree.kary_tree(8, 8)
    assert np.array_equal(big.lo, exact.lo) and np.array_equal(big.hi, exact.hi)
    wide, capped = (
        tree.struct_construct(64, max_fanout=10**6),
        tree.struct_construct(64, max_fanout=64),
    )
    assert np.array_equal(wide.lo, capped.lo) and np.array_equal(wide.hi, capped.hi)
    # the clamp changes nothing where it applies: fan-outs beyond n split like n
    assert np.array_equal(
        tree.struct_construct(12, max_fanout=40).hi, tree.struct_construct(12, max_fanout=12).hi
    )


def test_scores_whose_range_overflows_are_rejected():
    with pytest.raises(ValueError, match="overflows"):
        exponential.exponential_expected_loss([1e308, -1e308], 1.0, 1.0)
    with pytest.raises(ScoreTableError, match=r"1\.7e308"):
        parse_score_table(["a", "b"], [1e308, -1e308])
    assert exponential.exponential_expected_loss([1e308, 0.0], 1.0, 1.0) == 0.0


def test_leaf_values_and_variances_check_their_arrays():
    from dpcore.hist import queries

    with pytest.raises(ValueError, match="must be 15 values"):
        queries.leaf_values(T, np.ones(14))
    with pytest.raises(ValueError, match="finite numbers >= 0"):
        release.laplace_variance(np.array([-1.0]))
    assert release.laplace_variance(np.array([0.0, 2.0])).tolist() == [math.inf, 0.5]
