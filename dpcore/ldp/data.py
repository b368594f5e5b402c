"""Key-value datasets for local DP: a flat (CSR) layout, synthetic generators and CSV loading.

User ``i`` holds the pairs ``keys[offsets[i]:offsets[i+1]]`` with values
``values[offsets[i]:offsets[i+1]]``; keys are ``0..d-1``, at most one pair per
key and user, values in ``[-1, 1]``. Every algorithm works on the flat arrays,
so a million users never means a Python loop over users.

The generators stand in for the datasets of the HISKV paper (Zhang et al.,
TalkingData, JData, GAUSS, LNR), which are not available; their assumptions are
stated in each docstring and on the page.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import special

from dpcore import _validate
from dpcore.ldp import keysets

KeyModel = Literal["gauss", "lnr", "uniform"]
LengthModel = Literal["heavy", "uniform"]
KEY_MODELS: tuple[KeyModel, ...] = ("gauss", "lnr", "uniform")
MAX_CSV_BYTES = 64 * 2**20
MAX_CSV_ROWS = 2**22
"""Pairs (rows besides the header) accepted from a CSV; checked before they are parsed."""
MAX_LINE = 10_000
LENGTH_MODELS: tuple[LengthModel, ...] = ("heavy", "uniform")


class KVDataError(ValueError):
    """A key-value dataset that cannot be used, with a message meant for the user."""


@dataclass(frozen=True)
class KVData:
    """Key-value pairs of ``n`` users in CSR layout.

    Attributes
    ----------
    offsets : ndarray of int64, shape (n + 1,)
        Non-decreasing, ``offsets[0] = 0``; user ``i``'s pairs are
        ``offsets[i]:offsets[i + 1]``.
    keys : ndarray of int64, shape (nnz,)
        Keys in ``[0, d)``, distinct within a user.
    values : ndarray of float64, shape (nnz,)
        Values in ``[-1, 1]``.
    d : int
        Size of the key domain, at least 1.
    key_labels : tuple of str, optional
        Names of the keys (from a CSV); ``None`` for synthetic data.
    n_users : int
        ``n`` (property).
    lengths : ndarray of int64, shape (n,)
        Number of pairs ``l_i`` of each user (property).

    Raises
    ------
    ValueError
        If ``offsets`` is not 1-D or does not start at 0, ``offsets[-1]``, ``keys`` and
        ``values`` disagree in size, or ``d < 1``. The other invariants are not checked.
    """

    offsets: NDArray[np.int64]
    keys: NDArray[np.int64]
    values: NDArray[np.float64]
    d: int
    key_labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.offsets.ndim != 1 or self.offsets.size < 1 or self.offsets[0] != 0:
            raise ValueError("offsets must be a 1-D array starting at 0")
        if self.offsets[-1] != self.keys.size or self.keys.size != self.values.size:
            raise ValueError("offsets[-1], keys and values must agree in size")
        if self.d < 1:
            raise ValueError("the key domain must hold at least one key")

    @property
    def n_users(self) -> int:
        return int(self.offsets.size - 1)

    @property
    def lengths(self) -> NDArray[np.int64]:
        """Number of pairs ``l_i`` of each user."""
        return np.diff(self.offsets)

    def user_of_pair(self) -> NDArray[np.int64]:
        """The user index of every flat pair."""
        return np.repeat(np.arange(self.n_users, dtype=np.int64), self.lengths)

    def true_frequency(self) -> NDArray[np.float64]:
        """:math:`f_k = |\\{i : k \\in S_i\\}| / n` for every key."""
        counts = np.bincount(self.keys, minlength=self.d).astype(np.float64)
        return counts / max(self.n_users, 1)

    def true_mean(self) -> NDArray[np.float64]:
        """:math:`m_k` = mean value of key ``k`` over its holders (0 where nobody holds it)."""
        counts = np.bincount(self.keys, minlength=self.d).astype(np.float64)
        sums = np.bincount(self.keys, weights=self.values, minlength=self.d)
        return np.divide(sums, counts, out=np.zeros(self.d), where=counts > 0)


def from_pairs(
    users: NDArray[np.int64], keys: NDArray[np.int64], values: NDArray[np.float64], d: int
) -> KVData:
    """Build :class:`KVData` from parallel pair arrays (users ``0..n-1``, any order).

    Parameters
    ----------
    users : ndarray of int64, shape (nnz,)
        User index of each pair; ``n = users.max() + 1`` (users without a pair get an
        empty set).
    keys : ndarray of int64, shape (nnz,)
        Key of each pair, in ``[0, d)``.
    values : ndarray of float64, shape (nnz,)
        Value of each pair, in ``[-1, 1]``.
    d : int
        Size of the key domain.

    Returns
    -------
    KVData
        The pairs sorted by user, then key.

    Raises
    ------
    ValueError
        If ``d < 1`` or the arrays disagree in size.

    Examples
    --------
    >>> data = from_pairs(np.array([1, 0, 1]), np.array([2, 0, 0]), np.array([0.5, -1, 1]), 3)
    >>> data.lengths.tolist(), data.true_frequency().tolist(), data.true_mean().tolist()
    ([1, 2], [1.0, 0.0, 0.5], [0.0, 0.0, 0.5])
    """
    order = np.lexsort((keys, users))
    n = int(users.max()) + 1 if users.size else 0
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(users, minlength=n), out=offsets[1:])
    return KVData(offsets, keys[order].astype(np.int64), values[order].astype(np.float64), d)


def key_weights(model: KeyModel, d: int) -> NDArray[np.float64]:
    """Relative popularity of each key under a generator's key model.

    .. math::
        w_k \\propto \\exp(-k^2 / (2\\sigma^2)),\\ \\sigma = d/2 \\ \\text{(gauss: folded normal)};
        \\quad w_k \\propto d - k \\ \\text{(lnr)};\\quad w_k \\propto 1 \\ \\text{(uniform)}.

    Parameters
    ----------
    model : {"gauss", "lnr", "uniform"}
        The key model.
    d : int
        Size of the key domain.

    Returns
    -------
    ndarray of float64, shape (d,)
        Weights summing to 1.

    Raises
    ------
    ValueError
        If ``model`` is not one of :data:`KEY_MODELS`.

    Examples
    --------
    >>> key_weights("lnr", 4).tolist()
    [0.4, 0.3, 0.2, 0.1]
    """
    k = np.arange(d, dtype=np.float64)
    if model == "gauss":
        sigma = d / 2.0
        w = np.exp(-(k**2) / (2.0 * sigma**2))
    elif model == "lnr":
        w = d - k
    elif model == "uniform":
        w = np.ones(d)
    else:
        raise ValueError(f"unknown key model {model!r}; expected one of {KEY_MODELS}")
    return np.asarray(w / w.sum(), dtype=np.float64)


def key_means(model: KeyModel, d: int, *, rng: np.random.Generator) -> NDArray[np.float64]:
    """Per-key population means: N(0,1) truncated to [-1,1] (gauss), linear from -1 to 1
    (lnr), uniform on [-1,1] (uniform).

    Parameters
    ----------
    model : {"gauss", "lnr", "uniform"}
        The key model.
    d : int
        Size of the key domain.
    rng : numpy.random.Generator
        Source of the randomness (not used by ``"lnr"``).

    Returns
    -------
    ndarray of float64, shape (d,)
        Mean value of each key, in ``[-1, 1]``.

    Raises
    ------
    ValueError
        If ``model`` is not one of :data:`KEY_MODELS`.
    """
    if model == "gauss":
        means = rng.standard_normal(d)
        bad = np.abs(means) > 1.0
        while bad.any():  # rejection sampling = exact truncation
            means[bad] = rng.standard_normal(int(bad.sum()))
            bad = np.abs(means) > 1.0
        return means
    if model == "lnr":
        return np.linspace(-1.0, 1.0, d)
    if model == "uniform":
        return rng.uniform(-1.0, 1.0, d)
    raise ValueError(f"unknown key model {model!r}; expected one of {KEY_MODELS}")


def sample_lengths(
    model: LengthModel, n_users: int, max_length: int, *, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Set lengths ``l_i`` in ``[1, max_length]``.

    ``heavy``: ``ceil`` of a log-normal with median 15 and log-sd 0.6, which puts about
    2% of users at 50 pairs or more, like the TalkingData length histogram in the HISKV
    paper (98% of users below 50), then capped at ``max_length``. ``uniform``: uniform
    on ``1..max_length``.

    Parameters
    ----------
    model : {"heavy", "uniform"}
        The length model.
    n_users : int
        Number of users.
    max_length : int
        Largest length, at least 1.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    ndarray of int64, shape (n_users,)
        The set length of each user.

    Raises
    ------
    ValueError
        If ``max_length < 1`` or ``model`` is not one of :data:`LENGTH_MODELS`.
    """
    if max_length < 1:
        raise ValueError("max_length must be at least 1")
    if model == "heavy":
        raw = np.ceil(rng.lognormal(mean=np.log(15.0), sigma=0.6, size=n_users))
        return np.clip(raw, 1, max_length).astype(np.int64)
    if model == "uniform":
        return rng.integers(1, max_length + 1, size=n_users, dtype=np.int64)
    raise ValueError(f"unknown length model {model!r}; expected one of {LENGTH_MODELS}")


def length_pmf(model: LengthModel, max_length: int) -> NDArray[np.float64]:
    """The law of :func:`sample_lengths`: ``P[l_i = l]`` for ``l = 0..max_length``.

    ``heavy``: ``P[l] = Phi(z(l)) - Phi(z(l - 1))`` for ``1 < l < max_length`` with
    ``z(x) = (ln x - ln 15) / 0.6``, the rest of the mass at the ends; ``uniform``:
    ``1 / max_length`` each.

    Parameters
    ----------
    model : {"heavy", "uniform"}
        The length model.
    max_length : int
        Largest length, at least 1.

    Returns
    -------
    ndarray of float64, shape (max_length + 1,)
        Probabilities summing to 1 (``P[0] = 0``).

    Raises
    ------
    ValueError
        If ``max_length < 1`` or ``model`` is not one of :data:`LENGTH_MODELS`.

    Examples
    --------
    >>> length_pmf("uniform", 4).tolist()
    [0.0, 0.25, 0.25, 0.25, 0.25]
    """
    if max_length < 1:
        raise ValueError("max_length must be at least 1")
    pmf = np.zeros(max_length + 1)
    if model == "uniform":
        pmf[1:] = 1.0 / max_length
        return pmf
    if model != "heavy":
        raise ValueError(f"unknown length model {model!r}; expected one of {LENGTH_MODELS}")
    # P[ceil(X) <= l] = P[X <= l] for a continuous X: the log-normal's CDF at 1..max - 1
    z = (np.log(np.arange(1, max_length, dtype=np.float64)) - np.log(15.0)) / 0.6
    cdf = np.concatenate([0.5 * special.erfc(-z / np.sqrt(2.0)), [1.0]])
    pmf[1:] = np.diff(cdf, prepend=0.0)
    return pmf


def generate(
    n_users: int,
    d: int,
    *,
    keys: KeyModel = "gauss",
    lengths: LengthModel = "heavy",
    max_length: int = 50,
    value_sd: float = 0.3,
    rng: np.random.Generator,
) -> KVData:
    """A synthetic key-value dataset (assumptions, since the paper's data are unavailable).

    Keys of each user are distinct, a successive sample from :func:`key_weights` (drawn
    by :func:`dpcore.ldp.keysets.distinct_keys` in bounded work for every length up to
    ``d``); set lengths from :func:`sample_lengths`, capped at ``d``. A user's value
    for key ``k`` is ``clip(mu_k + N(0, value_sd^2), -1, 1)`` with ``mu_k`` from
    :func:`key_means`; the targets ``f_k, m_k`` are always computed from the drawn data,
    so clipping never biases an error measurement.

    Parameters
    ----------
    n_users : int
        Number of users, at least 1.
    d : int
        Size of the key domain.
    keys : {"gauss", "lnr", "uniform"}, default "gauss"
        Key model (:func:`key_weights`, :func:`key_means`).
    lengths : {"heavy", "uniform"}, default "heavy"
        Length model (:func:`sample_lengths`).
    max_length : int, default 50
        Largest set length (also capped at ``d``).
    value_sd : float, default 0.3
        Standard deviation of a value around its key's mean, before clipping.
    rng : numpy.random.Generator
        Source of the randomness.

    Returns
    -------
    KVData
        ``n_users`` users, every one holding at least one pair.

    Raises
    ------
    ValueError
        If ``n_users < 1``, ``min(max_length, d) < 1``, or a model name is unknown.

    Examples
    --------
    >>> data = generate(500, 20, max_length=5, rng=np.random.default_rng(0))
    >>> data.n_users, int(data.lengths.max()) <= 5, bool(np.all(np.abs(data.values) <= 1))
    (500, True, True)
    """
    if n_users < 1:
        raise ValueError("need at least one user")
    lens = sample_lengths(lengths, n_users, min(max_length, d), rng=rng)
    _, flat_keys = keysets.distinct_keys(lens, key_weights(keys, d), rng)
    mu = key_means(keys, d, rng=rng)
    values = np.clip(mu[flat_keys] + value_sd * rng.standard_normal(flat_keys.size), -1, 1)
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    return KVData(offsets, flat_keys, values, d)


def _rows(mask: NDArray[np.bool_], limit: int = 5) -> str:
    """CSV line numbers (header = line 1) of the first offending rows."""
    lines = (np.flatnonzero(mask)[:limit] + 2).tolist()
    more = int(mask.sum()) - len(lines)
    return ", ".join(map(str, lines)) + (f" and {more} more" if more > 0 else "")


def read_kv_csv(
    source: str | Path | bytes | io.IOBase,
    *,
    max_bytes: int = MAX_CSV_BYTES,
    max_rows: int = MAX_CSV_ROWS,
) -> KVData:
    """Load a ``user,key,value`` CSV; raise :class:`KVDataError` with a clear message.

    Users and keys may be any labels; keys are numbered in sorted order and kept as
    ``key_labels``, ``d`` is the number of distinct keys; other columns are ignored.

    Parameters
    ----------
    source : str, pathlib.Path, bytes or file object
        A path, the file's bytes, or an open file (binary or text).
    max_bytes : int, default MAX_CSV_BYTES
        Largest file size accepted, in bytes.
    max_rows : int, default MAX_CSV_ROWS
        Most data rows (pairs) accepted besides the header.

    Returns
    -------
    KVData
        One user per distinct user label (numbered in sorted order), with
        ``key_labels`` set.

    Raises
    ------
    KVDataError
        Nothing is fixed silently: more than ``max_bytes`` or ``max_rows`` (found by a
        scan of the bytes before parsing), a line longer than 10,000 bytes, text that is
        not UTF-8, missing or repeated column names (case-insensitive), rows with more
        fields than the header (the line is named), no rows, empty user/key/value cells
        (also from a short row), non-numeric values, values outside ``[-1, 1]``, a user
        holding the same key twice.
    OSError
        If ``source`` is a path that cannot be read.

    Examples
    --------
    >>> data = read_kv_csv(b"user,key,value\\nu1,apple,0.5\\nu2,apple,-1\\nu2,pear,1\\n")
    >>> data.d, data.key_labels, data.true_mean().tolist()
    (2, ('apple', 'pear'), [-0.25, 1.0])
    >>> read_kv_csv(b"user,key,value\\nu1,a,2\\n")
    Traceback (most recent call last):
    ...
    dpcore.ldp.data.KVDataError: values must lie in [-1, 1]; see line(s) 2
    """
    raw = _bounded_bytes(source, max_bytes).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        _validate.scan_lines(raw, max_rows=max_rows, max_line=MAX_LINE)
    except ValueError as err:
        raise KVDataError(f"{err} Expected one user,key,value pair per line.") from None
    try:
        table = pd.read_csv(
            io.BytesIO(raw),
            header=None,
            dtype=str,
            keep_default_na=False,
            skipinitialspace=True,
            encoding="utf-8-sig",
            engine="c",
        )
    except pd.errors.EmptyDataError:
        raise KVDataError("the file is empty; expected a header 'user,key,value'") from None
    except pd.errors.ParserError as err:
        raise KVDataError(_ragged_message(str(err))) from None
    except UnicodeDecodeError:
        raise KVDataError("the file is not UTF-8 text; expected a CSV 'user,key,value'") from None
    header = [str(c).strip().lower() for c in table.iloc[0]]
    repeated = sorted({c for c in header if header.count(c) > 1 and c})
    if repeated:
        raise KVDataError(
            f"column name(s) {', '.join(repeated)} appear more than once (names are "
            "case-insensitive); expected one each of user, key, value"
        )
    frame = table.iloc[1:].set_axis(header, axis=1).reset_index(drop=True)
    missing = [c for c in ("user", "key", "value") if c not in frame.columns]
    if missing:
        raise KVDataError(
            f"missing column(s) {', '.join(missing)}; expected a header 'user,key,value'"
        )
    if frame.empty:
        raise KVDataError("the file has a header but no rows")
    user = frame["user"].str.strip()
    key = frame["key"].str.strip()
    raw_value = frame["value"].str.strip()
    for name, col in (("user", user), ("key", key), ("value", raw_value)):
        empty = (col == "").to_numpy()
        if empty.any():
            raise KVDataError(f"empty {name} cell(s); see line(s) {_rows(empty)}")
    value = pd.to_numeric(raw_value, errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(value)
    if bad.any():
        raise KVDataError(f"values must be numbers; see line(s) {_rows(bad)}")
    outside = np.abs(value) > 1.0
    if outside.any():
        raise KVDataError(f"values must lie in [-1, 1]; see line(s) {_rows(outside)}")
    dup = frame.assign(user=user, key=key).duplicated(subset=["user", "key"]).to_numpy()
    if dup.any():
        raise KVDataError(
            f"a user holds the same key twice (one pair per key allowed); see line(s) {_rows(dup)}"
        )
    user_codes, _ = pd.factorize(user, sort=True)
    key_codes, key_labels = pd.factorize(key, sort=True)
    data = from_pairs(
        np.asarray(user_codes, dtype=np.int64),
        np.asarray(key_codes, dtype=np.int64),
        value,
        len(key_labels),
    )
    return replace(data, key_labels=tuple(str(k) for k in key_labels))


def _bounded_bytes(source: str | Path | bytes | io.IOBase, max_bytes: int) -> bytes:
    if isinstance(source, bytes):
        data = source
    elif isinstance(source, (str, Path)):
        with open(source, "rb") as file:
            data = file.read(max_bytes + 1)
    else:
        raw = source.read(max_bytes + 1)
        data = raw.encode() if isinstance(raw, str) else bytes(raw)
    if len(data) > max_bytes:
        raise KVDataError(f"the file is larger than the limit of {max_bytes / 2**20:.0f} MiB")
    return data


def _ragged_message(error: str) -> str:
    found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", error)
    if found is None:
        return f"not a readable CSV file ({error[:200]})"
    fields, line, seen = found.groups()
    return f"line {line} has {seen} fields but the header has {fields}; every row needs the same"
