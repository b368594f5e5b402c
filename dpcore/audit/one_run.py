"""The one-run audit: ε from guessing which of ``m`` random canaries were included.

Steinke, Nasr, Jagielski, "Privacy auditing with one (1) training run", NeurIPS 2023 (as
implemented in google-deepmind/jax_privacy, ``auditing.py``). Each of ``m`` canaries is
included independently with probability 1/2 and the mechanism runs once; the auditor
guesses in/out for ``r`` canaries (abstaining on the rest) and ``v`` guesses are right.
For an (ε, δ)-DP mechanism, with :math:`q = e^\\varepsilon / (1 + e^\\varepsilon)`,

.. math:: P[\\text{at least } v \\text{ right}] \\le P[\\mathrm{Binom}(r, q) \\ge v]
          + 2 m \\delta \\max_{i = 1..v} \\frac{P[v - i \\le \\mathrm{Binom}(r, q) < v]}{i},

and the largest ε whose bound is below ``alpha`` is a lower bound on ε with confidence
``1 - alpha``. The right-hand side rises with ε, so the answer is found by root finding.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, stats

from dpcore import _validate

EPS_MAX = 50.0
"""Largest ε searched: ``q`` is 1 to float64 precision beyond about 37."""


def one_run_pvalue(eps: float, canaries: int, guesses: int, correct: int, delta: float) -> float:
    """The probability bound for ``correct`` right guesses out of ``guesses`` under (ε, δ)-DP.

    Parameters
    ----------
    eps : float
        The ε tested, ``>= 0``.
    canaries : int
        Number of canaries ``m``, at least 1.
    guesses : int
        Guesses made ``r``, in ``[0, m]``.
    correct : int
        Right guesses ``v``, in ``[0, r]``.
    delta : float
        δ, in ``[0, 1)``.

    Returns
    -------
    float
        The bound, capped at 1.

    Raises
    ------
    ValueError
        If a count is out of range, ``eps`` is negative or ``delta`` not in ``[0, 1)``.

    Examples
    --------
    At ε = 0 every guess is a fair coin: 10 right of 10 has probability 2^-10.

    >>> one_run_pvalue(0.0, 10, 10, 10, 0.0) == 2.0**-10
    True
    """
    m = _validate.whole("canaries", canaries)
    r = _validate.whole("guesses", guesses, lower=0, upper=m)
    v = _validate.whole("correct", correct, lower=0, upper=r)
    delta = _validate.fraction("delta", delta, open_low=False)
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    q = 1.0 / (1.0 + math.exp(-eps))
    tail = float(stats.binom.sf(v - 1, r, q))
    if delta > 0 and v > 0:
        i = np.arange(1, v + 1)
        below = stats.binom.cdf(v - 1, r, q) - stats.binom.cdf(v - 1 - i, r, q)
        tail += 2 * m * delta * float(np.max(below / i))
    return min(tail, 1.0)


def one_run_lower_bound(
    canaries: int, guesses: int, correct: int, *, alpha: float = 0.05, delta: float = 0.0
) -> float:
    """The largest ε whose :func:`one_run_pvalue` is below ``alpha`` (0 if none).

    Parameters
    ----------
    canaries, guesses, correct : int
        ``m``, ``r`` and ``v`` as in :func:`one_run_pvalue`.
    alpha : float, default 0.05
        ``1 - confidence``, in ``(0, 1)``.
    delta : float, default 0
        δ, in ``[0, 1)``.

    Returns
    -------
    float
        The lower bound on ε (within ``1e-9``), at most :data:`EPS_MAX`.

    Raises
    ------
    ValueError
        As :func:`one_run_pvalue`, or ``alpha`` not in ``(0, 1)``.

    Examples
    --------
    Half the guesses right is what chance gives: no evidence.

    >>> one_run_lower_bound(100, 100, 50)
    0.0
    """
    alpha = _validate.fraction("alpha", alpha)

    def excess(eps: float) -> float:
        return one_run_pvalue(eps, canaries, guesses, correct, delta) - alpha

    if excess(0.0) >= 0:
        return 0.0
    if excess(EPS_MAX) < 0:
        return EPS_MAX
    return float(optimize.brentq(excess, 0.0, EPS_MAX, xtol=1e-9))


def one_run_from_scores(
    included: ArrayLike,
    scores: ArrayLike,
    *,
    guess_in: int,
    guess_out: int,
    alpha: float = 0.05,
    delta: float = 0.0,
) -> float:
    """The one-run bound of an auditor guessing "in" for the ``guess_in`` highest scores and
    "out" for the ``guess_out`` lowest, abstaining on the rest.

    The numbers of guesses must be fixed before the scores are seen (for the bound to hold).

    Parameters
    ----------
    included : array_like of bool, shape (m,)
        Which canaries were included (drawn independently with probability 1/2).
    scores : array_like of float, shape (m,)
        The auditor's score of each canary from the one run (higher: more likely in).
    guess_in, guess_out : int
        Guesses of each kind, ``guess_in + guess_out <= m``.
    alpha, delta : float
        As :func:`one_run_lower_bound`.

    Returns
    -------
    float
        :func:`one_run_lower_bound` of the guesses' outcome.

    Raises
    ------
    ValueError
        If the arrays differ in size, scores are not finite, or the guesses are too many.

    Examples
    --------
    >>> one_run_from_scores([True, False] * 50, [1.0, 0.0] * 50, guess_in=50, guess_out=50) > 1
    True
    """
    inside = np.asarray(included, dtype=bool)
    s = _validate.finite_array("scores", scores, size=inside.size)
    m = inside.size
    guess_in = _validate.whole("guess_in", guess_in, lower=0, upper=m)
    guess_out = _validate.whole("guess_out", guess_out, lower=0, upper=m - guess_in)
    order = np.argsort(s, kind="stable")
    right = int(np.count_nonzero(inside[order[m - guess_in :]])) + int(
        np.count_nonzero(~inside[order[:guess_out]])
    )
    return one_run_lower_bound(m, guess_in + guess_out, right, alpha=alpha, delta=delta)
