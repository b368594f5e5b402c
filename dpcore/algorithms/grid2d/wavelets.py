"""Privelet-2D: the unnormalised Haar transform of every row, then of every column, Laplace
noise of one scale on every coefficient, inverted.

Xiao, Wang, Gehrke, "Differential privacy via wavelet transforms", ICDE 2010, as DPComp's
``privelet2D.py`` runs it: zero-pad to ``2^m1 x 2^m2`` (``m_d = ceil(log2 n_d)``), one cell
lies in ``m_d + 1`` coefficients of each axis's transform (each ``±1``), so the 2-D
transform's L1 sensitivity is ``(m1 + 1)(m2 + 1)`` (64 at 128²) and every coefficient gets
``Lap((m1 + 1)(m2 + 1) / eps)``; crop. The 1-D transform and its inverse are
:mod:`dpcore.hist.privelet`'s, applied along each axis. The exact error is a Kronecker
product's (:mod:`.product`, ``Σ_d = (B_d B_dᵀ)`` cropped, ``B_d`` the 1-D inverse).
"""

from __future__ import annotations

import functools

import numpy as np

from dpcore import _validate
from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d.inputs import FloatArray
from dpcore.algorithms.grid2d.product import product_error
from dpcore.hist import privelet
from dpcore.spatial.rectangles import Rectangles


def sensitivity(shape: tuple[int, int]) -> int:
    """``(m1 + 1)(m2 + 1)``: the L1 sensitivity of the 2-D Haar strategy.

    Examples
    --------
    >>> sensitivity((128, 128)), sensitivity((5, 1))
    (64, 4)
    """
    return privelet.sensitivity(shape[0]) * privelet.sensitivity(shape[1])


def haar_2d(grid: FloatArray) -> FloatArray:
    """The 2-D coefficients: the 1-D transform of every row, then of every column."""
    rows = privelet.haar_forward(grid)
    return np.asarray(privelet.haar_forward(rows.T).T, dtype=np.float64)


def inverse_haar_2d(coefficients: FloatArray) -> FloatArray:
    """The inverse of :func:`haar_2d`: columns first, then rows."""
    cols = privelet.haar_inverse(coefficients.T).T
    return np.asarray(privelet.haar_inverse(cols), dtype=np.float64)


def privelet_2d(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """Privelet-2D (Xiao, Wang, Gehrke, ICDE 2010; DPComp's version): budget
    ``{"Haar coefficients": eps}`` (one measurement of sensitivity ``(m1 + 1)(m2 + 1)``)."""
    n1, n2 = (int(n) for n in grid.shape)
    padded = np.zeros((privelet.padded_size(n1), privelet.padded_size(n2)))
    padded[:n1, :n2] = grid
    coefficients = haar_2d(padded)
    scale = sensitivity((n1, n2)) / eps
    _validate.perturbable("A Haar coefficient", coefficients, scale)
    noisy = coefficients + rng.laplace(0.0, scale, size=coefficients.shape)
    return Release(inverse_haar_2d(noisy)[:n1, :n2], {"Haar coefficients": eps})


@functools.lru_cache(maxsize=8)
def _axis_covariance(n: int) -> FloatArray:
    inverse = privelet.reconstruction_matrix(n)
    return np.asarray((inverse @ inverse.T)[:n, :n], dtype=np.float64)


def expected_error(shape: tuple[int, int], eps: float, workload: Rectangles) -> float:
    """Mean squared error of one workload rectangle under Privelet-2D, exact.

    Parameters
    ----------
    shape : tuple of int
        The grid's rows and columns.
    eps : float
        The budget, in ``[1e-300, inf)``.
    workload : Rectangles
        Over ``shape``.

    Returns
    -------
    float
        Count units squared.
    """
    covariances = (_axis_covariance(int(shape[0])), _axis_covariance(int(shape[1])))
    return product_error(covariances, float(sensitivity(shape)), eps, workload)
