"""The gallery audited: correct mechanisms pass, buggy and broken ones are caught, and every
exact law matches its sampler and an independently derived ε.

Every audit here runs at 95 % confidence with a fixed seed. "Pass" means the bound stays at
or below the claimed ε (a valid auditor exceeds a true ε with probability at most 5 %);
"caught" means the bound exceeds the claim, which proves the violation at 95 %. That the
bound stays below the true ε is a 95 % statement, tested on many seeds in
test_audit_lower_bound.py (one seed of PCKV-UE at half the noise, for instance, lands
0.016 above its true 2: two of 100 seeds do).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcore.audit import gallery, lower_bound
from dpcore.audit.gallery import Entry
from dpcore.audit.gallery.rappor import bloom_filter
from dpcore.ldp import privacy

CATALOGUE = gallery.catalogue()
CORRECT = [e for e in CATALOGUE if not e.buggy]
BUGGY = [e for e in CATALOGUE if e.buggy]
# runs per side to catch a violation whose margin is small (18 % and 10 % over the claim)
CATCH_SAMPLES = {"Truncated geometric, ε0 = 0.1": 500_000, "HISKV as printed": 200_000}


def run(entry: Entry, samples: int, seed: int = 0) -> float:
    result = lower_bound(
        entry.sample_d, entry.sample_d_prime, samples=samples, delta=entry.claimed_delta,
        score=entry.score, rng=np.random.default_rng(seed),
    )  # fmt: skip
    return result.epsilon


def test_the_catalogue_has_every_kind_and_unique_names():
    names = [e.name for e in CATALOGUE]
    assert len(names) == len(set(names))
    assert {"Laplace", "Geometric", "Gaussian", "Exponential mechanism", "Report noisy max",
            "Tree release", "GRR", "SUE", "Randomized response", "HISKV (reconstructed)",
            "PCKV-GRR", "PCKV-UE", "KVUE", "KVOH", "PrivKV", "PrivKVM", "SUE (key-value)",
            "Harmony", "One-time RAPPOR", "Region-tree release",
            "LDP range query (hierarchical)", "LDP range query (Haar)"} <= {
        e.name for e in CORRECT}  # fmt: skip
    assert {"SVT3", "SVT4", "SVT5", "SVT6", "Noisy max returning the value", "HISKV as printed",
            "Histogram, noise scale inverted", "Truncated geometric, ε0 = 0.1",
            "Floating-point Laplace", "Region-tree release, levels ignored",
            "LDP range query (hierarchical, levels ignored)"} <= {
        e.name for e in BUGGY}  # fmt: skip
    assert all(e.description and e.relation for e in CATALOGUE)


@pytest.mark.parametrize("entry", CORRECT, ids=lambda e: e.name)
def test_correct_mechanisms_pass_at_95_percent(entry):
    bound = run(entry, 50_000)
    assert bound <= entry.claimed_epsilon
    if entry.true_epsilon is not None:
        assert bound <= entry.true_epsilon


@pytest.mark.parametrize("entry", BUGGY, ids=lambda e: e.name)
def test_buggy_mechanisms_are_caught_at_95_percent(entry):
    assert run(entry, CATCH_SAMPLES.get(entry.name, 100_000)) > entry.claimed_epsilon


BROKEN = [
    gallery.laplace(stated_sensitivity=0.5),
    gallery.geometric(stated_sensitivity=0.5),
    gallery.gaussian(stated_sensitivity=0.5),
    gallery.exponential(stated_sensitivity=0.5),
    gallery.report_noisy_max(stated_sensitivity=0.5),
    gallery.tree_release(stated_sensitivity=0.5),
    gallery.grr(stated_sensitivity=0.5),
    gallery.sue(stated_sensitivity=0.5),
    gallery.hiskv_entry(stated_sensitivity=0.5),
    gallery.pckv_grr(stated_sensitivity=0.5),
    gallery.pckv_ue(stated_sensitivity=0.5),
    gallery.kvue_entry(stated_sensitivity=0.5),
    gallery.kvoh_entry(stated_sensitivity=0.5),
    gallery.privkv_entry(stated_sensitivity=0.5),
    gallery.privkvm_entry(stated_sensitivity=0.5),
    gallery.kv_sue_entry(stated_sensitivity=0.5),
    gallery.harmony_entry(stated_sensitivity=0.5),
]


@pytest.mark.parametrize("entry", BROKEN, ids=lambda e: e.name)
def test_noise_calibrated_to_half_the_sensitivity_is_caught(entry):
    assert entry.buggy and entry.true_epsilon is not None
    assert run(entry, 50_000, seed=1) > entry.claimed_epsilon


LAWS = [e for e in [*CATALOGUE, *BROKEN] if e.law is not None]


@pytest.mark.parametrize("entry", LAWS, ids=lambda e: f"{e.name}-{e.claimed_epsilon:g}-{e.buggy}")
def test_every_exact_law_is_what_its_samplers_draw(entry):
    """Chi-square goodness of fit of 20,000 seeded draws per input (p > 1e-4; a wrong law,
    e.g. another input's row, gives p ~ 0), and outputs of probability 0 never appear."""
    rng = np.random.default_rng(7)
    for sample, pmf in (
        (entry.sample_d, entry.law.pmf_d),
        (entry.sample_d_prime, entry.law.pmf_d_prime),
    ):
        counts = np.bincount(entry.law.index(np.asarray(sample(20_000, rng))), minlength=pmf.size)
        assert counts.size == pmf.size and counts[pmf == 0].sum() == 0
        expected = 20_000 * pmf[pmf > 0]
        lumped = expected < 5  # chi-square needs expected counts >= 5: lump the rare ones
        observed = np.r_[counts[pmf > 0][~lumped], counts[pmf > 0][lumped].sum()]
        wanted = np.r_[expected[~lumped], expected[lumped].sum()]
        if not lumped.any():
            observed, wanted = observed[:-1], wanted[:-1]
        assert stats.chisquare(observed, wanted).pvalue > 1e-4


@pytest.mark.parametrize(("eps0", "k"), [(0.1, 3), (0.5, 2), (1.0, 1)])
def test_truncated_geometric_true_epsilon_is_ln_1_plus_2_to_the_minus_k(eps0, k):
    """Balcer & Vadhan thm. 4.7: ln(1 + 2^-k), k = ceil(ln(2/eps0)); the spec lists 0.1178,
    0.223 and 0.405."""
    entry = gallery.truncated_geometric(eps0)
    assert entry.true_epsilon == pytest.approx(math.log1p(2.0**-k), rel=1e-12)
    assert entry.buggy == (eps0 == 0.1)


def test_hiskv_as_printed_is_1_105_at_a_claimed_1():
    """d = 3, L = 2 (D = 10 pairs), tilt 2: p1/q2 = e (t + D - 2)/(D - 1), so 1 + ln(10/9)."""
    entry = gallery.hiskv_printed()
    assert entry.true_epsilon == pytest.approx(1 + math.log(10 / 9))
    assert entry.law.epsilon == pytest.approx(1 + math.log(10 / 9))
    assert round(entry.true_epsilon, 3) == 1.105 and entry.buggy


@pytest.mark.parametrize(
    ("entry", "name", "d", "length"),
    [(gallery.hiskv_entry(), "HISKV", 3, 2), (gallery.pckv_grr(), "PCKV-GRR", 3, 2),
     (gallery.pckv_ue(), "PCKV-UE", 2, 1), (gallery.kvue_entry(), "KVUE", 2, 1),
     (gallery.kvoh_entry(), "KVOH", 2, 1), (gallery.privkv_entry(), "PrivKV", 2, 1),
     (gallery.harmony_entry(), "Harmony", 2, 1), (gallery.kv_sue_entry(), "SUE", 2, 1),
     (gallery.privkvm_entry(fake_means=(-1.0, -1.0, -1.0)), "PrivKVM", 2, 1)],
    ids=lambda x: x if isinstance(x, str) else "",
)  # fmt: skip
def test_key_value_worst_pairs_reach_the_product_exact_check(entry, name, d, length):
    """The worst pair's exact ε equals dpcore.ldp.privacy.check's user level, which takes
    the worst log-ratio over all sets at once (a different computation)."""
    check = privacy.check(name, 1.0, d, length)
    assert entry.true_epsilon == pytest.approx(check.user_level, rel=1e-12)
    assert entry.true_epsilon <= 1.0 + 1e-12


def test_privkvm_true_epsilon_by_hand():
    """Each round keeps presence and sign w.p. p = e^(eps/6) / (1 + e^(eps/6)) (eps/3 each,
    halved between them). Reporting <1, +1> costs p^2 on a held +1 and (1 - p) P[fake +1] on
    an absent key: fake mean 0 gives P[fake +1] = 1/2, fake mean -1 gives 1 - p. Repeating
    it in all three rounds on {} against {0:+1} is the worst output: ln(2 p^2 / (1 - p))
    plus 2 ln(p^2 / (1 - p)^2) = 2 eps/3, below the claimed eps."""
    eps = 1.0
    p = math.exp(eps / 6) / (1 + math.exp(eps / 6))
    want = math.log(2 * p**2 / (1 - p)) + 2 * eps / 3
    entry = gallery.privkvm_entry(eps)
    assert entry.true_epsilon == pytest.approx(want, rel=1e-12)
    assert round(want, 3) == 0.913 and not entry.buggy
    worst = gallery.privkvm_entry(eps, fake_means=(-1.0, -1.0, -1.0))
    assert worst.true_epsilon == pytest.approx(eps, rel=1e-12) and not worst.buggy


@pytest.mark.parametrize(("values", "bits_differing"), [((0, 7), 8), ((0, 1), 6)])
def test_rappor_true_epsilon_counts_the_differing_bloom_bits(values, bits_differing):
    """A kept bit is reported w.p. 1 - f/2, a flipped one w.p. f/2, independently: each bit
    where the filters differ moves the log-ratio by ln((1 - f/2)/(f/2)) = ln(21/19) at
    f = 0.95; RAPPOR claims 2h of them (0.80 at h = 4), reached by disjoint filters. Values
    0 and 1 share one of their 4 bits (a hash collision): 6 differ, 0.60."""
    f, h = 0.95, 4
    unit = math.log((1 - f / 2) / (f / 2))
    filters = [bloom_filter(v, 20, h) for v in values]
    assert [int(x.sum()) for x in filters] == [h, h]
    assert int((filters[0] != filters[1]).sum()) == bits_differing
    entry = gallery.rappor(f, 20, h, values)
    assert entry.claimed_epsilon == pytest.approx(2 * h * math.log(21 / 19))
    assert entry.true_epsilon == pytest.approx(bits_differing * unit, rel=1e-12)
    assert round(entry.true_epsilon, 2) == {8: 0.80, 6: 0.60}[bits_differing]


def test_svt3_is_caught_far_above_its_claim():
    """On "FALSE x 9, then TRUE with value v < 0" every FALSE is in the Laplace lower tail
    (rho <= v - T < 0), where moving an answer by 1 moves its probability by e^(eps/2):
    the density ratio is e^(9 eps/2 - eps/2) = e^4 at eps = 1, so a bound well above the
    claim is there to be found; the true eps, unbounded in the number of queries, is inf."""
    entry = gallery.svt3()
    assert entry.true_epsilon == math.inf and entry.buggy
    assert run(entry, 50_000) > 1.5


def test_exponential_pair_epsilon_by_hand():
    """Candidate 0 moves from weight e^(eps/2) among K - 1 ones to 1 among K - 1 weights of
    e^(eps/2): P/P' = e^(eps/2) (1 + (K - 1) e^(eps/2)) / (e^(eps/2) + K - 1)."""
    eps, k = 1.0, 8
    half = math.exp(eps / 2)
    want = math.log(half * (1 + (k - 1) * half) / (half + k - 1))
    assert gallery.exponential(eps, k).true_epsilon == pytest.approx(want)
    assert gallery.exponential(eps, 1000).true_epsilon == pytest.approx(eps, abs=2e-3)


@pytest.mark.parametrize(("maker", "true"), [
    (lambda: gallery.randomized_response(0.75), math.log(3)),
    (lambda: gallery.grr(0.7, 5), 0.7),
    (lambda: gallery.sue(0.8, 4), 0.8),
    (lambda: gallery.sue(0.8, 4, stated_sensitivity=0.5), 1.6),
])  # fmt: skip
def test_frequency_oracles_exact_epsilon_by_hand(maker, true):
    assert maker().true_epsilon == pytest.approx(true)


def test_noisy_max_returning_the_value_is_audited_close_to_l_eps0_over_2():
    """(L/2) eps0 = 2.5 at L = 5, eps0 = 1: an upper bound, attained below output 1."""
    assert 2.2 < run(gallery.noisy_max_value(), 200_000) <= 2.5


def test_the_floating_point_flaw_needs_its_score():
    """Without the last-bits score the auditor sees a correct Laplace mechanism."""
    entry = gallery.floating_point_laplace()
    blind = lower_bound(
        entry.sample_d, entry.sample_d_prime, samples=50_000, rng=np.random.default_rng(0)
    )
    assert blind.epsilon <= 1.0 < run(entry, 50_000)
