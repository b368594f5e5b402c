"""Coverage probabilities equal the enumeration of every range's canonical decomposition."""

import numpy as np
import pytest

from dpcore.hist import coverage, tree
from dpcore.hist.workload import parse_workload
from tests.oracles import coverage_by_enumeration, random_tree


def small_trees():
    rng = np.random.default_rng(3)
    for n in range(1, 41):
        for k in (2, 3, 5):
            yield tree.kary_tree(n, k)
        yield tree.struct_construct(n)
        yield random_tree(n, rng)


@pytest.mark.parametrize("workload", ["uniform", "prefix", "length:1", "length:3", "length:8"])
def test_coverage_equals_enumeration(workload):
    checked = 0
    for t in small_trees():
        if workload.startswith("length") and int(workload.split(":")[1]) > t.n_bins:
            continue
        np.testing.assert_allclose(
            coverage.coverage_probabilities(t, workload),
            coverage_by_enumeration(t, workload),
            atol=1e-12,
        )
        checked += 1
    assert checked > 100


def test_coverage_of_full_length_workload_is_the_root_only():
    t = tree.kary_tree(8, 2)
    p = coverage.coverage_probabilities(t, "length:8")
    assert p[0] == 1 and np.all(p[1:] == 0)


@pytest.mark.parametrize("bad", ["nope", "length:x", "length:0", "length:99"])
def test_bad_workloads_raise(bad):
    with pytest.raises(ValueError):
        coverage.coverage_probabilities(tree.kary_tree(10, 2), bad)


def test_workload_sizes():
    assert parse_workload("uniform").size(10) == 55
    assert parse_workload("prefix").size(10) == 10
    assert parse_workload("length:4").size(10) == 7
