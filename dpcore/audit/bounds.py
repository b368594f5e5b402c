"""Clopper–Pearson bounds and the ε lower bound they give for one event.

If a mechanism is (ε, δ)-DP then for every event ``S`` on its output and neighbours
``D, D'``, :math:`P[M(D) \\in S] \\le e^\\varepsilon P[M(D') \\in S] + \\delta`. With ``k``
of ``n`` runs on ``D`` and ``k'`` of ``n'`` runs on ``D'`` in ``S``, a one-sided lower
Clopper–Pearson bound ``p_lo`` and upper ``p'_hi``, each at level ``α/2``, give

.. math:: \\varepsilon \\ge \\ln\\frac{p_{lo} - \\delta}{p'_{hi}}

with confidence ``1 - α`` (a union bound over the two intervals). Jagielski, Ullman and
Oprea (NeurIPS 2020) and Nasr et al. (IEEE S&P 2021) state the same bound as a
distinguisher's false positive and false negative rates (:func:`fpr_fnr_epsilon`);
DP-Sniper (Bichsel et al., IEEE S&P 2021) computes ``p_lo`` as here.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from dpcore import _validate


def clopper_pearson(
    hits: ArrayLike, runs: ArrayLike, alpha: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One-sided Clopper–Pearson bounds for a binomial proportion, each at level ``alpha``.

    .. math:: p_{lo} = B^{-1}(\\alpha;\\ k, n - k + 1)\\ (0 \\text{ if } k = 0),\\qquad
              p_{hi} = B^{-1}(1 - \\alpha;\\ k + 1, n - k)\\ (1 \\text{ if } k = n)

    where :math:`B^{-1}(\\cdot; a, b)` is the Beta(a, b) quantile: ``p_lo`` is the
    smallest ``p`` with :math:`P[\\mathrm{Bin}(n, p) \\ge k] \\ge \\alpha`, so
    :math:`P[p_{lo} > p] \\le \\alpha` whatever the true ``p`` (and likewise ``p_hi``).
    Non-integer counts are accepted (the Beta quantile is continuous in them): the event
    chooser plans with expected counts.

    Parameters
    ----------
    hits : array_like
        Successes ``k``, ``0 <= k <= n``.
    runs : array_like
        Trials ``n >= 1``, broadcast against ``hits``.
    alpha : float
        One-sided level, in ``(0, 1)``.

    Returns
    -------
    lower, upper : ndarray of float64
        ``p_lo`` and ``p_hi``, broadcast shape of ``hits`` and ``runs``.

    Raises
    ------
    ValueError
        If ``alpha`` is not in ``(0, 1)``, a count is not finite, ``runs < 1`` or
        ``hits`` is outside ``[0, runs]``.

    Examples
    --------
    >>> lo, hi = clopper_pearson(0, 10, 0.05)
    >>> float(lo), round(float(hi), 4)  # 1 - 0.05 ** (1/10)
    (0.0, 0.2589)
    """
    alpha = _validate.fraction("alpha", alpha)
    k, n = np.broadcast_arrays(np.asarray(hits, np.float64), np.asarray(runs, np.float64))
    if not (np.isfinite(k).all() and np.isfinite(n).all()):
        raise ValueError("hits and runs must be finite")
    if (n < 1).any() or (k < 0).any() or (k > n).any():
        raise ValueError("need runs >= 1 and 0 <= hits <= runs")
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.where(k > 0, special.betaincinv(np.maximum(k, 1e-300), n - k + 1, alpha), 0.0)
        upper = np.where(
            k < n, special.betaincinv(k + 1, np.maximum(n - k, 1e-300), 1.0 - alpha), 1.0
        )
    return lower.astype(np.float64), upper.astype(np.float64)


def epsilon_lower_bound(
    hits_d: ArrayLike,
    runs_d: ArrayLike,
    hits_d_prime: ArrayLike,
    runs_d_prime: ArrayLike,
    *,
    alpha: float,
    delta: float = 0.0,
) -> NDArray[np.float64]:
    """``ln((p_lo - δ) / p'_hi)``: the ε lower bound of an event, confidence ``1 - alpha``.

    .. math:: \\varepsilon_{LB} = \\ln\\frac{p_{lo}(k, n) - \\delta}{p_{hi}(k', n')},
              \\quad \\text{each bound at level } \\alpha / 2

    Parameters
    ----------
    hits_d, runs_d : array_like
        Runs on ``D`` that land in the event, and runs on ``D``.
    hits_d_prime, runs_d_prime : array_like
        The same on ``D'``.
    alpha : float
        ``1 - confidence``, in ``(0, 1)``; each side gets ``alpha / 2``.
    delta : float, default 0
        The δ of the claim, in ``[0, 1)``.

    Returns
    -------
    ndarray of float64
        The bound (broadcast shape), ``-inf`` where ``p_lo <= δ``; a value ``<= 0`` proves
        nothing.

    Raises
    ------
    ValueError
        As :func:`clopper_pearson`, or ``delta`` outside ``[0, 1)``.

    Examples
    --------
    >>> round(float(epsilon_lower_bound(900, 1000, 100, 1000, alpha=0.05)), 3)
    1.99
    """
    alpha = _validate.fraction("alpha", alpha)
    delta = _validate.fraction("delta", delta, open_low=False)
    p_lo, _ = clopper_pearson(hits_d, runs_d, alpha / 2)
    _, p_hi = clopper_pearson(hits_d_prime, runs_d_prime, alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(np.maximum(p_lo - delta, 0.0)) - np.log(p_hi)
    return np.asarray(ratio, dtype=np.float64)


def fpr_fnr_epsilon(
    false_positives: int,
    negatives: int,
    false_negatives: int,
    positives: int,
    *,
    alpha: float,
    delta: float = 0.0,
) -> float:
    """The distinguisher form: ``max(ln((1 - δ - FNR_ub)/FPR_ub), ln((1 - δ - FPR_ub)/FNR_ub))``.

    A test flags "ran on ``D``"; ``positives`` runs on ``D`` of which ``false_negatives``
    were not flagged, ``negatives`` runs on ``D'`` of which ``false_positives`` were flagged.
    With Clopper–Pearson upper bounds at ``alpha / 2`` each (Jagielski et al. 2020; Nasr et
    al. 2021),

    .. math:: \\varepsilon \\ge \\max\\Big(\\ln\\frac{1 - \\delta - \\mathrm{FNR}_{ub}}
              {\\mathrm{FPR}_{ub}},\\ \\ln\\frac{1 - \\delta - \\mathrm{FPR}_{ub}}
              {\\mathrm{FNR}_{ub}}\\Big).

    Each term is :func:`epsilon_lower_bound` of the flagged event (or of its complement,
    with ``D`` and ``D'`` swapped), since ``1 - FNR_ub`` is the lower bound on
    :math:`P[M(D) \\text{ flagged}]`. The two directions are two events, so the larger
    holds with confidence ``1 - 2 alpha`` (pass half the level for a joint ``1 - alpha``),
    and only if the test was fixed before these counts were seen.

    Parameters
    ----------
    false_positives, negatives : int
        Flagged runs on ``D'`` and runs on ``D'``.
    false_negatives, positives : int
        Unflagged runs on ``D`` and runs on ``D``.
    alpha : float
        ``1 - confidence`` of each direction, in ``(0, 1)``.
    delta : float, default 0
        The δ of the claim, in ``[0, 1)``.

    Returns
    -------
    float
        The larger of the two bounds (``-inf`` if neither is defined).

    Raises
    ------
    ValueError
        As :func:`epsilon_lower_bound`.

    Examples
    --------
    >>> fpr = fpr_fnr_epsilon(100, 1000, 100, 1000, alpha=0.05)
    >>> fpr == float(epsilon_lower_bound(900, 1000, 100, 1000, alpha=0.05))
    True
    """
    flagged = epsilon_lower_bound(
        positives - false_negatives, positives, false_positives, negatives, alpha=alpha, delta=delta
    )
    unflagged = epsilon_lower_bound(
        negatives - false_positives, negatives, false_negatives, positives, alpha=alpha, delta=delta
    )
    return max(float(flagged), float(unflagged))


def point_estimate(hits_d: int, runs_d: int, hits_d_prime: int, runs_d_prime: int) -> float:
    """The plug-in ``ln(k/n) - ln(k'/n')``: shown beside the bound, never in its place.

    Parameters
    ----------
    hits_d, runs_d, hits_d_prime, runs_d_prime : int
        The counts of :func:`epsilon_lower_bound` (``runs >= 1``).

    Returns
    -------
    float
        The estimate; ``inf`` when ``k' = 0 < k``, ``-inf`` when ``k = 0 < k'``, NaN when
        both are 0.

    Examples
    --------
    >>> math.isclose(point_estimate(30, 100, 10, 100), math.log(3))
    True
    """
    if hits_d == 0 and hits_d_prime == 0:
        return math.nan
    if hits_d_prime == 0:
        return math.inf
    if hits_d == 0:
        return -math.inf
    return math.log(hits_d / runs_d) - math.log(hits_d_prime / runs_d_prime)
