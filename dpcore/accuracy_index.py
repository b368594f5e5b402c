"""The ``O(lb^3 N)`` accuracy index (seed 000, definition 3) and its finite-N ratio.

For an algorithm ``A`` on ``N = 2^m`` bins let ``f_A(N)`` be its average
uniform-range MSE coefficient in units of ``Lap(1)`` noise: the exact mean
range MSE at ``eps = 1`` divided by 2 (``MSE * eps^2 / 2``, sensitivity
included). The index is

.. math:: k_A = \\lim_{N \\to \\infty} \\frac{\\mathrm{lb}^3 N}{f_A(N)},

higher is more accurate. The seed reports: naive binary tree 1, Boost 6,
Privelet 6. The ratio at finite ``N`` converges like ``1 / lb N`` (e.g.
Privelet: ``f = (m+1)^2 (m/6 + 1/36 + O(2^{-m}))`` so the ratio is
``6 - 13/m + O(1/m^2)``), far too slowly to read the limit off any computable
``N``; :func:`extrapolated_index` fits ``k + c_1/m + c_2/m^2`` to the exact
finite-N values instead.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import errors

SEED_INDEX: dict[str, float] = {"binary_raw": 1.0, "boost": 6.0, "privelet": 6.0}
"""The indices the seed paper reports (section 4)."""

MAX_TREE_LEVELS = 22
"""Largest ``m`` for algorithms that need a tree over ``2^m`` bins (memory)."""


def lb3_coefficient(key: str, m: int) -> float:
    """``f_A(2^m)``: the exact mean uniform-range MSE at ``eps = 1``, halved.

    >>> lb3_coefficient("dwork", 3)  # flat Laplace: E[L] = (N + 2) / 3
    3.3333333333333335
    """
    if m < 0:
        raise ValueError(f"m must be >= 0, got {m}")
    if errors.ALGORITHMS[key].kind == "tree" and m > MAX_TREE_LEVELS:
        raise ValueError(f"tree algorithms are computed up to m = {MAX_TREE_LEVELS}, got {m}")
    plan = errors.prepare(key, 2**m, 1.0)
    return errors.plan_expected_error(plan) / 2.0


def lb3_ratio(key: str, m: int) -> float:
    """The finite-N ratio ``m^3 / f_A(2^m)`` whose limit is the index.

    >>> round(lb3_ratio("privelet", 200), 3)  # 6 - 13/m + ...
    5.936
    """
    return m**3 / lb3_coefficient(key, m)


def ratio_curve(key: str, ms: ArrayLike) -> NDArray[np.float64]:
    """:func:`lb3_ratio` for every ``m`` in ``ms``."""
    return np.array([lb3_ratio(key, int(m)) for m in np.asarray(ms).ravel()], dtype=np.float64)


def extrapolated_index(ms: ArrayLike, ratios: ArrayLike, *, order: int = 2) -> float:
    """Least-squares fit of ``ratio(m) = k + sum_{j=1}^{order} c_j / m^j``; returns ``k``.

    Needs more points than ``order + 1`` for a check of the fit; use the
    largest ``m`` available (the expansion is asymptotic).
    """
    m = np.asarray(ms, dtype=np.float64).ravel()
    r = np.asarray(ratios, dtype=np.float64).ravel()
    if m.size != r.size or m.size < order + 1 or np.any(m <= 0):
        raise ValueError(f"need at least {order + 1} points with m > 0 and one ratio each")
    design = np.vander(1.0 / m, order + 1, increasing=True)
    solution, *_ = np.linalg.lstsq(design, r, rcond=None)
    return float(solution[0])
