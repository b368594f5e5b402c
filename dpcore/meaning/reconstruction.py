"""Reconstruction from noisy subset sums (Dinur & Nissim, PODS 2003).

A curator holds ``n`` secret bits ``x``. The attacker asks ``m`` random subset sums
``A x`` (each row of ``A`` picks every bit with probability ½) and gets each answer with
noise. Least squares ``x̂ = argmin ‖A x̂ − a‖₂``, rounded to {0, 1}, recovers almost every bit
while the noise is well below ``√n``: the estimate's error per bit is about
``σ·2/√m`` for noise of standard deviation σ. Noise that makes the ``m`` answers ε-DP
together (``Lap(m/ε)`` each, basic composition) is far above that, and the attack falls to
chance (half the bits).

Here the noise is Laplace of scale ``b`` (mean absolute error ``b``), so the DP answers sit
on the same axis as the chosen magnitudes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate

FloatArray = NDArray[np.float64]
MAX_BITS = 512
MAX_QUERIES_PER_BIT = 8


@dataclass(frozen=True)
class Secret:
    """The secret bits and the attacker's queries.

    Attributes
    ----------
    bits : ndarray of float, shape (n,)
        0 or 1.
    queries : ndarray of float, shape (m, n)
        0/1 rows: which bits each subset sum adds.
    """

    bits: FloatArray
    queries: FloatArray

    @property
    def n(self) -> int:
        return int(self.bits.size)

    @property
    def m(self) -> int:
        return int(self.queries.shape[0])

    def answers(self, scales: ArrayLike, rng: np.random.Generator) -> FloatArray:
        """The subset sums, each with Laplace noise of each scale in ``scales``.

        Parameters
        ----------
        scales : array_like of float
            Noise scales ``b`` >= 0 (0: exact answers).
        rng : numpy.random.Generator

        Returns
        -------
        ndarray of float, shape (m, len(scales))
        """
        b = np.atleast_1d(np.asarray(scales, dtype=np.float64))
        if np.any(~np.isfinite(b)) or np.any(b < 0):
            raise ValueError("noise scales must be finite and >= 0")
        exact = self.queries @ self.bits
        return exact[:, None] + rng.laplace(0.0, 1.0, (self.m, b.size)) * b[None, :]


def secret(n: int, m: int, rng: np.random.Generator) -> Secret:
    """``n`` random bits and ``m`` random subsets.

    Parameters
    ----------
    n : int
        1 to :data:`MAX_BITS` bits.
    m : int
        Queries, ``n`` to ``MAX_QUERIES_PER_BIT · n``.
    rng : numpy.random.Generator

    Returns
    -------
    Secret

    Raises
    ------
    ValueError
        If ``n`` or ``m`` is outside its range.
    """
    n = _validate.whole("bits n", n, lower=1, upper=MAX_BITS)
    m = _validate.whole("queries m", m, lower=n, upper=MAX_QUERIES_PER_BIT * n)
    bits = rng.integers(0, 2, n).astype(np.float64)
    queries = rng.integers(0, 2, (m, n)).astype(np.float64)
    return Secret(bits, queries)


def least_squares(queries: FloatArray, answers: FloatArray) -> FloatArray:
    """The attack: least squares on every column of ``answers`` at once, rounded to {0, 1}
    (at ½).

    Parameters
    ----------
    queries : ndarray, shape (m, n)
    answers : ndarray, shape (m,) or (m, r)

    Returns
    -------
    ndarray of float
        The reconstructed bits, shape (n,) or (n, r).
    """
    estimate = np.linalg.lstsq(queries, answers, rcond=None)[0]
    return np.asarray(estimate >= 0.5, dtype=np.float64)


def recovered(s: Secret, guesses: FloatArray) -> FloatArray:
    """The fraction of bits each guess (a column of ``guesses``) gets right.

    Parameters
    ----------
    s : Secret
        The secret bits.
    guesses : ndarray of float, shape (n,) or (n, k)
        Guessed bits (0 or 1), one column per guess.

    Returns
    -------
    ndarray of float, shape (k,)
        The share of the n bits each guess matches.
    """
    g = guesses if guesses.ndim == 2 else guesses[:, None]
    return np.asarray(np.mean(g == s.bits[:, None], axis=0), dtype=np.float64)


def dp_scale(m: int, eps: float) -> float:
    """The Laplace scale that makes ``m`` subset sums ε-DP together: each at ε/m, sensitivity 1
    (one person's bit changes every sum by at most 1), so ``b = m/ε``.

    Parameters
    ----------
    m : int
    eps : float
        The total ε > 0.

    Returns
    -------
    float
    """
    eps = _validate.positive("epsilon", eps)
    return _validate.whole("queries m", m, lower=1) / eps


def attack_curve(
    n: int, m: int, scales: ArrayLike, rng: np.random.Generator
) -> tuple[Secret, FloatArray]:
    """A seeded secret, its queries, and the fraction of bits least squares recovers at each
    noise scale (the same queries; fresh noise per scale).

    Parameters
    ----------
    n, m : int
    scales : array_like of float
    rng : numpy.random.Generator

    Returns
    -------
    (Secret, ndarray of float)
    """
    s = secret(n, m, rng)
    answers = s.answers(scales, rng)
    return s, recovered(s, least_squares(s.queries, answers))
