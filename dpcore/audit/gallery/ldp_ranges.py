"""The range-query mechanisms under local DP (:mod:`dpcore.ldp.ranges`) on one user's two items.

Under local DP any two items of one user are neighbours; items 0 and ``D - 1`` differ at
every level of a tree and of the Haar hierarchy. Each sampler draws ``size`` reports of the
one user with the product's client-side oracle (:func:`dpcore.ldp.ranges.reports.
user_reports`), one row per report:

* flat: the oracle's report over the ``D`` items;
* HH_B (:func:`dpcore.ldp.ranges.ldp_tree`), levels sampled: the level drawn uniformly, then
  that level's report (padded with -1 to the widest level's width); levels split: every
  level's report at ``eps / h``, side by side;
* HaarHRR: the level drawn uniformly, then the HRR report (row, signed bit) of the user's
  signed node (:func:`dpcore.ldp.ranges.haar.level_nodes`).

Each report is ``eps``-LDP for GRR, OUE and HRR exactly (the ratio ``e^eps`` is attained at
a level where the two items' nodes differ), and at most ``eps`` for OLH, whose concrete
hash can map both items alike. Broken variants: an oracle run at ``eps /
stated_sensitivity``; split levels each given the whole ``eps`` (``h eps`` in all).
Cormode, Kulkarni, Srivastava, PVLDB 2019.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.audit.gallery.entry import Entry, make
from dpcore.audit.outputs import Sampler
from dpcore.ldp.ranges.haar import haar_levels, level_nodes
from dpcore.ldp.ranges.hierarchy import LdpTree, Levels, ldp_tree
from dpcore.ldp.ranges.oracles import checked_eps
from dpcore.ldp.ranges.reports import user_reports

IntArray = NDArray[np.int64]


def _run_eps(eps: float, stated_sensitivity: float) -> float:
    return checked_eps(eps / _validate.positive("stated_sensitivity", stated_sensitivity))


def _true(oracle: str, eps: float) -> float | None:
    """The exact ε of one report, where the oracle attains its bound (not OLH's hash)."""
    return None if oracle == "olh" else eps


def flat(
    oracle: str = "grr", eps: float = 1.0, domain: int = 8, *, stated_sensitivity: float = 1.0
) -> Entry:
    """A flat frequency oracle over the ``D`` items: item 0 against item ``D - 1``.

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}, default "grr"
        The oracle.
    eps : float, default 1
        The claimed ε.
    domain : int, default 8
        ``D``, at least 2.
    stated_sensitivity : float, default 1
        The oracle runs at ``eps / stated_sensitivity`` (1/2: its probabilities use 2ε).

    Returns
    -------
    Entry
        Discrete reports; true ε the run's ε (unknown for OLH).
    """
    d = _validate.whole("domain", domain, lower=2)
    run_eps = _run_eps(eps, stated_sensitivity)

    def item(v: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> IntArray:
            return user_reports(oracle, np.full(size, v, np.int64), run_eps, d, rng=rng)

        return sample

    return make(
        f"LDP range query (flat {oracle.upper()})", eps, _true(oracle, run_eps),
        (item(0), item(d - 1)), f"{oracle.upper()} at ε = {run_eps:g} over {d} items: item 0 "
        f"against item {d - 1}", "any two items of one user", buggy=stated_sensitivity < 1,
    )  # fmt: skip


def hierarchy(
    oracle: str = "oue",
    eps: float = 1.0,
    domain: int = 8,
    fanout: int = 2,
    *,
    levels: Levels = "sample",
    levels_ignored: bool = False,
) -> Entry:
    """HH_B: one user's reports over the ``fanout``-ary tree, item 0 against item ``D - 1``.

    Parameters
    ----------
    oracle : {"grr", "oue", "olh", "hrr"}, default "oue"
        Every level's oracle.
    eps : float, default 1
        The claimed ε.
    domain, fanout : int
        The tree (:func:`dpcore.ldp.ranges.ldp_tree`).
    levels : {"sample", "split"}, default "sample"
        The user reports one level drawn uniformly at ``eps``, or every level at ``eps / h``.
    levels_ignored : bool, default False
        With split levels, the bug of giving every level the whole ``eps``.

    Returns
    -------
    Entry
        Discrete reports (one integer row each); true ε ``eps``, or ``h eps`` with the
        levels ignored (unknown for OLH).
    """
    plan = ldp_tree(domain, fanout, eps=eps, users=domain, oracle=oracle, levels=levels)
    if levels_ignored:
        if levels != "split":
            raise ValueError("levels_ignored applies to levels='split' only")
        plan = ldp_tree(domain, fanout, eps=eps * plan.levels, users=domain, oracle=oracle,
                        levels="split")  # fmt: skip
    spent = plan.level_eps * (plan.levels if levels == "split" else 1)

    def item(v: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> IntArray:
            return _tree_reports(plan, v, size, rng)

        return sample

    shown = "each level at ε" if levels_ignored else ("every level at ε / h" if levels ==
                                                       "split" else "one level at ε")  # fmt: skip
    return make(
        "LDP range query (hierarchical" + (", levels ignored)" if levels_ignored else ")"),
        eps, _true(oracle, spent), (item(0), item(plan.tree.n_bins - 1)),
        f"HH_{fanout} over {plan.tree.n_bins} items, {plan.levels} levels, {oracle.upper()}, "
        f"{shown}: item 0 against item {plan.tree.n_bins - 1}", "any two items of one user",
        buggy=levels_ignored,
    )  # fmt: skip


def _tree_reports(plan: LdpTree, v: int, size: int, rng: np.random.Generator) -> IntArray:
    """``size`` reports of a user holding item ``v`` as integer rows (see the module)."""
    parts = [
        user_reports(name, np.full(size, item_of_bin[v]), plan.level_eps, nodes.size, rng=rng)
        .reshape(size, -1)
        for (nodes, item_of_bin), name in zip(plan.level_items, plan.oracles, strict=True)
    ]  # fmt: skip
    if plan.levels_mode == "split":
        return np.concatenate(parts, axis=1)
    width = max(part.shape[1] for part in parts)
    level = rng.integers(0, plan.levels, size=size)
    rows = np.full((size, 1 + width), -1, dtype=np.int64)
    rows[:, 0] = level
    for depth, part in enumerate(parts):
        mine = level == depth
        rows[mine, 1 : 1 + part.shape[1]] = part[mine]
    return rows


def haar(eps: float = 1.0, domain: int = 8, *, stated_sensitivity: float = 1.0) -> Entry:
    """HaarHRR: one user's report at a uniformly drawn detail level, item 0 against ``D - 1``.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    domain : int, default 8
        ``D``, a power of two.
    stated_sensitivity : float, default 1
        HRR runs at ``eps / stated_sensitivity``.

    Returns
    -------
    Entry
        Rows ``(level, Hadamard row, signed bit)``; true ε the run's ε.
    """
    h = haar_levels(domain)
    run_eps = _run_eps(eps, stated_sensitivity)
    nodes = [level_nodes(domain, k) for k in range(h)]

    def item(v: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> IntArray:
            level = rng.integers(0, h, size=size)
            rows = np.empty((size, 3), dtype=np.int64)
            rows[:, 0] = level
            for k, (node, sign) in enumerate(nodes):
                mine = level == k
                users = np.full(int(mine.sum()), node[v])
                rows[mine, 1:] = user_reports(
                    "hrr", users, run_eps, 1 << k, rng=rng, signs=np.full(users.size, sign[v])
                )
            return rows

        return sample

    return make(
        "LDP range query (Haar)", eps, run_eps, (item(0), item(domain - 1)),
        f"HaarHRR at ε = {run_eps:g} over {domain} items, {h} levels: item 0 against item "
        f"{domain - 1}", "any two items of one user", buggy=stated_sensitivity < 1,
    )  # fmt: skip
