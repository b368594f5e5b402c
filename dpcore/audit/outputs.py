"""Drawing a mechanism's outputs from a sampler, checking them, and putting them in one form.

A sampler ``sample(size, rng)`` returns ``size`` outputs of a mechanism on one input: a
1-D array of numbers (one scalar per run), a 2-D array (one output vector per row), or
integers (discrete outputs: each distinct value, or each distinct row, is one output).
Both neighbours' outputs must be of one kind and width. Discrete outputs get labels
``0..m-1`` shared by both sides; the event chooser works on those labels.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

Sampler = Callable[[int, np.random.Generator], Any]
"""``sample(size, rng)`` -> ``size`` outputs of the mechanism on one input."""

Kind = Literal["discrete", "scalar", "vector"]


@dataclass(frozen=True)
class Outputs:
    """Both neighbours' outputs in one form.

    Attributes
    ----------
    kind : {"discrete", "scalar", "vector"}
        Integer outputs are discrete; float outputs scalar (1-D) or vector (2-D).
    d, d_prime : ndarray
        Labels (int64, shape (n,)) for discrete outputs, else float64 of shape (n,) or
        (n, width).
    values : ndarray
        For discrete outputs, the output each label stands for (row ``i`` for label ``i``);
        empty otherwise.
    """

    kind: Kind
    d: NDArray[Any]
    d_prime: NDArray[Any]
    values: NDArray[Any]


def draw(name: str, sampler: Any, size: int, rng: np.random.Generator) -> NDArray[Any]:
    """Call ``sampler(size, rng)`` and check its answer: ``size`` finite numbers or rows.

    Parameters
    ----------
    name : str
        The argument's name, for messages.
    sampler : callable
        ``sampler(size, rng)``.
    size : int
        Outputs wanted.
    rng : numpy.random.Generator
        Passed to the sampler.

    Returns
    -------
    ndarray
        Shape ``(size,)`` or ``(size, width)``; integer dtype for discrete outputs (bools
        become integers), float64 otherwise.

    Raises
    ------
    TypeError
        If ``sampler`` is not callable or returns something that is not numbers.
    ValueError
        If ``sampler`` raises, or its answer has the wrong shape or a NaN or infinity.
    """
    if not callable(sampler):
        raise TypeError(f"{name} must be callable as {name}(size, rng), got {type(sampler)}")
    try:
        raw = sampler(size, rng)
    except Exception as error:  # the sampler is the caller's code: say whose error it is
        raise ValueError(f"{name}({size}, rng) raised {type(error).__name__}: {error}") from error
    array = np.asarray(raw)
    if array.dtype == np.bool_:
        array = array.astype(np.int64)
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise TypeError(f"{name} must return numbers, got an array of dtype {array.dtype}")
    width_ok = array.ndim == 1 or (array.ndim == 2 and array.shape[1] > 0)
    if not width_ok or array.shape[0] != size:
        raise ValueError(
            f"{name}({size}, rng) must return {size} outputs (shape ({size},) or ({size}, k)), "
            f"got shape {array.shape}"
        )
    if np.issubdtype(array.dtype, np.integer):
        return array.astype(np.int64)
    floats = array.astype(np.float64)
    bad = ~np.isfinite(floats)
    if bad.any():
        row = int(np.argmax(bad.reshape(size, -1).any(axis=1)))
        raise ValueError(f"{name} returned a NaN or infinite output (run {row})")
    return floats


def combine(d: NDArray[Any], d_prime: NDArray[Any]) -> Outputs:
    """Both sides' outputs as one :class:`Outputs`, labelling discrete outputs jointly.

    Parameters
    ----------
    d, d_prime : ndarray
        Checked outputs from :func:`draw`.

    Returns
    -------
    Outputs
        The shared form.

    Raises
    ------
    ValueError
        If the two sides differ in kind (integer against float) or width.
    """
    discrete = np.issubdtype(d.dtype, np.integer)
    if discrete != np.issubdtype(d_prime.dtype, np.integer) or d.shape[1:] != d_prime.shape[1:]:
        raise ValueError(
            "sample_d and sample_d_prime must return outputs of one kind and width, got "
            f"{d.dtype} {d.shape[1:]} and {d_prime.dtype} {d_prime.shape[1:]}"
        )
    if not discrete:
        kind: Kind = "scalar" if d.ndim == 1 else "vector"
        return Outputs(kind, d, d_prime, np.empty(0))
    both = np.concatenate([d, d_prime])
    _, labels = np.unique(_row_codes(both), return_inverse=True)
    firsts = np.unique(labels, return_index=True)[1]
    return Outputs("discrete", labels[: d.shape[0]], labels[d.shape[0] :], both[firsts])


def _row_codes(rows: NDArray[np.int64]) -> NDArray[Any]:
    """One sortable code per output: the integer itself, a mixed-radix int64 for narrow
    rows, else the row's bytes."""
    if rows.ndim == 1:
        return rows
    low, high = rows.min(axis=0), rows.max(axis=0)
    spans = (high - low + 1).astype(np.float64)
    if float(np.prod(spans)) < 2.0**62:
        radix = np.concatenate([np.cumprod(spans[::-1])[::-1][1:], [1.0]]).astype(np.int64)
        return np.asarray((rows - low) @ radix, dtype=np.int64)
    return np.ascontiguousarray(rows).view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()
