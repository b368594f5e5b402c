"""DAWA and GreedyH against brute force: partitions, weights, least squares, budgets."""

import itertools

import numpy as np
import pytest
from scipy.linalg import block_diag

from dpcore.algorithms import greedy_h, release
from dpcore.algorithms.common import as_workload
from dpcore.algorithms.dawa import best_partition, noisy_costs, window_deviations
from dpcore.algorithms.greedy_h import greedy_strategy, kernel
from dpcore.hist.release import laplace_release, node_sums


def dense_greedy(qtq, granu=100):
    """The paper's greedy recursion with explicit pseudo-inverses (DPComp's greedyH math)."""

    def rec(size, off, depth):
        cols = qtq[:, off : off + size]
        if size == 1 or (cols.min(axis=1) == cols.max(axis=1)).all():
            inv = np.full((size, size), 1.0 / size**2)
            return np.linalg.norm(cols[:, 0]) ** 2, inv, [1.0], [(off, off + size - 1)]
        bound = [(0, size // 2), (size // 2, size)]
        kids = [rec(b - a, off + a, depth + 1) for a, b in bound]
        parts = [r[1].sum(axis=0) for r in kids]
        u = np.hstack(parts)
        k = u.sum()
        m1 = sum(
            np.linalg.norm(cols[:, a:b] @ v) ** 2 for (a, b), v in zip(bound, parts, strict=False)
        )
        m = np.linalg.norm(cols @ u) ** 2
        decay = 1.0 / 2 ** (depth / 2.0)
        e1 = np.arange(granu, 0, -1.0) ** 2
        e2 = np.arange(granu) ** 2 * decay
        tot = (sum(r[0] for r in kids) - ((m - m1) * decay + m1) * e2 / (e1 + e2 * k)) / e1
        p = 1 - np.argmin(tot) / granu
        c = (1 - p) ** 2 / (p**2 + k * (1 - p) ** 2)
        inv = (block_diag(*[r[1] for r in kids]) - c * np.outer(u, u)) / p**2
        dist = [1 - p] + [p * w for r in kids for w in r[2]]
        return (
            tot.min() * granu**2,
            inv,
            dist,
            [(off, off + size - 1)] + [q for r in kids for q in r[3]],
        )

    _, _, dist, queries = rec(qtq.shape[0], 0, 0)
    return dict(zip(queries, dist, strict=True))


def reformed(spec, n, starts):
    """Q over the buckets: each bucket's column the mean of its bins' (materialised)."""
    lo, hi = as_workload(spec, n).bounds()
    q = np.zeros((lo.size, n))
    for row, (a, b) in enumerate(zip(lo, hi, strict=True)):
        q[row, a : b + 1] = 1.0
    ends = np.append(starts[1:], n)
    return np.column_stack([q[:, a:b].mean(axis=1) for a, b in zip(starts, ends, strict=True)])


CASES = [
    (n, spec, starts)
    for n in (1, 2, 3, 5, 8, 13)
    for spec in ("prefix", "all ranges", [(0, 0), (n // 2, n - 1)], [(n - 1, n - 1)])
    for starts in (np.arange(n), np.array([0, 1, 3]) if n > 4 else np.arange(n))
]


@pytest.mark.parametrize(("n", "spec", "starts"), CASES)
def test_workload_gram_and_greedy_weights_match_the_dense_recursion(n, spec, starts):
    q = reformed(spec, n, starts)
    k = kernel(as_workload(spec, n), starts)
    assert np.allclose(k.dense(), q.T @ q)
    expected = dense_greedy(q.T @ q)
    got = greedy_strategy(k)
    weights = {
        (int(a), int(b)): w for a, b, w in zip(got.tree.lo, got.tree.hi, got.weight, strict=True)
    }
    measured = {key for key, w in weights.items() if w > 0}
    assert measured == {key for key, w in expected.items() if w > 0}
    for key, w in expected.items():
        assert weights[key] == pytest.approx(w, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_greedy_weights_for_many_random_ranges_match_the_dense_recursion(seed):
    """Listed workloads with repeated, single-bin and bucket-cutting ranges."""
    rng = np.random.default_rng(seed)
    n = [24, 37, 50][seed]
    ends = np.sort(rng.integers(0, n, size=(60, 2)), axis=1)
    spec = [(int(a), int(b)) for a, b in ends] + [(3, 3), (3, 3), (0, n - 1)]
    starts = np.arange(n) if seed == 0 else np.unique(np.append(0, rng.integers(1, n, n // 3)))
    q = reformed(spec, n, starts)
    k = kernel(as_workload(spec, n), starts)
    assert np.allclose(k.dense(), q.T @ q)
    expected = dense_greedy(q.T @ q)
    got = greedy_strategy(k)
    weights = {
        (int(a), int(b)): w for a, b, w in zip(got.tree.lo, got.tree.hi, got.weight, strict=True)
    }
    assert {key for key, w in weights.items() if w > 0} == {
        key for key, w in expected.items() if w > 0
    }
    for key, w in expected.items():
        assert weights[key] == pytest.approx(w, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_listed_workload_gram_products_match_the_dense_gram(seed):
    """Q'Q u_v for every node v at once, against the dense Q'Q (bucket-cutting ranges)."""
    rng = np.random.default_rng(seed)
    n = [24, 37, 50][seed]
    ends = np.sort(rng.integers(0, n, size=(40, 2)), axis=1)
    spec = [(int(a), int(b)) for a, b in ends] + [(3, 3), (3, 3), (0, n - 1)]
    starts = np.arange(n) if seed == 0 else np.unique(np.append(0, rng.integers(1, n, n // 3)))
    k = kernel(as_workload(spec, n), starts)
    u = rng.random(k.size)
    lo = np.array([0, 2, 5, k.size - 1, 1])
    hi = np.array([k.size - 1, 2, 9, k.size - 1, 4])
    inside = (np.arange(k.size)[:, None] >= lo) & (np.arange(k.size)[:, None] <= hi)
    assert np.allclose(greedy_h._apply_listed(k, u, lo, hi), k.dense() @ (inside * u[:, None]))


@pytest.mark.parametrize("spec", ["prefix", "all ranges", [(0, 2), (2, 6), (5, 9)]])
def test_greedy_h_is_the_least_squares_fit_of_its_weighted_noisy_tree(spec):
    counts = np.array([4.0, 0, 9, 2, 2, 7, 1, 0, 3, 5])
    run = release("GreedyH", counts, 0.8, workload=spec, rng=np.random.default_rng(4))
    strategy = greedy_strategy(kernel(as_workload(spec, counts.size)))
    tree, weight = strategy.tree, strategy.weight
    noisy = laplace_release(tree, counts, 0.8 * weight, np.random.default_rng(4))
    rows = np.array([node_sums(tree, e) for e in np.eye(counts.size)]).T
    keep = weight > 0
    a = rows[keep] * weight[keep, None]
    fit = np.linalg.lstsq(a, noisy[keep] * weight[keep], rcond=None)[0]
    assert np.allclose(run.estimate, fit)
    paths = np.array([node_sums(tree, e) for e in np.eye(counts.size)]) @ weight
    assert np.allclose(paths, 1.0)  # sensitivity 1: every bin's weights sum to 1


def test_window_deviations_match_brute_force():
    x = np.array([3.0, 3, 0, 7, 1, 1, 1, 12, 0, 4, 4])
    dev = window_deviations(x)
    for j, i in itertools.product(range(dev.shape[0]), range(x.size)):
        a = i - 2**j + 1
        want = np.inf if a < 0 else np.abs(x[a : i + 1] - x[a : i + 1].mean()).sum()
        assert dev[j, i] == pytest.approx(want)


def partitions(n):
    """Every partition of 0..n-1 into power-of-2 buckets, as lists of starts."""
    if n == 0:
        yield []
        return
    length = 1
    while length <= n:
        for rest in partitions(n - length):
            yield [*rest, n - length]
        length *= 2


@pytest.mark.parametrize("noisy", [False, True])
def test_l1_partition_dynamic_program_matches_enumeration(noisy):
    rng = np.random.default_rng(8)
    for n in range(1, 10):
        x = rng.integers(0, 6, n).astype(float)
        rows = int(np.log2(n)) + 1
        noise = rng.laplace(size=(rows, n)) if noisy else np.zeros((rows, n))
        cost = noisy_costs(x, 0.3, 0.9, noise)
        starts, total = best_partition(cost)

        def price(p, cost=cost, n=n):
            ends = [*p[1:], n]
            return sum(cost[int(np.log2(b - a)), b - 1] for a, b in zip(p, ends, strict=True))

        brute = min(price(p) for p in partitions(n))
        assert total == pytest.approx(brute)
        assert price(list(starts)) == pytest.approx(brute)
        assert starts[0] == 0 and (np.diff(starts) > 0).all()


def _plain_partition(cost):
    """The L1-partition dynamic program one end and one length at a time (ties: longer)."""
    rows, n = cost.shape
    best, back = [0.0] * (n + 1), [0] * (n + 1)
    for end in range(1, n + 1):
        options = [(best[end - 2**j] + cost[j, end - 1], 2**j) for j in range(rows) if 2**j <= end]
        top = min(value for value, _ in options)
        best[end], back[end] = top, max(length for value, length in options if value == top)
    starts, end = [], n
    while end > 0:
        end -= back[end]
        starts.append(end)
    return starts[::-1], best[n]


@pytest.mark.parametrize("n", [63, 64, 65, 200, 1000])
@pytest.mark.parametrize("ties", [False, True])
def test_blocked_partition_program_matches_the_plain_one(n, ties):
    """Long buckets are taken a block of ends at a time; ties must still go to the longer."""
    rng = np.random.default_rng(n)
    rows = int(np.log2(n)) + 1
    cost = rng.integers(1, 4, (rows, n)) * (1 << np.arange(rows))[:, None] / 2.0
    if not ties:
        cost = cost + rng.random((rows, n))
    starts, total = best_partition(cost)
    plain_starts, plain_total = _plain_partition(cost)
    assert starts.tolist() == plain_starts
    assert total == plain_total


def test_dawa_budget_and_buckets():
    counts = np.repeat([0.0, 30.0, 2.0, 50.0], [20, 9, 30, 5])
    run = release("DAWA", counts, 0.5, workload="prefix", rng=np.random.default_rng(1))
    assert run.budget == pytest.approx({"partition": 0.125, "bucket counts": 0.375})
    assert sum(run.budget.values()) == pytest.approx(0.5)
    assert run.buckets[0] == 0 and (np.diff(run.buckets) > 0).all() and run.buckets[-1] < 64
    ends = np.append(run.buckets, counts.size)
    for a, b in itertools.pairwise(ends):
        assert np.ptp(run.estimate[a:b]) == 0  # uniform within a bucket


def _prefix_error(name, counts, runs, seed):
    rng = np.random.default_rng(seed)
    truth = np.cumsum(counts)
    return np.mean(
        [
            np.abs(
                np.cumsum(release(name, counts, 1.0, workload="prefix", rng=rng).estimate) - truth
            ).mean()
            for _ in range(runs)
        ]
    )


def test_dawa_beats_identity_on_a_piecewise_constant_histogram():
    """Seed 2, 40 runs: prefix error of DAWA under half of Identity's on 4 flat pieces."""
    counts = np.repeat([5.0, 40.0, 0.0, 12.0], 64)
    assert _prefix_error("DAWA", counts, 40, 2) < 0.5 * _prefix_error("Identity", counts, 40, 2)


def test_greedy_h_is_near_hb_on_prefix():
    """Seed 3, 60 runs on 256 bins: GreedyH's mean prefix error within 25 % of HB's."""
    counts = np.random.default_rng(0).poisson(20, 256).astype(float)
    greedy = _prefix_error("GreedyH", counts, 60, 3)
    hb = _prefix_error("HB", counts, 60, 3)
    assert greedy == pytest.approx(hb, rel=0.25)
