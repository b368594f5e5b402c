"""Estimators: unbiasedness, closed-form variances and noiseless recovery.

Oracles: the true per-key frequencies/means of the data; simulations with fixed
seeds and stated tolerances (means within 4.5 standard errors of the truth over
many repetitions; variances within 10% pooled over keys).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpcore.ldp import baselines, hiskv, kvue, oracles, pckv, privacy, privkv
from dpcore.ldp.data import KVData, from_pairs, generate
from dpcore.ldp.mechanisms import MECHANISMS, UNAVAILABLE, KVSettings, run
from dpcore.ldp.pairs import PairProbabilities, estimate_pairs, frequency_variance

REPS = 300


@pytest.fixture(scope="module")
def short_sets() -> KVData:
    """All sets have at most 3 pairs: no truncation at L = 3."""
    return generate(
        4000, 8, keys="lnr", lengths="uniform", max_length=3, rng=np.random.default_rng(5)
    )


def _repeat(fn, reps: int, seed: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    return np.array([fn(rng) for _ in range(reps)])


def _assert_unbiased(samples: np.ndarray, truth: np.ndarray) -> None:
    se = samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])
    z = (samples.mean(axis=0) - truth) / se
    assert np.all(np.abs(z) < 4.5), z


FREQUENCY_ESTIMATORS = {
    "HISKV": lambda data, rng: hiskv.run(data, 1.0, rng=rng, length=3).frequency,
    "HISKV-conservative": lambda data, rng: (
        hiskv.run(data, 1.0, rng=rng, length=3, amplified=False, value_share=0.2).frequency
    ),
    "PCKV-GRR": lambda data, rng: pckv.grr_estimate(
        pckv.grr_perturb(data, 1.0, 3, rng=rng), 1.0, data.d, 3
    )[0],
    "PCKV-UE": lambda data, rng: pckv.ue_estimate(
        *pckv.ue_counts(data, 1.0, 3, rng=rng), data.n_users, 1.0, 3
    )[0],
    "SUE": lambda data, rng: baselines.sue_estimate(
        baselines.sue_counts(data, 1.0, 3, rng=rng), data.n_users, data.d, 1.0, 3
    ),
    "PrivKV": lambda data, rng: privkv.estimate(*privkv.perturb(data, 1.0, rng=rng), data.d, 1.0)[
        0
    ],
    "KVUE": lambda data, rng: kvue.kvue_estimate(
        *kvue.kvue_perturb(data, 1.0, rng=rng), data.d, 1.0
    )[0],
    "KVOH": lambda data, rng: kvue.kvoh_estimate(
        *kvue.kvoh_perturb(data, 1.0, rng=rng), data.d, 1.0
    )[0],
}


@pytest.mark.slow
@pytest.mark.parametrize("name", FREQUENCY_ESTIMATORS)
def test_frequencies_are_unbiased_without_truncation(name: str, short_sets: KVData) -> None:
    samples = _repeat(lambda rng: FREQUENCY_ESTIMATORS[name](short_sets, rng), REPS, seed=21)
    _assert_unbiased(samples, short_sets.true_frequency())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["HISKV", "PCKV-GRR", "KVUE"])
def test_means_match_truth_within_ci(name: str) -> None:
    """Means are ratio estimators (consistent, not exactly unbiased): checked on the keys
    with enough holders, at a budget where the clipping of the bounded estimator is rare."""
    data = generate(
        20000, 6, keys="uniform", lengths="uniform", max_length=2, rng=np.random.default_rng(6)
    )
    runners = {
        "HISKV": lambda rng: hiskv.run(data, 4.0, rng=rng, length=2).mean,
        "PCKV-GRR": lambda rng: pckv.grr_estimate(
            pckv.grr_perturb(data, 4.0, 2, rng=rng), 4.0, 6, 2
        )[1],
        "KVUE": lambda rng: kvue.kvue_estimate(*kvue.kvue_perturb(data, 4.0, rng=rng), 6, 4.0)[1],
    }
    samples = _repeat(runners[name], 200, seed=22)
    _assert_unbiased(samples, data.true_mean())


@pytest.mark.slow
@pytest.mark.parametrize(("share", "amplified"), [(0.5, True), (1.0, False), (0.1, True)])
def test_hiskv_variance_formula(short_sets: KVData, share: float, amplified: bool) -> None:
    probs = hiskv.pair_probabilities(1.0, short_sets.d, 3, value_share=share, amplified=amplified)
    samples = _repeat(
        lambda rng: (
            hiskv.run(
                short_sets, 1.0, rng=rng, length=3, value_share=share, amplified=amplified
            ).frequency
        ),
        800,
        seed=23,
    )
    predicted = frequency_variance(
        short_sets.true_frequency(), short_sets.n_users, 3, p1=probs.p1, q1=probs.q1, q2=probs.q2
    )
    ratio = samples.var(axis=0, ddof=1) / predicted
    assert abs(ratio.mean() - 1) < 0.1, ratio
    assert np.all(np.abs(ratio - 1) < 0.3), ratio


@pytest.mark.slow
def test_truncation_bias_and_variance_are_exact() -> None:
    """With sets longer than L, the estimate is biased low exactly as predicted."""
    data = generate(
        4000, 8, keys="lnr", lengths="uniform", max_length=6, rng=np.random.default_rng(7)
    )
    L = 2
    probs = hiskv.pair_probabilities(1.5, data.d, L, amplified=True)
    err = hiskv.frequency_error(data, L, probs, data.n_users)
    assert np.all(err.bias <= 1e-12) and err.bias.min() < -0.05
    assert err.bias + data.true_frequency() == pytest.approx(hiskv.truncated_frequency(data, L))
    samples = _repeat(lambda rng: hiskv.run(data, 1.5, rng=rng, length=L).frequency, 800, seed=24)
    _assert_unbiased(samples, data.true_frequency() + err.bias)
    ratio = samples.var(axis=0, ddof=1) / err.variance
    assert abs(ratio.mean() - 1) < 0.1, ratio


def test_exact_error_reduces_to_spec_formula(short_sets: KVData) -> None:
    probs = hiskv.pair_probabilities(0.7, short_sets.d, 3, amplified=False)
    err = hiskv.frequency_error(short_sets, 3, probs, 1234)
    spec = frequency_variance(
        short_sets.true_frequency(), 1234, 3, p1=probs.p1, q1=probs.q1, q2=probs.q2
    )
    assert err.variance == pytest.approx(spec, rel=1e-12)
    assert err.bias == pytest.approx(np.zeros(short_sets.d), abs=1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("oracle", ["grr", "sue"])
def test_single_item_oracle_variances(oracle: str) -> None:
    k, n, eps = 6, 3000, 1.0
    items = np.repeat(np.arange(k), [1500, 800, 400, 200, 100, 0])
    f = np.bincount(items, minlength=k) / n

    def once(rng: np.random.Generator) -> np.ndarray:
        if oracle == "grr":
            return oracles.grr_estimate(oracles.grr_perturb(items, eps, k, rng=rng), eps, k)
        return oracles.sue_estimate(oracles.sue_counts(items, eps, k, rng=rng), n, eps)

    samples = _repeat(once, 1000, seed=25)
    _assert_unbiased(samples, f)
    predicted = (
        oracles.grr_variance(eps, k, n, f) if oracle == "grr" else oracles.sue_variance(eps, n, f)
    )
    ratio = samples.var(axis=0, ddof=1) / predicted
    assert abs(ratio.mean() - 1) < 0.08 and np.all(np.abs(ratio - 1) < 0.25), ratio


@pytest.mark.slow
def test_aggregated_ue_matches_per_user_sampler() -> None:
    """The fast PCKV-UE / SUE count samplers have the per-user samplers' mean and variance."""
    data = generate(600, 4, lengths="uniform", max_length=2, rng=np.random.default_rng(8))
    L, eps, reps = 2, 1.0, 400

    def per_user(rng: np.random.Generator) -> np.ndarray:
        out = pckv.ue_perturb_users(data, eps, L, rng=rng)[:, : data.d]
        return np.concatenate([(out == 1).sum(axis=0), (out == -1).sum(axis=0)])

    def aggregated(rng: np.random.Generator) -> np.ndarray:
        return np.concatenate(pckv.ue_counts(data, eps, L, rng=rng))

    slow = _repeat(per_user, reps, seed=26)
    fast = _repeat(aggregated, reps, seed=27)
    se = np.sqrt(slow.var(axis=0) / reps + fast.var(axis=0) / reps)
    assert np.all(np.abs(slow.mean(axis=0) - fast.mean(axis=0)) < 4.5 * se)
    assert np.all(np.abs(fast.var(axis=0) / slow.var(axis=0) - 1) < 0.35)

    items = np.repeat(np.arange(4), [300, 200, 100, 0])
    bits = _repeat(
        lambda rng: oracles.sue_perturb_users(items, eps, 4, rng=rng).sum(axis=0), reps, 28
    )
    sums = _repeat(lambda rng: oracles.sue_counts(items, eps, 4, rng=rng), reps, 29)
    se = np.sqrt(bits.var(axis=0) / reps + sums.var(axis=0) / reps)
    assert np.all(np.abs(bits.mean(axis=0) - sums.mean(axis=0)) < 4.5 * se)


@pytest.fixture
def no_eps_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lift the library's LDP eps cap (float64 exactness, not privacy) to study eps -> inf."""
    monkeypatch.setattr("dpcore._validate.MAX_LDP_EPS", math.inf)


def _single_pair_users(n_per_key: int) -> KVData:
    """d = 3 keys, each user holds exactly one pair with value ±1 (no sampling noise)."""
    keys = np.repeat([0, 1, 2], n_per_key)
    values = np.tile([1.0, 1.0, -1.0, 1.0], keys.size // 4 + 1)[: keys.size]
    values[keys == 2] = -1.0
    return from_pairs(np.arange(keys.size), keys, values, 3)


@pytest.mark.parametrize("name", ["HISKV", "PCKV-GRR", "SUE"])
def test_padding_mechanisms_are_exact_without_noise(name: str, no_eps_cap: None) -> None:
    """eps -> infinity with one pair per user and L = 1: nothing random is left."""
    data = _single_pair_users(400)
    settings = KVSettings(padding_length=1)
    rng = np.random.default_rng(30)
    if name == "HISKV":
        res = hiskv.run(data, 60.0, rng=rng, length=1)
        freq, mean = res.frequency, res.mean
    else:
        est = run(name, data, 60.0, settings=settings, rng=rng)
        freq, mean = est.frequency, est.mean
    assert freq == pytest.approx(data.true_frequency(), abs=1e-9)
    if mean is not None:
        # the bounded estimator clips n1, n2 to [1, N]: at most 1/N off when a count is 0
        assert mean == pytest.approx(data.true_mean(), abs=1.0 / 400 + 1e-9)


@pytest.mark.parametrize("name", ["PrivKV", "PrivKVM", "KVUE", "KVOH"])
def test_domain_sampling_mechanisms_are_exact_without_noise(name: str, no_eps_cap: None) -> None:
    """With d = 1 the sampled key is always the one key; at eps -> inf nothing is random."""
    users = np.arange(600)
    holders = users[users % 3 != 0]
    values = np.where(holders % 3 == 1, 1.0, -1.0)
    base = from_pairs(holders, np.zeros(holders.size, dtype=np.int64), values, 1)
    offsets = np.concatenate([base.offsets, np.full(600 - base.n_users, base.offsets[-1])])
    data = KVData(offsets, base.keys, base.values, 1)
    est = run(name, data, 200.0, rng=np.random.default_rng(31))
    assert est.frequency == pytest.approx(data.true_frequency(), abs=1e-9)
    assert est.mean == pytest.approx(data.true_mean(), abs=1e-9)


def test_harmony_divides_by_the_given_frequency() -> None:
    data = _single_pair_users(400)
    keys, signs = baselines.harmony_perturb(data, 60.0, rng=np.random.default_rng(32))
    # every user holding the sampled key reports its sign; others a fair coin
    mean = baselines.harmony_estimate(keys, signs, 3, 60.0, data.true_frequency())
    assert np.all(np.abs(mean) <= 1)
    assert mean[2] < -0.5  # key 2 holds only -1 values


def test_every_listed_mechanism_runs_and_ldpkv_is_unavailable() -> None:
    data = generate(300, 10, max_length=4, rng=np.random.default_rng(33))
    for name, mech in MECHANISMS.items():
        est = run(name, data, 1.0, rng=np.random.default_rng(34))
        assert (est.frequency is not None) == mech.estimates_frequency
        assert (est.mean is not None) == mech.estimates_mean
        for values in (est.frequency, est.mean):
            assert values is None or (values.shape == (10,) and np.all(np.isfinite(values)))
    with pytest.raises(ValueError, match="LDPKV is unavailable"):
        run("LDPKV", data, 1.0, rng=np.random.default_rng(0))
    assert "LDPKV" in UNAVAILABLE


def test_oetl_finds_the_90th_percentile_at_high_eps() -> None:
    lengths = np.repeat(np.arange(1, 11), [300, 300, 200, 100, 40, 20, 20, 10, 5, 5])
    rng = np.random.default_rng(35)
    reports = hiskv.oetl_perturb(lengths, 30.0, 10, rng=rng)
    length, share = hiskv.oetl_length(reports, 30.0, 10)
    true_share = np.bincount(lengths, minlength=11)[1:] / lengths.size
    assert share == pytest.approx(true_share, abs=1e-9)
    assert length == 4  # cumulative 0.3, 0.6, 0.8, 0.9


def test_oetl_is_unbiased_before_clipping() -> None:
    lengths = np.random.default_rng(36).integers(1, 8, size=3000)
    truth = np.bincount(lengths - 1, minlength=7) / lengths.size
    samples = _repeat(
        lambda rng: oracles.grr_estimate(hiskv.oetl_perturb(lengths, 1.0, 7, rng=rng), 1.0, 7),
        300,
        37,
    )
    _assert_unbiased(samples, truth)


# ---- exact expectations: brute-force channel x enumerated sampling law -------------

SETS = [((0, 2), (1, -1)), ((), ()), ((1,), (1,)), ((0, 1), (-1, -1)), ((2,), (1,))]


def _expected_pair_counts(report: np.ndarray, d: int, L: int, copies: int) -> np.ndarray:
    items = np.array([privacy.padding_item_distribution(s, d, L) for s in SETS])
    return copies * (items @ report).sum(axis=0)


def _truth(copies: int) -> tuple[np.ndarray, np.ndarray]:
    d = 3
    holders = np.zeros(d)
    sums = np.zeros(d)
    for keys, signs in SETS:
        for k, s in zip(keys, signs, strict=True):
            holders[k] += 1
            sums[k] += s
    return holders / len(SETS), sums / holders


@pytest.mark.parametrize("mechanism", ["HISKV", "HISKV-conservative", "PCKV-GRR", "PCKV-UE"])
def test_estimators_are_exact_on_expected_counts(mechanism: str) -> None:
    """Frequency estimators are linear in the counts, so E f^ = f^(E counts) exactly; the
    mean estimator at the expected counts returns the true mean (clipping inactive)."""
    d, L, eps, copies = 3, 2, 0.9, 40
    n = copies * len(SETS)
    if mechanism.startswith("HISKV"):
        probs = hiskv.pair_probabilities(eps, d, L, value_share=0.3, amplified=mechanism == "HISKV")
        p1, q1, q2, report = probs.p1, probs.q1, probs.q2, probs.matrix()
    elif mechanism == "PCKV-GRR":
        pr = pckv.grr_probabilities(eps, d, L)
        p1, q1, q2 = pr.p1, pr.q1, pr.q2
        report = PairProbabilities(p1, q1, q2, d + L).matrix()
    else:  # marginals of the enumerated UE vector channel, not the pair formula
        pr = pckv.ue_probabilities(eps, d, L)
        p1, q1, q2 = pr.p1, pr.q1, pr.q2
        vectors = np.array(list(itertools.product(range(3), repeat=d + L)))
        full = privacy.ue_report_channel(pr.a, pr.b, pr.p, d + L)
        plus = np.stack([full[:, vectors[:, k] == 1].sum(axis=1) for k in range(d + L)], 1)
        minus = np.stack([full[:, vectors[:, k] == 2].sum(axis=1) for k in range(d + L)], 1)
        report = np.empty((full.shape[0], 2 * (d + L)))
        report[:, 0::2], report[:, 1::2] = plus, minus
    expected = _expected_pair_counts(report, d, L, copies)
    est = estimate_pairs(
        expected[0 : 2 * d : 2], expected[1 : 2 * d : 2], n, L, p1=p1, q1=q1, q2=q2
    )
    f, m = _truth(copies)
    assert est.frequency == pytest.approx(f, rel=1e-12)
    assert est.mean == pytest.approx(m, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["grr", "ue"])
def test_pckv_frequency_variance_has_the_same_closed_form(kind: str, short_sets: KVData) -> None:
    """Per key, every user adds one Bernoulli (a if it sampled the key, else b) to
    C+ + C-, for GRR's single pair and UE's bit vector alike."""
    L, eps = 3, 1.0
    if kind == "grr":
        pr = pckv.grr_probabilities(eps, short_sets.d, L)
        samples = _repeat(lambda rng: FREQUENCY_ESTIMATORS["PCKV-GRR"](short_sets, rng), 800, 38)
    else:
        pr = pckv.ue_probabilities(eps, short_sets.d, L)
        samples = _repeat(lambda rng: FREQUENCY_ESTIMATORS["PCKV-UE"](short_sets, rng), 800, 39)
    predicted = frequency_variance(
        short_sets.true_frequency(), short_sets.n_users, L, p1=pr.p1, q1=pr.q1, q2=pr.q2
    )
    ratio = samples.var(axis=0, ddof=1) / predicted
    assert abs(ratio.mean() - 1) < 0.1, ratio
    assert np.all(np.abs(ratio - 1) < 0.3), ratio


def test_central_frequency_error_matches_simulated_laplace_counts(short_sets: KVData) -> None:
    """A trusted curator's frequencies: Laplace(L/ε) on every key's count of holders, over
    n; the simulated MSE pooled over keys and releases is within 5% of 2L²/(εn)²."""
    eps, length = 0.8, 3
    n = short_sets.n_users
    counts = np.bincount(short_sets.keys, minlength=short_sets.d)
    rng = np.random.default_rng(11)
    noisy = counts + rng.laplace(0.0, length / eps, size=(20_000, short_sets.d))
    simulated = float(np.mean((noisy / n - short_sets.true_frequency()) ** 2))
    expected = 2 * length**2 / (eps**2 * n**2)
    assert baselines.central_frequency_mse(eps, n, length) == pytest.approx(expected)
    assert simulated == pytest.approx(expected, rel=0.05)
    with pytest.raises(ValueError, match="max_length must be a whole number"):
        baselines.central_frequency_mse(eps, n, 0)
