"""Range queries under LDP: bad input is refused with a ValueError naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.ldp.ranges import (
    average_variance,
    flat_average_variance,
    ldp_tree,
    optimal_fanout,
    simulate_flat,
    simulate_haar,
    simulate_tree,
    tree_average_variance,
    tree_range_variance,
)


def _hh(**changes):
    kwargs = dict(domain=64, eps=1.0, users=1000, fanout=4)
    kwargs.update(changes)
    return average_variance("hh-oue", **kwargs)


@pytest.mark.parametrize("eps", [0.0, -1.0, 10.5, float("nan"), float("inf"), "x"])
def test_eps_outside_its_bounds_is_refused(eps):
    with pytest.raises(ValueError, match="eps"):
        _hh(eps=eps)
    with pytest.raises(ValueError, match="eps"):
        average_variance("haar-hrr", domain=64, eps=eps, users=1000)


def test_eps_at_its_bounds_is_accepted():
    assert np.isfinite(_hh(eps=10.0)) and _hh(eps=10.0) > 0
    for method in ("flat-oue", "flat-grr", "flat-olh", "flat-hrr", "haar-hrr"):
        tiny = average_variance(method, domain=64, eps=1e-4, users=10)
        assert np.isfinite(tiny) and tiny > 0
    # V(eps) ~ 4/eps^2 as eps -> 0: the closed form keeps its accuracy at the bound
    flat = average_variance("flat-oue", domain=64, eps=1e-4, users=10)
    v = 4 * np.exp(1e-4) / np.expm1(1e-4) ** 2
    assert flat == pytest.approx(v * (64 + 2) / 3 / 10, rel=1e-9)


def test_eps_too_small_for_float64_is_refused_with_the_accepted_range():
    with pytest.raises(ValueError, match=r"eps must be a positive number in \[0\.0001, 10\]"):
        average_variance("flat-oue", domain=64, eps=1e-5, users=10)


def test_users_fewer_than_levels_are_refused():
    # D = 64, B = 4: three levels below the root, each user reports one
    assert _hh(users=3) > 0
    with pytest.raises(ValueError, match=r"users must be a whole number >= 3"):
        _hh(users=2)
    with pytest.raises(ValueError, match=r"users must be a whole number >= 6"):
        average_variance("haar-hrr", domain=64, eps=1.0, users=5)
    with pytest.raises(ValueError, match="users"):
        average_variance("flat-grr", domain=64, eps=1.0, users=0)
    # splitting eps: every user reports every level, one user suffices
    assert ldp_tree(64, 4, eps=1.0, users=1, levels="split").levels == 3


@pytest.mark.parametrize("domain", [12, 100, 255])
def test_haar_refuses_a_domain_that_is_not_a_power_of_two_and_says_how_to_pad(domain):
    with pytest.raises(ValueError, match=r"domain must be a power of 2.*pad the domain"):
        average_variance("haar-hrr", domain=domain, eps=1.0, users=1000)
    with pytest.raises(ValueError, match="domain must be a power of 2"):
        simulate_haar(np.ones(domain, dtype=np.int64), 1.0, rng=np.random.default_rng(0))


def test_trees_and_hrr_accept_any_domain():
    # uneven last level (like the central trees); HRR pads its Hadamard rows
    for method in ("hh-oue", "hh-hrr", "hh-olh"):
        assert average_variance(method, domain=100, eps=1.0, users=1000, fanout=3) > 0
    assert average_variance("flat-hrr", domain=100, eps=1.0, users=1000) > 0


def test_the_authors_map_needs_a_power_of_the_fanout():
    plan = ldp_tree(12, 3, eps=1.0, users=1000)
    with pytest.raises(ValueError, match="domain: the authors' consistency needs"):
        tree_average_variance(plan, consistency="authors")


@pytest.mark.parametrize("domain", [1, 0, 2.5, 2**23])
def test_domain_outside_its_range_is_refused(domain):
    with pytest.raises(ValueError, match="domain"):
        _hh(domain=domain)


@pytest.mark.parametrize("fanout", [1, 0, 65, 2.5, None])
def test_fanout_outside_its_range_is_refused(fanout):
    with pytest.raises(ValueError, match="fanout"):
        _hh(fanout=fanout)


def test_method_options_are_checked():
    with pytest.raises(ValueError, match="method must be one of"):
        average_variance("hh-grr", domain=64, eps=1.0, users=100, fanout=4)
    with pytest.raises(ValueError, match="fanout applies to the hh-"):
        average_variance("flat-oue", domain=64, eps=1.0, users=100, fanout=4)
    with pytest.raises(ValueError, match="consistent applies to the hh-"):
        average_variance("haar-hrr", domain=64, eps=1.0, users=100, consistent=True)
    with pytest.raises(ValueError, match="method must be one of 'hh-oue'"):
        optimal_fanout("flat-oue", domain=64, eps=1.0)
    with pytest.raises(ValueError, match="candidates"):
        optimal_fanout(domain=8, eps=1.0, candidates=(16, 32))


def test_oracles_and_levels_are_checked():
    with pytest.raises(ValueError, match="oracle must be one of"):
        ldp_tree(64, 4, eps=1.0, users=100, oracle="rappor")
    with pytest.raises(ValueError, match=r"oracle must be one of.*one per level"):
        ldp_tree(64, 4, eps=1.0, users=100, oracle=("oue", "oue"))
    with pytest.raises(ValueError, match="oracle must be one of"):
        flat_average_variance("rappor", domain=8, eps=1.0, users=10)
    with pytest.raises(ValueError, match="levels must be"):
        ldp_tree(64, 4, eps=1.0, users=100, levels="all")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="oracle must be one of"):
        simulate_flat("rappor", np.ones(4, dtype=np.int64), 1.0, rng=np.random.default_rng(0))
    grr_top = ldp_tree(16, 2, eps=1.0, users=100, oracle=("grr", "oue", "oue", "oue"))
    with pytest.raises(ValueError, match="consistency must be"):
        tree_range_variance(grr_top, 0, 3, consistency="lsq")  # type: ignore[arg-type]


def test_frequencies_and_histograms_are_checked():
    with pytest.raises(ValueError, match="frequencies must be 64 values"):
        _hh(frequencies=np.ones(10))
    with pytest.raises(ValueError, match=r"frequencies\[3\] is -1.0"):
        _hh(frequencies=np.r_[np.ones(3), -1.0, np.ones(60)])
    plan = ldp_tree(8, 2, eps=1.0, users=10)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"histogram\[1\] is 0.5; accepted: whole numbers"):
        simulate_tree(plan, [1, 0.5, 1, 1, 1, 1, 1, 3.5], rng=rng)
    with pytest.raises(ValueError, match="histogram must be a 1-D array of >= 2 counts"):
        simulate_flat("oue", [5], 1.0, rng=rng)
    with pytest.raises(ValueError, match=r"histogram must sum to plan\.users = 10"):
        simulate_tree(plan, np.ones(8), rng=rng)
    with pytest.raises(ValueError, match=r"ranges must satisfy 0 <= a <= b < n = 8"):
        tree_range_variance(plan, 3, 8)


def test_dense_routes_refuse_large_domains_naming_the_domain():
    plan = ldp_tree(8192, 2, eps=1.0, users=10**6)
    with pytest.raises(ValueError, match="domain: this average needs every prefix"):
        tree_average_variance(plan, consistency="blue", frequencies=np.ones(8192) / 8192)
