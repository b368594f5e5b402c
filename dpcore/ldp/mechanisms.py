"""One table of the key-value mechanisms: name, what each estimates, how to run it.

Every entry's ``run`` does the client-side perturbation for all users and the
server-side estimation, with randomness from the injected generator only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.ldp import baselines, hiskv, kvue, pckv, privkv
from dpcore.ldp.data import KVData


@dataclass(frozen=True)
class KVSettings:
    """Mechanism parameters besides ``eps``.

    Attributes
    ----------
    beta : float, default 0.1
        HISKV: share of users estimating the length (OETL), in ``(0, 1)``.
    l_max : int, default 50
        HISKV: largest length OETL reports.
    value_share : float, default hiskv.DEFAULT_VALUE_SHARE
        HISKV: value budget share ``eps_v / eps*``, in ``[0, 1]``.
    amplified : bool, default True
        HISKV: account with the padding-and-sampling amplification.
    padding_length : int, default 10
        The fixed padding length ``l`` of PCKV-GRR, PCKV-UE and SUE.
    privkvm_rounds : int, default 3
        PrivKVM's number of rounds ``c``.
    """

    beta: float = 0.1
    l_max: int = 50
    value_share: float = hiskv.DEFAULT_VALUE_SHARE
    amplified: bool = True
    padding_length: int = 10
    privkvm_rounds: int = 3


DEFAULT_SETTINGS = KVSettings()


@dataclass(frozen=True)
class KVEstimate:
    """Per-key estimates of one mechanism run.

    Attributes
    ----------
    frequency : ndarray of float64, shape (d,) or None
        Frequency estimates; ``None`` if the mechanism does not estimate them.
    mean : ndarray of float64, shape (d,) or None
        Mean estimates; ``None`` if the mechanism does not estimate them.
    length : int or None, default None
        Padding length used; ``None`` for mechanisms that sample from the whole domain.
    """

    frequency: NDArray[np.float64] | None
    mean: NDArray[np.float64] | None
    length: int | None = None


Runner = Callable[[KVData, float, KVSettings, np.random.Generator], KVEstimate]


@dataclass(frozen=True)
class Mechanism:
    """One entry of :data:`MECHANISMS`.

    Attributes
    ----------
    name : str
        Display name and key in :data:`MECHANISMS`.
    estimates_frequency, estimates_mean : bool
        What the mechanism estimates.
    run : callable
        ``run(data, eps, settings, rng) -> KVEstimate``: perturbation and estimation.
    note : str
        One-line remark shown with the results.
    min_users : int, default 1
        Fewest users the mechanism can run on (HISKV: one to estimate the length, one to
        report).
    """

    name: str
    estimates_frequency: bool
    estimates_mean: bool
    run: Runner
    note: str
    min_users: int = 1


def _hiskv(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    res = hiskv.run(
        data,
        eps,
        rng=rng,
        beta=s.beta,
        l_max=s.l_max,
        value_share=s.value_share,
        amplified=s.amplified,
    )
    return KVEstimate(res.frequency, res.mean, res.length)


def _pckv_grr(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    reports = pckv.grr_perturb(data, eps, s.padding_length, rng=rng)
    freq, mean = pckv.grr_estimate(reports, eps, data.d, s.padding_length)
    return KVEstimate(freq, mean, s.padding_length)


def _pckv_ue(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    c_plus, c_minus = pckv.ue_counts(data, eps, s.padding_length, rng=rng)
    freq, mean = pckv.ue_estimate(c_plus, c_minus, data.n_users, eps, s.padding_length)
    return KVEstimate(freq, mean, s.padding_length)


def _privkv(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    freq, mean = privkv.run_privkvm(data, eps, 1, rng=rng)
    return KVEstimate(freq, mean)


def _privkvm(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    freq, mean = privkv.run_privkvm(data, eps, s.privkvm_rounds, rng=rng)
    return KVEstimate(freq, mean)


def _kvue(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    keys, reported = kvue.kvue_perturb(data, eps, rng=rng)
    return KVEstimate(*kvue.kvue_estimate(keys, reported, data.d, eps))


def _kvoh(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    keys, bits = kvue.kvoh_perturb(data, eps, rng=rng)
    return KVEstimate(*kvue.kvoh_estimate(keys, bits, data.d, eps))


def _harmony(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    keys, signs = baselines.harmony_perturb(data, eps, rng=rng)
    mean = baselines.harmony_estimate(keys, signs, data.d, eps, data.true_frequency())
    return KVEstimate(None, mean)


def _sue(data: KVData, eps: float, s: KVSettings, rng: np.random.Generator) -> KVEstimate:
    counts = baselines.sue_counts(data, eps, s.padding_length, rng=rng)
    freq = baselines.sue_estimate(counts, data.n_users, data.d, eps, s.padding_length)
    return KVEstimate(freq, None, s.padding_length)


MECHANISMS: dict[str, Mechanism] = {
    m.name: m
    for m in (
        Mechanism("HISKV", True, True, _hiskv, "reconstructed from the description", 2),
        Mechanism("PCKV-GRR", True, True, _pckv_grr, "padding length l fixed"),
        Mechanism("PCKV-UE", True, True, _pckv_ue, "padding length l fixed"),
        Mechanism("PrivKV", True, True, _privkv, "eps split 1/2 key, 1/2 value"),
        Mechanism("PrivKVM", True, True, _privkvm, "c rounds of eps/c"),
        Mechanism("KVUE", True, True, _kvue, "3-state GRR on a sampled key"),
        Mechanism("KVOH", True, True, _kvoh, "3-bit one-hot on a sampled key"),
        Mechanism("Harmony", False, True, _harmony, "mean only; divides by the TRUE f"),
        Mechanism("SUE", True, False, _sue, "frequency only (basic RAPPOR)"),
    )
}

MAX_EPS = _validate.MAX_LDP_EPS
"""Largest eps the LDP mechanisms accept: float64 computes their probabilities exactly there."""

MIN_USERS = max(m.min_users for m in MECHANISMS.values())
"""Fewest users every listed mechanism can run on; smaller uploads are refused."""

UNAVAILABLE: dict[str, str] = {
    "LDPKV": "cited by the HISKV paper, but no description of its perturbation exists "
    "in any available source, so it is not implemented rather than invented.",
}


def run(
    name: str,
    data: KVData,
    eps: float,
    *,
    settings: KVSettings = DEFAULT_SETTINGS,
    rng: np.random.Generator,
) -> KVEstimate:
    """Run mechanism ``name`` on ``data`` at ``eps`` (in ``(0, 10]``, see
    :data:`dpcore._validate.MAX_LDP_EPS`).

    Parameters
    ----------
    name : str
        A key of :data:`MECHANISMS`.
    data : KVData
        The users' key-value pairs.
    eps : float
        Privacy budget of each user, in ``[1e-300, 10]``.
    settings : KVSettings, default DEFAULT_SETTINGS
        Parameters besides ``eps``.
    rng : numpy.random.Generator
        Source of the randomness (the only one used).

    Returns
    -------
    KVEstimate
        Estimates of the ``data.d`` keys.

    Raises
    ------
    ValueError
        If ``eps`` is not in ``[1e-300, 10]`` (:func:`dpcore._validate.ldp_epsilon`),
        ``name`` is in :data:`UNAVAILABLE` or unknown, ``data`` has fewer users than the
        mechanism's ``min_users``, or ``settings`` hold a value the mechanism rejects
        (e.g. ``padding_length < 1``, ``beta`` outside ``(0, 1)``).
    """
    eps = _validate.ldp_epsilon(eps)
    if name in UNAVAILABLE:
        raise ValueError(f"{name} is unavailable: {UNAVAILABLE[name]}")
    if name not in MECHANISMS:
        raise ValueError(f"unknown mechanism {name!r}; choose from {', '.join(MECHANISMS)}")
    if data.n_users < MECHANISMS[name].min_users:
        raise ValueError(
            f"{name} needs at least {MECHANISMS[name].min_users} users, got {data.n_users}"
        )
    return MECHANISMS[name].run(data, eps, settings, rng)
