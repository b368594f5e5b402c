"""HISKV: histogram-based key-value collection under local DP -- a RECONSTRUCTION.

Zhang, Xu, Fu, Meng, "HISKV". Every formula of the paper was lost
from the only available copy; this module implements a reconstruction:
the steps the paper describes, with probabilities and estimators derived there.

1. Users are split: a fraction ``beta`` runs OETL (length estimation), the others
   report pairs. The groups are disjoint, so each user spends ``eps`` once.
2. OETL: GRR over the clipped lengths ``1..l_max``, unbiased and clipped length
   histogram, ``L`` = smallest length whose cumulative share reaches 90%.
3. Padding-and-sampling with ``L`` (:func:`dpcore.ldp.sampling.padding_sample`).
4. Discretise the value to ``±1``.
5. LRR_KV over the ``D = 2(d + L)`` pairs with a value budget ``eps_v``
   (:func:`perturbation_probabilities`).
6. Frequencies and bounded means (:func:`dpcore.ldp.pairs.estimate_pairs`).

The paper's own ``p1 = e^eps/(e^eps + D - 1)`` together with ``q1 > q2`` would
violate eps-LDP for a single report; it is deliberately not reproduced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp import oracles
from dpcore.ldp.data import KVData
from dpcore.ldp.pairs import (
    PairProbabilities,
    estimate_pairs,
    pair_counts,
    pair_index,
    perturb_pairs,
)
from dpcore.ldp.sampling import discretise, padding_sample

DEFAULT_VALUE_SHARE = 0.5
"""Default ``eps_v / eps*`` (our choice: the paper's value is lost)."""


def amplified_epsilon(eps: float, length: int) -> float:
    """Per-report budget that padding-and-sampling with ``L`` turns into user-level ``eps``.

    .. math:: \\varepsilon^* = \\ln\\bigl(L (e^\\varepsilon - 1) + 1\\bigr)

    (as proven for PCKV; :mod:`dpcore.ldp.privacy` re-checks it exactly).

    Parameters
    ----------
    eps : float
        User-level privacy budget (not checked here).
    length : int
        Padding length ``L``.

    Returns
    -------
    float
        :math:`\\varepsilon^*`, at least ``eps`` for ``L >= 1``.

    Raises
    ------
    ValueError
        If :math:`L (e^\\varepsilon - 1) + 1 \\le 0` (math domain error; only for a
        negative ``eps``).

    Examples
    --------
    >>> amplified_epsilon(1.0, 1) == 1.0
    True
    """
    return math.log(length * math.expm1(eps) + 1.0)


def perturbation_probabilities(
    eps: float, d: int, L: int, eps_v: float | None = None, amplified: bool = False
) -> tuple[float, float, float]:
    """``(p1, q1, q2)`` of LRR_KV (reconstructed; step 5). Public entry point:
    keep this signature stable.

    .. math::
        Z = e^{\\varepsilon^*} + e^{\\varepsilon^* - \\varepsilon_v} + D - 2,\\quad
        p_1 = e^{\\varepsilon^*}/Z,\\ q_1 = e^{\\varepsilon^* - \\varepsilon_v}/Z,\\
        q_2 = 1/Z,\\quad D = 2(d + L),

    with :math:`\\varepsilon^* = \\varepsilon` (conservative) or
    :func:`amplified_epsilon` (``amplified=True``). ``eps_v = eps*`` is plain GRR over
    the ``D`` pairs; smaller ``eps_v`` moves probability to the true key with the flipped
    value (:math:`q_1 > q_2`), trading mean accuracy for frequency accuracy. In every case
    :math:`p_1 / q_2 = e^{\\varepsilon^*}` bounds the ratio of any two inputs.

    Parameters
    ----------
    eps : float
        User-level privacy budget, in ``[1e-300, 10]``.
    d : int
        Size of the key domain, at least 1.
    L : int
        Padding length, at least 1.
    eps_v : float, optional
        Value budget :math:`\\varepsilon_v \\in [0, \\varepsilon^*]`; ``None``:
        ``DEFAULT_VALUE_SHARE * eps*``.
    amplified : bool, default False
        Account with the padding-and-sampling amplification (:func:`amplified_epsilon`).

    Returns
    -------
    p1 : float
        Probability of reporting the true pair.
    q1 : float
        Probability of the true key with the flipped value.
    q2 : float
        Probability of each other pair.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]`` (:func:`dpcore._validate.ldp_epsilon`),
        ``d < 1`` or ``L < 1``, or ``eps_v`` is outside ``[0, eps*]``.

    Examples
    --------
    >>> p1, q1, q2 = perturbation_probabilities(math.log(4), d=1, L=1, eps_v=math.log(4))
    >>> round(p1, 6), round(q1, 6), round(q2, 6)
    (0.571429, 0.142857, 0.142857)
    """
    eps = _validate.ldp_epsilon(eps)
    if d < 1 or L < 1:
        raise ValueError("need d >= 1 and L >= 1")
    eps_star = amplified_epsilon(eps, L) if amplified else eps
    if eps_v is None:
        eps_v = DEFAULT_VALUE_SHARE * eps_star
    if not 0.0 <= eps_v <= eps_star * (1 + 1e-12):
        raise ValueError(f"eps_v must lie in [0, eps*] = [0, {eps_star:.4g}]")
    pairs = 2 * (d + L)
    z = math.exp(eps_star) + math.exp(eps_star - eps_v) + pairs - 2
    return math.exp(eps_star) / z, math.exp(eps_star - eps_v) / z, 1.0 / z


def pair_probabilities(
    eps: float, d: int, L: int, *, value_share: float = DEFAULT_VALUE_SHARE, amplified: bool
) -> PairProbabilities:
    """:func:`perturbation_probabilities` with ``eps_v = value_share * eps*``, packed.

    Parameters
    ----------
    eps : float
        User-level privacy budget, in ``[1e-300, 10]``.
    d : int
        Size of the key domain, at least 1.
    L : int
        Padding length, at least 1.
    value_share : float, default DEFAULT_VALUE_SHARE
        ``eps_v / eps*``, in ``[0, 1]``.
    amplified : bool
        Account with the padding-and-sampling amplification.

    Returns
    -------
    PairProbabilities
        The LRR_KV channel over ``d + L`` keys.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]`` (:func:`dpcore._validate.ldp_epsilon`),
        ``d < 1`` or ``L < 1``, or ``value_share`` is outside ``[0, 1]``.
    """
    eps = _validate.ldp_epsilon(eps)
    eps_star = amplified_epsilon(eps, L) if amplified else eps
    p1, q1, q2 = perturbation_probabilities(eps, d, L, value_share * eps_star, amplified)
    return PairProbabilities(p1, q1, q2, d + L)


def oetl_perturb(
    lengths: NDArray[np.int64], eps: float, l_max: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Each OETL user reports :math:`\\min(\\max(l_i, 1), l_{max})` by GRR over
    ``1..l_max`` (returned as 0-based items ``length - 1``).

    Parameters
    ----------
    lengths : ndarray of int64, shape (n,)
        Set lengths of the OETL users.
    eps : float
        Privacy budget of each user.
    l_max : int
        Largest length reported, at least 2.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (n,)
        GRR reports in ``0..l_max-1``.

    Raises
    ------
    ValueError
        If ``l_max < 2``.
    """
    clipped = np.clip(lengths, 1, l_max) - 1
    return oracles.grr_perturb(clipped, eps, l_max, rng=rng)


def oetl_length(
    reports: NDArray[np.int64], eps: float, l_max: int, *, quantile: float = 0.9
) -> tuple[int, NDArray[np.float64]]:
    """Truncation length ``L`` and the estimated length distribution over ``1..l_max``.

    .. math::
        \\hat c_j = \\frac{C_j - n_0 q}{p - q},\\quad \\hat c \\leftarrow
        \\max(\\hat c, 0)/\\textstyle\\sum \\max(\\hat c, 0),\\quad
        L = \\min\\{ j : \\textstyle\\sum_{i \\le j} \\hat c_i \\ge 0.9\\}.

    Parameters
    ----------
    reports : ndarray of int64, shape (n,)
        OETL reports (from :func:`oetl_perturb`).
    eps : float
        Privacy budget the reports were made with.
    l_max : int
        Largest length reported, at least 2.
    quantile : float, default 0.9
        Share of the length distribution ``L`` must cover.

    Returns
    -------
    length : int
        ``L`` in ``1..l_max``.
    distribution : ndarray of float64, shape (l_max,)
        Estimated share of each length ``1..l_max``, clipped at 0 and normalised
        (uniform if every estimate is ``<= 0``).

    Raises
    ------
    ValueError
        If ``l_max < 2``.

    Examples
    --------
    >>> reports = np.repeat(np.arange(4), [10, 70, 15, 5])
    >>> oetl_length(reports, 50.0, 4)[0]
    3
    """
    share = np.clip(oracles.grr_estimate(reports, eps, l_max), 0.0, None)
    total = share.sum()
    share = share / total if total > 0 else np.full(l_max, 1.0 / l_max)
    cumulative = np.cumsum(share)
    length = int(np.searchsorted(cumulative, quantile - 1e-12) + 1)
    return min(length, l_max), share


@dataclass(frozen=True)
class HISKVResult:
    """Estimates plus what the collector learnt on the way (for the teaching charts).

    Attributes
    ----------
    frequency : ndarray of float64, shape (d,)
        Unbiased key frequencies (unclipped).
    mean : ndarray of float64, shape (d,)
        Bounded key means in ``[-1, 1]``.
    length : int
        Padding length ``L`` used.
    length_distribution : ndarray of float64, shape (l_max,) or None
        OETL's estimated length distribution; ``None`` when ``L`` was given.
    probabilities : PairProbabilities
        The LRR_KV channel used.
    """

    frequency: NDArray[np.float64]
    mean: NDArray[np.float64]
    length: int
    length_distribution: NDArray[np.float64] | None
    probabilities: PairProbabilities


def perturb(
    data: KVData,
    eps: float,
    length: int,
    *,
    value_share: float = DEFAULT_VALUE_SHARE,
    amplified: bool = True,
    rng: np.random.Generator,
    users: NDArray[np.int64] | None = None,
) -> NDArray[np.int64]:
    """Client side of LRR_KV for the ``users`` of ``data`` (default all): one reported
    pair index each.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        User-level privacy budget, in ``[1e-300, 10]``.
    length : int
        Padding length ``L``, at least 1.
    value_share : float, default DEFAULT_VALUE_SHARE
        ``eps_v / eps*``, in ``[0, 1]``.
    amplified : bool, default True
        Account with the padding-and-sampling amplification.
    rng : numpy.random.Generator
        Source of the randomness.
    users : ndarray of int64, optional
        Users who report (``None``: all).

    Returns
    -------
    ndarray of int64
        One reported pair index per reporting user.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]`` (:func:`dpcore._validate.ldp_epsilon`),
        ``data.d < 1`` or ``length < 1``, or ``value_share`` is outside ``[0, 1]``.
    """
    probs = pair_probabilities(eps, data.d, length, value_share=value_share, amplified=amplified)
    sampled = padding_sample(data, length, rng=rng, users=users)
    signs = discretise(sampled.values, rng=rng)
    return perturb_pairs(pair_index(sampled.keys, signs), probs, rng=rng)


def estimate(
    reports: NDArray[np.int64], d: int, length: int, probs: PairProbabilities
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Server side of LRR_KV: ``(frequency, mean)`` of the ``d`` real keys.

    Parameters
    ----------
    reports : ndarray of int64, shape (n,)
        Reported pair indices (from :func:`perturb`).
    d : int
        Size of the key domain.
    length : int
        Padding length ``L`` the reports were made with.
    probs : PairProbabilities
        The channel the reports were made with.

    Returns
    -------
    frequency : ndarray of float64, shape (d,)
        Unbiased frequencies (unclipped).
    mean : ndarray of float64, shape (d,)
        Bounded means in ``[-1, 1]`` (:func:`dpcore.ldp.pairs.estimate_pairs`).
    """
    c_plus, c_minus = pair_counts(reports, d)
    est = estimate_pairs(
        c_plus, c_minus, reports.size, length, p1=probs.p1, q1=probs.q1, q2=probs.q2
    )
    return est.frequency, est.mean


def run(
    data: KVData,
    eps: float,
    *,
    rng: np.random.Generator,
    beta: float = 0.1,
    l_max: int = 50,
    quantile: float = 0.9,
    value_share: float = DEFAULT_VALUE_SHARE,
    amplified: bool = True,
    length: int | None = None,
) -> HISKVResult:
    """The whole HISKV protocol (reconstructed): user split, OETL, LRR_KV, estimation.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user, in ``[1e-300, 10]``.
    rng : numpy.random.Generator
        Source of the randomness.
    beta : float, default 0.1
        Share of users in the OETL group, in ``(0, 1)`` (at least one user).
    l_max : int, default 50
        Largest length OETL reports, at least 2.
    quantile : float, default 0.9
        Share of the estimated length distribution ``L`` must cover.
    value_share : float, default DEFAULT_VALUE_SHARE
        ``eps_v / eps*``, in ``[0, 1]``.
    amplified : bool, default True
        Account with the padding-and-sampling amplification.
    length : int, optional
        A fixed ``L``: OETL is skipped and all users report pairs (useful to study the
        estimator at a fixed ``L``); ``beta`` and ``l_max`` are then unused.

    Returns
    -------
    HISKVResult
        Estimates, ``L`` and, with OETL, the estimated length distribution.

    Raises
    ------
    ValueError
        Without ``length``: if ``beta`` is not in ``(0, 1)``, ``data`` has fewer than 2
        users or ``l_max < 2``. Always: if ``eps`` is not in ``[1e-300, 10]``, ``L < 1``
        or ``value_share`` is outside ``[0, 1]``.
    """
    if not 0.0 < beta < 1.0 and length is None:
        raise ValueError("beta must lie in (0, 1)")
    if length is None and data.n_users < 2:
        raise ValueError(
            "HISKV needs at least 2 users: one group estimates the length L, the other reports "
            f"pairs; got {data.n_users}"
        )
    distribution = None
    reporters = None
    if length is None:
        order = rng.permutation(data.n_users)
        n_oetl = max(1, round(beta * data.n_users))
        lengths = data.lengths[order[:n_oetl]]
        length, distribution = oetl_length(
            oetl_perturb(lengths, eps, l_max, rng=rng), eps, l_max, quantile=quantile
        )
        reporters = order[n_oetl:]
    probs = pair_probabilities(eps, data.d, length, value_share=value_share, amplified=amplified)
    reports = perturb(
        data, eps, length, value_share=value_share, amplified=amplified, rng=rng, users=reporters
    )
    frequency, mean = estimate(reports, data.d, length, probs)
    return HISKVResult(frequency, mean, length, distribution, probs)


def truncated_frequency(data: KVData, length: int) -> NDArray[np.float64]:
    """What :math:`\\hat f_k` estimates when some sets are longer than ``L``:

    .. math:: E\\,\\hat f_k = \\frac1n \\sum_{i : k \\in S_i} \\min(1, L / l_i) \\le f_k .

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    length : int
        Padding length ``L``.

    Returns
    -------
    ndarray of float64, shape (d,)
        The expected frequency estimate of each key.

    Examples
    --------
    >>> from dpcore.ldp.data import from_pairs
    >>> data = from_pairs(np.array([0, 0, 1]), np.array([0, 1, 0]), np.zeros(3), 2)
    >>> truncated_frequency(data, 1).tolist()
    [0.75, 0.25]
    """
    weight = np.minimum(1.0, length / np.maximum(data.lengths, 1))
    per_pair = np.repeat(weight, data.lengths)
    return np.bincount(data.keys, weights=per_pair, minlength=data.d) / max(data.n_users, 1)


@dataclass(frozen=True)
class FrequencyError:
    """Per-key bias and variance of :math:`\\hat f_k` at a given ``L`` (exact, closed form).

    Attributes
    ----------
    bias : ndarray of float64, shape (d,)
        :math:`E\\hat f_k - f_k` (``<= 0``: truncation).
    variance : ndarray of float64, shape (d,)
        :math:`\\mathrm{Var}\\,\\hat f_k`.
    mse : ndarray of float64, shape (d,)
        ``bias**2 + variance`` (property).
    """

    bias: NDArray[np.float64]
    variance: NDArray[np.float64]

    @property
    def mse(self) -> NDArray[np.float64]:
        return np.asarray(self.bias**2 + self.variance, dtype=np.float64)


def frequency_error(
    data: KVData, length: int, probs: PairProbabilities, n_reports: int
) -> FrequencyError:
    """Exact bias and variance of HISKV's :math:`\\hat f_k` with truncation, when
    ``n_reports`` users distributed like ``data`` report at length ``L``.

    User ``i`` reports a pair of key ``k`` with probability :math:`\\pi_i = b +
    (a - b) w_i / L` if it holds ``k`` (:math:`w_i = \\min(1, L/l_i)`), else ``b``
    (:math:`a = p_1 + q_1`, :math:`b = 2 q_2`). Counts are sums of independent
    Bernoullis, so with :math:`\\bar{\\cdot}` the average over users,

    .. math::
        E\\hat f_k - f_k = \\overline{w\\,[k \\in S]} - f_k,\\qquad
        \\mathrm{Var}\\,\\hat f_k = \\frac{L^2\\,\\overline{\\pi(1-\\pi)}}{n' (a-b)^2},

    which without truncation (all :math:`w_i = 1`) is the closed form of
    :func:`dpcore.ldp.pairs.frequency_variance`.

    Parameters
    ----------
    data : KVData
        The population whose lengths and keys the reporters follow.
    length : int
        Padding length ``L``.
    probs : PairProbabilities
        The channel (e.g. from :func:`pair_probabilities`).
    n_reports : int
        Number of reporting users :math:`n'`.

    Returns
    -------
    FrequencyError
        Per-key bias and variance.
    """
    a, b = probs.p1 + probs.q1, 2.0 * probs.q2
    n = max(data.n_users, 1)
    w = np.repeat(np.minimum(1.0, length / np.maximum(data.lengths, 1)), data.lengths)
    sum_w = np.bincount(data.keys, weights=w, minlength=data.d)
    sum_w2 = np.bincount(data.keys, weights=w**2, minlength=data.d)
    slope = (a - b) / length
    # sum over all users of pi (1 - pi): b(1-b) for everyone, plus holders' extra terms
    total = n * b * (1 - b) + slope * (1 - 2 * b) * sum_w - slope**2 * sum_w2
    variance = length**2 * (total / n) / (n_reports * (a - b) ** 2)
    return FrequencyError(sum_w / n - data.true_frequency(), np.asarray(variance))
