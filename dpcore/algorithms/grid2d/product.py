"""Exact errors of Kronecker-product strategies answered by least squares on a grid.

For a strategy ``A = A_1 ⊗ A_2`` of L1 sensitivity ``Δ`` with Laplace noise ``Lap(Δ/eps)``
on every answer and the least-squares (or exact inverse) reconstruction, the cells' noise
covariance is ``(2 Δ^2 / eps^2) Σ_1 ⊗ Σ_2`` with ``Σ_d = (A_dᵀ A_d)^{-1}`` (cropped to the
real cells when the axis was padded). A rectangle ``q = a ⊗ b`` then has error

.. math:: \\mathrm{E}[(q^T \\hat x - q^T x)^2] = \\frac{2 Δ^2}{\\epsilon^2}
          (a^T Σ_1 a)(b^T Σ_2 b),

and under a workload drawing the axes independently (Gram ``G_1 ⊗ G_2``) the mean is
``(2 Δ^2/eps^2) tr(G_1 Σ_1) tr(G_2 Σ_2)`` (McKenna, Miklau, Hay, Machanavajjhala, VLDB 2018,
HDMM's Kronecker error). ``aᵀ Σ a`` for an interval is a box sum of ``Σ``'s summed-area
table.
"""

from __future__ import annotations

import numpy as np

from dpcore import _validate
from dpcore.algorithms.grid2d.inputs import FloatArray
from dpcore.spatial.rectangles import Rectangles
from dpcore.spatial.regions import box_sums, summed_area_table


def product_error(
    covariances: tuple[FloatArray, FloatArray], sensitivity: float, eps: float, workload: Rectangles
) -> float:
    """Mean squared error of one workload rectangle under a Kronecker strategy, exact.

    Parameters
    ----------
    covariances : tuple of ndarray, shapes (n1, n1) and (n2, n2)
        ``Σ_d`` per axis (the reconstruction's covariance per unit noise variance).
    sensitivity : float
        ``Δ``, the Kronecker strategy's L1 sensitivity.
    eps : float
        The budget, in ``[1e-300, inf)``.
    workload : Rectangles
        Over ``(n1, n2)``.

    Returns
    -------
    float
        Count units squared.

    Examples
    --------
    >>> from dpcore.spatial.rectangles import rectangle_workload
    >>> eye = (np.eye(3), np.eye(4))  # Identity: 2 E[area] / eps^2
    >>> product_error(eye, 1.0, 1.0, rectangle_workload([((0, 0), (1, 2))], (3, 4)))
    12.0
    """
    eps = _validate.positive("eps", eps)
    scale = 2.0 * sensitivity**2 / eps**2
    if workload.kind == "listed":
        quad = []
        for d, cov in enumerate(covariances):
            lo, hi = workload.lo[:, d], workload.hi[:, d]
            table = summed_area_table(cov)
            quad.append(box_sums(table, np.column_stack([lo, lo]), np.column_stack([hi, hi])))
        return float(scale * np.mean(quad[0] * quad[1]))
    traces = [float(np.sum(workload.axis_gram(d) * cov)) for d, cov in enumerate(covariances)]
    return scale * traces[0] * traces[1]
