"""MWEM, EFPA, P-HP and AHP: each step against a brute-force or plain-loop oracle."""

import math
from collections import Counter
from itertools import pairwise

import numpy as np
import pytest

from dpcore.algorithms import release
from dpcore.algorithms.acs import (
    efpa_kept_sizes,
    efpa_noise_scale,
    efpa_scores,
    from_real_fourier,
    php,
    php_split_costs,
    php_split_parts,
    prefix_abs_deviation,
    real_fourier,
)
from dpcore.algorithms.ahp import extension_costs, greedy_clusters
from dpcore.algorithms.common import Ranges
from dpcore.algorithms.mwem import multiplicative_weights, query_bounds, select_query
from dpcore.mechanisms.exponential import exponential_probabilities

NEW = ("MWEM", "EFPA", "PHP", "AHP")


# ------------------------------------------------------------------------------ MWEM


def test_multiplicative_update_matches_the_formula_with_dense_queries():
    rng = np.random.default_rng(0)
    x = rng.random(9) + 0.5
    total = x.sum()
    lo, hi = np.array([0, 3, 2]), np.array([4, 3, 8])
    measured = np.array([2.0, 1.5, 3.0])
    slow = x.copy()
    for _ in range(4):
        for a, b, m in zip(lo, hi, measured, strict=True):
            q = np.zeros(9)
            q[a : b + 1] = 1.0
            slow = slow * np.exp(q * (m - q @ slow) / (2.0 * total))
            slow = slow * total / slow.sum()
    assert np.allclose(multiplicative_weights(x, lo, hi, measured, total, 4), slow)


@pytest.mark.parametrize("kind", ["prefix", "all ranges", "listed"])
def test_query_selection_follows_the_exponential_mechanism(kind):
    """Brute force: enumerate every remaining query's score |q(d)|; 40,000 seeded draws
    match exp(eps |q(d)| / 2) / Z within 5 binomial standard deviations each."""
    d = np.array([1.0, -2.0, 0.5, 3.0])
    workload = (
        Ranges(kind, 4)
        if kind != "listed"
        else Ranges("listed", 4, np.array([0, 1, 2, 0]), np.array([3, 2, 3, 0]))
    )
    lo, hi = workload.bounds()
    excluded = [1]
    scores = np.array([abs(d[a : b + 1].sum()) for a, b in zip(lo, hi, strict=True)])
    keep = np.setdiff1d(np.arange(lo.size), excluded)
    expected = np.zeros(lo.size)
    expected[keep] = exponential_probabilities(scores[keep], 0.8, 1.0)
    rng = np.random.default_rng(4)
    draws = 40_000
    picks = [select_query(d, 0.8, workload, excluded, rng) for _ in range(draws)]
    freq = np.bincount(picks, minlength=lo.size) / draws
    assert np.all(np.abs(freq - expected) <= 5 * np.sqrt(expected * (1 - expected) / draws) + 1e-12)
    assert [query_bounds(workload, k) for k in range(lo.size)] == list(
        zip(lo.tolist(), hi.tolist(), strict=True)
    )


# ------------------------------------------------------------------------------ EFPA


def _dense_real_fourier_basis(n):
    """Rows: the orthonormal real Fourier basis built from numpy's dense DFT matrix."""
    dft = np.fft.fft(np.eye(n)) / np.sqrt(n)  # row j: exp(-2 pi i j t / n) / sqrt(n)
    rows = [dft[0].real]
    for j in range(1, (n + 1) // 2):
        rows += [np.sqrt(2) * dft[j].real, np.sqrt(2) * dft[j].imag]
    if n % 2 == 0:
        rows.append(dft[n // 2].real)
    return np.array(rows)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 13])
def test_fourier_truncation_matches_the_dense_dft_matrix(n):
    x = np.random.default_rng(n).random(n) * 10
    basis = _dense_real_fourier_basis(n)
    assert np.allclose(basis @ basis.T, np.eye(n))
    c = real_fourier(x)
    assert np.allclose(c, basis @ x)
    for k in efpa_kept_sizes(n):
        truncated = np.where(np.arange(n) < k, c, 0.0)
        assert np.allclose(from_real_fourier(truncated), basis[:k].T @ (basis[:k] @ x))
    kept = efpa_kept_sizes(n)
    dropped = [np.linalg.norm(x - basis[:k].T @ (basis[:k] @ x)) for k in kept]
    noise = [efpa_noise_scale(int(k), n, 0.4) * np.sqrt(2 * k) for k in kept]
    assert np.allclose(efpa_scores(c, 0.4), -(np.array(dropped) + noise))


@pytest.mark.parametrize("n", [2, 7, 16])
def test_efpa_noise_covers_the_l1_sensitivity_of_the_kept_coefficients(n):
    """Brute force over every bin moved by one record: the L1 change of the first k
    coefficients never exceeds lambda_k eps_2 (nor the paper's sqrt(k))."""
    basis = _dense_real_fourier_basis(n)
    for k in efpa_kept_sizes(n):
        worst = np.abs(basis[:k]).sum(axis=0).max()
        assert worst <= efpa_noise_scale(int(k), n, 1.0) + 1e-12
        assert efpa_noise_scale(int(k), n, 1.0) <= np.sqrt(k) + 1e-12


# ------------------------------------------------------------------------------- P-HP


@pytest.mark.parametrize("m", [1, 5, 40, 300])
def test_split_costs_match_brute_force(m):
    """Both paths of prefix_abs_deviation (all pairs below 256, dyadic blocks above)."""
    rng = np.random.default_rng(m)
    v = rng.integers(0, 6, m).astype(float) * rng.integers(0, 2, m)  # ties and zeros
    brute = [np.abs(v[:p] - v[:p].mean()).sum() for p in range(1, m + 1)]
    assert np.allclose(prefix_abs_deviation(v), brute)
    costs = [
        np.abs(v[:p] - v[:p].mean()).sum() + np.abs(v[p:] - v[p:].mean()).sum() for p in range(1, m)
    ]
    assert np.allclose(php_split_costs(v), costs)
    left, right = php_split_parts(v)
    assert np.allclose(left, brute[:-1])
    assert np.allclose(right, [np.abs(v[p:] - v[p:].mean()).sum() for p in range(1, m)])


def test_php_buckets_are_contiguous_and_constant():
    counts = np.repeat([0.0, 30.0, 2.0, 80.0], 16)
    run = release("PHP", counts, 1.0, workload="prefix", rng=np.random.default_rng(2))
    assert run.buckets is not None and run.buckets[0] == 0
    assert np.all(np.diff(run.buckets) > 0)
    for piece in np.split(run.estimate, run.buckets[1:]):
        assert np.all(piece == piece[0]) and piece[0] >= 0


def _php_partitions(x, eps):
    """P-HP's exact distribution of bucket starts, enumerating every run of the authors'
    loop (Clustering.py as DPComp runs it): a list of clusters, the first one not final
    is split (or not) by the exponential mechanism, children appended; every partition
    met is a candidate, one chosen by the exponential mechanism at the end. Stops once
    every cluster is final (dpcore's rule, see :func:`php`)."""
    n, b = x.size, 2.0 / eps
    depth = max(1, int(math.log2(n)))

    def dev(lo, hi):
        return float(np.abs(x[lo:hi] - x[lo:hi].mean()).sum())

    def error(clusters):
        return sum(dev(lo, hi) + b for lo, hi, _, _ in clusters)

    def chances(scores, e):  # exp(e u / (2 * 2)) normalised: sensitivity 2
        u = np.array(scores)
        w = np.exp(e * (u - u.max()) / 4.0)
        return w / w.sum()

    out = Counter()

    def walk(clusters, candidates, prob):
        waiting = [c for c in clusters if not c[3]]
        if not waiting or len(clusters) >= n:
            scores = [-error(c) for c in candidates]
            for chosen, q in zip(candidates, chances(scores, eps / 4.0), strict=True):
                out[tuple(sorted(lo for lo, _, _, _ in chosen))] += prob * q
            return
        lo, hi, level, _ = waiting[0]
        total = error(clusters)
        scores = [-total] + [
            -total + dev(lo, hi) + b - dev(lo, p) - dev(p, hi) - 2 * b for p in range(lo + 1, hi)
        ]
        for choice, q in enumerate(chances(scores, eps / 4.0 / depth)):
            if choice == 0:
                rest = tuple((a, z, v, r or (a, z) == (lo, hi)) for a, z, v, r in clusters)
                more = any(not r for _, _, _, r in rest)
                walk(rest, (*candidates, rest) if more else candidates, prob * q)
            else:
                cut = lo + choice
                kids = tuple(
                    (a, z, level + 1, z - a == 1 or level + 1 == depth)
                    for a, z in ((lo, cut), (cut, hi))
                )
                rest = tuple(c for c in clusters if c[:2] != (lo, hi)) + kids
                walk(rest, (*candidates, rest), prob * q)

    root = ((0, n, 1, n == 1),)
    walk(root, (root,), 1.0)
    return out


def _prefix_mse(x, starts, eps):
    """Mean squared prefix error of a release on the buckets ``starts``: each bucket's
    mean plus ``Lap(2 / eps) / size`` (no clipping at these counts), bias plus variance."""
    n = x.size
    edges = [*starts, n]
    total = 0.0
    for p in range(n):
        bias = variance = 0.0
        for lo, hi in pairwise(edges):
            inside = max(0, min(hi, p + 1) - lo)
            bias += inside * x[lo:hi].mean() - x[lo : lo + inside].sum()
            variance += (inside / (hi - lo)) ** 2 * 2 * (2 / eps) ** 2
        total += bias**2 + variance
    return total / n


def test_php_matches_the_enumerated_authors_loop():
    """Seeded simulation (seed 5, 3,000 runs) on 8 bins with two levels of splits: each
    partition's frequency is within 5 binomial standard errors (+0.002) of its exact
    probability, and the mean squared prefix error within 4 standard errors of the exact
    one (the partitions' probabilities times each one's bias and Laplace variance)."""
    x = np.array([40.0, 44, 90, 96, 41, 45, 200, 210])
    exact = _php_partitions(x, 1.0)
    assert math.isclose(sum(exact.values()), 1.0)
    workload, runs = Ranges("prefix", 8), 3000
    rng = np.random.default_rng(5)
    releases = [php(x, 1.0, workload, rng) for _ in range(runs)]
    seen = Counter(tuple(r.buckets.tolist()) for r in releases)
    assert set(seen) <= set(exact)
    for starts, p in exact.items():
        assert abs(seen[starts] / runs - p) <= 5 * math.sqrt(p * (1 - p) / runs) + 0.002
    squared = [np.mean((np.cumsum(r.estimate) - np.cumsum(x)) ** 2) for r in releases]
    expected = sum(p * _prefix_mse(x, starts, 1.0) for starts, p in exact.items())
    assert abs(np.mean(squared) - expected) <= 4 * np.std(squared) / math.sqrt(runs)


# -------------------------------------------------------------------------------- AHP


def _plain_err(prefix, squares, i, j, noise):
    length = j - i + 1
    avg = (prefix[j] - prefix[i - 1]) / length
    return squares[j] - squares[i - 1] - length * avg * avg + noise / length


def _plain_err_star(xj, prefix, j, n, noise):
    length, c = 1, prefix[j] - prefix[j - 1]
    e1, e2 = (xj - c) * (xj - c), noise
    best, last1, last2 = e1 + e2, e1, e2
    bound = noise / ((n - j + 1) * (n - j + 1))
    for ell in range(j + 1, n):
        length += 1
        c = (prefix[ell] - prefix[j - 1]) / length
        e1, e2 = (xj - c) * (xj - c), noise / (length * length)
        if e1 - last1 >= last2 - bound:
            break
        best, last1, last2 = min(e1 + e2, best), e1, e2
    return best


def _plain_greedy(values, eps):
    """The clustering loop written out one value at a time, 1-based as in the paper."""
    x = np.concatenate(([0.0], values))
    prefix, squares = np.cumsum(x), np.cumsum(x**2)
    n, noise = x.size, 2.0 / (eps * eps)
    starts, i = [0], 1
    last = _plain_err(prefix, squares, 1, 1, noise)
    for j in range(2, n):
        now = _plain_err(prefix, squares, i, j, noise)
        if now >= last + _plain_err_star(x[j], prefix, j, n, noise):
            starts.append(j - 1)
            i = j
            last = _plain_err(prefix, squares, i, j, noise)
        else:
            last = now
    return starts, [_plain_err_star(x[j], prefix, j, n, noise) for j in range(2, n)]


@pytest.mark.parametrize("seed", range(6))
def test_ahp_clustering_matches_the_plain_loop(seed):
    rng = np.random.default_rng(seed)
    m = [1, 3, 30, 90, 200, 400][seed]
    noisy = rng.integers(0, 40, m) * (rng.random(m) < 0.4) + rng.laplace(0, 1, m)
    values = np.sort(np.where(noisy <= 1.5, 0.0, noisy))
    starts, stars = _plain_greedy(values, 0.3)
    assert greedy_clusters(values, 0.3).tolist() == starts
    assert np.array_equal(extension_costs(values, 0.3)[1:], stars)


@pytest.mark.parametrize("seed", range(4))
def test_ahp_clustering_matches_the_plain_loop_on_long_runs_of_ties(seed):
    """The scan starts past each run of equal values: long zero runs and integer ties."""
    rng = np.random.default_rng(seed)
    m = [50, 300, 700, 1200][seed]
    counts = rng.integers(1, 8, m) * (rng.random(m) < 0.2)
    values = np.sort(counts.astype(float) * [1.0, 1.0, 2.5, 40.0][seed])
    starts, stars = _plain_greedy(values, [0.3, 1.0, 0.15, 0.05][seed])
    assert greedy_clusters(values, [0.3, 1.0, 0.15, 0.05][seed]).tolist() == starts
    assert np.array_equal(extension_costs(values, [0.3, 1.0, 0.15, 0.05][seed])[1:], stars)


# ----------------------------------------------------------------------- all four


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_budget_splits_sum_to_eps(name, eps):
    run = release(name, np.arange(20.0), eps, workload="prefix", rng=np.random.default_rng(0))
    assert math.fsum(run.budget.values()) == pytest.approx(eps, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW)
def test_each_beats_identity_on_a_sparse_piecewise_constant_histogram(name):
    """Seeded simulation (seed 7, 30 runs): 1,024 bins in 4 flat pieces, 256 records, eps = 1.
    Each algorithm's mean absolute prefix error is below 0.8 times Identity's (a margin
    the data-dependent algorithms should clear on such data)."""
    counts = np.repeat([0.3, 0.2, 0.3, 0.2], 256)
    workload = Ranges("prefix", 1024)
    rng = np.random.default_rng(7)

    def error(algorithm):
        runs = [
            release(algorithm, counts, 1.0, workload="prefix", rng=rng).estimate for _ in range(30)
        ]
        return np.mean([np.abs(workload.answer(r - counts)).mean() for r in runs])

    assert error(name) < 0.8 * error("Identity")
