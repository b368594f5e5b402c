"""The sparse vector technique and its published non-private variants.

Lyu, Su, Li, "Understanding the sparse vector technique for differential privacy", PVLDB
2017, Algs. 1–6, as coded in DP-Sniper's gallery (Bichsel et al., IEEE S&P 2021). Queries
``a_1..a_L`` (each may move by 1 between neighbours), threshold ``T``, cutoff ``c``: query
``i`` answers TRUE if ``a_i + ν_i >= T + ρ``; after the ``c``-th TRUE the rest are aborted.
Outputs are rows of codes: 1 TRUE, 0 FALSE, -1 aborted (discrete outputs); SVT3's rows add
the noisy answer of each TRUE (0 elsewhere), a vector output audited with a given score.

=====  ==========================  ====================  ==========  =====================
 Alg    threshold noise ρ           query noise ν_i       cutoff      true ε
=====  ==========================  ====================  ==========  =====================
 SVT1   Lap(1/ε1), ε1 = ε/2         Lap(2c/ε2)            c           ε
 SVT2   Lap(c/ε1), redrawn per TRUE Lap(2c/ε2)            c           ε
 SVT3   Lap(1/ε1)                   Lap(c/ε2)             c           ∞ (outputs a_i + ν_i)
 SVT4   Lap(1/ε1), ε1 = ε/4         Lap(1/ε2), ε2 = 3ε/4  c           (1 + 6c) ε / 4
 SVT5   Lap(1/ε1)                   none                  none        ∞
 SVT6   Lap(1/ε1)                   Lap(1/ε2)             none        grows with L
=====  ==========================  ====================  ==========  =====================
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.audit.gallery.entry import Entry, make
from dpcore.audit.outputs import Sampler

TRUE, FALSE, ABORTED = 1, 0, -1


@dataclass(frozen=True)
class _Noise:
    """Scales of the threshold and query noise (``0``: none), cutoff, redraw rule."""

    threshold: float
    query: float
    cutoff: int | None
    redraw: bool
    release: bool = False


def _svt(a: NDArray[np.float64], threshold: float, noise: _Noise) -> Sampler:
    """``size`` runs of the sparse vector technique on answers ``a``, vectorised over runs
    (with ``noise.release``, float rows: the codes, then each TRUE's noisy answer)."""

    def sample(size: int, rng: np.random.Generator) -> NDArray[np.int64 | np.float64]:
        out = np.full((size, a.size), ABORTED, dtype=np.int64)
        released = np.zeros((size, a.size))
        rho = rng.laplace(0.0, noise.threshold, size)
        found = np.zeros(size, dtype=np.int64)
        for i, answer in enumerate(a):
            live = found < noise.cutoff if noise.cutoff is not None else np.ones(size, bool)
            nu = rng.laplace(0.0, noise.query, size) if noise.query > 0 else 0.0
            above = answer + nu >= threshold + rho
            out[live, i] = np.where(above[live], TRUE, FALSE)
            hit = above & live
            released[hit, i] = (answer + nu)[hit] if noise.query > 0 else answer
            found += hit
            if noise.redraw:
                rho = np.where(hit, rng.laplace(0.0, noise.threshold, size), rho)
        return np.hstack([out, released]) if noise.release else out

    return sample


def svt1(eps: float = 1.0, cutoff: int = 1) -> Entry:
    """SVT1 (Lyu et al. Alg. 1): correct, ε.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    cutoff : int, default 1
        ``c``, the number of TRUE answers before the rest are aborted.

    Returns
    -------
    Entry
        Queries ``(0, ..., 0, 1)`` against ``(1, ..., 1, 0)`` (10 queries, ``T = 0.5``).
    """
    c = _validate.whole("cutoff", cutoff)
    eps1 = eps / 2
    noise = _Noise(1.0 / eps1, 2.0 * c / (eps - eps1), c, False)
    return _entry("SVT1", eps, eps, noise, "threshold Lap(2/ε), queries Lap(4c/ε)")


def svt2(eps: float = 1.0, cutoff: int = 2) -> Entry:
    """SVT2 (Dwork & Roth's, Lyu et al. Alg. 2): correct, ε; ρ redrawn after each TRUE.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    cutoff : int, default 2
        ``c``.

    Returns
    -------
    Entry
        As :func:`svt1`.
    """
    c = _validate.whole("cutoff", cutoff)
    eps1 = eps / 2
    noise = _Noise(c / eps1, 2.0 * c / (eps - eps1), c, True)
    return _entry("SVT2", eps, eps, noise, "threshold Lap(2c/ε) redrawn, queries Lap(4c/ε)")


def svt3(eps: float = 1.0, cutoff: int = 1) -> Entry:
    """BUG: SVT3 (Lyu et al. Alg. 3): a TRUE releases the noisy answer ``a_i + ν_i``; true
    ε infinite (Lyu et al. Table 1), unbounded in the number of queries.

    With ``ε1 = ε2 = ε/2``, ``ρ ~ Lap(2/ε)``, ``ν_i ~ Lap(2c/ε)`` and ``T = 0.5``: the
    output "FALSE on queries 1..L-1, TRUE on query L with value ``v < 0``" forces
    ``ρ <= v - T < -T``, so every FALSE lies in the Laplace lower tail, where a shift of
    the answer by 1 moves its probability by exactly ``e^(ε/(2c))``; on ``(0, ..., 0, 1)``
    against ``(1, ..., 1, 0)`` the density ratio is ``e^((L - 1) ε/(2c))`` from the FALSEs
    times ``e^(-ε/(2c))`` from ``v``, at every ``ρ``, so ε is at least ``(L - 2) ε/(2c)``
    (4ε at ``L = 10``, ``c = 1``), without limit as ``L`` grows. The released value is
    what breaks SVT1's proof: shifting ``ρ`` by 1 to absorb the FALSEs would move the
    condition ``v >= T + ρ`` that the output pins.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    cutoff : int, default 1
        ``c``.

    Returns
    -------
    Entry
        As :func:`svt1`, with the score "minus the released value of a TRUE on the last
        query alone" (:func:`last_true_value`).
    """
    c = _validate.whole("cutoff", cutoff)
    noise = _Noise(2.0 / eps, 2.0 * c / eps, c, False, release=True)
    entry = _entry("SVT3", eps, math.inf, noise, "threshold Lap(2/ε), queries Lap(2c/ε)")
    return dataclasses.replace(entry, score=last_true_value)


def last_true_value(outputs: NDArray[np.float64]) -> NDArray[np.float64]:
    """SVT3's score: ``-v`` for runs whose only TRUE is the last query, with value ``v``;
    ``-1e6`` for every other run.

    Parameters
    ----------
    outputs : ndarray of float64, shape (n, 2 L)
        Codes of the ``L`` queries, then the released values.

    Returns
    -------
    ndarray of float64, shape (n,)
        High where the output is more likely on ``(0, ..., 0, 1)`` than on ``(1, ..., 1, 0)``.
    """
    length = outputs.shape[1] // 2
    codes, values = outputs[:, :length], outputs[:, length:]
    only_last = (codes[:, -1] == TRUE) & (codes[:, :-1] == FALSE).all(axis=1)
    return np.where(only_last, -values[:, -1], -1e6)


def svt4(eps: float = 1.0, cutoff: int = 1) -> Entry:
    """BUG: SVT4 (Lee & Clifton; Lyu et al. Alg. 4): query noise too small, true
    ``(1 + 6c) ε / 4`` (1.75 ε at ``c = 1``).

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    cutoff : int, default 1
        ``c``.

    Returns
    -------
    Entry
        As :func:`svt1`.
    """
    c = _validate.whole("cutoff", cutoff)
    noise = _Noise(4.0 / eps, 4.0 / (3.0 * eps), c, False)
    true = (1 + 6 * c) * eps / 4
    return _entry("SVT4", eps, true, noise, "threshold Lap(4/ε), queries Lap(4/(3ε))")


def svt5(eps: float = 1.0) -> Entry:
    """BUG: SVT5 (Lyu et al. Alg. 5): no query noise, no cutoff: ε is infinite.

    Two queries suffice: on ``(0, 1)`` the answer (TRUE, FALSE) is impossible (it needs
    ``0 >= T + ρ > 1``), on ``(1, 0)`` it is not.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.

    Returns
    -------
    Entry
        Queries ``(0, 1)`` against ``(1, 0)``, ``T = 0.5``.
    """
    noise = _Noise(2.0 / eps, 0.0, None, False)
    a, a_prime = np.array([0.0, 1.0]), np.array([1.0, 0.0])
    return make(
        "SVT5", eps, math.inf, (_svt(a, 0.5, noise), _svt(a_prime, 0.5, noise)),
        "threshold Lap(2/ε), no query noise, no cutoff: (0, 1) against (1, 0)",
        "every answer ±1",
    )  # fmt: skip


def svt6(eps: float = 1.0, queries: int = 10) -> Entry:
    """BUG: SVT6 (Lyu et al. Alg. 6): query noise but no cutoff; ε grows without limit in
    the number of queries (at most ``ε1 + 2 L ε2`` for ``L`` queries, not known to be tight).

    The "X" pair of StatDP's patterns: half the answers move up, half down, so that no
    shift of the shared threshold noise can absorb the change.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε (``ε1 = ε2 = ε/2``).
    queries : int, default 10
        ``L``, at least 2.

    Returns
    -------
    Entry
        ``(1, ..., 1, 0, ..., 0)`` against ``(0, ..., 0, 1, ..., 1)`` with ``T = 0.5``; true
        ε ``None`` (unknown, above the claim).
    """
    length = _validate.whole("queries", queries, lower=2)
    noise = _Noise(2.0 / eps, 2.0 / eps, None, False)
    a = np.zeros(length)
    a[: length // 2] = 1.0
    return make(
        "SVT6", eps, None, (_svt(a, 0.5, noise), _svt(1.0 - a, 0.5, noise)),
        f"threshold Lap(2/ε), queries Lap(2/ε), no cutoff: {length} answers, first half 1 "
        "against first half 0", "every answer ±1", buggy=True,
    )  # fmt: skip


def _entry(name: str, eps: float, true: float, noise: _Noise, text: str) -> Entry:
    a = np.zeros(10)
    a[-1] = 1.0
    return make(
        name, eps, true, (_svt(a, 0.5, noise), _svt(1.0 - a, 0.5, noise)),
        f"{text}, cutoff {noise.cutoff}: 10 answers (0, ..., 0, 1) against (1, ..., 1, 0)",
        "every answer ±1",
    )  # fmt: skip
