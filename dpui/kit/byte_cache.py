"""Caches bounded by bytes, shared by every session: the big arrays kept between reruns.

Streamlit's ``st.cache_data`` copies (pickles) a value on every hit, and ``st.cache_resource``
has no size bound; trees, releases, key-value datasets and prepared algorithms are large
(100 MB for a tree at 2^20 bins) and immutable. :func:`cache_by_bytes` keeps them as shared
objects in one least-recently-used store whose total stays within
``DP_EXPLORER_CACHE_MB`` (see :mod:`dpui.kit.limits`), each function also held to its own
number of entries. A value being computed is computed once: a second caller with the same
key waits for the first.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from typing import Any, ParamSpec, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from dpui.kit import limits

P = ParamSpec("P")
R = TypeVar("R")


def nbytes(value: Any) -> int:
    """Bytes held by the numpy arrays (and tables) inside ``value``; small objects count 0."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, pd.DataFrame | pd.Series):
        return int(np.sum(value.memory_usage(index=True, deep=False)))
    if is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name)) for f in fields(value))
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    if isinstance(value, list | tuple):
        # scalars (a histogram's millions of labels) count 0: skipped without a call each
        return sum(nbytes(v) for v in [v for v in value if not isinstance(v, _SCALAR)])
    return 0


_SCALAR = (str, bytes, int, float, bool, type(None))


def _key_part(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        digest = hashlib.blake2b(np.ascontiguousarray(value).tobytes(), digest_size=16)
        return ("ndarray", value.dtype.str, value.shape, digest.hexdigest())
    return value


class _ByteLRU:
    """Entries of every :func:`cache_by_bytes` function in one least-recently-used order,
    dropped while their total exceeds the byte budget or a function exceeds its count."""

    def __init__(self) -> None:
        self.entries: OrderedDict[tuple[str, Any], tuple[Any, int]] = OrderedDict()
        self.computing: dict[tuple[str, Any], threading.Lock] = {}
        self.lock = threading.Lock()

    def get(self, key: tuple[str, Any]) -> tuple[bool, Any]:
        with self.lock:
            if key not in self.entries:
                return False, None
            self.entries.move_to_end(key)
            return True, self.entries[key][0]

    def put(self, key: tuple[str, Any], value: Any, max_entries: int) -> None:
        budget = limits.current().cache_megabytes * limits.MB
        with self.lock:
            self.entries[key] = (value, nbytes(value))
            self.entries.move_to_end(key)
            own = [k for k in self.entries if k[0] == key[0]]
            for old in own[: max(0, len(own) - max_entries)]:
                del self.entries[old]
            total = sum(size for _, size in self.entries.values())
            while len(self.entries) > 1 and total > budget:  # the newest entry stays
                _, (_, dropped) = self.entries.popitem(last=False)
                total -= dropped

    def get_or_compute(
        self, key: tuple[str, Any], compute: Callable[[], Any], max_entries: int
    ) -> Any:
        """The cached value, else ``compute()`` once: concurrent callers of a key wait for it."""
        found, value = self.get(key)
        if found:
            return value
        with self.lock:
            key_lock = self.computing.setdefault(key, threading.Lock())
        try:
            with key_lock:
                found, value = self.get(key)
                if not found:
                    value = compute()
                    self.put(key, value, max_entries)
        finally:
            with self.lock:
                self.computing.pop(key, None)
        return value

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()

    def total(self) -> int:
        with self.lock:
            return sum(size for _, size in self.entries.values())

    def count(self, name: str) -> int:
        with self.lock:
            return sum(k[0] == name for k in self.entries)


_CACHE = _ByteLRU()  # shared by all sessions, like st.cache_resource; holds immutable results


def clear_caches() -> None:
    """Drop every :func:`cache_by_bytes` entry (Streamlit's "clear cache" does not)."""
    _CACHE.clear()


def cached_bytes() -> int:
    """Bytes of numpy arrays held by all :func:`cache_by_bytes` caches together."""
    return _CACHE.total()


def cache_by_bytes(
    *, max_entries: int, spinner: str | None = None
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Like ``st.cache_resource`` (one shared, never mutated copy per key), but bounded by
    bytes: all such caches together hold at most ``DP_EXPLORER_CACHE_MB`` (least recently
    used entries are dropped first; the newest entry is always kept), and each function at
    most ``max_entries`` entries.

    ``st.cache_resource`` bounds only the number of entries, which at 2^22 bins lets a
    few caches of trees and releases reach gigabytes. Arguments are the key (numpy
    arrays by a digest of their bytes; arguments named ``_x`` are left out, as
    Streamlit does). Sessions asking for a key being computed wait for that computation.
    Streamlit's "clear cache" does not reach these caches.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        name = f"{func.__module__}.{func.__qualname__}"
        names = func.__code__.co_varnames[: func.__code__.co_argcount]

        @functools.wraps(func)
        def cached(*args: P.args, **kwargs: P.kwargs) -> R:
            named = {**dict(zip(names, args, strict=False)), **kwargs}
            key = tuple((k, _key_part(v)) for k, v in named.items() if not k.startswith("_"))

            def compute() -> R:
                if spinner is None:
                    return func(*args, **kwargs)
                with st.spinner(spinner):
                    return func(*args, **kwargs)

            result: R = _CACHE.get_or_compute((name, key), compute, max_entries)
            return result

        cached.entries = functools.partial(_CACHE.count, name)  # type: ignore[attr-defined]
        return cached

    return decorate
