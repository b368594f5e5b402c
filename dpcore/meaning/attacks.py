"""The attacker's view of ε: "is Alice in the data?" as a hypothesis test on one release.

An attacker sees one release ``o`` of a count and must decide between ``D`` (Alice counted,
count ``c``) and ``D'`` (without her, ``c - Δ``). Any test has a false-positive rate
(FPR, saying "in" when she is out) and a true-positive rate (TPR). For every ε-DP mechanism
and every test (Kairouz, Oh & Viswanath, ICML 2015, thm. 2.1; Wasserman & Zhou 2010)

.. math:: \\mathrm{TPR} \\le e^{\\varepsilon}\\,\\mathrm{FPR}, \\qquad
          1 - \\mathrm{FPR} \\ge e^{\\varepsilon}\\,(1 - \\mathrm{TPR}).

For Laplace noise of scale ``b = Δ/ε`` the likelihood ratio ``p(o|D)/p(o|D')`` grows with
``o``, so the optimal (Neyman-Pearson) tests say "in" when ``o`` exceeds a threshold; their
ROC curve, in closed form, is

.. math:: \\mathrm{TPR}(\\alpha) = \\begin{cases}
          e^{\\varepsilon}\\alpha & \\alpha \\le \\tfrac12 e^{-\\varepsilon} \\\\
          1 - e^{-\\varepsilon}/(4\\alpha)
          & \\tfrac12 e^{-\\varepsilon} \\le \\alpha \\le \\tfrac12 \\\\
          1 - e^{-\\varepsilon}(1 - \\alpha) & \\alpha \\ge \\tfrac12
          \\end{cases}

It touches the bound on both outer pieces and stays strictly inside it between them.

After one release, a Bayesian attacker's odds on "Alice is in" move from the prior odds by
the likelihood ratio, which ε-DP keeps in ``[e^{-ε}, e^{ε}]``. Two *exact* counts, with and
without Alice, reveal her by their difference (the differencing attack); with Laplace noise
on each, the best guess from the difference is right with a probability given below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from dpcore import _validate

FloatArray = NDArray[np.float64]


def laplace_roc(fpr: ArrayLike, eps: float) -> FloatArray:
    """The TPR of the optimal test between ``c + Lap(Δ/ε)`` and ``c - Δ + Lap(Δ/ε)`` at each
    false-positive rate (closed form; the ROC does not depend on ``c`` or ``Δ``).

    Parameters
    ----------
    fpr : array_like of float
        False-positive rates α in [0, 1].
    eps : float
        ε > 0.

    Returns
    -------
    ndarray of float
        The largest TPR any test on one release reaches at each α.

    Raises
    ------
    ValueError
        If ε is not positive or a rate is outside [0, 1].

    Examples
    --------
    >>> [round(float(t), 4) for t in laplace_roc([0.0, 0.5, 1.0], 1.0)]
    [0.0, 0.8161, 1.0]
    """
    eps = _validate.positive("epsilon", eps)
    a = np.asarray(fpr, dtype=np.float64)
    if np.any(~np.isfinite(a)) or np.any(a < 0) or np.any(a > 1):
        raise ValueError("false-positive rates must lie in [0, 1]")
    low = 0.5 * math.exp(-eps)
    safe = np.maximum(a, low)  # only used on the middle piece
    return np.where(
        a <= low,
        math.exp(eps) * a,
        np.where(a <= 0.5, 1 - math.exp(-eps) / (4 * safe), 1 - math.exp(-eps) * (1 - a)),
    )


def dp_bound(fpr: ArrayLike, eps: float) -> FloatArray:
    """The largest TPR any ε-DP mechanism allows at each FPR:
    ``min(e^ε α, 1 - e^{-ε}(1 - α))`` (Kairouz, Oh & Viswanath 2015).

    Parameters
    ----------
    fpr : array_like of float
        False-positive rates α in [0, 1].
    eps : float
        ε > 0.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> round(float(dp_bound([1 / (1 + math.e)], 1.0)[0]), 4)  # the corner
    0.7311
    """
    eps = _validate.positive("epsilon", eps)
    a = np.asarray(fpr, dtype=np.float64)
    return np.minimum(np.minimum(math.exp(eps) * a, 1 - math.exp(-eps) * (1 - a)), 1.0)


def threshold_rates(thresholds: ArrayLike, eps: float) -> tuple[FloatArray, FloatArray]:
    """Exact (FPR, TPR) of the test "in if ``o > t``" with ``D'`` at 0 and ``D`` at Δ = 1,
    Laplace noise of scale ``1/ε``.

    Parameters
    ----------
    thresholds : array_like of float
    eps : float

    Returns
    -------
    (ndarray, ndarray)
        ``P[o > t | D']`` and ``P[o > t | D]``.
    """
    eps = _validate.positive("epsilon", eps)
    t = np.asarray(thresholds, dtype=np.float64)
    scale = 1 / eps
    return (
        np.asarray(stats.laplace.sf(t, loc=0.0, scale=scale), dtype=np.float64),
        np.asarray(stats.laplace.sf(t, loc=1.0, scale=scale), dtype=np.float64),
    )


def clopper_pearson(hits: ArrayLike, n: int, level: float = 0.95) -> tuple[FloatArray, FloatArray]:
    """Exact binomial confidence interval for ``hits`` successes out of ``n``.

    Parameters
    ----------
    hits : array_like of int
    n : int
        Trials, >= 1.
    level : float, default 0.95

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper limits.
    """
    k = np.asarray(hits, dtype=np.float64)
    tail = (1 - level) / 2
    lower = np.where(k == 0, 0.0, stats.beta.ppf(tail, k, n - k + 1))
    upper = np.where(k == n, 1.0, stats.beta.ppf(1 - tail, k + 1, n - k))
    return np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)


@dataclass(frozen=True)
class Attack:
    """A simulated membership attack: ``trials`` releases under each world, the test
    "in if o > t" at each threshold, and the rates with 95% Clopper-Pearson intervals.

    Attributes
    ----------
    thresholds, fpr, tpr, fpr_lo, fpr_hi, tpr_lo, tpr_hi : ndarray of float
    trials : int
    """

    thresholds: FloatArray
    fpr: FloatArray
    tpr: FloatArray
    fpr_lo: FloatArray
    fpr_hi: FloatArray
    tpr_lo: FloatArray
    tpr_hi: FloatArray
    trials: int


def simulate_attack(
    eps: float, trials: int, rng: np.random.Generator, *, points: int = 9
) -> Attack:
    """Release the count ``trials`` times with Alice (at 1) and without her (at 0), Laplace noise
    of scale ``1/ε``, and run the threshold test at ``points`` thresholds spread over the
    region where the decision changes (from ``-2b`` to ``1 + 2b``).

    Parameters
    ----------
    eps : float
        ε > 0.
    trials : int
        Releases per world, >= 10.
    rng : numpy.random.Generator
    points : int, default 9

    Returns
    -------
    Attack
    """
    eps = _validate.positive("epsilon", eps)
    n = _validate.whole("trials", trials, lower=10)
    scale = 1 / eps
    out = rng.laplace(0.0, scale, n)
    inside = 1.0 + rng.laplace(0.0, scale, n)
    t = np.linspace(-2 * scale, 1 + 2 * scale, _validate.whole("points", points, lower=2))
    fp = np.array([np.count_nonzero(out > x) for x in t])
    tp = np.array([np.count_nonzero(inside > x) for x in t])
    fpr_lo, fpr_hi = clopper_pearson(fp, n)
    tpr_lo, tpr_hi = clopper_pearson(tp, n)
    return Attack(t, fp / n, tp / n, fpr_lo, fpr_hi, tpr_lo, tpr_hi, n)


def posterior_band(prior: ArrayLike, eps: float) -> tuple[FloatArray, FloatArray]:
    """The attacker's posterior belief that Alice is in the data after one release of an
    ε-DP mechanism: between these two values, whatever the output.

    .. math:: \\frac{p\\,e^{-\\varepsilon}}{p\\,e^{-\\varepsilon} + 1 - p} \\le
              \\Pr[D \\mid o] \\le \\frac{p\\,e^{\\varepsilon}}{p\\,e^{\\varepsilon} + 1 - p}

    Parameters
    ----------
    prior : array_like of float
        Prior probabilities ``p`` in (0, 1).
    eps : float

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper posterior.
    """
    eps = _validate.positive("epsilon", eps)
    p = np.asarray(prior, dtype=np.float64)
    odds = p / (1 - p)
    lo, hi = odds * math.exp(-eps), odds * math.exp(eps)
    return lo / (1 + lo), hi / (1 + hi)


def simulate_posteriors(
    prior: float, eps: float, trials: int, rng: np.random.Generator
) -> FloatArray:
    """Posteriors of a Bayesian attacker after one Laplace release: Alice is in with
    probability ``prior``, the release is ``[Alice in] + Lap(1/ε)``, the posterior follows
    from the exact likelihood ratio.

    Parameters
    ----------
    prior : float
        In (0, 1).
    eps : float
    trials : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of float, shape (trials,)
    """
    eps = _validate.positive("epsilon", eps)
    if not 0 < prior < 1:
        raise ValueError(f"the prior must lie in (0, 1), got {prior!r}")
    n = _validate.whole("trials", trials, lower=1)
    inside = rng.random(n) < prior
    o = inside + rng.laplace(0.0, 1 / eps, n)
    log_ratio = (np.abs(o) - np.abs(o - 1)) * eps  # ln p(o|D)/p(o|D'), in [-ε, ε]
    log_odds = math.log(prior / (1 - prior)) + log_ratio
    return np.asarray(1 / (1 + np.exp(-log_odds)), dtype=np.float64)


def differencing_accuracy(eps: float) -> float:
    """How often the attacker guesses Alice's presence right from two counts, all people and
    all but Alice, each released with ``Lap(1/ε)`` noise (2ε in total), by saying "in" when
    the difference exceeds ½. The difference of two Laplace variables has the tail
    ``P[Z > z] = e^{-z/b}(2 + z/b)/4``, so the accuracy is ``1 - e^{-ε/2}(2 + ε/2)/4``.

    Parameters
    ----------
    eps : float
        ε > 0 of each count.

    Returns
    -------
    float
        In (½, 1); with exact counts it would be 1.

    Examples
    --------
    >>> round(differencing_accuracy(1.0), 4)
    0.6209
    """
    eps = _validate.positive("epsilon", eps)
    half = eps / 2
    return 1 - math.exp(-half) * (2 + half) / 4


def best_accuracy(eps: float) -> float:
    """The highest accuracy of any guess of membership at even prior odds from an ε-DP
    output: ``e^ε / (1 + e^ε)`` (the corner of the ROC bound).

    Parameters
    ----------
    eps : float

    Returns
    -------
    float
    """
    eps = _validate.positive("epsilon", eps)
    return 1 / (1 + math.exp(-eps))
