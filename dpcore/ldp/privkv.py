"""PrivKV and PrivKVM (Ye, Hu, Meng, Zheng: "PrivKV: Key-Value Data Collection with
Local Differential Privacy", IEEE S&P 2019).

Each user samples one key ``j`` uniformly from the domain (sent in clear: it does
not depend on the data). A held pair ``<1, v>`` has its discretised value kept
w.p. :math:`p_2` and its presence kept w.p. :math:`p_1`; an absent key reports a
fake value (PrivKV: uniform on [-1, 1]; PrivKVM round ``r``: the previous round's
mean) as present w.p. :math:`1 - p_1`. Budgets :math:`\\varepsilon_1 =
\\varepsilon_2 = \\varepsilon/2`; PrivKVM runs ``c`` rounds of ``eps / c`` each.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp.data import KVData
from dpcore.ldp.sampling import ABSENT, PLUS, discretise, domain_sample

# Report codes: <0, 0>, <1, +1>, <1, -1>.
NONE, REPORT_PLUS, REPORT_MINUS = 0, 1, 2


def probabilities(eps: float) -> tuple[float, float]:
    """:math:`p_1 = p_2 = e^{\\varepsilon/2} / (1 + e^{\\varepsilon/2})`.

    Parameters
    ----------
    eps : float
        Privacy budget of one report, split equally between key and value.

    Returns
    -------
    p1 : float
        Probability that the presence bit is kept.
    p2 : float
        Probability that the discretised value is kept.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`).
    """
    eps = _validate.positive("eps", eps)
    p = math.exp(eps / 2) / (1 + math.exp(eps / 2))
    return p, p


def state_channel(eps: float, fake_mean: float = 0.0) -> NDArray[np.float64]:
    """``P[state, report]`` for states (absent, +1, -1) and reports
    (<0,0>, <1,+1>, <1,-1>), with the absent user's fake value of mean ``fake_mean``.

    Parameters
    ----------
    eps : float
        Privacy budget of one report.
    fake_mean : float, default 0.0
        Mean of the fake value an absent user reports (0: uniform on ``[-1, 1]``).

    Returns
    -------
    ndarray of float64, shape (3, 3)
        Row-stochastic channel.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`).

    Examples
    --------
    >>> state_channel(2 * math.log(3)).round(4).tolist()
    [[0.75, 0.125, 0.125], [0.25, 0.5625, 0.1875], [0.25, 0.1875, 0.5625]]
    """
    p1, p2 = probabilities(eps)
    fake_plus = (1 + fake_mean) / 2 * p2 + (1 - fake_mean) / 2 * (1 - p2)
    return np.array(
        [
            [p1, (1 - p1) * fake_plus, (1 - p1) * (1 - fake_plus)],
            [1 - p1, p1 * p2, p1 * (1 - p2)],
            [1 - p1, p1 * (1 - p2), p1 * p2],
        ]
    )


def perturb(
    data: KVData,
    eps: float,
    *,
    fake_means: NDArray[np.float64] | None = None,
    rng: np.random.Generator,
) -> tuple[NDArray[np.int64], NDArray[np.int8]]:
    """Client side: ``(sampled key, report code)`` per user.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user for this round.
    fake_means : ndarray of float64, shape (d,), optional
        Mean of the fake value for each absent key, clipped to ``[-1, 1]``
        (``None``: 0, i.e. uniform values).
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    keys : ndarray of int64, shape (n,)
        Key each user sampled uniformly from ``0..d-1``.
    codes : ndarray of int8, shape (n,)
        :data:`NONE`, :data:`REPORT_PLUS` or :data:`REPORT_MINUS`.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`).
    """
    p1, p2 = probabilities(eps)
    keys, state = domain_sample(data, rng=rng)
    fake = np.zeros(data.d) if fake_means is None else np.clip(fake_means, -1.0, 1.0)
    sign = np.where(state == PLUS, 1, -1).astype(np.int8)
    absent = state == ABSENT
    sign[absent] = discretise(fake[keys[absent]], rng=rng)
    sign = np.where(rng.random(keys.size) < p2, sign, -sign)
    present = np.where(absent, rng.random(keys.size) >= p1, rng.random(keys.size) < p1)
    code = np.where(present, np.where(sign > 0, REPORT_PLUS, REPORT_MINUS), NONE)
    return keys, code.astype(np.int8)


def estimate(
    keys: NDArray[np.int64], codes: NDArray[np.int8], d: int, eps: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Server side, per key ``j`` over the users who sampled it:

    .. math::
        \\hat f_j = \\frac{p_1 - 1 + f'_j}{2p_1 - 1},\\qquad
        \\hat m_j = \\mathrm{clip}\\Bigl(\\frac{n_1 - n_2}{(2p_2 - 1) N},\\,-1,1\\Bigr),

    with :math:`f'_j` the share of "present" reports, :math:`n_1, n_2` the counts of
    ``<1,+1>``, ``<1,-1>`` and :math:`N = n_1 + n_2`.

    Parameters
    ----------
    keys : ndarray of int64, shape (n,)
        Sampled keys (from :func:`perturb`).
    codes : ndarray of int8, shape (n,)
        Report codes.
    d : int
        Size of the key domain.
    eps : float
        Privacy budget the reports were made with.

    Returns
    -------
    frequency : ndarray of float64, shape (d,)
        :math:`\\hat f_j` (unclipped).
    mean : ndarray of float64, shape (d,)
        :math:`\\hat m_j` in ``[-1, 1]``.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`).
    """
    p1, p2 = probabilities(eps)
    n_j = np.maximum(np.bincount(keys, minlength=d), 1).astype(np.float64)
    n1 = np.bincount(keys[codes == REPORT_PLUS], minlength=d).astype(np.float64)
    n2 = np.bincount(keys[codes == REPORT_MINUS], minlength=d).astype(np.float64)
    freq = (p1 - 1 + (n1 + n2) / n_j) / (2 * p1 - 1)
    big_n = np.maximum(n1 + n2, 1.0)
    mean = np.clip((n1 - n2) / ((2 * p2 - 1) * big_n), -1.0, 1.0)
    return freq, mean


def round_eps(eps: float, rounds: int) -> float:
    """PrivKVM's budget of one round: ``eps / rounds`` (sequential composition).

    Parameters
    ----------
    eps : float
        Total privacy budget of each user.
    rounds : int
        Number of rounds ``c``, at least 1.

    Returns
    -------
    float
        The budget every round spends.

    Raises
    ------
    ValueError
        If ``rounds < 1``.
    """
    if rounds < 1:
        raise ValueError("PrivKVM needs at least one round")
    return eps / rounds


def run_privkvm(
    data: KVData, eps: float, rounds: int, *, rng: np.random.Generator
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """PrivKVM: ``rounds`` PrivKV rounds at ``eps / rounds`` each (sequential
    composition), absent users faking the previous round's mean estimate.
    ``rounds = 1`` is PrivKV.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Total privacy budget of each user.
    rounds : int
        Number of rounds ``c``, at least 1.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    frequency : ndarray of float64, shape (d,)
        Frequency estimate averaged over the rounds (each round is unbiased).
    mean : ndarray of float64, shape (d,)
        The last round's mean estimate, in ``[-1, 1]``.

    Raises
    ------
    ValueError
        If ``rounds < 1``, or ``eps / rounds`` is not a finite number ``>= 1e-300``.
    """
    each = round_eps(eps, rounds)
    fake = np.zeros(data.d)
    freqs = []
    for _ in range(rounds):  # a handful of protocol rounds, each vectorized over users
        keys, codes = perturb(data, each, fake_means=fake, rng=rng)
        freq, fake = estimate(keys, codes, data.d, each)
        freqs.append(freq)
    return np.mean(freqs, axis=0), fake
