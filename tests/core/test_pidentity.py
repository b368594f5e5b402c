"""p-Identity strategies: closed-form Gram products, loss and gradient vs dense algebra,
the release's sensitivity, and the exact error vs a seeded Monte Carlo estimate."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.hist import pidentity as pi
from dpcore.hist.workload import parse_workload, workload_ranges

WORKLOADS = ("uniform", "prefix", "length:3")


def _dense_w(n: int, workload: str) -> np.ndarray:
    a, b = workload_ranges(n, workload)
    w = np.zeros((a.size, n))
    for q, (lo, hi) in enumerate(zip(a, b, strict=True)):
        w[q, lo : hi + 1] = 1.0
    return w


def _dense_loss(theta: np.ndarray, workload: str) -> float:
    n = theta.shape[1]
    a = np.vstack((np.eye(n), theta)) / (1.0 + theta.sum(axis=0))
    g = _dense_w(n, workload).T @ _dense_w(n, workload)
    return float(np.trace(g @ np.linalg.inv(a.T @ a)))


@pytest.mark.parametrize("workload", WORKLOADS)
def test_gram_products_match_the_dense_gram_matrix(workload):
    rng = np.random.default_rng(0)
    for n in (1, 5, 13):
        w = _dense_w(n, workload) if n >= 3 or workload != "length:3" else None
        if w is None:
            continue
        g = w.T @ w
        v = rng.normal(size=(3, n))
        np.testing.assert_allclose(pi.gram_matvec(workload, n, v), v @ g, atol=1e-9)
        np.testing.assert_allclose(pi.gram_diagonal(workload, n), np.diag(g))


@pytest.mark.parametrize("workload", WORKLOADS)
def test_loss_matches_dense_and_gradient_matches_finite_differences(workload):
    rng = np.random.default_rng(1)
    for n, p in ((6, 1), (12, 3), (20, 5)):
        theta = rng.random((p, n))
        out = pi.loss_and_gradient(theta, workload)
        assert out.loss == pytest.approx(_dense_loss(theta, workload), rel=1e-10)
        h = 1e-6
        for i, j in zip(rng.integers(0, p, 8), rng.integers(0, n, 8), strict=True):
            up, down = theta.copy(), theta.copy()
            up[i, j] += h
            down[i, j] -= h
            fd = pi.loss_and_gradient(up, workload).loss - pi.loss_and_gradient(down, workload).loss
            assert out.gradient[i, j] == pytest.approx(fd / (2 * h), rel=1e-5, abs=1e-6)


def _strategy(n: int, p: int, seed: int, workload: str = "uniform") -> pi.PIdentityStrategy:
    theta = np.random.default_rng(seed).random((p, n))
    return pi.PIdentityStrategy(theta, parse_workload(workload, n), _dense_loss(theta, workload))


def test_sensitivity_is_the_largest_column_l1_norm_and_the_release_uses_it():
    s = _strategy(16, 3, 2)
    dense = s.matrix()
    assert s.sensitivity == pytest.approx(np.abs(dense).sum(axis=0).max(), rel=1e-12)
    assert s.sensitivity == pytest.approx(1.0, abs=1e-12)
    # the noise the release adds: y - A x, scale sensitivity / eps (Laplace variance 2 b^2)
    x = np.arange(16.0)
    eps = 0.5
    rng = np.random.default_rng(3)
    noise = np.array([pi.measure(s, x, eps, rng) - dense @ x for _ in range(4000)])
    expected = 2.0 * (s.sensitivity / eps) ** 2
    # sample variance of 4000 x 19 Laplace draws: relative standard error about 0.5%
    assert noise.var() == pytest.approx(expected, rel=0.03)
    assert abs(noise.mean()) < 0.05 * np.sqrt(expected)


def test_reconstruction_is_least_squares():
    s = _strategy(10, 2, 4)
    y = np.random.default_rng(5).normal(size=12)
    dense = s.matrix()
    expected = np.linalg.lstsq(dense, y, rcond=None)[0]
    np.testing.assert_allclose(pi.reconstruct(s, y), expected, atol=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("workload", ("uniform", "length:4"))
def test_exact_error_matches_monte_carlo(workload):
    """2000 seeded releases of n = 24 bins: the empirical mean workload MSE lies within
    4 standard errors (standard error from the per-release means) of the closed form."""
    n, eps = 24, 0.8
    s = _strategy(n, 3, 6, workload)
    w = _dense_w(n, workload)
    x = np.random.default_rng(7).integers(0, 40, n).astype(float)
    rng = np.random.default_rng(8)
    estimates = (pi.reconstruct(s, pi.measure(s, x, eps, rng)) for _ in range(2000))
    per_release = np.array([np.mean((w @ (x_hat - x)) ** 2) for x_hat in estimates])
    exact = s.expected_error(eps)
    se = per_release.std(ddof=1) / np.sqrt(per_release.size)
    assert abs(per_release.mean() - exact) <= 4 * se
    a, b = workload_ranges(n, workload)
    assert pi.range_errors(s, eps, a, b).mean() == pytest.approx(exact, rel=1e-10)


def test_range_errors_match_dense_covariance():
    s = _strategy(15, 4, 9)
    a, b = workload_ranges(15, "uniform")
    dense = s.matrix()
    cov = 2.0 * np.linalg.inv(dense.T @ dense) / 0.7**2
    w = _dense_w(15, "uniform")
    np.testing.assert_allclose(
        pi.range_errors(s, 0.7, a, b), np.einsum("qi,ij,qj->q", w, cov, w), rtol=1e-10
    )
    assert s.expected_error(0.7, "prefix") == pytest.approx(
        2.0 * _dense_loss(s.theta, "prefix") / (0.7**2 * 15), rel=1e-10
    )


def test_length_errors_match_dense_covariance_and_the_length_workload():
    """The mean MSE of all ranges of each length, from prefix sums, equals the dense
    ``w^T Cov w`` averaged over every window, and the Gram-matrix workload loss."""
    n, eps = 17, 0.6
    s = _strategy(n, 4, 10)
    dense = s.matrix()
    cov = 2.0 * np.linalg.inv(dense.T @ dense) / eps**2
    lengths = np.array([1, 2, 5, 16, 17])
    got = pi.length_errors(s, eps, lengths)
    for ell, value in zip(lengths, got, strict=True):
        w = _dense_w(n, f"length:{ell}")
        assert value == pytest.approx(np.einsum("qi,ij,qj->q", w, cov, w).mean(), rel=1e-10)
        assert value == pytest.approx(s.expected_error(eps, f"length:{ell}"), rel=1e-10)
    assert pi.length_errors(s, eps, lengths.reshape(1, 5)).shape == (1, 5)
    with pytest.raises(ValueError, match=r"lengths must be in \[1, 17\], got 0"):
        pi.length_errors(s, eps, np.array([3, 0]))
    with pytest.raises(ValueError, match="lengths must be"):
        pi.length_errors(s, eps, np.array([18]))


def test_errors_of_a_strategy_reuse_its_solve():
    """``V = R Θ`` is solved once per strategy and equals the dense solve; errors computed
    after it are the same as on a fresh strategy object (nothing is stale)."""
    s = _strategy(12, 3, 11)
    inner = np.eye(3) + s.theta @ s.theta.T
    np.testing.assert_allclose(s.solved, np.linalg.solve(inner, s.theta), atol=1e-12)
    assert s.solved is s.solved
    a, b = workload_ranges(12, "uniform")
    first = pi.range_errors(s, 1.0, a, b)
    fresh = pi.PIdentityStrategy(s.theta.copy(), s.workload, s.loss)
    np.testing.assert_array_equal(pi.range_errors(fresh, 1.0, a, b), first)
    assert pi.workload_loss(s, "prefix") == pytest.approx(_dense_loss(s.theta, "prefix"), rel=1e-10)


def test_optimiser_improves_on_its_start_and_reports_progress():
    seen: list[float] = []
    s = pi.optimise(64, starts=2, max_iter=60, seed=1, progress=seen.append)
    start = np.random.default_rng(1).random((pi.default_rows(64), 64))
    assert s.loss < _dense_loss(start, "uniform")
    assert s.loss == pytest.approx(_dense_loss(s.theta, "uniform"), rel=1e-9)
    assert np.all(s.theta >= 0)
    assert seen == sorted(seen) and seen[-1] == 1.0
    # Dwork (identity only) has mean error 2 (n + 2) / 3 at eps = 1; the strategy beats it
    assert s.expected_error(1.0) < 2 * (64 + 2) / 3


@pytest.mark.slow
def test_error_at_256_bins_within_3_percent_of_hdmm():
    """HDMM's published code reaches 65.23 at n = 256 (p = 16, best of 3 starts)."""
    assert pi.optimise(256, max_iter=300).expected_error(1.0) <= 67.2


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="bins"):
        pi.optimise(pi.MAX_BINS + 1)
    with pytest.raises(ValueError, match="p must"):
        pi.optimise(16, p=17)
    s = _strategy(4, 1, 0)
    with pytest.raises(ValueError, match="counts must be 4 values"):
        pi.measure(s, np.zeros(5), 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        pi.measure(s, np.zeros(4), 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="ranges"):
        pi.range_errors(s, 1.0, np.array([2]), np.array([1]))
