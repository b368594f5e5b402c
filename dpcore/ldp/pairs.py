"""Randomized response over key-value pairs ``<key, ±1>`` and its estimators.

Shared by HISKV's LRR_KV and PCKV-GRR: both report one pair from the domain of
``D = 2 (d + L)`` pairs (``d`` real keys, ``L`` dummy keys), with

.. math::
    P(\\langle k, b\\rangle \\mid \\langle k, b\\rangle) = p_1,\\quad
    P(\\langle k, -b\\rangle \\mid \\langle k, b\\rangle) = q_1,\\quad
    P(\\text{any other pair}) = q_2,\\qquad p_1 + q_1 + (D - 2) q_2 = 1.

Pair ``<k, +1>`` has index ``2k``, ``<k, -1>`` index ``2k + 1``. The estimators
(step 6; PCKV's improved mean estimator) are in :func:`estimate_pairs`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class PairProbabilities:
    """``(p1, q1, q2)`` of a pair randomizer over ``n_keys = d + L`` keys.

    Attributes
    ----------
    p1 : float
        Probability of reporting the true pair ``<k, b>``.
    q1 : float
        Probability of the same key with the flipped value ``<k, -b>``.
    q2 : float
        Probability of each of the ``D - 2`` pairs of other keys.
    n_keys : int
        ``d + L``, so that ``D = 2 n_keys``.

    Raises
    ------
    ValueError
        If a probability is negative or ``p1 + q1 + (D - 2) q2`` differs from 1 by more
        than ``1e-9``.
    """

    p1: float
    q1: float
    q2: float
    n_keys: int

    def __post_init__(self) -> None:
        total = self.p1 + self.q1 + (2 * self.n_keys - 2) * self.q2
        if not np.isclose(total, 1.0, rtol=0, atol=1e-9) or min(self.p1, self.q1, self.q2) < 0:
            raise ValueError(f"probabilities must be >= 0 and sum to 1 (got {total})")

    def matrix(self) -> NDArray[np.float64]:
        """The ``D x D`` channel ``P[input pair, output pair]`` (for checks on small D)."""
        size = 2 * self.n_keys
        channel = np.full((size, size), self.q2)
        idx = np.arange(size)
        channel[idx, idx] = self.p1
        channel[idx, idx ^ 1] = self.q1
        return channel


@dataclass(frozen=True)
class PairEstimate:
    """Per-key estimates from pair counts (:func:`estimate_pairs`).

    Attributes
    ----------
    frequency : ndarray of float64, shape (d,)
        Unbiased frequencies (unclipped).
    mean : ndarray of float64, shape (d,)
        Bounded means in ``[-1, 1]``.
    """

    frequency: NDArray[np.float64]
    mean: NDArray[np.float64]


def pair_index(keys: NDArray[np.int64], signs: NDArray[np.int8]) -> NDArray[np.int64]:
    """Index of ``<key, sign>``: ``2 key`` for ``+1``, ``2 key + 1`` for ``-1``.

    Parameters
    ----------
    keys : ndarray of int64, shape (n,)
        Keys (real or dummy).
    signs : ndarray of int8, shape (n,)
        Values ``±1``.

    Returns
    -------
    ndarray of int64, shape (n,)
        Pair indices in ``0..2 n_keys - 1``.
    """
    return 2 * keys + (signs < 0)


def perturb_pairs(
    pairs: NDArray[np.int64], probs: PairProbabilities, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Randomize each user's pair index independently (one vectorized pass).

    Keep w.p. ``p1``, flip the value w.p. ``q1``, else a uniform pair among the
    ``D - 2`` pairs of other keys (each then has probability ``q2``).

    Parameters
    ----------
    pairs : ndarray of int64, shape (n,)
        True pair indices (:func:`pair_index`).
    probs : PairProbabilities
        The channel.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (n,)
        Reported pair indices.
    """
    n = pairs.size
    u = rng.random(n)
    other = rng.integers(0, 2 * probs.n_keys - 2, size=n, dtype=np.int64)
    own_key_start = pairs & ~1
    other = other + 2 * (other >= own_key_start)  # skip the two pairs of the own key
    out = np.where(u < probs.p1, pairs, np.where(u < probs.p1 + probs.q1, pairs ^ 1, other))
    return out.astype(np.int64)


def pair_counts(reports: NDArray[np.int64], d: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(C+_k, C-_k)`` for the real keys ``k < d`` (dummy reports are dropped).

    Parameters
    ----------
    reports : ndarray of int64, shape (n,)
        Reported pair indices.
    d : int
        Number of real keys.

    Returns
    -------
    c_plus, c_minus : ndarray of int64, shape (d,)
        Reports of ``<k, +1>`` and of ``<k, -1>``.
    """
    counts = np.bincount(reports, minlength=2 * d)[: 2 * d]
    return counts[0::2], counts[1::2]


def estimate_pairs(
    c_plus: NDArray[np.int64],
    c_minus: NDArray[np.int64],
    n_reports: int,
    length: int,
    *,
    p1: float,
    q1: float,
    q2: float,
) -> PairEstimate:
    """Unbiased frequencies and bounded means from pair counts (step 6).

    .. math::
        \\hat f_k = \\frac{L\\,(C^+_k + C^-_k - 2 q_2 n')}{n' (p_1 + q_1 - 2 q_2)},

    and, with :math:`\\hat f` clipped to :math:`[1/n', 1]` and :math:`N = n'\\hat f/L`,

    .. math::
        \\begin{pmatrix} p_1 - q_2 & q_1 - q_2 \\\\ q_1 - q_2 & p_1 - q_2 \\end{pmatrix}
        \\begin{pmatrix} n_1 \\\\ n_2 \\end{pmatrix} =
        \\begin{pmatrix} C^+_k - n' q_2 \\\\ C^-_k - n' q_2 \\end{pmatrix},\\quad
        \\hat m_k = \\frac{\\mathrm{clip}(n_1, 1, N) - \\mathrm{clip}(n_2, 1, N)}{N}.

    Any report whose per-key marginals have this form works, e.g. PCKV-UE's bit
    vectors with :math:`p_1 = a p`, :math:`q_1 = a(1-p)`, :math:`q_2 = b/2`.

    Parameters
    ----------
    c_plus, c_minus : ndarray of int64, shape (d,)
        Counts of ``<k, +1>`` and ``<k, -1>`` (:func:`pair_counts`).
    n_reports : int
        Number of reports :math:`n'`.
    length : int
        Padding length ``L``.
    p1, q1, q2 : float
        The channel's probabilities.

    Returns
    -------
    PairEstimate
        The frequency unclipped (so that it stays unbiased) and the mean in
        ``[-1, 1]``; when ``p1 <= q1`` the value carries no information and the mean is 0.
    """
    n = float(n_reports)
    cp = c_plus.astype(np.float64)
    cm = c_minus.astype(np.float64)
    a, b = p1 + q1, 2.0 * q2
    freq = length * (cp + cm - b * n) / (n * (a - b))
    big_n = np.clip(freq, 1.0 / n, 1.0) * n / length
    diff = p1 - q1
    if diff <= 0:
        return PairEstimate(freq, np.zeros_like(freq))
    # The 2x2 system decouples into sum and difference: (p1+q1-2q2)(n1+n2), (p1-q1)(n1-n2).
    total = (cp + cm - b * n) / (a - b)
    gap = (cp - cm) / diff
    n1 = np.clip((total + gap) / 2.0, 1.0, big_n)
    n2 = np.clip((total - gap) / 2.0, 1.0, big_n)
    return PairEstimate(freq, (n1 - n2) / big_n)


def frequency_variance(
    f: NDArray[np.float64], n_reports: int, length: int, *, p1: float, q1: float, q2: float
) -> NDArray[np.float64]:
    """Closed-form :math:`\\mathrm{Var}\\,\\hat f_k` without truncation (step 7).

    With :math:`a = p_1 + q_1`, :math:`b = 2q_2`, every holder of ``k`` picks it with
    probability :math:`1/L` (all :math:`l_i \\le L`):

    .. math::
        \\mathrm{Var}\\,\\hat f_k = \\frac{L^2 b(1-b)}{n'(a-b)^2}
        + \\frac{L f_k (1-2b)}{n'(a-b)} - \\frac{f_k}{n'}.

    Parameters
    ----------
    f : ndarray of float64
        True frequencies :math:`f_k` (any shape).
    n_reports : int
        Number of reports :math:`n'`.
    length : int
        Padding length ``L``.
    p1, q1, q2 : float
        The channel's probabilities.

    Returns
    -------
    ndarray of float64
        Variance of :math:`\\hat f_k` for each entry of ``f`` (same shape).
    """
    a, b = p1 + q1, 2.0 * q2
    n = float(n_reports)
    return np.asarray(
        length**2 * b * (1 - b) / (n * (a - b) ** 2)
        + length * f * (1 - 2 * b) / (n * (a - b))
        - f / n,
        dtype=np.float64,
    )
