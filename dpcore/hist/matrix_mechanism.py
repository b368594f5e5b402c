"""The generic matrix mechanism: privacy and exact error of any linear strategy.

A linear mechanism measures ``c~ = A v + noise`` (strategy ``A``, ``m x n``),
row ``r`` with ``Lap(1 / eps_r)`` noise (variance ``2 / eps_r^2``; a row with
``eps_r = 0`` is not measured), and reconstructs ``v^ = B c~`` with ``B A = I``.
By Wu et al. (2018), theorem 1 (``Cov(M X) = M Cov(X) M^T``), the reconstructed bins have
covariance ``B D B^T`` with ``D = diag(2 / eps_r^2)``; the weighted least-squares
(BLUE) reconstruction ``B = (A^T W A)^{-1} A^T W``, ``W = D^{-1}``, gives
``(A^T W A)^{-1}``. A linear query ``w`` then has

.. math:: \\mathrm{MSE}(w) = w^T \\, \\mathrm{Cov}(\\hat v) \\, w .

This module is the dense oracle for every closed form in
:mod:`dpcore.hist.plans` and :mod:`dpcore.hist.privelet_error`: cubic in ``n``, for small
``n`` only. Strategies may be dense arrays or ``scipy.sparse`` matrices.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate

Matrix: TypeAlias = Any
"""A dense ``NDArray[float64]`` or a ``scipy.sparse`` array/matrix (scipy ships no stubs)."""

DENSE_LIMIT = 8192
"""Largest ``n`` for which a dense ``n x n`` covariance is built."""


def _dense(matrix: Any) -> NDArray[np.float64]:
    if sp.issparse(matrix):
        return np.asarray(matrix.toarray(), dtype=np.float64)
    return np.asarray(matrix, dtype=np.float64)


def _abs_column_sums(strategy: Matrix, row_weights: NDArray[np.float64]) -> NDArray[np.float64]:
    if sp.issparse(strategy):
        weighted = sp.diags(row_weights) @ abs(sp.csr_array(strategy))
        return np.asarray(weighted.sum(axis=0), dtype=np.float64).ravel()
    return np.asarray(row_weights @ np.abs(np.asarray(strategy)), dtype=np.float64)


def l1_sensitivity(strategy: Matrix) -> float:
    """``Δ_A``: the largest column L1 norm of ``A`` (one record changes one bin by 1).

    Parameters
    ----------
    strategy : ndarray or scipy.sparse matrix, shape (m, n)
        The strategy ``A``.

    Returns
    -------
    float
        ``max_j sum_r |A_rj|``.

    Examples
    --------
    >>> l1_sensitivity(np.array([[1.0, 1.0], [1.0, -1.0]]))
    2.0
    """
    rows = strategy.shape[0]
    return float(_abs_column_sums(strategy, np.ones(rows)).max())


def release_epsilon(strategy: Matrix, budgets: ArrayLike) -> float:
    """Privacy of measuring row ``r`` with ``Lap(1/eps_r)``: ``max_j sum_r |A_rj| eps_r``.

    Sequential composition over the rows a bin appears in; a bin's worst case
    is the column with the largest weighted sum. Uniform budgets
    ``eps / Δ_A`` give exactly ``eps``.

    Parameters
    ----------
    strategy : ndarray or scipy.sparse matrix, shape (m, n)
        The strategy ``A``.
    budgets : float or array_like of float, shape (m,)
        Per-row budgets: 0 (not measured) or in ``[1e-300, inf)``; one value for all rows.

    Returns
    -------
    float
        The release's epsilon.

    Raises
    ------
    ValueError
        If ``budgets`` is not one value or ``m`` finite numbers, each 0 or ``>= 1e-300``.

    Examples
    --------
    >>> release_epsilon(np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]), [0.5, 0.25, 0.5])
    1.0
    """
    eps = _budgets(strategy, budgets)
    return float(_abs_column_sums(strategy, eps).max())


def _budgets(strategy: Matrix, budgets: ArrayLike) -> NDArray[np.float64]:
    rows = strategy.shape[0]
    values = np.asarray(budgets, dtype=np.float64)
    if values.size == 1:  # one budget for every row
        values = np.full(rows, values.item())
    return _validate.budgets("budgets", values, size=rows)


def uniform_budgets(strategy: Matrix, epsilon: float) -> NDArray[np.float64]:
    """``eps / Δ_A`` on every row: the classic matrix mechanism.

    Parameters
    ----------
    strategy : ndarray or scipy.sparse matrix, shape (m, n)
        The strategy ``A``.
    epsilon : float
        Total privacy budget, in ``[1e-300, inf)``.

    Returns
    -------
    ndarray of float64, shape (m,)
        ``eps / Δ_A`` per row.

    Raises
    ------
    ValueError
        If ``epsilon`` is not a finite number in ``[1e-300, inf)``.
    """
    eps = _validate.positive("epsilon", epsilon)
    return np.full(strategy.shape[0], eps / l1_sensitivity(strategy))


def reconstruction_covariance(
    strategy: Matrix, budgets: ArrayLike, reconstruction: Matrix | None = None
) -> NDArray[np.float64]:
    """Covariance of ``v^ = B c~`` (dense ``n x n``).

    With ``reconstruction=None`` the BLUE (weighted least squares over the
    measured rows), ``(A^T W A)^{-1}`` with ``W = diag(eps_r^2 / 2)``;
    otherwise ``B D B^T`` for the given ``B`` (which must satisfy ``B A = I``
    and not use unmeasured rows).

    Parameters
    ----------
    strategy : ndarray or scipy.sparse matrix, shape (m, n)
        The strategy ``A``.
    budgets : float or array_like of float, shape (m,)
        Per-row budgets: 0 (not measured) or in ``[1e-300, inf)``; one value for all rows.
    reconstruction : ndarray or scipy.sparse matrix, shape (n, m), optional
        A reconstruction ``B``; the BLUE if omitted.

    Returns
    -------
    ndarray of float64, shape (n, n)
        The covariance of the reconstructed bins (count units squared).

    Raises
    ------
    ValueError
        If ``budgets`` is invalid (see :func:`release_epsilon`), ``n`` exceeds
        :data:`DENSE_LIMIT`, ``B A != I``, ``B`` uses an unmeasured row, or the measured
        rows do not determine every bin.
    """
    eps = _budgets(strategy, budgets)
    n = strategy.shape[1]
    if n > DENSE_LIMIT:
        raise ValueError(f"dense covariance limited to n <= {DENSE_LIMIT}, got {n}")
    a = _dense(strategy)
    if reconstruction is None:
        precision = a.T @ (a * (eps**2 / 2.0)[:, None])
        if np.linalg.matrix_rank(precision) < n:
            raise ValueError("the measured rows do not determine every bin (A^T W A singular)")
        return np.asarray(np.linalg.inv(precision), dtype=np.float64)
    b = _dense(reconstruction)
    if b.shape != (n, a.shape[0]) or not np.allclose(b @ a, np.eye(n), atol=1e-9):
        raise ValueError("the reconstruction B must satisfy B A = I")
    measured = eps > 0
    if np.any(b[:, ~measured] != 0):
        raise ValueError("the reconstruction uses a row that is not measured (budget 0)")
    variances = 2.0 / eps[measured] ** 2
    used = b[:, measured]
    return np.asarray(used @ (variances[:, None] * used.T), dtype=np.float64)


def least_squares_query_mse(
    strategy: Matrix, budgets: ArrayLike, queries: Matrix
) -> NDArray[np.float64]:
    """BLUE MSE of every query, also when the measured rows leave some bins undetermined.

    A query ``w`` is estimable iff it lies in the row space of ``A^T W A``;
    its minimum-variance unbiased estimate then has variance
    ``w^T (A^T W A)^+ w`` (Gauss-Markov with a pseudo-inverse). Non-estimable
    queries get ``inf``.

    Parameters
    ----------
    strategy : ndarray or scipy.sparse matrix, shape (m, n)
        The strategy ``A``.
    budgets : float or array_like of float, shape (m,)
        Per-row budgets: 0 (not measured) or in ``[1e-300, inf)``; one value for all rows.
    queries : ndarray or scipy.sparse matrix, shape (q, n)
        One linear query per row.

    Returns
    -------
    ndarray of float64, shape (q,)
        MSE per query (count units squared; ``inf`` where not estimable).

    Raises
    ------
    ValueError
        If ``budgets`` is invalid (see :func:`release_epsilon`) or ``n`` exceeds
        :data:`DENSE_LIMIT`.
    """
    eps = _budgets(strategy, budgets)
    a = _dense(strategy)
    if a.shape[1] > DENSE_LIMIT:
        raise ValueError(f"dense covariance limited to n <= {DENSE_LIMIT}, got {a.shape[1]}")
    precision = a.T @ (a * (eps**2 / 2.0)[:, None])
    covariance = np.asarray(np.linalg.pinv(precision, hermitian=True), dtype=np.float64)
    w = _dense(queries)
    residual = w - w @ (precision @ covariance)
    scale = np.maximum(np.abs(w).sum(axis=1), 1.0)
    estimable = np.abs(residual).max(axis=1) <= 1e-8 * scale
    return np.where(estimable, query_mse(covariance, w), np.inf)


def range_queries(n: int, a: ArrayLike, b: ArrayLike) -> sp.csr_array:
    """The 0/1 workload matrix of ranges ``[a_q, b_q]`` (0-based, inclusive), one row each.

    Parameters
    ----------
    n : int
        Number of bins.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    scipy.sparse.csr_array, shape (q, n)
        One row per range (broadcast and flattened, in C order).

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < n`` or ``a`` and ``b`` do not broadcast.
    """
    first, last = _validate.ranges(n, a, b)
    a_arr, b_arr = first.ravel(), last.ravel()
    lengths = b_arr - a_arr + 1
    rows = np.repeat(np.arange(a_arr.size), lengths)
    starts = np.repeat(a_arr - np.cumsum(lengths) + lengths, lengths)
    cols = starts + np.arange(lengths.sum())
    return sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(a_arr.size, n))


def interval_strategy(n: int, lo: ArrayLike, hi: ArrayLike) -> sp.csr_array:
    """Strategy with one row per interval ``[lo_x, hi_x]`` (a tree's nodes), 0/1 entries.

    Parameters
    ----------
    n : int
        Number of bins.
    lo, hi : array_like of int
        Each interval's first and last bin (0-based, inclusive), e.g. ``tree.lo, tree.hi``.

    Returns
    -------
    scipy.sparse.csr_array, shape (m, n)
        One row per interval.

    Raises
    ------
    ValueError
        If an interval is not ``0 <= lo <= hi < n`` or ``lo`` and ``hi`` do not broadcast.
    """
    return range_queries(n, lo, hi)


def query_mse(covariance: NDArray[np.float64], queries: Matrix) -> NDArray[np.float64]:
    """``w_q^T Σ w_q`` for every row ``w_q`` of the workload ``queries``.

    Parameters
    ----------
    covariance : ndarray of float64, shape (n, n)
        The covariance ``Σ`` of the reconstructed bins.
    queries : ndarray or scipy.sparse matrix, shape (q, n)
        One linear query per row.

    Returns
    -------
    ndarray of float64, shape (q,)
        MSE per query.
    """
    if sp.issparse(queries):
        projected = np.asarray(sp.csr_array(queries) @ covariance)
    else:
        projected = np.asarray(queries, dtype=np.float64) @ covariance
    return np.asarray((projected * _dense(queries)).sum(axis=1), dtype=np.float64)
