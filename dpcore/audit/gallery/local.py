"""Local-DP mechanisms on one user's two inputs, with their exact laws: this product's
(one-time RAPPOR, implemented for the gallery, is in :mod:`dpcore.audit.gallery.rappor`).

Under local DP any two inputs of one user are neighbours. Frequency oracles (randomized
response, GRR, SUE; Wang et al., USENIX Security 2017) compare two items; key-value
mechanisms (:mod:`dpcore.ldp`) compare two sets of key-value pairs, the pair with the
largest exact ε among every set of a small domain (the enumeration of
:mod:`dpcore.ldp.privacy`). Samplers run the product's own client-side code on ``size``
copies of the user, and encode each report as one integer, the column of its exact law.
"HISKV as printed" is the paper's printed LRR_KV probabilities (Zhang et al.), not
ε-LDP per report: ``1 + ln(10/9) = 1.105`` at a claimed 1 with ``d = 3``, ``L = 2``,
tilt 2 (:mod:`dpcore.ldp.hiskv_analysis`).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.audit.gallery.entry import Entry, ExactLaw, bit_rows, integers, make
from dpcore.audit.outputs import Sampler
from dpcore.ldp import baselines, hiskv, hiskv_analysis, kvue, oracles, pckv, privacy, privkv
from dpcore.ldp.data import KVData
from dpcore.ldp.pairs import PairProbabilities, perturb_pairs
from dpcore.ldp.privacy import UserSet
from dpcore.ldp.sampling import padding_sample

Report = Callable[[KVData, np.random.Generator], NDArray[np.int64]]
"""Runs a mechanism's client side on every user and encodes each report as an integer."""


def randomized_response(p: float = 0.75) -> Entry:
    """Randomized response on one bit, kept with probability ``p`` (GRR over 2 items).

    Parameters
    ----------
    p : float, default 0.75
        Keep probability, in ``(1/2, 1)``.

    Returns
    -------
    Entry
        True ε ``ln(p / (1 - p))``.
    """
    p = _validate.fraction("p", p)
    eps = math.log(p / (1 - p))
    return dataclasses.replace(grr(eps, items=2), name="Randomized response")


def grr(eps: float = 1.0, items: int = 4, *, stated_sensitivity: float = 1.0) -> Entry:
    """Generalised randomized response (:func:`~dpcore.ldp.oracles.grr_perturb`), item 0
    against item 1.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    items : int, default 4
        Number of items ``k``, at least 2.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        With the exact law (``p`` on the held item, ``q`` on each other).
    """
    k = _validate.whole("items", items, lower=2)
    run_eps = eps / _validate.positive("stated_sensitivity", stated_sensitivity)
    p, q = oracles.grr_probabilities(run_eps, k)
    rows = np.where(np.eye(k, dtype=bool), p, q)

    def item(x: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.int64]:
            return oracles.grr_perturb(np.full(size, x, np.int64), run_eps, k, rng=rng)

        return sample

    law = ExactLaw(rows[0], rows[1], integers)
    return make(
        "GRR", eps, law.epsilon, (item(0), item(1)),
        f"report one of {k} items: item 0 against item 1", "any two items", law=law,
    )  # fmt: skip


def sue(eps: float = 1.0, items: int = 4, *, stated_sensitivity: float = 1.0) -> Entry:
    """Symmetric unary encoding (basic RAPPOR, :func:`~dpcore.ldp.oracles.sue_perturb_users`),
    item 0 against item 1; outputs are bit vectors.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε (two bits differ, ε/2 each).
    items : int, default 4
        Number of items (bits), at least 2.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity``; 1/2 is the bug of giving each
        bit the whole ε.

    Returns
    -------
    Entry
        With the exact law over all ``2^items`` bit vectors.
    """
    k = _validate.whole("items", items, lower=2)
    run_eps = eps / _validate.positive("stated_sensitivity", stated_sensitivity)
    channel = privacy.sue_report_channel(run_eps, k)  # rows 2j, 2j + 1: item j

    def item(x: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.bool_]:
            return oracles.sue_perturb_users(np.full(size, x, np.int64), run_eps, k, rng=rng)

        return sample

    law = ExactLaw(channel[0], channel[2], bit_rows)
    return make(
        "SUE", eps, law.epsilon, (item(0), item(1)),
        f"{k}-bit unary encoding: item 0 against item 1", "any two items", law=law,
    )  # fmt: skip


def _run_eps(eps: float, stated_sensitivity: float) -> float:
    return eps / _validate.positive("stated_sensitivity", stated_sensitivity)


def _users(user: UserSet, d: int, size: int) -> KVData:
    keys, signs = user
    offsets = np.arange(size + 1, dtype=np.int64) * len(keys)
    return KVData(
        offsets,
        np.tile(np.asarray(keys, np.int64), size),
        np.tile(np.asarray(signs, np.float64), size),
        d,
    )


def _kv_entry(
    name: str,
    eps: float,
    d: int,
    sets: list[UserSet],
    channel: NDArray[np.float64],
    report: Report,
    text: str,
) -> Entry:
    """The entry for the pair of ``sets`` with the largest exact ε (rows of ``channel``)."""
    worst = max(
        itertools.combinations(range(len(sets)), 2),
        key=lambda ij: ExactLaw(channel[ij[0]], channel[ij[1]], integers).epsilon,
    )
    law = ExactLaw(channel[worst[0]], channel[worst[1]], integers)

    def user(s: UserSet) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.int64]:
            return report(_users(s, d, size), rng)

        return sample

    pair = " against ".join(_show(sets[i]) for i in worst)
    return make(
        name, eps, law.epsilon, (user(sets[worst[0]]), user(sets[worst[1]])),
        f"{text}; d = {d}: {pair}", "any two sets of one user", law=law,
    )  # fmt: skip


def _show(user: UserSet) -> str:
    keys, signs = user
    return "{" + ", ".join(f"{k}:{s:+d}" for k, s in zip(keys, signs, strict=True)) + "}"


def _padded(
    d: int, length: int, report: NDArray[np.float64]
) -> tuple[list[UserSet], NDArray[np.float64]]:
    sets = privacy.enumerate_sets(d, length + 1)
    items = np.array([privacy.padding_item_distribution(s, d, length) for s in sets])
    return sets, items @ report


def _sampled(d: int, state: NDArray[np.float64]) -> tuple[list[UserSet], NDArray[np.float64]]:
    sets = privacy.enumerate_sets(d, d)
    items = np.array([privacy.domain_item_distribution(s, d) for s in sets])
    return sets, items @ np.kron(np.eye(d), state)


def hiskv_entry(
    eps: float = 1.0, d: int = 3, length: int = 2, *, stated_sensitivity: float = 1.0
) -> Entry:
    """The reconstructed HISKV's LRR_KV (:func:`~dpcore.ldp.hiskv.perturb`, amplified
    accounting, default value share), padding length ``L``.

    Parameters
    ----------
    eps : float, default 1
        The claimed user-level ε.
    d, length : int
        Key domain and padding length (every set of up to ``L + 1`` keys is enumerated).
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    probs = hiskv.pair_probabilities(eps, d, length, amplified=True)
    sets, channel = _padded(d, length, probs.matrix())

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        return hiskv.perturb(data, eps, length, rng=rng)

    return _kv_entry("HISKV (reconstructed)", claimed, d, sets, channel, report, f"L = {length}")


def hiskv_printed(eps: float = 1.0, d: int = 3, length: int = 2, tilt: float = 2.0) -> Entry:
    """BUG: "HISKV as printed" (:func:`~dpcore.ldp.hiskv_analysis.printed_probabilities`):
    one report of pair ``<0, +1>`` against pair ``<1, +1>``, claimed ε per report.

    Parameters
    ----------
    eps : float, default 1
        The claimed per-report ε.
    d, length : int
        Key domain and padding length (``D = 2(d + L)`` pairs).
    tilt : float, default 2
        ``q1 / q2``.

    Returns
    -------
    Entry
        True ε :func:`~dpcore.ldp.hiskv_analysis.report_epsilon` (1.105 by default).
    """
    probs = hiskv_analysis.printed_probabilities(eps, d, length, tilt)
    rows = probs.matrix()

    def pair(index: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.int64]:
            return perturb_pairs(np.full(size, index, np.int64), probs, rng=rng)

        return sample

    law = ExactLaw(rows[0], rows[2], integers)
    return make(
        "HISKV as printed", eps, hiskv_analysis.report_epsilon(probs), (pair(0), pair(2)),
        f"printed LRR_KV, d = {d}, L = {length}, tilt {tilt:g}: pair <0, +1> against <1, +1>",
        "any two pairs of one report", law=law,
    )  # fmt: skip


def pckv_grr(
    eps: float = 1.0, d: int = 3, length: int = 2, *, stated_sensitivity: float = 1.0
) -> Entry:
    """PCKV-GRR (:func:`~dpcore.ldp.pckv.grr_perturb`), padding length ``l``.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    d, length : int
        Key domain and padding length.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    pr = pckv.grr_probabilities(eps, d, length)
    matrix = PairProbabilities(pr.p1, pr.q1, pr.q2, pr.n_keys).matrix()
    sets, channel = _padded(d, length, matrix)

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        return pckv.grr_perturb(data, eps, length, rng=rng)

    return _kv_entry("PCKV-GRR", claimed, d, sets, channel, report, f"l = {length}")


def pckv_ue(
    eps: float = 1.0, d: int = 2, length: int = 1, *, stated_sensitivity: float = 1.0
) -> Entry:
    """PCKV-UE (:func:`~dpcore.ldp.pckv.ue_perturb_users`), padding length ``l``; each
    report (a vector over ``{0, +1, -1}``) is encoded in base 3.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    d, length : int
        Key domain and padding length (``3^(d + l)`` outputs).
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    pr = pckv.ue_probabilities(eps, d, length)
    matrix = privacy.ue_report_channel(pr.a, pr.b, pr.p, pr.n_keys)
    sets, channel = _padded(d, length, matrix)
    weights = 3 ** np.arange(pr.n_keys - 1, -1, -1, dtype=np.int64)

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        vectors = pckv.ue_perturb_users(data, eps, length, rng=rng).astype(np.int64)
        return np.where(vectors < 0, 2, vectors) @ weights

    return _kv_entry("PCKV-UE", claimed, d, sets, channel, report, f"l = {length}")


def kvue_entry(eps: float = 1.0, d: int = 2, *, stated_sensitivity: float = 1.0) -> Entry:
    """KVUE (:func:`~dpcore.ldp.kvue.kvue_perturb`): a sampled key and its 3-state GRR.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    d : int, default 2
        Key domain.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    sets, channel = _sampled(d, kvue.kvue_channel(eps))

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        keys, state = kvue.kvue_perturb(data, eps, rng=rng)
        return 3 * keys + state

    return _kv_entry("KVUE", claimed, d, sets, channel, report, "sampled key, 3-state GRR")


def kvoh_entry(eps: float = 1.0, d: int = 2, *, stated_sensitivity: float = 1.0) -> Entry:
    """KVOH (:func:`~dpcore.ldp.kvue.kvoh_perturb`): a sampled key and 3 one-hot bits.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    d : int, default 2
        Key domain.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    sets, channel = _sampled(d, kvue.kvoh_channel(eps))
    weights = 2 ** np.arange(3, dtype=np.int64)  # bit s of the report is state s

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        keys, bits = kvue.kvoh_perturb(data, eps, rng=rng)
        return 8 * keys + bits.astype(np.int64) @ weights

    return _kv_entry("KVOH", claimed, d, sets, channel, report, "sampled key, one-hot bits")


def privkv_entry(eps: float = 1.0, d: int = 2, *, stated_sensitivity: float = 1.0) -> Entry:
    """PrivKV (:func:`~dpcore.ldp.privkv.perturb`, one round, fake values of mean 0).

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    d : int, default 2
        Key domain.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    sets, channel = _sampled(d, privkv.state_channel(eps))

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        keys, codes = privkv.perturb(data, eps, rng=rng)
        return 3 * keys + codes

    return _kv_entry("PrivKV", claimed, d, sets, channel, report, "sampled key, presence + value")


def harmony_entry(eps: float = 1.0, d: int = 2, *, stated_sensitivity: float = 1.0) -> Entry:
    """Harmony (:func:`~dpcore.ldp.baselines.harmony_perturb`): a sampled key and a sign.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    d : int, default 2
        Key domain.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    sets, channel = _sampled(d, baselines.harmony_channel(eps))

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        keys, signs = baselines.harmony_perturb(data, eps, rng=rng)
        return 2 * keys + (signs < 0)

    return _kv_entry("Harmony", claimed, d, sets, channel, report, "sampled key, sign")


def privkvm_entry(
    eps: float = 1.0,
    d: int = 2,
    fake_means: tuple[float, ...] = (0.0, -1.0, -1.0),
    *,
    stated_sensitivity: float = 1.0,
) -> Entry:
    """PrivKVM (:func:`~dpcore.ldp.privkv.perturb` once per round at
    :func:`~dpcore.ldp.privkv.round_eps`): one user's reports of all ``c`` rounds.

    The server publishes each round's fake mean; the audit fixes them (one per round, so
    that the ``size`` runs are independent): round 1 fakes 0 as dpcore starts, the later
    rounds -1, the published mean that exposes a held ``+1`` most. Rounds are independent
    given the input, so the exact law of a user is the product of the rounds' laws.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε of all rounds together.
    d : int, default 2
        Key domain.
    fake_means : tuple of float, default (0, -1, -1)
        The fake mean of each round, in ``[-1, 1]``; their number is ``c``.
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law over the ``(3d)^c`` report sequences.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    each = privkv.round_eps(eps, len(fake_means))
    sets = privacy.enumerate_sets(d, d)
    items = np.array([privacy.domain_item_distribution(s, d) for s in sets])
    channel = np.ones((len(sets), 1))
    for fake in fake_means:  # row-wise Kronecker product: round 1 is the leading digit
        one = items @ np.kron(np.eye(d), privkv.state_channel(each, fake))
        channel = np.einsum("si,sj->sij", channel, one).reshape(len(sets), -1)

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        code = np.zeros(data.n_users, dtype=np.int64)
        for fake in fake_means:
            keys, codes = privkv.perturb(data, each, fake_means=np.full(d, fake), rng=rng)
            code = 3 * d * code + 3 * keys + codes
        return code

    means = ", ".join(f"{f:g}" for f in fake_means)
    text = f"{len(fake_means)} rounds of ε/{len(fake_means)}, fake means {means}"
    return _kv_entry("PrivKVM", claimed, d, sets, channel, report, text)


def kv_sue_entry(
    eps: float = 1.0, d: int = 2, length: int = 1, *, stated_sensitivity: float = 1.0
) -> Entry:
    """Key-value SUE (:func:`~dpcore.ldp.baselines.sue_counts` per user): padding-and-
    sampling of one key (:func:`~dpcore.ldp.sampling.padding_sample`), unary-encoded over
    ``d + l`` bits (:func:`~dpcore.ldp.oracles.sue_perturb_users`); the value is not sent.

    Unlike :func:`sue`, which compares two items, the input is a set of keys.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    d, length : int
        Key domain and padding length (``2^(d + l)`` outputs).
    stated_sensitivity : float, default 1
        The mechanism runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        The worst pair of sets, with its exact law.
    """
    claimed, eps = eps, _run_eps(eps, stated_sensitivity)
    sets, channel = _padded(d, length, privacy.sue_report_channel(eps, d + length))

    def report(data: KVData, rng: np.random.Generator) -> NDArray[np.int64]:
        items = padding_sample(data, length, rng=rng).keys
        return bit_rows(oracles.sue_perturb_users(items, eps, d + length, rng=rng))

    return _kv_entry("SUE (key-value)", claimed, d, sets, channel, report, f"l = {length}")
