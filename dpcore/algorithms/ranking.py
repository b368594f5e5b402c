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


def control_variate_mean(
    values: ArrayLike, controls: ArrayLike, control_mean: float
) -> tuple[float, float, int]:
    """The mean of ``values`` corrected by a control variate whose expectation is known:
    the regression estimator, the least-squares line of ``values`` on ``controls`` read at
    ``controls``' known mean.

    .. math:: \\hat\\mu = \\bar y - \\hat\\beta (\\bar x - \\mu_x), \\qquad
              \\mathrm{se}^2 = s_r^2 \\Bigl(\\frac{1}{k}
              + \\frac{(\\bar x - \\mu_x)^2}{\\sum_t (x_t - \\bar x)^2}\\Bigr),

    with ``β̂`` the least-squares slope and ``s_r²`` the residual variance on ``k − 2``
    degrees of freedom (the standard error of a fitted line's mean response; e.g. Glasserman,
    *Monte Carlo Methods in Financial Engineering*, 2004, §4.1). A trial's squared error,
    whose expectation a linear algorithm's exact mean squared error gives, is such a control
    for its absolute error: the two move together, so the corrected mean is much tighter.

    Parameters
    ----------
    values : array_like of float
        The per-trial values whose expectation is wanted, at least 3.
    controls : array_like of float
        The per-trial controls, as many.
    control_mean : float
        The controls' known expectation.

    Returns
    -------
    mean : float
        The corrected mean (the plain mean when the controls do not vary).
    standard_error : float
        Its standard error.
    dof : int
        Degrees of freedom of its Student t: ``k − 2`` (``k − 1`` for the plain mean).

    Raises
    ------
    ValueError
        If there are fewer than 3 values, the arrays differ in size or are not finite.

    Examples
    --------
    >>> mean, se, dof = control_variate_mean([3.0, 5.0, 7.0], [1.0, 2.0, 3.0], 2.5)
    >>> round(mean, 12), round(se, 12), dof  # on the line y = 2x + 1, exactly
    (6.0, 0.0, 1)
    """
    y = _validate.finite_array("values", values)
    x = _validate.finite_array("controls", controls, size=y.size)
    k = y.size
    if k < 3:
        raise ValueError(f"a control variate needs at least 3 trials, got {k}")
    centred = x - x.mean()
    sxx = float(centred @ centred)
    if not sxx > 0:
        return float(y.mean()), float(y.std(ddof=1) / np.sqrt(k)), k - 1
    beta = float(centred @ (y - y.mean())) / sxx
    residuals = y - y.mean() - beta * centred
    variance = float(residuals @ residuals) / (k - 2)
    gap = float(x.mean()) - float(control_mean)
    mean = float(y.mean()) - beta * gap
    return mean, float(np.sqrt(variance * (1 / k + gap**2 / sxx))), k - 2


def likely_best(probabilities: ArrayLike, level: float = 0.95) -> BoolArray:
    """The fewest algorithms, most probable first, whose probabilities of being best add up
    to at least ``level``: a single algorithm only when it alone is best with that
    probability.

    Parameters
    ----------
    probabilities : array_like of float
        Each algorithm's probability of being best (:func:`probability_best`).
    level : float, default 0.95
        The probability the set must reach, in ``(0, 1]``.

    Returns
    -------
    ndarray of bool
        True for the algorithms in the set (ties in probability taken in the given order).

    Raises
    ------
    ValueError
        If the probabilities are empty, not finite or negative, or ``level`` is outside
        ``(0, 1]``.

    Examples
    --------
    >>> likely_best([0.946, 0.004, 0.05]).tolist()
    [True, False, True]
    >>> likely_best([0.97, 0.02, 0.01]).tolist()
    [True, False, False]
    """
    p = _validate.finite_array("probabilities", probabilities, nonnegative=True)
    if p.size == 0:
        raise ValueError("probabilities must hold at least one algorithm's")
    wanted = _validate.fraction("level", level, open_high=False)
    order = np.argsort(-p, kind="stable")
    before = np.cumsum(p[order]) - p[order]  # what the set holds before each is added
    chosen = np.zeros(p.size, dtype=np.bool_)
    chosen[order[before < wanted * (1 - 1e-12)]] = True
    return chosen
