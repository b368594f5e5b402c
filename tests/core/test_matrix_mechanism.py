"""The generic matrix mechanism: sensitivity, privacy accounting, covariance, query MSE."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from dpcore.hist import matrix_mechanism as mm
from dpcore.hist import privelet, privelet_error


def test_sensitivity_and_release_epsilon_dense_and_sparse() -> None:
    a = np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 0.0], [0.0, 0.0, 2.0]])
    assert mm.l1_sensitivity(a) == 3.0
    assert mm.l1_sensitivity(sp.csr_array(a)) == 3.0
    budgets = np.array([0.2, 0.5, 0.1])
    # column sums of |A_rj| eps_r: 0.7, 0.7, 0.4
    assert mm.release_epsilon(a, budgets) == pytest.approx(0.7)
    assert mm.release_epsilon(sp.csr_array(a), budgets) == pytest.approx(0.7)
    uniform = mm.uniform_budgets(a, 1.5)
    assert mm.release_epsilon(a, uniform) == pytest.approx(1.5)


def test_range_queries_matrix() -> None:
    w = mm.range_queries(5, [0, 2, 4], [1, 4, 4]).toarray()
    expected = [[1, 1, 0, 0, 0], [0, 0, 1, 1, 1], [0, 0, 0, 0, 1]]
    np.testing.assert_array_equal(w, expected)
    with pytest.raises(ValueError):
        mm.range_queries(5, [3], [2])
    with pytest.raises(ValueError):
        mm.range_queries(5, [0], [5])


def test_identity_strategy_is_flat_laplace() -> None:
    n, eps = 6, 0.5
    cov = mm.reconstruction_covariance(np.eye(n), mm.uniform_budgets(np.eye(n), eps))
    np.testing.assert_allclose(cov, np.eye(n) * 2 / eps**2)
    w = mm.range_queries(n, [0, 1], [5, 3])
    np.testing.assert_allclose(mm.query_mse(cov, w), [6 * 2 / eps**2, 3 * 2 / eps**2])


def test_privelet_covariance_via_generic_mechanism() -> None:
    n, eps = 16, 0.7
    a = privelet.strategy_matrix(n)
    budgets = mm.uniform_budgets(a, eps)
    cov = mm.reconstruction_covariance(a, budgets, privelet.reconstruction_matrix(n))
    expected = privelet.noise_variance(n, eps) * privelet_error.covariance_matrix(n)
    np.testing.assert_allclose(cov, expected, rtol=1e-12, atol=1e-15)
    # Haar is invertible: least squares gives the same covariance
    np.testing.assert_allclose(mm.reconstruction_covariance(a, budgets), expected, rtol=1e-9)


def test_least_squares_matches_simulation_of_weighted_solve() -> None:
    """The (A^T W A)^{-1} formula against 20,000 simulated least-squares solves."""
    rng = np.random.default_rng(3)
    rows = [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0], [0, 0, 1, 0.0]]
    a = sp.csr_array(np.array(rows))
    budgets = np.array([0.3, 0.6, 0.2, 0.9, 0.4])
    cov = mm.reconstruction_covariance(a, budgets)
    dense = a.toarray()
    weights = budgets**2 / 2
    solver = np.linalg.solve(dense.T @ (weights[:, None] * dense), dense.T * weights)
    noise = rng.laplace(0.0, 1.0 / budgets, size=(20_000, 5))
    estimates = noise @ solver.T
    np.testing.assert_allclose(np.cov(estimates.T), cov, rtol=0.06, atol=0.05 * cov.max())


def test_pseudo_inverse_oracle_flags_non_estimable_queries() -> None:
    a = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # bins 0 and 1 only as a sum
    queries = mm.range_queries(3, [0, 0, 2, 0], [1, 0, 2, 2])
    mse = mm.least_squares_query_mse(a, [1.0, 1.0], queries)
    np.testing.assert_allclose(mse[[0, 2, 3]], [2.0, 2.0, 4.0])
    assert np.isinf(mse[1])


def test_bad_inputs_raise() -> None:
    a = np.array([[1.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="finite"):
        mm.release_epsilon(a, [-1.0, 1.0])
    with pytest.raises(ValueError, match="determine"):
        mm.reconstruction_covariance(a, [1.0, 0.0])
    with pytest.raises(ValueError, match="B A = I"):
        mm.reconstruction_covariance(a, [1.0, 1.0], np.eye(2))
    with pytest.raises(ValueError, match="not measured"):
        mm.reconstruction_covariance(np.eye(2), [1.0, 0.0], np.eye(2))
    with pytest.raises(ValueError, match="positive"):
        mm.uniform_budgets(a, 0.0)
