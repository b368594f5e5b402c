"""Exact privacy checks, and the samplers against the probabilities the checks use.

The checks enumerate every input set and output for small (d, L); the sampler
tests tie each vectorized client to the exposed probabilities (frequencies of
many draws within 5 standard errors, fixed seeds), so the check is about the code
that actually runs.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpcore.ldp import baselines, hiskv, kvue, pckv, privacy, privkv
from dpcore.ldp.data import KVData, from_pairs
from dpcore.ldp.mechanisms import KVSettings
from dpcore.ldp.pairs import PairProbabilities, pair_index, perturb_pairs
from dpcore.ldp.sampling import discretise, domain_sample, padding_sample

GRID = [(eps, d, L) for eps in (0.1, 1.0, 3.0) for d, L in ((2, 1), (3, 2), (2, 3), (4, 2))]


@pytest.mark.parametrize(("eps", "d", "L"), GRID)
@pytest.mark.parametrize("name", privacy.CHECKED)
def test_every_mechanism_meets_its_claim(name: str, eps: float, d: int, L: int) -> None:
    settings = KVSettings(l_max=4, privkvm_rounds=2)
    result = privacy.check(name, eps, d, L, settings=settings)
    assert result.holds, result


@pytest.mark.parametrize(("eps", "d", "L"), GRID)
@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_hiskv_both_accountings(eps: float, d: int, L: int, share: float) -> None:
    conservative = privacy.check(
        "HISKV", eps, d, L, settings=KVSettings(amplified=False, value_share=share)
    )
    assert conservative.report_level == pytest.approx(eps)  # p1/q2 = e^eps exactly
    assert conservative.user_level <= eps + 1e-12
    amplified = privacy.check("HISKV", eps, d, L, settings=KVSettings(value_share=share))
    # the amplified budget is spent exactly: the padding gain is tight, not loose
    assert amplified.user_level == pytest.approx(eps)
    assert amplified.report_level == pytest.approx(hiskv.amplified_epsilon(eps, L))


def _user_level(p1: float, q1: float, q2: float, d: int, L: int) -> float:
    report = PairProbabilities(p1, q1, q2, d + L).matrix()
    sets = privacy.enumerate_sets(d, L + 1)
    items = np.array([privacy.padding_item_distribution(s, d, L) for s in sets])
    return privacy.worst_log_ratio(items @ report)


def _seed_formula(eps: float, d: int, L: int) -> tuple[float, float, float]:
    """p1 = e^eps/(e^eps + D - 1) as in the paper, with q1 = 2 q_GRR > q2."""
    pairs = 2 * (d + L)
    p1 = math.exp(eps) / (math.exp(eps) + pairs - 1)
    q1 = 2.0 / (math.exp(eps) + pairs - 1)  # "the true key gets a larger probability"
    return p1, q1, (1 - p1 - q1) / (pairs - 2)


@pytest.mark.parametrize(("d", "L"), [(3, 2), (1, 1), (2, 1)])
def test_check_catches_the_papers_formula(d: int, L: int) -> None:
    """The seed's p1 together with q1 > q2 is not eps-LDP for a single report."""
    eps = 1.0
    p1, q1, q2 = _seed_formula(eps, d, L)
    assert privacy.worst_log_ratio(PairProbabilities(p1, q1, q2, d + L).matrix()) > eps
    if L == 1:  # sampling cannot hide it either when every set is padded to one pair
        assert _user_level(p1, q1, q2, d, L) > eps


def test_check_catches_overclaimed_amplification() -> None:
    eps, d, L = 1.0, 3, 2
    too_much = hiskv.amplified_epsilon(eps, L) * 1.05
    z = math.exp(too_much) + math.exp(too_much / 2) + 2 * (d + L) - 2
    level = _user_level(math.exp(too_much) / z, math.exp(too_much / 2) / z, 1 / z, d, L)
    assert level > eps


def test_unary_encoding_gets_no_padding_gain() -> None:
    """Why PCKV-UE claims eps per report: giving it the GRR gain breaks eps-LDP."""
    eps, d, L = 1.0, 2, 2
    pr = pckv.ue_probabilities(hiskv.amplified_epsilon(eps, L), d, L)
    report = privacy.ue_report_channel(pr.a, pr.b, pr.p, pr.n_keys)
    sets = privacy.enumerate_sets(d, L + 1)
    items = np.array([privacy.padding_item_distribution(s, d, L) for s in sets])
    assert privacy.worst_log_ratio(items @ report) > eps * 1.2


def test_public_entry_point() -> None:
    eps, d, L = 0.8, 10, 4
    p1, q1, q2 = hiskv.perturbation_probabilities(eps, d, L)
    assert p1 + q1 + (2 * (d + L) - 2) * q2 == pytest.approx(1.0)
    assert p1 / q2 == pytest.approx(math.exp(eps))
    assert p1 > q1 > q2
    p1, q1, q2 = hiskv.perturbation_probabilities(eps, d, L, eps_v=eps)
    assert q1 == pytest.approx(q2)  # no split: plain GRR over the pairs
    p1, q1, q2 = hiskv.perturbation_probabilities(eps, d, L, amplified=True)
    assert p1 / q2 == pytest.approx(L * (math.exp(eps) - 1) + 1)
    with pytest.raises(ValueError, match="eps_v"):
        hiskv.perturbation_probabilities(eps, d, L, eps_v=2 * eps)
    with pytest.raises(ValueError, match="positive"):
        hiskv.perturbation_probabilities(0.0, d, L)


def test_pckv_grr_is_hiskv_without_split() -> None:
    """With its optimal parameters PCKV-GRR has q1 = q2: the LRR_KV family at eps_v = eps*."""
    eps, d, L = 1.3, 7, 3
    pr = pckv.grr_probabilities(eps, d, L)
    ours = hiskv.perturbation_probabilities(
        eps, d, L, eps_v=hiskv.amplified_epsilon(eps, L), amplified=True
    )
    assert (pr.p1, pr.q1, pr.q2) == pytest.approx(ours)


# ---- brute-force enumeration of the sampling steps ---------------------------------


@pytest.mark.parametrize("L", [1, 2, 3])
def test_enumerated_padding_law_has_closed_form(L: int) -> None:
    d = 3
    for keys, signs in privacy.enumerate_sets(d, d):
        dist = privacy.padding_item_distribution((keys, signs), d, L)
        assert dist.sum() == pytest.approx(1.0)
        for k, s in zip(keys, signs, strict=True):
            assert dist[2 * k + (s < 0)] == pytest.approx(1 / max(len(keys), L))
        dummies = dist[2 * d :]
        assert dummies == pytest.approx(np.full(2 * L, max(L - len(keys), 0) / L**2 / 2))


def _replicated(users: list[tuple[list[int], list[float]]], copies: int, d: int) -> KVData:
    u, k, v = [], [], []
    for i, (keys, values) in enumerate(users * copies):
        u += [i] * len(keys)
        k += keys
        v += values
    n = len(users) * copies
    data = from_pairs(np.array(u, dtype=np.int64), np.array(k, dtype=np.int64), np.array(v), d)
    missing = n - data.n_users  # trailing empty users
    offsets = np.concatenate([data.offsets, np.full(missing, data.offsets[-1])])
    return KVData(offsets, data.keys, data.values, d)


def _assert_frequencies(draws: np.ndarray, probs: np.ndarray) -> None:
    n = draws.size
    observed = np.bincount(draws, minlength=probs.size) / n
    se = np.sqrt(probs * (1 - probs) / n) + 1e-12
    assert np.all(np.abs(observed - probs) <= 5 * se + 1e-9), (observed, probs)


USERS = [([0, 2], [1.0, -1.0]), ([], []), ([1], [1.0]), ([0, 1, 2, 3], [1.0, -1.0, -1.0, 1.0])]


@pytest.mark.parametrize("L", [1, 2, 3])
def test_padding_sampler_matches_enumeration(L: int) -> None:
    d, copies = 4, 40_000
    data = _replicated(USERS, copies, d)
    rng = np.random.default_rng(11)
    sampled = padding_sample(data, L, rng=rng)
    pairs = pair_index(sampled.keys, discretise(sampled.values, rng=rng))
    for i, (keys, values) in enumerate(USERS):
        user = (tuple(keys), tuple(int(v) for v in values))
        expected = privacy.padding_item_distribution(user, d, L)
        _assert_frequencies(pairs[i :: len(USERS)], expected)


def test_domain_sampler_matches_enumeration() -> None:
    d, copies = 4, 40_000
    data = _replicated(USERS, copies, d)
    keys, state = domain_sample(data, rng=np.random.default_rng(12))
    draws = 3 * keys + state
    for i, (held, values) in enumerate(USERS):
        user = (tuple(held), tuple(int(v) for v in values))
        _assert_frequencies(draws[i :: len(USERS)], privacy.domain_item_distribution(user, d))


def test_pair_randomizer_matches_matrix() -> None:
    probs = PairProbabilities(*hiskv.perturbation_probabilities(1.0, 3, 2), n_keys=5)
    rng = np.random.default_rng(13)
    for start in (0, 3, 9):
        out = perturb_pairs(np.full(200_000, start, dtype=np.int64), probs, rng=rng)
        _assert_frequencies(out, probs.matrix()[start])


def _one_key_users(copies: int) -> tuple[KVData, np.ndarray]:
    """d = 1 users: absent, holding +1, holding -1 (state = 0, 1, 2), interleaved."""
    users = [([], []), ([0], [1.0]), ([0], [-1.0])]
    return _replicated(users, copies, 1), np.tile(np.arange(3), copies)


@pytest.mark.parametrize("fake", [-1.0, 0.0, 0.6])
def test_privkv_client_matches_channel(fake: float) -> None:
    data, state = _one_key_users(80_000)
    _, code = privkv.perturb(data, 1.2, fake_means=np.array([fake]), rng=np.random.default_rng(15))
    channel = privkv.state_channel(1.2, fake)
    for s in range(3):
        _assert_frequencies(code[state == s].astype(np.int64), channel[s])


def test_kvoh_client_matches_channel() -> None:
    data, state = _one_key_users(80_000)
    _, bits = kvue.kvoh_perturb(data, 0.9, rng=np.random.default_rng(16))
    report = bits.astype(np.int64) @ (1 << np.arange(3))
    channel = kvue.kvoh_channel(0.9)
    for s in range(3):
        _assert_frequencies(report[state == s], channel[s])


def test_kvue_and_harmony_clients_match_channels() -> None:
    data, state = _one_key_users(80_000)
    _, reported = kvue.kvue_perturb(data, 0.9, rng=np.random.default_rng(17))
    _, signs = baselines.harmony_perturb(data, 0.9, rng=np.random.default_rng(18))
    for s in range(3):
        _assert_frequencies(reported[state == s], kvue.kvue_channel(0.9)[s])
        as_index = (signs[state == s] < 0).astype(np.int64)  # +1 -> 0, -1 -> 1
        _assert_frequencies(as_index, baselines.harmony_channel(0.9)[s])


def test_pckv_ue_client_matches_report_channel() -> None:
    """Per-position marginals of the reference UE client equal the enumerated channel's."""
    d, L = 2, 1
    pr = pckv.ue_probabilities(1.0, d, L)
    users = [([0], [1.0]), ([1], [-1.0])]
    data = _replicated(users, 60_000, d)
    out = pckv.ue_perturb_users(data, 1.0, L, rng=np.random.default_rng(19))
    channel = privacy.ue_report_channel(pr.a, pr.b, pr.p, pr.n_keys)
    # entries 0, +1, -1 -> digits 0, 1, 2; first position most significant, as in the channel
    digits = np.where(out == 1, 1, np.where(out == -1, 2, 0)).astype(np.int64)
    code = digits @ (3 ** np.arange(pr.n_keys)[::-1])
    for i, (keys, values) in enumerate(users):
        row = 2 * keys[0] + (values[0] < 0)
        _assert_frequencies(code[i::2], channel[row])


def _privkvm_enumerated(eps: float, d: int, rounds: int) -> tuple[float, float]:
    """(report level, user level) of PrivKVM by brute force: every sequence of fake means
    in {-1, 0, 1}, the joint law of all rounds' outputs for every input set."""
    sets = privacy.enumerate_sets(d, d)
    items = np.array([privacy.domain_item_distribution(s, d) for s in sets])
    worst_user = worst_report = 0.0
    for fakes in itertools.product((-1.0, 0.0, 1.0), repeat=rounds):
        joint = np.ones((len(sets), 1))
        report_joint = np.ones((3, 1))
        for fake in fakes:
            state = privkv.state_channel(eps / rounds, fake)
            per_round = items @ np.kron(np.eye(d), state)
            joint = (joint[:, :, None] * per_round[:, None, :]).reshape(len(sets), -1)
            report_joint = (report_joint[:, :, None] * state[:, None, :]).reshape(3, -1)
        worst_user = max(worst_user, privacy.worst_log_ratio(joint))
        worst_report = max(worst_report, privacy.worst_log_ratio(report_joint))
    return worst_report, worst_user


@pytest.mark.parametrize(
    ("d", "rounds"), [(1, 1), (1, 4), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3), (2, 5)]
)
@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_privkvm_closed_form_equals_enumeration(eps: float, d: int, rounds: int) -> None:
    report, user = _privkvm_enumerated(eps, d, rounds)
    check = privacy.check("PrivKVM", eps, d, 2, settings=KVSettings(privkvm_rounds=rounds))
    assert check.report_level == pytest.approx(report, rel=1e-9)
    assert check.user_level == pytest.approx(user, rel=1e-9)
    assert check.holds


def test_privkvm_check_is_instant_for_many_rounds() -> None:
    """c = 10 enumerated 3^10 fake-mean sequences (and 8.66 GiB); the closed form spends
    exactly eps whatever c (each round's worst ratio is e^(eps/c))."""
    for rounds in (10, 1000):
        check = privacy.check("PrivKVM", 2.0, 3, 2, settings=KVSettings(privkvm_rounds=rounds))
        assert check.user_level == pytest.approx(2.0, rel=1e-9)
