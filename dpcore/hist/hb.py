"""The H_b rule: the fan-out of the tree and its budgets.

H_b (Qardaji, Yang, Li, "Understanding hierarchical methods for differentially
private histograms", VLDB 2013): a ``b``-ary tree with ``b`` minimising their
average-error estimate, the root's total not released, every other level
``eps / (h - 1)``, then least squares (BLUE). The math is restated in the
team's notes on allocation and strategies.

Its budgets are :func:`dpcore.hist.budget.uniform_budgets` with ``measure_root=False``
(the ``hb`` rule of :mod:`dpcore.hist.allocation_rules`).
"""

from __future__ import annotations

from dpcore.hist.tree import MAX_FANOUT, Tree, kary_tree


def hb_variance_estimate(n: int, b: int) -> float:
    """Qardaji et al.'s average-error estimate (their eq. 3) of a ``b``-ary tree over ``n`` bins.

    .. math:: V(b) = (b - 1) h^3 - \\frac{2 (b + 1) h^2}{3}, \\quad h = \\lceil \\log_b n \\rceil

    Parameters
    ----------
    n : int
        Number of bins.
    b : int
        Fan-out (``>= 2``).

    Returns
    -------
    float
        ``V(b)`` (in the paper's units; only its order over ``b`` matters).

    Examples
    --------
    >>> hb_variance_estimate(4096, 16)
    303.0
    """
    h, size = 0, 1
    while size < n:  # integer ceil(log_b n): no floating-point log
        size *= b
        h += 1
    return (b - 1) * h**3 - 2.0 * (b + 1) * h**2 / 3.0


def hb_fanout(n: int, *, max_fanout: int = MAX_FANOUT) -> int:
    """H_b's fan-out: ``b`` in ``[2, max_fanout]`` minimising :func:`hb_variance_estimate`.

    The published rule searches ``b`` up to ``n``; the product's trees stop at
    :data:`dpcore.hist.tree.MAX_FANOUT`.

    Parameters
    ----------
    n : int
        Number of bins.
    max_fanout : int, default MAX_FANOUT (20)
        Largest fan-out tried.

    Returns
    -------
    int
        The minimising ``b`` (the smallest on ties); 2 when ``n < 2``.

    Examples
    --------
    >>> hb_fanout(4096), hb_fanout(65536)
    (16, 16)
    """
    if n < 2:
        return 2
    candidates = range(2, max(2, min(max_fanout, n)) + 1)
    return min(candidates, key=lambda b: hb_variance_estimate(n, b))


def hb_tree(n: int) -> Tree:
    """H_b's tree: :func:`hb_fanout`-ary over ``n`` bins.

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).

    Returns
    -------
    Tree
        The ``b``-ary tree over ``n`` bins.

    Raises
    ------
    ValueError
        If ``n < 1``.
    """
    return kary_tree(n, hb_fanout(n))
