"""One number per method: the average variance over all ranges, and the best fan-out.

Methods (each user reports once, levels sampled): ``flat-*`` (every user reports her item),
``hh-*`` (HH_B with one oracle on every level), ``haar-hrr``. Units: the variance of a range's
estimated *fraction* of users; the spec's tables divide by ``V/N`` (or ``c^2/N`` for Haar).
Under level sampling the tree's noise-only average scales like ``(B-1) h^2 V/N`` -- levels share
people, not budget -- so its best fan-out sits near ``argmin (B-1)/ln^2 B = 4.92``, against
``(B-1)/ln^3 B``'s 16.8 for central DP (Cormode, Kulkarni, Srivastava, PVLDB 2019; Qardaji,
Yang, Li, PVLDB 2013; the team's notes on LDP range queries).
"""

from __future__ import annotations

from collections.abc import Iterable

from numpy.typing import ArrayLike

from dpcore import _validate
from dpcore.ldp.ranges.haar import haar_average_variance
from dpcore.ldp.ranges.hierarchy import MAX_DOMAIN, ldp_tree
from dpcore.ldp.ranges.variance import flat_average_variance, tree_average_variance

METHODS = (
    "flat-oue",
    "flat-grr",
    "flat-olh",
    "flat-hrr",
    "hh-oue",
    "hh-olh",
    "hh-hrr",
    "haar-hrr",
)


def average_variance(
    method: str,
    *,
    domain: int,
    eps: float,
    users: int,
    fanout: int | None = None,
    consistent: bool = False,
    frequencies: ArrayLike | None = None,
) -> float:
    """Variance of a range's estimated fraction of users, averaged over all ``D(D+1)/2`` ranges.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`.
    domain : int
        Number of items ``D`` (``2 .. 2^22``; a power of 2 for ``haar-hrr``; any for the others:
        trees get an uneven last level, HRR pads its Hadamard rows).
    eps : float
        Each user's budget, in ``(0, 10]``.
    users : int
        Number of users ``N`` (at least the number of levels for ``hh-*`` and ``haar-hrr``).
    fanout : int, optional
        ``B`` for ``hh-*`` (required there, ``2 .. D``); must be None otherwise.
    consistent : bool, default False
        ``hh-*`` only: post-process by the exact BLUE (root known). ``haar-hrr`` is consistent
        by construction and flat estimates are not post-processed: True raises for them.
    frequencies : array_like of float, shape (domain,), optional
        Items' fractions: adds the data terms; None: the noise-only part. With
        ``consistent=True`` it costs ``O(D x nodes)`` (``D`` up to a few thousand).

    Returns
    -------
    float
        The average variance, against each level group's own histogram (the population's
        extra term: :mod:`dpcore.ldp.ranges.population`).

    Raises
    ------
    ValueError
        If an argument is outside the ranges above, naming it, or ``frequencies`` with
        ``consistent=True`` exceeds ``dpcore.ldp.ranges.variance.MAX_DENSE_CELLS``; for
        ``"ahead"``, saying that AHEAD has no closed form.

    Examples
    --------
    >>> import math
    >>> v_over_n = 4 * math.e / (math.e - 1) ** 2 / 1000
    >>> round(average_variance("hh-oue", domain=256, eps=1, users=1000, fanout=4,
    ...                        consistent=True) / v_over_n, 2)
    11.8
    """
    if method == "ahead":
        raise ValueError(
            "AHEAD has no closed form: its tree and Norm-Sub depend on the data and the noise; "
            "simulate it (dpcore.ldp.ranges.simulate_ahead, ahead_answers)"
        )
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    family, oracle = method.split("-")
    if family != "hh" and fanout is not None:
        raise ValueError(f"fanout applies to the hh-* methods only, got fanout={fanout!r}")
    if family != "hh" and consistent:
        raise ValueError(
            "consistent applies to the hh-* methods (haar-hrr is consistent by construction; "
            "flat estimates are not post-processed)"
        )
    if family == "haar":
        return haar_average_variance(domain, eps, users, frequencies=frequencies)
    if family == "flat":
        return flat_average_variance(
            oracle, eps=eps, users=users, domain=domain, frequencies=frequencies
        )
    if fanout is None:
        raise ValueError("fanout must be a whole number >= 2 for the hh-* methods, got None")
    plan = ldp_tree(domain, fanout, eps=eps, users=users, oracle=oracle)
    return tree_average_variance(
        plan, consistency="blue" if consistent else "none", frequencies=frequencies
    )


def optimal_fanout(
    method: str = "hh-oue",
    *,
    domain: int,
    eps: float,
    consistent: bool = True,
    candidates: Iterable[int] = range(2, 33),
) -> int:
    """The fan-out minimising :func:`average_variance` (noise only) among ``candidates``.

    The noise-only average is proportional to ``1/N``, so ``N`` does not matter.

    Parameters
    ----------
    method : {"hh-oue", "hh-olh", "hh-hrr"}, default "hh-oue"
        The tree method.
    domain : int
        Number of items ``D``.
    eps : float
        Each user's budget.
    consistent : bool, default True
        With the exact BLUE or without consistency.
    candidates : iterable of int, default 2..32
        Fan-outs tried (those above ``D`` are skipped).

    Returns
    -------
    int
        The best fan-out (the smallest on ties).

    Raises
    ------
    ValueError
        If ``method`` is not a tree method or no candidate fits the domain.

    Examples
    --------
    >>> optimal_fanout(domain=256, eps=1.0, consistent=False, candidates=(2, 4, 16))
    4
    """
    if not method.startswith("hh-"):
        raise ValueError(f"method must be one of 'hh-oue', 'hh-olh', 'hh-hrr', got {method!r}")
    d = _validate.whole("domain", domain, lower=2, upper=MAX_DOMAIN)
    best: tuple[float, int] | None = None
    for b in candidates:
        fan = _validate.whole("candidates", b, lower=2)
        if fan > d:
            continue
        # N only scales the noise-only average; any N >= h gives the same argmin
        value = average_variance(
            method, domain=d, eps=eps, users=d, fanout=fan, consistent=consistent
        )
        if best is None or value < best[0]:
            best = (value, fan)
    if best is None:
        raise ValueError(f"candidates: none in 2..domain = {d}")
    return best[1]
