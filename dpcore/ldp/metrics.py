"""Error measures over the top-``t`` keys: MSE and relative error, ``t = 10..50`` (HISKV)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

MEAN_RE_FLOOR = 0.1
"""Relative error of a mean divides by :math:`\\max(|m_k|, 0.1)`: means near 0 would
otherwise make the ratio explode (our convention; the paper's is lost)."""


def top_keys(frequency: NDArray[np.float64], t: int) -> NDArray[np.int64]:
    """Indices of the ``t`` most frequent keys (ties broken by key index).

    Parameters
    ----------
    frequency : ndarray of float64, shape (d,)
        Frequency of each key.
    t : int
        Number of keys; more than ``d`` gives all ``d``.

    Returns
    -------
    ndarray of int64, shape (min(t, d),)
        Key indices, most frequent first.

    Examples
    --------
    >>> top_keys(np.array([0.1, 0.5, 0.1, 0.3]), 2).tolist()
    [1, 3]
    """
    order = np.argsort(-frequency, kind="stable")
    return order[: min(t, frequency.size)].astype(np.int64)


def mse(
    estimate: NDArray[np.float64], truth: NDArray[np.float64], keys: NDArray[np.int64]
) -> float:
    """:math:`\\frac1t \\sum_{k \\in \\text{top-}t} (\\hat x_k - x_k)^2`.

    Parameters
    ----------
    estimate, truth : ndarray of float64, shape (d,)
        Estimated and true per-key values.
    keys : ndarray of int64, shape (t,)
        Keys to average over (e.g. from :func:`top_keys`).

    Returns
    -------
    float
        Mean squared error over ``keys`` (NaN if ``keys`` is empty).
    """
    return float(np.mean((estimate[keys] - truth[keys]) ** 2))


def relative_error(
    estimate: NDArray[np.float64],
    truth: NDArray[np.float64],
    keys: NDArray[np.int64],
    *,
    floor: float = 0.0,
) -> float:
    """:math:`\\frac1t \\sum_k |\\hat x_k - x_k| / \\max(|x_k|, \\text{floor})`.

    Parameters
    ----------
    estimate, truth : ndarray of float64, shape (d,)
        Estimated and true per-key values.
    keys : ndarray of int64, shape (t,)
        Keys to average over.
    floor : float, default 0.0
        Smallest denominator (:data:`MEAN_RE_FLOOR` for means); with 0 a true value of
        0 gives ``inf`` or NaN.

    Returns
    -------
    float
        Mean relative error over ``keys``.

    Examples
    --------
    >>> relative_error(np.array([1.5, 0.0]), np.array([1.0, 0.0]), np.array([0, 1]), floor=0.1)
    0.25
    """
    denominator = np.maximum(np.abs(truth[keys]), floor)
    return float(np.mean(np.abs(estimate[keys] - truth[keys]) / denominator))
