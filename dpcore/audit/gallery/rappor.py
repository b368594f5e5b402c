"""One-time RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014) on one user's two values, with its
exact law: implemented here for the gallery (dpcore has only its one-hot special case,
:func:`dpcore.audit.gallery.local.sue`)."""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.audit.gallery.entry import Entry, ExactLaw, bit_rows, make
from dpcore.audit.outputs import Sampler


def bloom_filter(value: int, bits: int, hashes: int) -> NDArray[np.bool_]:
    """The Bloom filter of ``value``: bit ``H_i(value) mod bits`` set for ``i < hashes``,
    ``H_i`` the first 8 bytes of SHA-256 of ``"i:value"`` (RAPPOR hashes with MD5 the same way).

    Parameters
    ----------
    value : int
        The client's value.
    bits, hashes : int
        Filter size ``m`` and number of hash functions ``h``.

    Returns
    -------
    ndarray of bool, shape (bits,)
        At most ``hashes`` bits set (fewer on a collision).
    """
    positions = [
        int.from_bytes(hashlib.sha256(f"{i}:{value}".encode()).digest()[:8], "big") % bits
        for i in range(hashes)
    ]
    filt = np.zeros(bits, dtype=bool)
    filt[positions] = True
    return filt


def rappor(
    f: float = 0.95, bits: int = 20, hashes: int = 4, values: tuple[int, int] = (0, 7)
) -> Entry:
    """One-time RAPPOR (Erlingsson, Pihur, Korolova, CCS 2014): the permanent randomized
    response on a Bloom filter (:func:`bloom_filter`), implemented here (dpcore has only
    its one-hot special case,
    :func:`dpcore.audit.gallery.local.sue`); outputs are float rows of bits.

    Each bit is set to 1 w.p. ``f/2``, to 0 w.p. ``f/2`` and kept w.p. ``1 - f``, so a
    bit ``b`` is reported as ``b`` w.p. ``1 - f/2``. Bits are independent, and only the
    bits where the two filters differ have different laws; each moves the log-ratio by at
    most ``ln((1 - f/2)/(f/2))``. RAPPOR claims

    .. math:: \\varepsilon_\\infty = 2h \\ln\\frac{1 - f/2}{f/2},

    reached when the two filters set ``2h`` different bits; hash collisions lower the
    true ε. DP-Sniper (Bichsel et al., S&P 2021) audits ``f = 0.95``, 20 bits, 4 hashes.

    Parameters
    ----------
    f : float, default 0.95
        RAPPOR's ``f``, in ``(0, 1)``.
    bits, hashes : int
        Filter size and number of hashes.
    values : tuple of int, default (0, 7)
        The two values compared: by default two filters of 4 bits each, disjoint, so the
        true ε is the claim (values 0 and 1 share a bit: 6 bits differ, true ε 0.60).

    Returns
    -------
    Entry
        True ε ``(differing bits) ln((1 - f/2)/(f/2))``, with the exact law of the bits
        where the two filters differ (the others are independent of them and drawn alike
        on both inputs, so the ε is the same).
    """
    f = _validate.fraction("f", f)
    m = _validate.whole("bits", bits)
    h = _validate.whole("hashes", hashes)
    filters = [bloom_filter(v, m, h) for v in values]
    differ = np.flatnonzero(filters[0] != filters[1])
    patterns = np.array(list(itertools.product((0, 1), repeat=differ.size)), dtype=bool)

    def pmf(filt: NDArray[np.bool_]) -> NDArray[np.float64]:
        kept = patterns == filt[differ]
        return np.asarray(np.where(kept, 1 - f / 2, f / 2).prod(axis=1), dtype=np.float64)

    def client(filt: NDArray[np.bool_]) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            u = rng.random((size, m))
            return np.where(u < f, u < f / 2, filt).astype(np.float64)

        return sample

    def index(outputs: NDArray[np.float64]) -> NDArray[np.int64]:
        return bit_rows(np.asarray(outputs)[:, differ])

    law = ExactLaw(pmf(filters[0]), pmf(filters[1]), index)
    claimed = 2 * h * math.log((1 - f / 2) / (f / 2))
    return make(
        "One-time RAPPOR", claimed, law.epsilon, (client(filters[0]), client(filters[1])),
        f"permanent randomized response, f = {f:g}, on a {m}-bit Bloom filter with {h} "
        f"hashes: value {values[0]} against {values[1]} ({differ.size} bits differ)",
        "any two values", law=law,
    )  # fmt: skip
