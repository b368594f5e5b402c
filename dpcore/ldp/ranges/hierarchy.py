"""Hierarchical histograms HH_B under local DP: the tree, who reports which level, and with what.

The tree is :func:`dpcore.hist.tree.kary_tree` (any domain, any fan-out ``B``: a domain that
is not a power of ``B`` gets an uneven last level, as the central trees do). The root is the
whole population, known exactly: nobody reports it. Level ``l = 1..h`` runs one frequency
oracle over its nodes; a leaf above the deepest level (an uneven tree) is also an item of
every deeper level -- its users report it there -- so each level partitions the domain and
such a leaf's estimate combines its replicas (inverse-variance weights).

Who reports (Cormode, Kulkarni, Srivastava, PVLDB 2019; the team's notes on LDP range queries):

* ``"sample"``: each user draws one level uniformly and reports it at the full eps; the level's
  group of ``m ~ N/h`` users estimates its own histogram (the closed forms take ``m = N/h``;
  against the population, :mod:`dpcore.ldp.ranges.population` adds the groups' deviation);
* ``"split"``: every user reports every level at ``eps/h``; ``m = N``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist.tree import Tree, kary_tree
from dpcore.ldp.ranges.oracles import ORACLES, Covariance, checked_eps, covariance_factors

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

Levels = Literal["sample", "split"]
MAX_DOMAIN = 2**22
"""Largest domain accepted (every closed form is ``O(D h)``; 2^22 keeps memory in hand)."""


@dataclass(frozen=True, eq=False)
class LdpTree:
    """An HH_B collection: the tree, the budget, the population and one oracle per level.

    Attributes
    ----------
    tree : Tree
        The ``B``-ary interval tree over the domain.
    eps : float
        Each user's total budget.
    users : int
        Number of users ``N``.
    oracles : tuple of str
        The frequency oracle of levels ``1..h`` (``oracles[l - 1]`` for level ``l``).
    levels_mode : {"sample", "split"}
        Whether users sample one level or split eps across all levels.
    """

    tree: Tree
    eps: float
    users: int
    oracles: tuple[str, ...]
    levels_mode: Levels

    @property
    def levels(self) -> int:
        """``h``: the levels below the root."""
        return self.tree.height - 1

    @property
    def level_eps(self) -> float:
        """The budget of one report."""
        return self.eps / self.levels if self.levels_mode == "split" else self.eps

    @property
    def group_size(self) -> float:
        """Users reporting each level: ``N/h`` (sampling, in expectation) or ``N``."""
        return self.users / self.levels if self.levels_mode == "sample" else float(self.users)

    @cached_property
    def level_items(self) -> list[tuple[IntArray, IntArray]]:
        """Per level ``1..h``: its items (tree nodes) and each bin's item index."""
        t = self.tree
        node = t.leaf_of_bin.copy()
        out: list[tuple[IntArray, IntArray]] = []
        for depth in range(self.levels, 0, -1):
            node = np.where(t.depth[node] > depth, t.parent[node], node)
            nodes, item_of_bin = np.unique(node, return_inverse=True)
            out.append((nodes.astype(np.int64), item_of_bin.astype(np.int64)))
        return out[::-1]


def ldp_tree(
    domain: int,
    fanout: int,
    *,
    eps: float,
    users: int,
    oracle: str | Sequence[str] = "oue",
    levels: Levels = "sample",
) -> LdpTree:
    """The HH_B collection over ``[domain]``.

    Parameters
    ----------
    domain : int
        Number of items ``D`` (``2 .. 2^22``; any value: the last level may be uneven).
    fanout : int
        ``B``, children per node (``2 .. domain``).
    eps : float
        Each user's budget (``(0, 10]``).
    users : int
        Number of users ``N`` (at least one per level when levels are sampled).
    oracle : str or sequence of str, default "oue"
        One of "grr", "oue", "olh", "hrr" for every level, or one per level ``1..h``.
    levels : {"sample", "split"}, default "sample"
        Users sample one level, or split eps across all levels.

    Returns
    -------
    LdpTree
        The collection.

    Raises
    ------
    ValueError
        If an argument is outside the ranges above, naming it.

    Examples
    --------
    >>> plan = ldp_tree(12, 3, eps=1.0, users=1000)
    >>> plan.levels, [nodes.size for nodes, _ in plan.level_items]
    (3, [3, 9, 12])
    """
    d = _validate.whole("domain", domain, lower=2, upper=MAX_DOMAIN)
    b = _validate.whole("fanout", fanout, lower=2, upper=d)
    e = checked_eps(eps)
    tree = kary_tree(d, b)
    h = tree.height - 1
    if levels not in ("sample", "split"):
        raise ValueError(f"levels must be 'sample' or 'split', got {levels!r}")
    lower = h if levels == "sample" else 1
    n = _validate.whole("users", users, lower=lower)
    names = (oracle,) * h if isinstance(oracle, str) else tuple(oracle)
    if len(names) != h or any(name not in ORACLES for name in names):
        raise ValueError(
            f"oracle must be one of {ORACLES} or a sequence of {h} of them (one per level), "
            f"got {oracle!r}"
        )
    return LdpTree(tree, e, n, names, levels)


def node_fractions(tree: Tree, frequencies: ArrayLike) -> FloatArray:
    """The fraction of users under every node, from the items' fractions.

    Parameters
    ----------
    tree : Tree
        The tree.
    frequencies : array_like of float, shape (tree.n_bins,)
        Fraction of users holding each item (finite, ``>= 0``).

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        Per node, the sum of its items' fractions.

    Raises
    ------
    ValueError
        If ``frequencies`` is not ``tree.n_bins`` finite numbers ``>= 0``.
    """
    f = _validate.finite_array("frequencies", frequencies, size=tree.n_bins, nonnegative=True)
    prefix = np.concatenate(([0.0], np.cumsum(f)))
    return np.asarray(prefix[tree.hi + 1] - prefix[tree.lo], dtype=np.float64)


def level_covariances(plan: LdpTree, frequencies: ArrayLike | None = None) -> list[Covariance]:
    """Per level, the covariance of its items' estimates (``diag(d) - u u^T + g g^T``).

    Parameters
    ----------
    plan : LdpTree
        The collection.
    frequencies : array_like of float, shape (domain,), optional
        The items' fractions for the data terms; None: noise only.

    Returns
    -------
    list of Covariance
        One per level ``1..h``, over the level's items.

    Raises
    ------
    ValueError
        If ``frequencies`` is not ``domain`` finite numbers ``>= 0``.
    """
    fractions = None if frequencies is None else node_fractions(plan.tree, frequencies)
    out = []
    for (nodes, _), name in zip(plan.level_items, plan.oracles, strict=True):
        f = None if fractions is None else fractions[nodes]
        out.append(covariance_factors(name, plan.level_eps, nodes.size, plan.group_size, f))
    return out


def replica_weights(plan: LdpTree) -> list[FloatArray]:
    """Per level, the weight of each item's estimate in its node's estimate.

    A node reported at several levels (a leaf above the last level) combines its replicas by
    inverse noise-only variance, their BLUE; every other node has weight 1.

    Parameters
    ----------
    plan : LdpTree
        The collection.

    Returns
    -------
    list of ndarray
        One array per level ``1..h``, one weight per item; a node's weights sum to 1.
    """
    precisions = [1.0 / cov.diagonal() for cov in level_covariances(plan)]
    total = np.zeros(plan.tree.size)
    for (nodes, _), precision in zip(plan.level_items, precisions, strict=True):
        total[nodes] += precision
    return [
        precision / total[nodes]
        for (nodes, _), precision in zip(plan.level_items, precisions, strict=True)
    ]


def node_variances(plan: LdpTree, frequencies: ArrayLike | None = None) -> FloatArray:
    """Variance of every node's estimate (replicas combined; the root, known, 0).

    .. math:: \\sigma_x^2 = \\sum_{l \\ni x} w_{l,x}^2 (d_{l,x} - u_{l,x}^2 + g_{l,x}^2)

    Parameters
    ----------
    plan : LdpTree
        The collection.
    frequencies : array_like of float, shape (domain,), optional
        The items' fractions for the data terms; None: noise only.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        The variances (GRR's estimates within a level also covary: see
        :func:`level_covariances`).

    Raises
    ------
    ValueError
        If ``frequencies`` is not ``domain`` finite numbers ``>= 0``.
    """
    var = np.zeros(plan.tree.size)
    covariances = level_covariances(plan, frequencies)
    weights = replica_weights(plan)
    for (nodes, _), cov, w in zip(plan.level_items, covariances, weights, strict=True):
        var[nodes] += w * w * cov.diagonal()
    return var


def node_estimates(plan: LdpTree, level_estimates: Sequence[FloatArray]) -> FloatArray:
    """Every node's estimate from the levels' item estimates: replicas combined, root 1.

    Parameters
    ----------
    plan : LdpTree
        The collection.
    level_estimates : sequence of ndarray
        Per level ``1..h``, the estimated fraction of each of its items.

    Returns
    -------
    ndarray of float64, shape (tree.size,)
        The (inconsistent) node estimates.
    """
    total = np.zeros(plan.tree.size)
    weights = replica_weights(plan)
    for (nodes, _), values, w in zip(plan.level_items, level_estimates, weights, strict=True):
        total[nodes] += w * values
    total[0] = 1.0
    return total
