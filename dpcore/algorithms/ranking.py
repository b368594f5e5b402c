"""How sure a ranking of algorithms is: which are within noise of the leader, and the
probability that each is the best.

Each algorithm's expected error is known from a few trials (a mean with a Student t interval)
or exactly (a closed form, no spread). Under a normal model of one algorithm's errors with the
usual non-informative prior, its unknown expected error is distributed, given ``k`` trials,
as ``mean + se · T`` with ``T`` Student's t with ``k − 1`` degrees of freedom and ``se`` the
standard error ``sd / √k`` (Gelman et al., *Bayesian Data Analysis*, 3rd ed., 2013, §3.2):
the distribution whose central 95% is the usual t interval. The probability that an algorithm
is best is then the probability that its draw is the lowest, estimated from independent draws
of every algorithm (the trials share their inputs, so errors of two algorithms are in fact
correlated; the independent draws ignore that).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

DRAWS = 20_000
"""Draws of every algorithm's expected error behind :func:`probability_best` (its estimates
have a standard deviation of at most ``0.5 / √DRAWS``, 0.0035)."""


def probability_best(
    means: ArrayLike,
    standard_errors: ArrayLike,
    trials: int | ArrayLike,
    rng: np.random.Generator,
    *,
    draws: int = DRAWS,
) -> FloatArray:
    """The probability that each algorithm has the lowest expected error.

    .. math:: P_A \\approx \\frac{1}{D} \\sum_{d=1}^{D}
              \\bigl[A = \\arg\\min_B (\\bar e_B + s_B\\, T_{B,d})\\bigr],
              \\qquad T_{B,d} \\sim t_{k-1} \\text{ independent},

    with ``ē_B`` the mean (or exact) error, ``s_B`` its standard error (0 for an exact value)
    and ``k`` the number of trials behind ``ē_B`` (see the module's note for the model):
    an algorithm dropped from a race of trials once clearly behind has fewer than the leader.

    Parameters
    ----------
    means : array_like of float
        Each algorithm's mean error over the trials, or its exact expected error.
    standard_errors : array_like of float
        Each one's standard error (``sd / √trials``), 0 for an exact value; non-negative.
    trials : int or array_like of int
        Trials behind the means, at least 2 (one trial gives no spread): one number for
        all, or one per algorithm (any value >= 2 for an exact one, whose draw is its value).
    rng : numpy.random.Generator
        The source of the draws.
    draws : int, default DRAWS
        Draws of every algorithm, at least 1.

    Returns
    -------
    ndarray of float64
        One probability per algorithm, in ``[0, 1]``, summing to 1 (each draw has one lowest;
        equal draws count for the first).

    Raises
    ------
    ValueError
        If the arrays are empty, not finite, of different sizes, a standard error is
        negative, a number of trials is not a whole number >= 2, or ``draws < 1``.

    Examples
    --------
    >>> p = probability_best([1.0, 2.0], [0.0, 0.0], 3, np.random.default_rng(0))
    >>> p.tolist()
    [1.0, 0.0]
    """
    m = _validate.finite_array("means", means)
    if m.size == 0:
        raise ValueError("means must hold at least one algorithm's error")
    se = _validate.finite_array("standard_errors", standard_errors, size=m.size, nonnegative=True)
    k = np.broadcast_to(np.asarray(trials), m.shape)
    for value in k.tolist():
        _validate.whole("trials", value, lower=2)
    d = _validate.whole("draws", draws)
    drawn = m + se * rng.standard_t(k.astype(np.float64) - 1, size=(d, m.size))
    wins = np.bincount(np.argmin(drawn, axis=1), minlength=m.size)
    return np.asarray(wins / d, dtype=np.float64)


def within_noise(means: ArrayLike, half_widths: ArrayLike) -> BoolArray:
    """Which algorithms cannot be told apart from the leader (the lowest mean): those whose
    interval ``[mean − half width, mean + half width]`` overlaps the leader's, the leader
    included.

    Parameters
    ----------
    means : array_like of float
        Each algorithm's mean (or exact) error.
    half_widths : array_like of float
        Each one's interval half width (0 for an exact value); non-negative.

    Returns
    -------
    ndarray of bool
        True for the leader and every algorithm within noise of it.

    Raises
    ------
    ValueError
        If the arrays are empty, not finite, of different sizes or a half width is negative.

    Examples
    --------
    >>> within_noise([1.0, 1.5, 3.0], [0.3, 0.3, 0.1]).tolist()
    [True, True, False]
    """
    m = _validate.finite_array("means", means)
    if m.size == 0:
        raise ValueError("means must hold at least one algorithm's error")
    h = _validate.finite_array("half_widths", half_widths, size=m.size, nonnegative=True)
    lead = int(np.argmin(m))
    return np.asarray(m - h <= m[lead] + h[lead], dtype=np.bool_)
