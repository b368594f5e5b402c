"""Why the reconstructed HISKV does not beat PCKV-GRR: analysis of a reconstruction.

Three facts the Key-value LDP page demonstrates (all at a fixed truncation length ``L``
unless said otherwise; ``D = 2(d + L)`` pairs):

* **The valid family ends at PCKV-GRR.** HISKV's value budget split (``eps_v`` of
  ``eps*``) at ``eps_v = eps*`` is GRR over the ``D`` pairs at ``eps*``, which is
  PCKV-GRR's optimal channel (Gu et al. 2020) when ``eps* = ln(L(e^eps - 1) + 1)``.
  Smaller shares only move accuracy from the means to the frequencies.
* **The printed probabilities are not eps-LDP.** With ``p1 = e^eps/(e^eps + D - 1)``
  and ``q1 = t q2`` (tilt ``t > 1``), normalisation forces
  ``q2 = (1 - p1)/(t + D - 2) < p1 e^-eps``, so the true per-report budget is
  ``max(eps + ln((t + D - 2)/(D - 1)), ln t)`` (:func:`printed_probabilities`).
* **OETL's private length costs users and noise.** A share ``beta`` of users reports
  lengths instead of pairs, and the estimated ``L`` is random; PCKV takes the 90th
  percentile of the true lengths, non-privately (:func:`length_cost`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp import hiskv, metrics, privacy
from dpcore.ldp.data import KVData
from dpcore.ldp.pairs import PairProbabilities, estimate_pairs, pair_counts, pair_index
from dpcore.ldp.pairs import perturb_pairs as _perturb_pairs
from dpcore.ldp.sampling import discretise, padding_sample


def printed_probabilities(eps: float, d: int, length: int, tilt: float) -> PairProbabilities:
    """ "HISKV as printed": ``p1 = e^eps/(e^eps + D - 1)``, ``q1 = tilt * q2``, normalised.

    .. math:: q_2 = \\frac{1 - p_1}{t + D - 2},\\quad q_1 = t\\,q_2

    ``tilt = 1`` is GRR over the ``D`` pairs (valid at ``eps``); any ``tilt > 1`` is not.

    Parameters
    ----------
    eps : float
        The budget the paper claims.
    d : int
        Size of the key domain, at least 1.
    length : int
        Padding length ``L``, at least 1 (``D = 2(d + L)``).
    tilt : float
        :math:`t = q_1 / q_2`, at least 1.

    Returns
    -------
    PairProbabilities
        The printed channel over ``d + L`` keys.

    Raises
    ------
    ValueError
        If ``eps`` is not a finite number ``>= 1e-300`` (:func:`dpcore._validate.positive`),
        or ``tilt < 1``, ``d < 1`` or ``length < 1``.
    """
    eps = _validate.positive("eps", eps)
    if tilt < 1 or d < 1 or length < 1:
        raise ValueError("need tilt >= 1, d >= 1 and L >= 1")
    pairs = 2 * (d + length)
    p1 = math.exp(eps) / (math.exp(eps) + pairs - 1)
    q2 = (1.0 - p1) / (tilt + pairs - 2)
    return PairProbabilities(p1, tilt * q2, q2, d + length)


def report_epsilon(probs: PairProbabilities) -> float:
    """Exact per-report budget of a pair channel: every output column holds ``p1`` (its own
    pair), ``q1`` (the flipped pair) and ``q2`` (all others, when ``D > 2``), so

    .. math:: \\varepsilon_{true} = \\ln \\frac{\\max(p_1, q_1, q_2)}{\\min(p_1, q_1, q_2)}

    (equal to :func:`dpcore.ldp.privacy.worst_log_ratio` of ``probs.matrix()``).

    Parameters
    ----------
    probs : PairProbabilities
        The channel.

    Returns
    -------
    float
        :math:`\\varepsilon_{true}` in nats.
    """
    values = (probs.p1, probs.q1, probs.q2) if probs.n_keys > 1 else (probs.p1, probs.q1)
    return math.log(max(values) / min(values))


def grr_pairs(eps_star: float, d: int, length: int) -> PairProbabilities:
    """GRR over the ``D`` pairs at per-report budget ``eps_star`` (PCKV-GRR's channel).

    Parameters
    ----------
    eps_star : float
        Per-report budget :math:`\\varepsilon^*`.
    d : int
        Size of the key domain.
    length : int
        Padding length ``L`` (``D = 2(d + L)``).

    Returns
    -------
    PairProbabilities
        ``p1 = e^eps*/(e^eps* + D - 1)``, ``q1 = q2 = 1/(e^eps* + D - 1)``.
    """
    pairs = 2 * (d + length)
    z = math.exp(eps_star) + pairs - 1
    return PairProbabilities(math.exp(eps_star) / z, 1 / z, 1 / z, d + length)


@dataclass(frozen=True)
class Accuracy:
    """MSE over the top-``t`` keys: frequency exact, means simulated (mean over runs).

    Attributes
    ----------
    mse_freq : float
        Exact frequency MSE (:func:`dpcore.ldp.hiskv.frequency_error`), averaged over
        the top-``t`` keys.
    mse_mean : float
        Simulated mean MSE over the top-``t`` keys, averaged over the runs.
    """

    mse_freq: float
    mse_mean: float


def accuracy(
    data: KVData, probs: PairProbabilities, length: int, t: int, *, runs: int, seed: int
) -> Accuracy:
    """All users report at ``L`` through ``probs`` (padding-and-sampling, ``±1`` values).

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    probs : PairProbabilities
        The channel.
    length : int
        Padding length ``L``.
    t : int
        Number of most frequent keys the errors are averaged over.
    runs : int
        Number of simulated runs for the means, at least 1.
    seed : int
        Seed of the runs' generator.

    Returns
    -------
    Accuracy
        Exact frequency MSE and simulated mean MSE.

    Raises
    ------
    ValueError
        If ``length < 1`` (:func:`dpcore.ldp.sampling.padding_sample`).
    """
    keys = metrics.top_keys(data.true_frequency(), t)
    exact = hiskv.frequency_error(data, length, probs, data.n_users).mse[keys].mean()
    rng = np.random.default_rng(seed)
    m_true = data.true_mean()
    errors = []
    for _ in range(runs):
        sampled = padding_sample(data, length, rng=rng)
        signs = discretise(sampled.values, rng=rng)
        reports = _perturb_pairs(pair_index(sampled.keys, signs), probs, rng=rng)
        c_plus, c_minus = pair_counts(reports, data.d)
        est = estimate_pairs(
            c_plus, c_minus, reports.size, length, p1=probs.p1, q1=probs.q1, q2=probs.q2
        )
        errors.append(metrics.mse(est.mean, m_true, keys))
    return Accuracy(float(exact), float(np.mean(errors)))


@dataclass(frozen=True)
class LengthCost:
    """PCKV's non-private ``L`` against OETL's private estimates (one per run).

    Attributes
    ----------
    pckv_length : int
        PCKV's ``L``: the 90th percentile of the true lengths (rounded up).
    oetl_lengths : ndarray of int64, shape (runs,)
        OETL's ``L`` in each run.
    pckv : tuple of (float, float)
        ``(bias^2, variance)`` of the frequency MSE, averaged over the top-``t`` keys.
    oetl : tuple of (float, float)
        The same, averaged over OETL's draws of ``L``.
    """

    pckv_length: int
    oetl_lengths: NDArray[np.int64]
    pckv: tuple[float, float]  # (bias^2, variance) of the frequency MSE, top-t mean
    oetl: tuple[float, float]  # the same, averaged over OETL's draws of L


def length_cost(
    data: KVData,
    eps: float,
    beta: float,
    t: int,
    *,
    value_share: float,
    amplified: bool,
    runs: int,
    seed: int,
    l_max: int = 50,
) -> LengthCost:
    """Exact frequency MSE (bias^2 + variance over the top-``t`` keys) with

    * PCKV's ``L`` = the 90th percentile of the true lengths, all ``n`` users reporting;
    * OETL's ``L`` estimated privately by ``beta n`` users (``runs`` seeded draws), the
      other ``(1 - beta) n`` reporting.

    Both use HISKV's channel at ``value_share`` so that only the length step differs.

    Parameters
    ----------
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user, in ``[1e-300, 10]``.
    beta : float
        Share of users in the OETL group (at least one user).
    t : int
        Number of most frequent keys the errors are averaged over.
    value_share : float
        ``eps_v / eps*``, in ``[0, 1]``.
    amplified : bool
        Account with the padding-and-sampling amplification.
    runs : int
        Number of OETL draws, at least 1.
    seed : int
        Seed of the draws' generator.
    l_max : int, default 50
        Largest length OETL reports, at least 2.

    Returns
    -------
    LengthCost
        Both lengths and their squared bias and variance.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]``, ``value_share`` is outside ``[0, 1]`` or
        ``l_max < 2``.
    """
    keys = metrics.top_keys(data.true_frequency(), t)
    n_oetl = max(1, round(beta * data.n_users))
    reporters = max(1, data.n_users - n_oetl)

    def split(length: int, n_reports: int) -> tuple[float, float]:
        probs = hiskv.pair_probabilities(
            eps, data.d, length, value_share=value_share, amplified=amplified
        )
        err = hiskv.frequency_error(data, length, probs, n_reports)
        return float(np.mean(err.bias[keys] ** 2)), float(np.mean(err.variance[keys]))

    pckv_length = max(1, int(np.ceil(np.percentile(data.lengths, 90))))
    rng = np.random.default_rng(seed)
    lengths = []
    for _ in range(runs):
        chosen = rng.permutation(data.n_users)[:n_oetl]
        reports = hiskv.oetl_perturb(data.lengths[chosen], eps, l_max, rng=rng)
        lengths.append(hiskv.oetl_length(reports, eps, l_max)[0])
    draws = np.array(lengths, dtype=np.int64)
    parts = np.array([split(int(length), reporters) for length in draws])
    oetl = (float(parts[:, 0].mean()), float(parts[:, 1].mean()))
    return LengthCost(pckv_length, draws, split(pckv_length, data.n_users), oetl)


def printed_check(eps: float, tilt: float, d: int = 3, length: int = 2) -> tuple[float, float]:
    """Exact worst ln-ratios of "HISKV as printed" on a small domain, by enumeration:
    ``(one report, whole set)``, the latter over every set of up to ``L + 1`` keys with
    padding-and-sampling (as :func:`dpcore.ldp.privacy.check` does for every mechanism).

    Parameters
    ----------
    eps : float
        The budget the paper claims.
    tilt : float
        :math:`q_1 / q_2`, at least 1.
    d : int, default 3
        Size of the key domain (the enumeration grows exponentially with it).
    length : int, default 2
        Padding length ``L``.

    Returns
    -------
    report : float
        Worst log-ratio between any two reported pairs.
    user : float
        Worst log-ratio between any two whole sets.

    Raises
    ------
    ValueError
        As :func:`printed_probabilities`.
    """
    report = printed_probabilities(eps, d, length, tilt).matrix()
    sets = privacy.enumerate_sets(d, length + 1)
    items = np.array([privacy.padding_item_distribution(s, d, length) for s in sets])
    return privacy.worst_log_ratio(report), privacy.worst_log_ratio(items @ report)
