"""Tree construction: structure invariants, the splitting rule, SC against brute force."""

import numpy as np
import pytest

from dpcore.hist import coverage, tree
from tests.oracles import random_tree


def check_invariants(t: tree.Tree) -> None:
    n = t.n_bins
    assert t.lo[0] == 0 and t.hi[0] == n - 1 and t.parent[0] == -1
    assert np.all(np.diff(t.depth) >= 0), "breadth-first order"
    for level in t.levels():
        assert np.all(np.diff(t.lo[level]) > 0), "each level sorted left to right"
    for i in range(t.size):
        kids = np.arange(t.child_ptr[i], t.child_ptr[i + 1])
        if kids.size == 0:
            assert t.lo[i] == t.hi[i], "leaves are single bins"
            continue
        assert kids.size >= 2
        assert np.all(t.parent[kids] == i)
        assert t.lo[kids[0]] == t.lo[i] and t.hi[kids[-1]] == t.hi[i]
        assert np.all(t.lo[kids[1:]] == t.hi[kids[:-1]] + 1), "children partition the parent"
        assert np.all(t.depth[kids] == t.depth[i] + 1)
    assert sorted(t.lo[t.is_leaf]) == list(range(n))
    assert t.height == t.depth.max() + 1


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 16, 17, 40, 100])
@pytest.mark.parametrize("k", [2, 3, 4, 7, 20])
def test_kary_invariants(n, k):
    check_invariants(tree.kary_tree(n, k))


def test_splitting_rule_matches_spec_examples():
    t = tree.kary_tree(5, 2)
    ranges = {(int(a) + 1, int(b) + 1) for a, b in zip(t.lo, t.hi, strict=True)}
    # [1,5] -> [1,2],[3,5]; [3,5] -> [3,3],[4,5] (1-based, smaller parts first)
    assert {(1, 2), (3, 5), (3, 3), (4, 5)} <= ranges
    assert (1, 3) not in ranges


@pytest.mark.parametrize("length,k", [(10, 3), (11, 4), (2, 5), (20, 6)])
def test_split_sizes_non_decreasing_and_near_equal(length, k):
    _, lo, hi = tree.split_ranges(np.array([3]), np.array([3 + length - 1]), np.array([k]))
    sizes = hi - lo + 1
    assert sizes.sum() == length and sizes.size == min(k, length)
    assert np.all(np.diff(sizes) >= 0) and sizes.max() - sizes.min() <= 1


def test_from_intervals_roundtrip_and_any_order():
    rng = np.random.default_rng(1)
    for n in [1, 2, 9, 30]:
        t = random_tree(n, rng)
        check_invariants(t)
        perm = rng.permutation(t.size)
        again = tree.from_intervals(t.lo[perm], t.hi[perm])
        for field in ("lo", "hi", "parent", "depth", "child_ptr", "level_ptr"):
            assert np.array_equal(getattr(again, field), getattr(t, field))


@pytest.mark.parametrize(
    "lo,hi,message",
    [
        ([0, 0, 1], [1, 0, 0], "lo <= hi"),
        ([0, 0, 1], [2, 0, 2], "covers more than one bin"),
        ([0, 0, 1], [2, 0, 1], "children of"),
        ([0, 0, 2, 1], [2, 1, 2, 1], "single child"),
        ([0, 0, 1, 0, 1], [1, 0, 1, 0, 1], "twice"),
        ([1, 1, 2], [2, 1, 2], "root"),
        ([0, 0, 1, 0, 1, 2, 3], [3, 1, 2, 0, 1, 2, 3], "without nesting"),
        ([0, 0, 0, 1], [1, 1, 0, 1], "twice"),
        ([0, 0, 1, 2], [2, 0, 1, 2], None),
    ],
)
def test_from_intervals_validation(lo, hi, message):
    if message is None:
        check_invariants(tree.from_intervals(lo, hi))
        return
    with pytest.raises(ValueError, match=message):
        tree.from_intervals(lo, hi)


# ------------------------------------------------------------ Struct-Construct


def brute_hval(n: int, lo: int, hi: int, plo: int, phi: int, w: int) -> float:
    """Hval by building the w-ary subtree explicitly and summing its coverage."""
    sub = tree.kary_tree(hi - lo + 1, w)
    sub_lo, sub_hi = sub.lo + lo, sub.hi + lo
    # coverage by eq. 3.5; the subtree's root hangs under the real parent [plo, phi]
    n_all = n * (n + 1) // 2
    contained = (sub_lo + 1) * (n - sub_hi)
    parent_contained = np.where(
        sub.parent >= 0, contained[np.maximum(sub.parent, 0)], (plo + 1) * (n - phi)
    )
    return float(np.sum(contained - parent_contained) / n_all)


def test_hval_spec_example_1():
    assert tree.subtree_coverage_sum(5, 2, 4, 0, 4, 2) == pytest.approx(0.93333, abs=1e-4)
    assert tree.subtree_coverage_sum(5, 2, 4, 0, 4, 3) == pytest.approx(1.0, abs=1e-9)


def test_hval_matches_explicit_subtrees():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(2, 41))
        plo, phi = sorted(rng.integers(0, n, size=2).tolist())
        lo, hi = sorted(rng.integers(plo, phi + 1, size=2).tolist())
        w = int(rng.integers(2, 21))
        assert tree.subtree_coverage_sum(n, lo, hi, plo, phi, w) == pytest.approx(
            brute_hval(n, lo, hi, plo, phi, w), rel=1e-12, abs=1e-15
        )


@pytest.mark.parametrize("n", [2, 3, 5, 9, 16, 40, 100, 257])
def test_best_fanout_is_argmin_of_explicit_trees(n):
    costs = {}
    for k in range(2, min(20, n) + 1):
        t = tree.kary_tree(n, k)
        costs[k] = t.height**2 * coverage.coverage_probabilities(t).sum()
    best = min(costs.values())
    expected = min(k for k, c in costs.items() if c <= best * (1 + 1e-12))
    assert tree.best_fanout(n) == expected


def greedy_sc(n: int, max_fanout: int = 20) -> set[tuple[int, int]]:
    """Seed algorithm 3.1 by recursion with explicit Hval (the oracle)."""
    k_star = tree.best_fanout(n, max_fanout=max_fanout)
    nodes: set[tuple[int, int]] = set()

    def grow(lo: int, hi: int, plo: int, phi: int) -> None:
        nodes.add((lo, hi))
        if lo == hi:
            return
        if lo == 0:
            w = k_star
        else:
            scores = [brute_hval(n, lo, hi, plo, phi, w) for w in range(k_star, max_fanout + 1)]
            w = k_star + int(np.argmin(np.round(scores, 12)))
        _, clo, chi = tree.split_ranges(np.array([lo]), np.array([hi]), np.array([w]))
        for a, b in zip(clo, chi, strict=True):
            grow(int(a), int(b), lo, hi)

    grow(0, n - 1, -1, n)
    return nodes


@pytest.mark.parametrize("n", [1, 2, 5, 13, 30, 40])
def test_struct_construct_matches_greedy_oracle(n):
    t = tree.struct_construct(n)
    check_invariants(t)
    got = {(int(a), int(b)) for a, b in zip(t.lo, t.hi, strict=True)}
    assert got == greedy_sc(n)


def test_struct_construct_large_is_valid_and_reports_height():
    t = tree.struct_construct(3000)
    check_invariants(t)
    assert t.height == t.depth.max() + 1


def test_bad_arguments():
    with pytest.raises(ValueError):
        tree.kary_tree(0, 2)
    with pytest.raises(ValueError):
        tree.kary_tree(10, 1)
