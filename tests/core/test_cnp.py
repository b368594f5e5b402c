"""CNP / NPBD coefficients: a_x / b_x is the optimal node's share of its path budget, checked
against a numerical constrained minimisation (no closed form) on random small trees."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from dpcore.hist import budget, cnp
from dpcore.hist.tree import from_intervals
from tests.oracles import coverage_by_enumeration, random_tree


def _numerical_optimum(tree, p: np.ndarray, eps: float) -> np.ndarray:
    """Minimise sum p_x / eps_x^2 with every root-to-leaf path summing to eps (SLSQP)."""
    leaves = np.flatnonzero(tree.is_leaf)
    paths = np.zeros((leaves.size, tree.size))
    for row, leaf in enumerate(leaves):
        node = leaf
        while node >= 0:
            paths[row, node] = 1.0
            node = tree.parent[node]
    x0 = np.full(tree.size, eps / tree.height)
    x0[leaves] = eps - (paths[:, ~tree.is_leaf] @ x0[~tree.is_leaf])
    result = optimize.minimize(
        lambda x: float(np.sum(p / x**2)),
        x0,
        jac=lambda x: -2 * p / x**3,
        constraints=[{"type": "eq", "fun": lambda x: paths @ x - eps, "jac": lambda x: paths}],
        bounds=[(1e-6, eps)] * tree.size,
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert result.success, result.message
    return np.asarray(result.x)


@pytest.mark.parametrize("seed", range(5))
def test_share_a_over_b_matches_a_numerical_optimum(seed: int) -> None:
    rng = np.random.default_rng(seed)
    tree = random_tree(int(rng.integers(4, 9)), rng)
    p = coverage_by_enumeration(tree, "uniform")
    a, b = cnp.coefficients(tree, p)
    assert np.all(a[tree.is_leaf] == 1) and np.all(b[tree.is_leaf] == 1)
    np.testing.assert_array_equal(b[~tree.is_leaf], a[~tree.is_leaf] + 1)
    eps_x = _numerical_optimum(tree, p, 1.0)
    path_before = budget.path_sums(tree, eps_x) - eps_x
    inner = ~tree.is_leaf
    share = eps_x[inner] / (1.0 - path_before[inner])
    np.testing.assert_allclose((a / b)[inner], share, atol=2e-4)


def test_spec_example_root_and_three_leaves() -> None:
    """n = 3, root + 3 leaves, eps = 1: p = 1/6 root, 1/3, 1/2, 1/3 leaves; a = (1/7)^(1/3)."""
    tree = from_intervals([0, 0, 1, 2], [2, 0, 1, 2])
    p = coverage_by_enumeration(tree, "uniform")
    a, b = cnp.coefficients(tree, p)
    assert a[0] == pytest.approx((1 / 7) ** (1 / 3))
    assert a[0] / b[0] == pytest.approx(budget.optimal_budgets(tree, 1.0, p)[0])
    assert a[0] / b[0] == pytest.approx(0.33, abs=0.015)  # the chapter's rounded 0.33
