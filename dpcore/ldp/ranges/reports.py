"""Per-user simulation of the flat frequency oracles: every report drawn, then aggregated.

The reference the aggregate draws (:mod:`dpcore.ldp.ranges.aggregate`) are tested against:
memory and time grow with the number of users (OUE and OLH also with the domain), so it is
for small populations. OLH hashes with multiply-add-shift,
``H(v) = (((a v + b) mod 2^64) >> 32) g >> 32`` with ``a`` odd and ``b`` drawn per user: the
32-bit hash is 2-independent (Dietzfelbinger, STACS 1996), its map onto ``[g]`` uniform to
within ``g / 2^32``. (The authors' code seeds xxhash32 with the user's index; no concrete
family has an exact aggregate law: :func:`dpcore.ldp.ranges.aggregate.aggregate_statistic`.)
Wang et al., USENIX Security 2017; Cormode, Kulkarni, Srivastava, PVLDB 2019.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpcore.ldp.oracles import grr_perturb
from dpcore.ldp.ranges.oracles import (
    hadamard_signs,
    hadamard_size,
    olh_hash_range,
    support_probabilities,
)

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

_CELLS = 2**21  # users x items per block of the OUE and OLH loops


def _blocks(n: int, k: int) -> list[slice]:
    step = max(1, _CELLS // max(k, 1))
    return [slice(s, min(s + step, n)) for s in range(0, n, step)]


def user_reports(
    oracle: str,
    items: IntArray,
    eps: float,
    k: int,
    *,
    rng: np.random.Generator,
    signs: IntArray | None = None,
) -> IntArray:
    """Every user's report, one per row, in the form the collector sums.

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}
        The frequency oracle.
    items : ndarray of int64, shape (n,)
        Each user's item in ``0..k-1``.
    eps : float
        Budget of one report.
    k : int
        Number of items.
    rng : numpy.random.Generator
        Source of the randomness.
    signs : ndarray of int64, shape (n,), optional
        HRR only: each user's sign (+1 or -1) on her item (HaarHRR's signed one-hot input);
        None: all +1.

    Returns
    -------
    ndarray of int64
        GRR: the item reported, shape ``(n,)``. OUE: the reported bits, ``(n, k)``. OLH: 1
        for every item whose hash equals the reported value (the items the report supports),
        ``(n, k)``. HRR: the Hadamard row sampled and the signed bit reported, ``(n, 2)``.
        OUE and OLH hold ``n k`` cells: for large populations go through
        :func:`user_statistic`, which works in blocks.

    Raises
    ------
    ValueError
        If ``oracle`` is unknown or ``signs`` is given for another oracle than HRR.
    """
    items = np.asarray(items, dtype=np.int64)
    if signs is not None and oracle != "hrr":
        raise ValueError(f"signs applies to the 'hrr' oracle only, got oracle={oracle!r}")
    if oracle == "grr":
        return np.asarray(grr_perturb(items, eps, k, rng=rng), dtype=np.int64)
    if oracle == "oue":
        p, q = support_probabilities("oue", eps, k)
        bits = rng.random((items.size, k)) < q
        bits[np.arange(items.size), items] = rng.random(items.size) < p
        return bits.astype(np.int64)
    if oracle == "olh":
        g = olh_hash_range(eps)
        p, _ = support_probabilities("olh", eps, k)
        a = rng.integers(0, 2**64, size=items.size, dtype=np.uint64) | np.uint64(1)
        b = rng.integers(0, 2**64, size=items.size, dtype=np.uint64)
        hashed = _hash(a, b, items.astype(np.uint64)[:, None], g)[:, 0]
        other = rng.integers(0, g - 1, size=items.size, dtype=np.uint64)
        other += other >= hashed
        report = np.where(rng.random(items.size) < p, hashed, other)[:, None]
        values = np.arange(k, dtype=np.uint64)
        return np.asarray(_hash(a, b, values, g) == report, dtype=np.int64)
    if oracle == "hrr":
        size = hadamard_size(k)
        rows = rng.integers(0, size, size=items.size, dtype=np.int64)
        kept = rng.random(items.size) < math.exp(eps) / (math.exp(eps) + 1)
        sign = np.ones(items.size, np.int64) if signs is None else np.asarray(signs, np.int64)
        reports = hadamard_signs(rows, items) * sign * np.where(kept, 1, -1)
        return np.column_stack([rows, reports]).astype(np.int64)
    raise ValueError(f"oracle must be one of 'grr', 'oue', 'olh', 'hrr', got {oracle!r}")


def user_statistic(
    oracle: str,
    items: IntArray,
    eps: float,
    k: int,
    *,
    rng: np.random.Generator,
    signs: IntArray | None = None,
) -> FloatArray:
    """Every user's report drawn (:func:`user_reports`), then the collector's statistic.

    Parameters
    ----------
    oracle, items, eps, k, rng, signs
        As :func:`user_reports`.

    Returns
    -------
    ndarray of float64
        GRR, OUE, OLH: support counts per item, shape ``(k,)``. HRR: the signed sums of the
        reports per Hadamard row, shape ``(hadamard_size(k),)``.

    Raises
    ------
    ValueError
        If ``oracle`` is unknown or ``signs`` is given for another oracle than HRR.
    """
    items = np.asarray(items, dtype=np.int64)
    if oracle in ("oue", "olh") and signs is None:  # n x k cells: in blocks
        counts = np.zeros(k, dtype=np.int64)
        for block in _blocks(items.size, k):
            counts += user_reports(oracle, items[block], eps, k, rng=rng).sum(axis=0)
        return counts.astype(np.float64)
    reports = user_reports(oracle, items, eps, k, rng=rng, signs=signs)
    if oracle == "grr":
        return np.bincount(reports, minlength=k).astype(np.float64)
    sums = np.bincount(reports[:, 0], weights=reports[:, 1], minlength=hadamard_size(k))
    return np.asarray(sums, dtype=np.float64)


def _hash(
    a: NDArray[np.uint64], b: NDArray[np.uint64], values: NDArray[np.uint64], g: int
) -> NDArray[np.uint64]:
    """``((a v + b) mod 2^64 >> 32) g >> 32`` per user (row) and value (column), in place."""
    table = np.multiply(a[:, None], values)
    table += b[:, None]
    table >>= np.uint64(32)
    table *= np.uint64(g)
    table >>= np.uint64(32)
    return table
