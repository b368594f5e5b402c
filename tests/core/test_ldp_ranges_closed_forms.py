"""Range queries under LDP: closed forms against spec 07's worked values and a dense oracle.

The dense oracle is written here from the definitions: every level's measurement rows (node
indicators over the bins), the oracles' covariances from their own report probabilities, the
answer's weights (decomposition by definition, or the constrained GLS solved densely), and
the variance ``c^T Σ c`` of every range.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.hist.tree import kary_tree
from dpcore.ldp.ranges import (
    average_variance,
    flat_average_variance,
    flat_range_variance,
    haar_average_variance,
    haar_range_variance,
    ldp_tree,
    optimal_fanout,
    tree_average_variance,
    tree_range_variance,
)
from tests.oracles import canonical_nodes

EPS = 1.0
V = 4 * math.e / (math.e - 1) ** 2  # V(1) = 3.682694 (spec 07 section 1)
C2 = ((math.e + 1) / (math.e - 1)) ** 2  # c(1)^2 = 4.682694


def test_spec_constants():
    assert math.isclose(V, 3.682694, abs_tol=1e-6)
    assert math.isclose(C2, V + 1)


# ------------------------------------------------------------ spec 07 section 6, D = 256

SPEC_TREE = {  # B: (average none, BLUE, authors, worst none, worst BLUE), units V/N
    2: (48.37, 12.40, 14.15, 112, 19.31),
    4: (34.96, 11.80, 12.85, 80, 18.41),
    16: (37.74, 14.73, 15.02, 88, 22.59),
}


@pytest.mark.parametrize("fanout", sorted(SPEC_TREE))
def test_tree_matches_the_spec_table_at_256(fanout):
    users = 10**6
    unit = V / users
    plan = ldp_tree(256, fanout, eps=EPS, users=users)
    avg_none, avg_blue, avg_authors, worst_none, worst_blue = SPEC_TREE[fanout]
    rel = 5e-4  # the spec prints 4 significant figures
    assert tree_average_variance(plan) / unit == pytest.approx(avg_none, rel=rel)
    assert tree_average_variance(plan, consistency="blue") / unit == pytest.approx(
        avg_blue, rel=rel
    )
    authors = tree_average_variance(plan, consistency="authors") / unit
    assert authors == pytest.approx(avg_authors, rel=rel)
    a, b = np.triu_indices(256)
    assert tree_range_variance(plan, a, b).max() / unit == pytest.approx(worst_none, rel=rel)
    worst = tree_range_variance(plan, a, b, consistency="blue").max() / unit
    assert worst == pytest.approx(worst_blue, rel=rel)
    headline = average_variance(
        "hh-oue", domain=256, eps=EPS, users=users, fanout=fanout, consistent=True
    )
    assert headline / unit == pytest.approx(avg_blue, rel=rel)


def test_flat_and_haar_match_the_spec_table_at_256():
    users = 10**6
    flat = average_variance("flat-oue", domain=256, eps=EPS, users=users)
    assert flat / (V / users) == pytest.approx((256 + 2) / 3)  # 86.0
    haar = average_variance("haar-hrr", domain=256, eps=EPS, users=users)
    assert haar / (C2 / users) == pytest.approx(9.571, rel=5e-4)
    a, b = np.triu_indices(256)
    worst = haar_range_variance(256, EPS, users, a, b).max() / (C2 / users)
    assert worst == pytest.approx(14.45, rel=5e-4)


def test_haar_against_hh4_crossover_near_eps_093():
    # spec 07 section 8: HaarHRR (c^2) and HH4 with the exact BLUE (V) tie at eps* = 0.931
    def gap(eps: float) -> float:
        tree = average_variance(
            "hh-oue", domain=256, eps=eps, users=1000, fanout=4, consistent=True
        )
        return average_variance("haar-hrr", domain=256, eps=eps, users=1000) - tree

    assert gap(0.92) < 0 < gap(0.94)


def test_flat_beats_the_blue_tree_only_for_short_ranges_at_256():
    # spec 07 section 8: flat OUE wins for r < 9 against HH4 with the exact BLUE
    plan = ldp_tree(256, 4, eps=EPS, users=1000)
    a = np.arange(0, 256 - 12)
    for length, flat_wins in ((8, True), (9, False)):
        b = a + length - 1
        tree = tree_range_variance(plan, a, b, consistency="blue").mean()
        flat = flat_range_variance("oue", eps=EPS, users=1000, a=a, b=b, domain=256).mean()
        assert (flat < tree) == flat_wins


# -------------------------------------------------------------------------- dense oracle


def _pq(oracle: str, eps: float, k: int) -> tuple[float, float]:
    e = math.exp(eps)
    if oracle == "grr":
        return e / (e + k - 1), 1 / (e + k - 1)
    if oracle == "oue":
        return 0.5, 1 / (e + 1)
    g = max(2, math.floor(e + 1))  # olh
    return e / (e + g - 1), 1 / g


def dense_covariance(oracle: str, eps: float, m: float, f: np.ndarray) -> np.ndarray:
    """Covariance of one group's item estimates, from the report probabilities."""
    if oracle == "hrr":
        # each user's term c * y * phi_j(v) has mean delta/c... variance c^2 - delta (per user)
        c2 = ((math.exp(eps) + 1) / math.expm1(eps)) ** 2
        return np.diag(c2 - f) / m
    p, q = _pq(oracle, eps, f.size)
    if oracle == "grr":
        # each user's report is categorical given her item, P(y | x) = q + (p - q)[y = x]:
        # sum_x f_x (diag P_x - P_x P_x^T), expanded with sum_x f_x = 1 so that f = 0 leaves
        # the noise-only part
        ones = np.ones(f.size)
        second = q * q * np.outer(ones, ones) + q * (p - q) * (
            np.outer(f, ones) + np.outer(ones, f)
        )
        cov = np.diag(q + (p - q) * f) - second - (p - q) ** 2 * np.diag(f)
        return cov / (m * (p - q) ** 2)
    # independent supports: Bin(f m, p) + Bin((1 - f) m, q) per item
    return np.diag(f * p * (1 - p) + (1 - f) * q * (1 - q)) / (m * (p - q) ** 2)


def measurements(tree, oracles, eps, users, split, f):
    """Measurement rows (bin indicators), per-row node, and block-diagonal covariance."""
    h = tree.height - 1
    rows, owner, blocks = [], [], []
    m = users if split else users / h
    level_eps = eps / h if split else eps
    for depth in range(1, h + 1):
        items = [
            x
            for x in range(tree.size)
            if tree.depth[x] == depth or (tree.is_leaf[x] and tree.depth[x] < depth)
        ]
        items.sort(key=lambda x: tree.lo[x])
        indicator = np.zeros((len(items), tree.n_bins))
        for i, x in enumerate(items):
            indicator[i, tree.lo[x] : tree.hi[x] + 1] = 1
        rows.append(indicator)
        owner.extend(items)
        frac = indicator @ f
        blocks.append(dense_covariance(oracles[depth - 1], level_eps, m, frac))
    size = sum(b.shape[0] for b in blocks)
    cov = np.zeros((size, size))
    start = 0
    for b in blocks:
        cov[start : start + b.shape[0], start : start + b.shape[0]] = b
        start += b.shape[0]
    return np.vstack(rows), np.array(owner), cov


def dense_weights(tree, rows, owner, cov0, ranges, consistency):
    """Each range answer's weights on the measurements."""
    out = []
    if consistency == "none":
        # a node measured at several levels: the inverse-variance mean of its replicas
        precision = 1 / np.diag(cov0)
        for a, b in ranges:
            w = np.zeros(owner.size)
            for x in canonical_nodes(tree, a, b):
                if x != 0:  # the root is known: the full range costs nothing
                    mine = owner == x
                    w[mine] = precision[mine] / precision[mine].sum()
            out.append(w)
        return np.array(out)
    # constrained weighted least squares: min (y - A x)^T W (y - A x) s.t. sum(x) = 1 with
    # W = diag(1 / marginal noise-only variance): the GLS (BLUE) when levels are uncorrelated
    precision = np.diag(1 / np.diag(cov0))
    info = rows.T @ precision @ rows
    inv = np.linalg.inv(info)
    one = np.ones(tree.n_bins)
    projector = inv - np.outer(inv @ one, one @ inv) / (one @ inv @ one)
    linear = projector @ rows.T @ precision
    for a, b in ranges:
        q = np.zeros(tree.n_bins)
        q[a : b + 1] = 1
        out.append(q @ linear)
    return np.array(out)


CASES = [  # domain, fan-out, oracles per level, split eps
    (8, 2, "oue", False),
    (16, 4, "olh", False),
    (12, 3, "hrr", False),
    (16, 2, "oue", True),
    (12, 3, ("hrr", "olh", "oue"), True),
    (12, 3, ("oue", "hrr", "olh"), False),
]


@pytest.mark.parametrize(("domain", "fanout", "oracle", "split"), CASES)
@pytest.mark.parametrize("consistency", ["none", "blue"])
@pytest.mark.parametrize("with_data", [False, True])
def test_tree_closed_forms_match_the_dense_oracle(
    domain, fanout, oracle, split, consistency, with_data
):
    users = 5000
    tree = kary_tree(domain, fanout)
    plan = ldp_tree(
        domain, fanout, eps=EPS, users=users, oracle=oracle, levels="split" if split else "sample"
    )
    oracles = plan.oracles
    f = np.random.default_rng(domain).dirichlet(np.ones(domain))
    rows, owner, cov0 = measurements(tree, oracles, EPS, users, split, np.zeros(domain))
    _, _, cov = measurements(tree, oracles, EPS, users, split, f if with_data else np.zeros(domain))
    ranges = [(a, b) for a in range(domain) for b in range(a, domain)]
    weights = dense_weights(tree, rows, owner, cov0, ranges, consistency)
    expected = np.einsum("ri,ij,rj->r", weights, cov, weights)
    a, b = np.array(ranges).T
    freqs = f if with_data else None
    got = tree_range_variance(plan, a, b, consistency=consistency, frequencies=freqs)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * expected.max())
    average = tree_average_variance(plan, consistency=consistency, frequencies=freqs)
    assert average == pytest.approx(expected.mean(), rel=1e-9)
    prefix = tree_average_variance(
        plan, consistency=consistency, frequencies=freqs, ranges="prefix"
    )
    assert prefix == pytest.approx(expected[a == 0].mean(), rel=1e-9)


def test_blue_is_the_gls_for_uncorrelated_levels():
    # the dense oracle's diagonal weights equal the full GLS when no level covaries
    tree = kary_tree(12, 3)
    rows, owner, cov0 = measurements(tree, ("hrr", "olh", "oue"), EPS, 5000, False, np.zeros(12))
    ranges = [(a, b) for a in range(12) for b in range(a, 12)]
    wls = dense_weights(tree, rows, owner, cov0, ranges, "blue")
    info = rows.T @ np.linalg.inv(cov0) @ rows
    inv = np.linalg.inv(info)
    one = np.ones(12)
    gls = (inv - np.outer(inv @ one, one @ inv) / (one @ inv @ one)) @ rows.T @ np.linalg.inv(cov0)
    for (a, b), w in zip(ranges, wls, strict=True):
        np.testing.assert_allclose(w, gls[a : b + 1].sum(axis=0), atol=1e-12)


@pytest.mark.parametrize("consistency", ["none", "blue"])
def test_grr_levels_match_the_dense_oracle(consistency):
    domain, fanout, users = 16, 2, 4000
    tree = kary_tree(domain, fanout)
    oracles = ("grr", "grr", "oue", "oue")
    plan = ldp_tree(domain, fanout, eps=EPS, users=users, oracle=oracles)
    f = np.random.default_rng(3).dirichlet(np.ones(domain))
    rows, owner, cov0 = measurements(tree, oracles, EPS, users, False, np.zeros(domain))
    _, _, cov = measurements(tree, oracles, EPS, users, False, f)
    ranges = [(a, b) for a in range(domain) for b in range(a, domain)]
    weights = dense_weights(tree, rows, owner, cov0, ranges, consistency)
    a, b = np.array(ranges).T
    for freqs, covariance in ((None, cov0), (f, cov)):
        expected = np.einsum("ri,ij,rj->r", weights, covariance, weights)
        got = tree_range_variance(plan, a, b, consistency=consistency, frequencies=freqs)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * expected.max())
        average = tree_average_variance(plan, consistency=consistency, frequencies=freqs)
        assert average == pytest.approx(expected.mean(), rel=1e-9)
    if consistency == "none":
        # summing GRR's node variances would overstate it (negative covariances)
        independent = np.einsum("ri,i,ri->r", weights, np.diag(cov), weights)
        assert (independent >= expected - 1e-15).all() and (independent > expected * 1.01).any()


@pytest.mark.parametrize("oracle", ["grr", "oue", "olh", "hrr"])
def test_flat_closed_forms_match_the_dense_oracle(oracle):
    domain, users = 12, 3000
    f = np.random.default_rng(5).dirichlet(np.ones(domain))
    for freqs in (None, f):
        cov = dense_covariance(oracle, EPS, users, np.zeros(domain) if freqs is None else f)
        ranges = [(a, b) for a in range(domain) for b in range(a, domain)]
        expected = np.array([cov[a : b + 1, a : b + 1].sum() for a, b in ranges])
        a, b = np.array(ranges).T
        got = flat_range_variance(oracle, eps=EPS, users=users, a=a, b=b, domain=domain,
                                  frequencies=freqs)  # fmt: skip
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * expected.max())
        kw = dict(eps=EPS, users=users, domain=domain, frequencies=freqs)
        assert flat_average_variance(oracle, **kw) == pytest.approx(expected.mean(), rel=1e-9)
        prefix = flat_average_variance(oracle, ranges="prefix", **kw)
        assert prefix == pytest.approx(expected[a == 0].mean(), rel=1e-9)


def test_the_grr_oracle_is_the_sum_over_users_of_their_categorical_reports():
    """A fixed group: each user's report, given her item, is one categorical draw; on the
    simplex the oracle is that sum. (The multinomial of the mixture ``pi``, the law of users
    drawn i.i.d. from ``f``, is larger by ``(diag f - f f^T)/m``: 27% of a node's variance
    at K = 2, eps = 1, f = 1/2 -- the closed form had it until November 2026.)"""
    k, m = 5, 700.0
    f = np.random.default_rng(9).dirichlet(np.ones(k))
    p, q = _pq("grr", EPS, k)
    report = q + (p - q) * np.eye(k)  # row x: P(report y | item x)
    per_user = sum(
        fx * (np.diag(row) - np.outer(row, row)) for fx, row in zip(f, report, strict=True)
    )
    np.testing.assert_allclose(dense_covariance("grr", EPS, m, f), per_user / (m * (p - q) ** 2))
    pi = q + (p - q) * f
    iid = (np.diag(pi) - np.outer(pi, pi)) / (m * (p - q) ** 2)
    np.testing.assert_allclose(
        iid - per_user / (m * (p - q) ** 2), (np.diag(f) - np.outer(f, f)) / m
    )


@pytest.mark.parametrize("domain", [8, 16])
def test_haar_closed_forms_match_the_dense_wavelet_matrix(domain):
    users, h = 4000, int(math.log2(domain))
    f = np.random.default_rng(domain).dirichlet(np.ones(domain))
    # one row per coefficient: +1/s on the left half of its node, -1/s on the right
    rows, mass = [], []
    for k in range(h):
        size = domain >> k
        for u in range(1 << k):
            row = np.zeros(domain)
            row[u * size : u * size + size // 2] = 1 / size
            row[u * size + size // 2 : (u + 1) * size] = -1 / size
            rows.append(row)
            mass.append(f[u * size : (u + 1) * size].sum())
    wavelet = np.array(rows)
    ranges = [(a, b) for a in range(domain) for b in range(a, domain)]
    a, b = np.array(ranges).T
    for freqs in (None, f):
        coef_var = (C2 - (0 if freqs is None else np.array(mass))) * h / users
        expected = np.array(
            [((wavelet[:, lo : hi + 1].sum(axis=1)) ** 2 * coef_var).sum() for lo, hi in ranges]
        )
        got = haar_range_variance(domain, EPS, users, a, b, frequencies=freqs)
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12 * expected.max())
        average = haar_average_variance(domain, EPS, users, frequencies=freqs)
        assert average == pytest.approx(expected.mean(), rel=1e-9)
        prefix = haar_average_variance(domain, EPS, users, frequencies=freqs, ranges="prefix")
        assert prefix == pytest.approx(expected[a == 0].mean(), rel=1e-9)


def test_splitting_eps_costs_more_than_sampling_by_the_spec_ratio():
    # spec 07 section 3: per-node ratio V(eps/h) / (h V(eps)), 4.32 at h = 4, eps = 1
    def v(eps: float) -> float:
        return 4 * math.exp(eps) / math.expm1(eps) ** 2

    assert v(0.25) / (4 * v(1.0)) == pytest.approx(4.32, abs=0.005)
    sample = ldp_tree(256, 4, eps=1.0, users=1000)
    split = ldp_tree(256, 4, eps=1.0, users=1000, levels="split")
    ratio = tree_average_variance(split) / tree_average_variance(sample)
    assert ratio == pytest.approx(v(0.25) / (4 * v(1.0)), rel=1e-12)


def test_optimal_fanout_is_small_under_ldp_and_large_centrally():
    # (B - 1)/ln^2 B is least near 4.92, (B - 1)/ln^3 B near 16.8 (spec 07 section 7)
    grid = np.arange(2.0, 40.0, 0.01)
    assert grid[np.argmin((grid - 1) / np.log(grid) ** 2)] == pytest.approx(4.92, abs=0.01)
    assert grid[np.argmin((grid - 1) / np.log(grid) ** 3)] == pytest.approx(16.8, abs=0.05)
    # among the spec's candidates at D = 256, B = 4 wins with and without consistency
    for consistent in (False, True):
        best = optimal_fanout(domain=256, eps=1.0, consistent=consistent, candidates=(2, 4, 16))
        assert best == 4
    assert optimal_fanout(domain=4096, eps=1.0, consistent=False, candidates=range(2, 21)) <= 8
