"""Distinct keys per user: a successive sample (weighted sampling without replacement, in
draw order) of each user's set length, in work bounded for every length up to ``d`` and
every key weights, and the expected work, for cost estimates.

Short sets are drawn with replacement and deduplicated (cheap when a set holds a small
share of the weight); long ones by an exponential race over all ``d`` keys (Gumbel-top-k,
Efraimidis & Spirakis 2006), whose work does not depend on how skewed the weights are.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

REDRAW_ROUNDS = 3
"""Rounds of redrawing short sets before what they miss is raced (:func:`distinct_keys`)."""
RACE_RATIO = 8.0
"""A set is raced over all ``d`` keys when its redraw bound exceeds ``d / RACE_RATIO`` draws."""
RACE_CELLS = 2**20
"""Keys raced at once (users x d): bounds the race's memory to about 30 MB."""


def redraw_bound(weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """Upper bound on the expected draws with replacement until ``l`` distinct keys, for
    every ``l = 0..d``.

    .. math::
        B(l) = \\sum_{j=0}^{l-1} \\frac{1}{1 - W_{(j)}},

    with :math:`W_{(j)}` the sum of the ``j`` largest weights: after ``j`` distinct keys a
    draw is new with probability at least :math:`1 - W_{(j)}`. ``B(d)`` is infinite when
    the smallest weight is 0.

    Parameters
    ----------
    weights : ndarray of float64, shape (d,)
        Key probabilities summing to 1.

    Returns
    -------
    ndarray of float64, shape (d + 1,)
        ``B(0) = 0, B(1) = 1, ..., B(d)``.
    """
    top = np.concatenate([[0.0], np.cumsum(np.sort(weights)[::-1])[:-1]])
    rest = np.clip(1.0 - top, 0.0, None)
    with np.errstate(divide="ignore"):
        return np.concatenate([[0.0], np.cumsum(1.0 / rest)])


def raced_lengths(weights: NDArray[np.float64]) -> int:
    """The shortest set length drawn by the exponential race (:func:`distinct_keys`) rather
    than by redrawing: the first ``l`` whose redraw bound exceeds ``d / RACE_RATIO``.

    Parameters
    ----------
    weights : ndarray of float, shape (d,)
        The keys' sampling weights (positive).

    Returns
    -------
    int
        That length, or ``d + 1`` when every length is redrawn.
    """
    over = np.flatnonzero(redraw_bound(weights) > weights.size / RACE_RATIO)
    return int(over[0]) if over.size else weights.size + 1


def distinct_keys(
    lengths: NDArray[np.int64], weights: NDArray[np.float64], rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Per user, ``lengths[i]`` distinct keys, a successive sample from ``weights``
    (without replacement, in draw order), in work bounded for every length and weights.

    Short sets (whose redraw bound :func:`redraw_bound` is at most ``d / RACE_RATIO``
    draws) are drawn with replacement, keeping the first occurrence of each key (exactly
    sampling without replacement in draw order), redrawn for at most ``REDRAW_ROUNDS``
    rounds. Every other set, and what those rounds left short, is completed by an
    exponential race (Gumbel-top-k: the keys not held yet, ordered by
    ``log w_k + Gumbel noise``, are a successive sample from their weights, which is
    also the law of the rest of a successive sample given its start), ``RACE_CELLS``
    keys at a time.

    Parameters
    ----------
    lengths : ndarray of int, shape (n_users,)
        Each user's number of distinct keys, ``0 <= lengths[i] <= d``.
    weights : ndarray of float, shape (d,)
        The keys' sampling weights (positive).
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    users, keys : ndarray of int
        The (user, key) pairs, sorted by user, each user's keys in draw order.
    """
    d = weights.size
    n = lengths.size
    raced = lengths >= raced_lengths(weights)
    users = np.empty(0, dtype=np.int64)
    keys = np.empty(0, dtype=np.int64)
    missing = np.where(raced, 0, lengths)
    for _ in range(REDRAW_ROUNDS):
        short = np.flatnonzero(missing > 0)
        if short.size == 0:
            break
        users, keys = _redraw(users, keys, short, missing[short], lengths, d, weights, rng)
        missing = np.where(raced, 0, lengths - np.bincount(users, minlength=n))
    rest = np.flatnonzero(raced | (missing > 0))
    if rest.size == 0:
        return users, keys
    race_users, race_keys = _race(rest, lengths[rest], users, keys, weights, rng)
    all_users = np.concatenate([users, race_users])
    all_keys = np.concatenate([keys, race_keys])
    order = np.argsort(all_users, kind="stable")  # held keys first, then the race's
    return all_users[order], all_keys[order]


def _redraw(
    users: NDArray[np.int64],
    keys: NDArray[np.int64],
    short: NDArray[np.int64],
    missing: NDArray[np.int64],
    lengths: NDArray[np.int64],
    d: int,
    weights: NDArray[np.float64],
    rng: np.random.Generator,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """One round: ``1.25 m + 2`` draws for each ``short`` user missing ``m`` keys; the
    first ``lengths`` distinct keys of each user in draw order (sorted by user)."""
    draws = np.ceil(missing * 1.25).astype(np.int64) + 2
    new_users = np.repeat(short, draws)
    new_keys = rng.choice(d, size=new_users.size, p=weights).astype(np.int64)
    all_users = np.concatenate([users, new_users])
    all_keys = np.concatenate([keys, new_keys])
    _, first = np.unique(all_users * d + all_keys, return_index=True)
    first.sort()  # keep draw order: accepted pairs come first
    all_users, all_keys = all_users[first], all_keys[first]
    order = np.argsort(all_users, kind="stable")
    all_users, all_keys = all_users[order], all_keys[order]
    starts = np.searchsorted(all_users, all_users, side="left")
    keep = np.arange(all_users.size) - starts < lengths[all_users]
    return all_users[keep], all_keys[keep]


def _race(
    rest: NDArray[np.int64],
    wanted: NDArray[np.int64],
    users: NDArray[np.int64],
    keys: NDArray[np.int64],
    weights: NDArray[np.float64],
    rng: np.random.Generator,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The keys the users ``rest`` (sorted) still need to hold ``wanted`` keys each, beside
    the ``(users, keys)`` they hold: an exponential race over the keys they do not hold,
    ``RACE_CELLS`` keys at a time. Returns (user, key) sorted by user, in race order."""
    d = weights.size
    log_w = np.log(weights)
    holder = np.isin(users, rest)
    held_row = np.searchsorted(rest, users[holder])
    held_key = keys[holder]
    need = wanted - np.bincount(held_row, minlength=rest.size)
    rows = max(1, RACE_CELLS // d)
    out_users, out_keys = [], []
    for lo in range(0, rest.size, rows):
        hi = min(lo + rows, rest.size)
        score = log_w + rng.gumbel(size=(hi - lo, d))
        mine = (held_row >= lo) & (held_row < hi)
        score[held_row[mine] - lo, held_key[mine]] = -np.inf
        order = np.argsort(-score, axis=1, kind="stable")
        take = np.arange(d) < need[lo:hi, None]
        out_users.append(np.broadcast_to(rest[lo:hi, None], (hi - lo, d))[take])
        out_keys.append(order[take].astype(np.int64))
    return np.concatenate(out_users), np.concatenate(out_keys)


def expected_work(weights: NDArray[np.float64], pmf: NDArray[np.float64]) -> tuple[float, float]:
    """Expected work per user of :func:`distinct_keys` when set lengths follow ``pmf``.

    Parameters
    ----------
    weights : ndarray of float64, shape (d,)
        Key probabilities summing to 1.
    pmf : ndarray of float64, shape (m + 1,)
        ``P[l_i = l]`` for ``l = 0..m``, ``m <= d``.

    Returns
    -------
    draws : float
        Keys drawn with replacement: the first round's ``1.25 l + 2`` for every redrawn
        set, once more for what later rounds add (an upper bound, since they redraw only
        the missing keys).
    raced : float
        Keys raced: ``d`` for every set at least :func:`raced_lengths` long (the sets the
        redraw rounds leave short are rare by the choice of ``RACE_RATIO``).
    """
    lengths = np.arange(pmf.size, dtype=np.float64)
    cut = raced_lengths(weights)
    redrawn = lengths < cut
    draws = 2.0 * float(np.sum(pmf[redrawn] * (1.25 * lengths[redrawn] + 2.0)))
    raced = float(np.sum(pmf[~redrawn])) * weights.size
    return draws, raced
