"""The exact ε of a mechanism whose output distribution is finite and known.

On a finite output set the privacy loss between neighbours ``D, D'`` is exact:

.. math:: \\varepsilon(D, D') = \\max_o \\big|\\ln P[M(D) = o] - \\ln P[M(D') = o]\\big|,

infinite if one input can produce an output the other cannot, and the mechanism's ε is
the largest over all neighbour pairs (so the pair's value is a lower bound on it, equal to
it for the worst pair). Where this is available an audit is only a demonstration: the
number to teach is this one (Bichsel et al., "DP-Sniper", IEEE S&P 2021, on the truncated
geometric; Balcer & Vadhan, "Differential privacy on finite computers", 2017). For
(ε, δ) claims, :func:`exact_delta` gives the smallest δ at a given ε (the hockey-stick
divergence, both directions).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate


def _pmfs(pmf_d: ArrayLike, pmf_d_prime: ArrayLike) -> tuple[NDArray[np.float64], ...]:
    p = _validate.finite_array("pmf_d", pmf_d, nonnegative=True)
    q = _validate.finite_array("pmf_d_prime", pmf_d_prime, nonnegative=True, size=p.size)
    for name, mass in (("pmf_d", p), ("pmf_d_prime", q)):
        if p.size == 0 or not math.isclose(float(mass.sum()), 1.0, abs_tol=1e-9):
            raise ValueError(f"{name} must be probabilities summing to 1, got {mass.sum():.12g}")
    return p, q


def exact_epsilon(pmf_d: ArrayLike, pmf_d_prime: ArrayLike) -> float:
    """The exact ε between two neighbours' output distributions on one finite output set.

    .. math:: \\varepsilon = \\max_{o:\\ p(o) + p'(o) > 0} \\big|\\ln p(o) - \\ln p'(o)\\big|

    Parameters
    ----------
    pmf_d, pmf_d_prime : array_like, shape (outputs,)
        ``P[M(D) = o]`` and ``P[M(D') = o]`` over the same outputs, each summing to 1
        (within ``1e-9``).

    Returns
    -------
    float
        The ε in nats; ``inf`` if an output is possible under one input only.

    Raises
    ------
    ValueError
        If either is empty, not 1-D, negative, not finite, of different sizes, or does not
        sum to 1.

    Examples
    --------
    Randomized response keeping the bit with probability 3/4: ε = ln 3.

    >>> math.isclose(exact_epsilon([0.75, 0.25], [0.25, 0.75]), math.log(3))
    True
    >>> exact_epsilon([1.0, 0.0], [0.5, 0.5])
    inf
    """
    p, q = _pmfs(pmf_d, pmf_d_prime)
    used = (p > 0) | (q > 0)
    if np.any((p[used] == 0) | (q[used] == 0)):
        return math.inf
    return float(np.max(np.abs(np.log(p[used]) - np.log(q[used]))))


def exact_channel_epsilon(channel: ArrayLike, neighbours: ArrayLike | None = None) -> float:
    """The exact ε of a finite channel: :func:`exact_epsilon` maximised over neighbour pairs.

    .. math:: \\varepsilon = \\max_{(i, j) \\in \\mathcal N} \\max_o
              \\big|\\ln P[o \\mid i] - \\ln P[o \\mid j]\\big|

    Parameters
    ----------
    channel : array_like, shape (inputs, outputs)
        Row ``i`` is the output distribution on input ``i``.
    neighbours : array_like of int, shape (pairs, 2), optional
        The neighbour relation as row index pairs; ``None``: every pair of rows (local DP,
        where any two inputs are neighbours).

    Returns
    -------
    float
        The ε in nats (``inf`` if a neighbour pair has different supports).

    Raises
    ------
    ValueError
        If ``channel`` is not 2-D with at least two rows of probabilities summing to 1,
        or ``neighbours`` is not pairs of valid row indices.

    Examples
    --------
    Generalised randomized response over 3 items at ε = ln 2 (``p = 1/2``, ``q = 1/4``):

    >>> math.isclose(exact_channel_epsilon([[.5, .25, .25], [.25, .5, .25], [.25, .25, .5]]),
    ...              math.log(2))
    True
    """
    rows = np.asarray(channel, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] < 2:
        raise ValueError(f"channel must be 2-D with at least two rows, got shape {rows.shape}")
    if neighbours is None:
        pairs = np.array([(i, j) for i in range(rows.shape[0]) for j in range(i)], np.int64)
    else:
        pairs = np.asarray(neighbours, dtype=np.int64).reshape(-1, 2)
        if pairs.size == 0 or (pairs < 0).any() or (pairs >= rows.shape[0]).any():
            raise ValueError("neighbours must be pairs of row indices of channel")
    return max(exact_epsilon(rows[i], rows[j]) for i, j in pairs)


def exact_delta(pmf_d: ArrayLike, pmf_d_prime: ArrayLike, eps: float) -> float:
    """The smallest δ for which the pair is (ε, δ)-indistinguishable (both directions).

    .. math:: \\delta(\\varepsilon) = \\max\\Big(\\sum_o \\big(p(o) - e^\\varepsilon p'(o)\\big)_+,
              \\ \\sum_o \\big(p'(o) - e^\\varepsilon p(o)\\big)_+\\Big)

    Parameters
    ----------
    pmf_d, pmf_d_prime : array_like, shape (outputs,)
        As :func:`exact_epsilon`.
    eps : float
        The ε, ``>= 0``.

    Returns
    -------
    float
        δ in ``[0, 1]``; 0 exactly when ``eps >= exact_epsilon(...)``.

    Raises
    ------
    ValueError
        As :func:`exact_epsilon`, or ``eps`` negative or not finite.

    Examples
    --------
    >>> exact_delta([1.0, 0.0], [0.5, 0.5], 0.0)
    0.5
    """
    p, q = _pmfs(pmf_d, pmf_d_prime)
    if not (math.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps!r}")
    scale = math.exp(eps)
    forward = float(np.maximum(p - scale * q, 0.0).sum())
    backward = float(np.maximum(q - scale * p, 0.0).sum())
    return max(forward, backward)
