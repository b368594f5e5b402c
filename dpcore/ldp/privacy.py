"""Exact privacy checks: the worst ratio of output probabilities between any two inputs.

For small ``d`` and ``L`` every user input and every output is enumerated and the
output distribution of each input is computed exactly from the probabilities each
mechanism exposes, composed with a brute-force enumeration of its sampling step
(every truncation subset, every choice of dummies, every sampled key). The
mechanism is :math:`\\varepsilon`-LDP exactly when

.. math::
    \\max_{o} \\ln \\frac{\\max_S P(o \\mid S)}{\\min_S P(o \\mid S)} \\le \\varepsilon .

Inputs are the sets of distinct keys with values :math:`\\pm 1`. That suffices
for values in ``[-1, 1]``: discretisation makes :math:`P(o \\mid S)` affine in each
value, so its maximum and minimum over the box of values sit at the corners.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp import baselines, hiskv, kvue, oracles, pckv, privkv
from dpcore.ldp.mechanisms import DEFAULT_SETTINGS, KVSettings
from dpcore.ldp.pairs import PairProbabilities

UserSet = tuple[tuple[int, ...], tuple[int, ...]]
"""A user's input: distinct keys and their values (each ``+1`` or ``-1``)."""


def enumerate_sets(d: int, max_length: int) -> list[UserSet]:
    """Every set of at most ``max_length`` distinct keys of ``0..d-1`` with ``±1`` values.

    Parameters
    ----------
    d : int
        Size of the key domain.
    max_length : int
        Largest set size (capped at ``d``).

    Returns
    -------
    list of UserSet
        ``(keys, signs)`` pairs, by size, then keys, then signs; the empty set first.

    Examples
    --------
    >>> len(enumerate_sets(2, 2))  # {}, 2 keys x 2 signs, 4 sign pairs
    9
    """
    sets: list[UserSet] = []
    for size in range(min(max_length, d) + 1):
        for keys in itertools.combinations(range(d), size):
            for signs in itertools.product((1, -1), repeat=size):
                sets.append((keys, signs))
    return sets


def padding_item_distribution(user: UserSet, d: int, length: int) -> NDArray[np.float64]:
    """Law of the pair ``<key, ±1>`` picked by padding-and-sampling, by enumeration.

    ``l >= L``: every ``L``-subset of the set, then every pick in it. ``l < L``:
    every choice of ``L - l`` of the ``L`` dummies ``<d+j, 0>``, every pick, and the
    dummy's value 0 discretised to ``±1`` with probability 1/2 each.

    Parameters
    ----------
    user : UserSet
        The user's keys and ``±1`` values.
    d : int
        Size of the key domain.
    length : int
        Padding length ``L``.

    Returns
    -------
    ndarray of float64, shape (2 (d + L),)
        Probability of each pair, indexed as in :func:`dpcore.ldp.pairs.pair_index`.
    """
    keys, signs = user
    dist = np.zeros(2 * (d + length))
    real = [2 * k + (s < 0) for k, s in zip(keys, signs, strict=True)]
    if len(keys) >= length:
        subsets = list(itertools.combinations(real, length))
        for subset in subsets:
            for item in subset:
                dist[item] += 1.0 / (len(subsets) * length)
        return dist
    choices = list(itertools.combinations(range(length), length - len(keys)))
    for dummies in choices:
        weight = 1.0 / (len(choices) * length)
        for item in real:
            dist[item] += weight
        for j in dummies:
            dist[2 * (d + j)] += weight / 2
            dist[2 * (d + j) + 1] += weight / 2
    return dist


def domain_item_distribution(user: UserSet, d: int) -> NDArray[np.float64]:
    """Law of ``(j, state)`` when ``j`` is uniform on the domain.

    Parameters
    ----------
    user : UserSet
        The user's keys and ``±1`` values.
    d : int
        Size of the key domain.

    Returns
    -------
    ndarray of float64, shape (3 d,)
        Probability of index ``3 j + state``, with state 0 absent, 1 value +1, 2 value -1.
    """
    keys, signs = user
    dist = np.zeros(3 * d)
    held = dict(zip(keys, signs, strict=True))
    for j in range(d):
        state = 0 if j not in held else (1 if held[j] > 0 else 2)
        dist[3 * j + state] = 1.0 / d
    return dist


def ue_report_channel(a: float, b: float, p: float, n_keys: int) -> NDArray[np.float64]:
    """``P[pair state, report vector]`` of unary encoding with entries (0, +1, -1) over
    ``n_keys`` positions: sampled position as in PCKV-UE, others ``±1`` w.p. ``b/2``.

    Parameters
    ----------
    a, b, p : float
        PCKV-UE's parameters (:class:`dpcore.ldp.pckv.KeyValueProbabilities`).
    n_keys : int
        Number of positions ``d + l`` (the output has ``3^n_keys`` columns).

    Returns
    -------
    ndarray of float64, shape (2 n_keys, 3 ** n_keys)
        Row ``2 k`` / ``2 k + 1``: sampled pair ``<k, +1>`` / ``<k, -1>``; columns: every
        vector over (0, +1, -1) in lexicographic order.
    """
    outputs = np.array(list(itertools.product(range(3), repeat=n_keys)))  # 0, +1, -1
    idle = np.array([1 - b, b / 2, b / 2])
    held = {1: np.array([1 - a, a * p, a * (1 - p)]), -1: np.array([1 - a, a * (1 - p), a * p])}
    base = idle[outputs]  # (outputs, positions)
    rows = []
    for key in range(n_keys):
        for sign in (1, -1):
            probs = base.copy()
            probs[:, key] = held[sign][outputs[:, key]]
            rows.append(probs.prod(axis=1))
    return np.array(rows)


def sue_report_channel(eps: float, n_items: int) -> NDArray[np.float64]:
    """``P[pair state, bit vector]`` of SUE over ``n_items`` (the value is not reported).

    Parameters
    ----------
    eps : float
        Privacy budget of one report.
    n_items : int
        Number of items ``d + l`` (the output has ``2^n_items`` columns).

    Returns
    -------
    ndarray of float64, shape (2 n_items, 2 ** n_items)
        Rows ``2 k`` and ``2 k + 1`` (pair ``<k, ±1>``) are equal; columns: every bit
        vector in lexicographic order.
    """
    p, q = oracles.sue_probabilities(eps)
    outputs = np.array(list(itertools.product((0, 1), repeat=n_items)))
    rows = []
    for item in range(n_items):
        one = np.zeros(n_items, dtype=np.int64)
        one[item] = 1
        flip = np.where(one == 1, 1 - p, q)  # probability that the reported bit is 1 - own
        probs = np.where(outputs == one, 1 - flip, flip)
        row = probs.prod(axis=1)
        rows += [row, row]
    return np.array(rows)


def worst_log_ratio(channel: NDArray[np.float64]) -> float:
    """:math:`\\max_o \\ln(\\max_i P[i, o] / \\min_i P[i, o])` over the rows of ``channel``
    (``inf`` if some output is impossible for one input and possible for another).

    Parameters
    ----------
    channel : ndarray of float64, shape (inputs, outputs)
        ``P[input, output]``.

    Returns
    -------
    float
        The worst log-ratio, in nats; outputs impossible for every input are skipped.

    Examples
    --------
    >>> worst_log_ratio(np.array([[0.75, 0.25], [0.25, 0.75]])) == math.log(3)
    True
    """
    hi = channel.max(axis=0)
    lo = channel.min(axis=0)
    used = hi > 0
    if np.any(lo[used] <= 0):
        return math.inf
    return float(np.max(np.log(hi[used] / lo[used])))


@dataclass(frozen=True)
class PrivacyCheck:
    """Claimed budget against the exact worst log-ratios.

    Attributes
    ----------
    mechanism : str
        Name of the checked mechanism.
    claimed_eps : float
        The budget the mechanism claims.
    claim_level : {"user", "report"}
        Which of the two measured levels the claim is about.
    report_level : float
        Worst log-ratio between any two items a user could report about (one sampled
        pair or key state).
    user_level : float
        Worst log-ratio between any two whole sets, sampling included.
    d : int
        Size of the key domain checked.
    length : int or None
        Padding length checked; ``None`` for mechanisms without padding.
    holds : bool
        Whether the claimed level stays within ``claimed_eps`` (relative tolerance
        ``1e-9``; property).
    """

    mechanism: str
    claimed_eps: float
    claim_level: str
    report_level: float
    user_level: float
    d: int
    length: int | None

    @property
    def holds(self) -> bool:
        measured = self.user_level if self.claim_level == "user" else self.report_level
        return measured <= self.claimed_eps * (1 + 1e-9) + 1e-12


def _user_channel(
    item_dists: Sequence[NDArray[np.float64]], report: NDArray[np.float64]
) -> NDArray[np.float64]:
    return np.asarray(np.array(item_dists) @ report, dtype=np.float64)


def _padding_check(
    name: str, eps: float, d: int, length: int, report: NDArray[np.float64], claim: str
) -> PrivacyCheck:
    """Sets up to ``L + 1`` keys, so truncation is among the enumerated inputs."""
    sets = enumerate_sets(d, length + 1)
    user = _user_channel([padding_item_distribution(s, d, length) for s in sets], report)
    return PrivacyCheck(name, eps, claim, worst_log_ratio(report), worst_log_ratio(user), d, length)


def _domain_check(name: str, eps: float, d: int, state: NDArray[np.float64]) -> PrivacyCheck:
    sets = enumerate_sets(d, d)
    report = np.kron(np.eye(d), state).astype(np.float64)
    user = _user_channel([domain_item_distribution(s, d) for s in sets], report)
    return PrivacyCheck(name, eps, "user", worst_log_ratio(state), worst_log_ratio(user), d, None)


def _privkvm_check(eps: float, d: int, rounds: int) -> PrivacyCheck:
    """Exact worst log-ratio of all ``c`` rounds, in closed form (no enumeration).

    Round ``r`` reports ``(j_r, o_r)`` with ``j_r`` uniform on the keys (independent of
    the input) and ``o_r`` drawn from :func:`~dpcore.ldp.privkv.state_channel` at
    ``eps / c`` with a public fake mean ``f_r``; rounds are independent given the input.
    With :math:`w(f) = \\max_o \\ln(\\max_s P_f[s, o] / \\min_s P_f[s, o])` over the three
    key states,

    .. math::
        \\text{worst} = c \\max_{f \\in \\{-1, 0, 1\\}} w(f)

    for both the report level (one key's state) and the whole set: the ratio of a
    product is at most the product of the per-round ratios (every key can take every
    state, so one round's user-level ratio is :math:`w(f_r)`), and the bound is reached
    by the output that repeats the worst ``(j, o)`` in every round under the worst fake
    mean, whose likelihoods are the per-round ones raised to the power ``c``. Each
    likelihood is affine in the fake mean, so each ratio of two is monotone in it and
    ``f = ±1`` (``0`` kept for clarity) covers every mean in ``[-1, 1]``.
    This is exact for any ``c`` and ``d >= 1`` (the test suite checks it against
    enumerating every sequence of fake means and outputs for small ``c``).
    """
    per_round = max(
        worst_log_ratio(privkv.state_channel(eps / rounds, fake)) for fake in (-1.0, 0.0, 1.0)
    )
    worst = rounds * per_round
    return PrivacyCheck("PrivKVM", eps, "user", worst, worst, d, None)


def check(
    name: str,
    eps: float,
    d: int,
    length: int,
    *,
    settings: KVSettings = DEFAULT_SETTINGS,
) -> PrivacyCheck:
    """Exact check of mechanism ``name`` at ``(eps, d, L)``; keep ``d + L <= 6`` or so
    (PrivKVM is in closed form, so any number of rounds costs the same).

    HISKV is checked with the accounting of ``settings.amplified``; ``"HISKV-OETL"``
    checks its length report.

    Parameters
    ----------
    name : str
        One of :data:`CHECKED`.
    eps : float
        Claimed budget, in ``[1e-300, 10]`` (:data:`dpcore._validate.MAX_LDP_EPS`).
    d : int
        Size of the key domain.
    length : int
        HISKV's ``L`` and PCKV's / SUE's ``l`` (unused by the others).
    settings : KVSettings, default DEFAULT_SETTINGS
        HISKV's ``value_share``, ``amplified`` and ``l_max``; PrivKVM's rounds.

    Returns
    -------
    PrivacyCheck
        The claim and the measured worst log-ratios.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]`` (:func:`dpcore._validate.ldp_epsilon`),
        ``name`` has no check, or the mechanism rejects ``d``, ``length`` or
        ``settings`` (e.g. ``d < 1``, ``length < 1``, ``l_max < 2``).
    """
    eps = _validate.ldp_epsilon(eps)
    if name == "HISKV":
        probs = hiskv.pair_probabilities(
            eps, d, length, value_share=settings.value_share, amplified=settings.amplified
        )
        report = probs.matrix()
        claim = "user" if settings.amplified else "report"
        return _padding_check(name, eps, d, length, report, claim)
    if name == "HISKV-OETL":
        p, q = oracles.grr_probabilities(eps, settings.l_max)
        grr = np.where(np.eye(settings.l_max, dtype=bool), p, q)
        ratio = worst_log_ratio(grr)
        return PrivacyCheck(name, eps, "user", ratio, ratio, d, None)
    if name == "PCKV-GRR":
        pr = pckv.grr_probabilities(eps, d, length)
        report = PairProbabilities(pr.p1, pr.q1, pr.q2, pr.n_keys).matrix()
        return _padding_check(name, eps, d, length, report, "user")
    if name == "PCKV-UE":
        pr = pckv.ue_probabilities(eps, d, length)
        report = ue_report_channel(pr.a, pr.b, pr.p, pr.n_keys)
        return _padding_check(name, eps, d, length, report, "user")
    if name == "SUE":
        report = sue_report_channel(eps, d + length)
        return _padding_check(name, eps, d, length, report, "user")
    if name == "PrivKV":
        return _domain_check(name, eps, d, privkv.state_channel(eps))
    if name == "PrivKVM":
        return _privkvm_check(eps, d, settings.privkvm_rounds)
    if name == "KVUE":
        return _domain_check(name, eps, d, kvue.kvue_channel(eps))
    if name == "KVOH":
        return _domain_check(name, eps, d, kvue.kvoh_channel(eps))
    if name == "Harmony":
        return _domain_check(name, eps, d, baselines.harmony_channel(eps))
    raise ValueError(f"no privacy check for {name!r}")


CHECKED: tuple[str, ...] = (
    "HISKV", "HISKV-OETL", "PCKV-GRR", "PCKV-UE", "PrivKV", "PrivKVM", "KVUE", "KVOH",
    "Harmony", "SUE",
)  # fmt: skip
