"""HDMM's Kronecker p-Identity on a grid: one p-Identity strategy per axis, their Kronecker
product measured with Laplace noise, least squares.

McKenna, Miklau, Hay, Machanavajjhala, "Optimizing error of high-dimensional statistical
queries under differential privacy", VLDB 2018 (HDMM's ``KronPIdentity``, ``p = n/16``).
For ``A = A_1 ⊗ A_2`` the L1 sensitivity is ``Δ_1 Δ_2`` (the largest column L1 norm of a
Kronecker product is the product), ``(AᵀA)^{-1} = Σ_1 ⊗ Σ_2`` with
``Σ_d = (A_dᵀA_d)^{-1}``, and for a rectangle ``q = a ⊗ b``

.. math:: \\mathrm{E}[(q^T \\hat x - q^T x)^2] = \\frac{2 (Δ_1 Δ_2)^2}{\\epsilon^2}
          (a^T Σ_1 a)(b^T Σ_2 b),

so under a workload drawing the axes independently (Gram ``G_1 ⊗ G_2``) the expected error
is ``(2/eps^2) (Δ_1 Δ_2)^2 tr(G_1 Σ_1) tr(G_2 Σ_2)`` (:mod:`.product`). Each axis's strategy is
:mod:`dpcore.hist.pidentity`'s, optimised for all ranges of that axis (the shipped one
where :mod:`dpcore.hist.pidentity_store` has it): HDMM's choice for all rectangles, used
unchanged for DPBench's random rectangles (its error is computed for the workload given).
"""

from __future__ import annotations

import functools

import numpy as np

from dpcore import _validate
from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d.inputs import FloatArray
from dpcore.algorithms.grid2d.product import product_error
from dpcore.hist import pidentity, pidentity_store
from dpcore.hist.workload import parse_workload
from dpcore.spatial.rectangles import Rectangles


@functools.lru_cache(maxsize=8)
def axis_strategy(n: int) -> pidentity.PIdentityStrategy:
    """The p-Identity strategy of one axis of ``n`` cells (all ranges; ``p = n / 16``).

    An axis of one cell gets ``[1; 0]`` (Identity). Optimised once per ``n`` and kept
    (0.1-1 s at 128-256 cells) unless shipped.
    """
    size = _validate.whole("axis length", n)
    if size == 1:
        theta = np.zeros((1, 1))
        load = parse_workload("uniform", 1)
        return pidentity.PIdentityStrategy(theta, load, 1.0)
    shipped = pidentity_store.load(size)
    return shipped if shipped is not None else pidentity.optimise(size, "uniform")


def strategy_product(strategy: pidentity.PIdentityStrategy, values: FloatArray) -> FloatArray:
    """``A values`` along axis 0 (``A = [I; Θ] diag(1/s)``): ``(n + p, k)`` from ``(n, k)``."""
    scaled = values / strategy.scale[:, None]
    return np.vstack([scaled, strategy.theta @ scaled])


def covariance(strategy: pidentity.PIdentityStrategy) -> FloatArray:
    """``Σ = (AᵀA)^{-1} = S (I - Θᵀ R Θ) S``, dense (``n x n``)."""
    s = strategy.scale
    inner = np.eye(strategy.n) - strategy.theta.T @ strategy.solved
    return np.asarray(s[:, None] * inner * s[None, :], dtype=np.float64)


def expected_error(shape: tuple[int, int], eps: float, workload: Rectangles) -> float:
    """Mean squared error of one workload rectangle under Kronecker p-Identity, exact
    (:func:`~dpcore.algorithms.grid2d.product.product_error` with ``Σ_d`` of each axis's
    strategy and ``Δ = Δ_1 Δ_2``).

    Parameters
    ----------
    shape : tuple of int
        The grid's rows and columns.
    eps : float
        The budget, in ``[1e-300, inf)``.
    workload : Rectangles
        The rectangles, over ``shape``.

    Returns
    -------
    float
        Count units squared.
    """
    rows, cols = (axis_strategy(int(n)) for n in shape)
    sens = rows.sensitivity * cols.sensitivity
    return product_error((covariance(rows), covariance(cols)), sens, eps, workload)


def kron_pidentity(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """Kronecker p-Identity: ``Y = A_1 X A_2ᵀ + Lap(Δ_1 Δ_2 / eps)``, then
    ``X^ = Σ_1 A_1ᵀ Y A_2 Σ_2`` (least squares, one axis at a time).

    Budget: ``{"strategy queries": eps}`` (one measurement of sensitivity ``Δ_1 Δ_2``).
    """
    rows, cols = (axis_strategy(int(n)) for n in grid.shape)
    exact = strategy_product(cols, strategy_product(rows, grid).T).T
    noisy = exact + rng.laplace(0.0, rows.sensitivity * cols.sensitivity / eps, exact.shape)
    half = np.apply_along_axis(lambda y: pidentity.reconstruct(rows, y), 0, noisy)
    estimate = np.apply_along_axis(lambda y: pidentity.reconstruct(cols, y), 1, half)
    return Release(np.asarray(estimate, dtype=np.float64), {"strategy queries": eps})
