"""Privelet: transforms, release, and the seed's closed forms against brute-force ``B B^T``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dpcore.hist import matrix_mechanism as mm
from dpcore.hist import privelet, privelet_error
from dpui import registry

SIZES = range(2, 257)


def _brute_covariance(n: int) -> np.ndarray:
    """``B B^T`` with ``B`` the explicit inverse of the explicit strategy (no theorem 2)."""
    size = privelet.padded_size(n)
    strategy = np.zeros((size, size))
    strategy[0] = 1.0
    row = 1
    node = size
    while node > 1:
        half = node // 2
        for start in range(0, size, node):
            strategy[row, start : start + half] = 1.0
            strategy[row, start + half : start + node] = -1.0
            row += 1
        node = half
    # rows are generated level by level from the root: heap order
    b = np.linalg.inv(strategy)
    return b @ b.T


def _all_range_sums(cov: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every range ``[a, b]`` inside the first ``n`` bins and its sub-matrix sum."""
    c = np.zeros((n + 1, n + 1))
    c[1:, 1:] = cov[:n, :n].cumsum(0).cumsum(1)
    a, b = np.triu_indices(n)
    sums = c[b + 1, b + 1] - c[a, b + 1] - c[b + 1, a] + c[a, a]
    return a, b, sums


def test_spec_example_strategy_and_inverse() -> None:
    expected = [[1, 1, 1, 1], [1, 1, -1, -1], [1, -1, 0, 0], [0, 0, 1, -1]]
    np.testing.assert_array_equal(privelet.strategy_matrix(4), expected)
    b = privelet.reconstruction_matrix(4)
    np.testing.assert_allclose(b @ np.array(expected), np.eye(4), atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 8, 64, 256])
def test_explicit_matrices_match_fast_transforms(n: int) -> None:
    rng = np.random.default_rng(n)
    a, b = privelet.strategy_matrix(n), privelet.reconstruction_matrix(n)
    v = rng.normal(size=n)
    np.testing.assert_allclose(privelet.haar_forward(v), a @ v, atol=1e-9)
    np.testing.assert_allclose(privelet.haar_inverse(a @ v), v, atol=1e-9)
    np.testing.assert_allclose(b @ a, np.eye(n), atol=1e-12)
    assert mm.l1_sensitivity(a) == privelet.sensitivity(n) == n.bit_length()


def test_transforms_batch_over_leading_axes() -> None:
    v = np.arange(24.0).reshape(3, 8)
    np.testing.assert_allclose(
        privelet.haar_forward(v), np.stack([privelet.haar_forward(r) for r in v])
    )
    np.testing.assert_allclose(privelet.haar_inverse(privelet.haar_forward(v)), v, atol=1e-12)


@pytest.mark.parametrize("n", [2, 4, 8, 32, 128, 256, 3, 100])
def test_theorem2_equals_brute_force_covariance(n: int) -> None:
    np.testing.assert_allclose(
        privelet_error.covariance_matrix(n), _brute_covariance(n), atol=1e-12
    )


def test_algorithm3_equals_submatrix_sums_for_every_range_and_n() -> None:
    worst = 0.0
    for n in SIZES:
        a, b, sums = _all_range_sums(_brute_covariance(n), n)
        fast = privelet_error.range_error_coefficients(n, a, b)
        worst = max(worst, float(np.max(np.abs(fast - sums) / sums)))
    assert worst < 1e-9


@pytest.mark.parametrize("n", [8, 37, 256])
def test_linear_query_coefficient_equals_quadratic_form(n: int) -> None:
    rng = np.random.default_rng(7)
    w = rng.normal(size=(5, n))
    brute = np.einsum("qi,ij,qj->q", w, _brute_covariance(n)[:n, :n], w)
    np.testing.assert_allclose(privelet_error.linear_query_coefficient(w), brute, rtol=1e-10)


def test_seed_example_3_7_at_8_three_ways() -> None:
    cov = _brute_covariance(8)
    by_submatrix = cov[2:7, 2:7].sum()
    assert privelet_error.range_error_coefficient(8, 3, 7) == pytest.approx(by_submatrix, rel=1e-12)
    w = np.zeros(8)
    w[2:7] = 1.0
    assert float(privelet_error.linear_query_coefficient(w)) == pytest.approx(
        by_submatrix, rel=1e-12
    )


def test_eq16_average_equals_brute_force_for_every_n() -> None:
    for n in SIZES:
        _, _, sums = _all_range_sums(_brute_covariance(n), n)
        assert privelet_error.average_error_coefficient(n) == pytest.approx(
            sums.mean(), rel=1e-10
        ), n


def test_eq16_simplified_form_and_eq17_asymptote() -> None:
    for h in range(0, 40):
        big_n = 2.0**h
        simplified = h / 6 + (big_n**3 + 37 * big_n**2 + 26 * big_n + 8) / (
            36 * big_n**2 * (big_n + 1)
        )
        exact = privelet_error.average_error_coefficient(2**h)
        assert exact == pytest.approx(simplified, rel=1e-12)
        gap = exact - privelet_error.asymptotic_average_error_coefficient(2**h)
        assert 0 < gap < 1.1 / big_n + 1e-15
    # the seed: "for h > 10 the two agree to a negligible difference"
    assert abs(
        privelet_error.average_error_coefficient(2**11)
        - privelet_error.asymptotic_average_error_coefficient(2**11)
    ) < 1e-3 * privelet_error.average_error_coefficient(2**11)


def test_algorithm3_at_a_million_bins_equals_the_transform_form() -> None:
    n = 2**20
    rng = np.random.default_rng(5)
    ends = np.sort(rng.integers(0, n, size=(4, 2)), axis=1)
    fast = privelet_error.range_error_coefficients(n, ends[:, 0], ends[:, 1])
    w = np.zeros((4, n))
    for q, (a, b) in enumerate(ends):
        w[q, a : b + 1] = 1.0
    np.testing.assert_allclose(fast, privelet_error.linear_query_coefficient(w), rtol=1e-8)
    assert privelet_error.range_error_coefficient(n, 1, n) == pytest.approx(1.0, rel=1e-8)


@pytest.mark.parametrize(("n", "l", "r"), [(8, 0, 3), (8, 4, 3), (8, 1, 9), (0, 1, 1)])
def test_bad_ranges_raise(n: int, l: int, r: int) -> None:  # noqa: E741
    with pytest.raises(ValueError):
        privelet_error.range_error_coefficient(n, l, r)


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError):
        privelet.padded_size(0)
    with pytest.raises(ValueError):
        privelet.haar_forward(np.ones(6))
    with pytest.raises(ValueError):
        privelet.release(np.ones(4), 0.0, rng=np.random.default_rng(0))


def test_measure_noise_is_laplace_with_sensitivity_scale() -> None:
    rng = np.random.default_rng(11)
    coefficients = np.zeros((200, 64))
    noise = privelet.measure(coefficients, 0.5, rng=rng).ravel()
    scale = privelet.sensitivity(64) / 0.5
    assert stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue > 0.01


def test_release_pads_and_truncates() -> None:
    out = privelet.release(np.arange(5.0), 1.0, rng=np.random.default_rng(0), releases=3)
    assert out.shape == (3, 5)


@pytest.mark.slow
def test_release_mse_matches_closed_form_for_fixed_ranges() -> None:
    """Empirical MSE of 20,000 releases vs algorithm 3, within 4 standard errors."""
    n, eps = 100, 1.0
    counts = np.random.default_rng(1).integers(0, 50, n).astype(float)
    rng = np.random.default_rng(2)
    estimates = privelet.release(counts, eps, rng=rng, releases=20_000)
    prefix = np.concatenate([np.zeros((estimates.shape[0], 1)), estimates.cumsum(axis=1)], axis=1)
    truth = np.concatenate([[0.0], counts.cumsum()])
    for a, b in [(0, 99), (3, 3), (10, 57), (63, 64)]:
        errors = (prefix[:, b + 1] - prefix[:, a]) - (truth[b + 1] - truth[a])
        sq = errors**2
        expected = privelet.noise_variance(n, eps) * privelet_error.range_error_coefficients(
            n, a, b
        )
        stderr = sq.std(ddof=1) / np.sqrt(sq.size)
        assert abs(sq.mean() - expected) < 4 * stderr, (a, b)


def test_diagonal_sum_is_right_only_for_single_bins_and_the_middle_pair() -> None:
    """The Matrix page's prose and its registry notice: ignoring covariances is wrong for
    every longer range except ``[N/2, N/2 + 1]`` (1-based), whose only covariance (LCA =
    root) is 0. Brute force: ``Σ = B B^T`` from the explicit matrices."""
    for n in (4, 8, 16, 32):
        sigma = _brute_covariance(n)
        same = [
            (lo + 1, hi + 1)
            for lo in range(n)
            for hi in range(lo + 1, n)
            if np.isclose(
                sigma[lo : hi + 1, lo : hi + 1].sum(), np.trace(sigma[lo : hi + 1, lo : hi + 1])
            )
        ]
        assert same == [(n // 2, n // 2 + 1)]
    block = _brute_covariance(8)[3:5, 3:5]  # bins 4 and 5 (1-based)
    assert block.sum() == pytest.approx(np.trace(block)) == pytest.approx(0.6875)
    assert privelet_error.range_error_coefficient(8, 4, 5) == pytest.approx(0.6875)
    root = Path(__file__).resolve().parents[2]
    assert "0.6875" in (root / "assets" / "matrix_privelet.md").read_text()
    notice = next(p for p in registry.PAGES if p.path.endswith("matrix_privelet.py"))
    assert "[N/2, N/2+1]" in notice.notice
