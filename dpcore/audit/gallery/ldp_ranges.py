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
  signed node (:func:`dpcore.ldp.ranges.haar.item_signs`).

Each report is ``eps``-LDP for GRR, OUE and HRR exactly (the ratio ``e^eps`` is attained at
a level where the two items' nodes differ), and at most ``eps`` for OLH, whose concrete
hash can map both items alike. Broken variants: an oracle run at ``eps /
stated_sensitivity``; split levels each given the whole ``eps`` (``h eps`` in all).
Cormode, Kulkarni, Srivastava, PVLDB 2019.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.audit.gallery.entry import Entry, ExactLaw, make
from dpcore.audit.outputs import Sampler
from dpcore.ldp.ranges.haar import haar_levels, item_signs
from dpcore.ldp.ranges.hierarchy import LdpTree, Levels, ldp_tree
from dpcore.ldp.ranges.oracles import (
    checked_eps,
    hadamard_signs,
    hadamard_size,
    support_probabilities,
)
from dpcore.ldp.ranges.reports import user_reports

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def _run_eps(eps: float, stated_sensitivity: float) -> float:
    return checked_eps(eps / _validate.positive("stated_sensitivity", stated_sensitivity))


def _report_pmf(oracle: str, eps: float, m: int, node: int, sign: int = 1) -> FloatArray:
    """The law of one report of a user at ``node`` of ``m`` (``sign``: HaarHRR's signed
    input), over the positions of :func:`_report_code`: GRR the item; OUE the bits, the first
    most significant; HRR ``2 row + (bit + 1) / 2``."""
    if oracle == "grr":
        p, q = support_probabilities("grr", eps, m)
        return np.where(np.arange(m) == node, p, q)
    if oracle == "oue":
        p, q = support_probabilities("oue", eps, m)
        bits = (np.arange(2**m)[:, None] >> np.arange(m - 1, -1, -1)) & 1
        on = np.where(np.arange(m) == node, p, q)
        return np.asarray(np.prod(np.where(bits == 1, on, 1.0 - on), axis=1), np.float64)
    size = hadamard_size(m)
    kept = 1.0 / (1.0 + math.exp(-eps))
    truth = hadamard_signs(np.arange(size), np.full(size, node)) * sign
    return (np.where(truth[:, None] == np.array([-1, 1]), kept, 1.0 - kept) / size).ravel()


def _report_code(oracle: str, columns: IntArray, m: int) -> IntArray:
    """Each report's position in :func:`_report_pmf` (``columns``: the report's part of the
    sampler's rows)."""
    if oracle == "grr":
        return np.asarray(columns[:, 0], np.int64)
    if oracle == "oue":
        return np.asarray(columns[:, :m] @ (1 << np.arange(m - 1, -1, -1)), np.int64)
    return np.asarray(2 * columns[:, 0] + (columns[:, 1] + 1) // 2, np.int64)


def _width(oracle: str, m: int) -> int:
    """Columns of one report in the sampler's rows."""
    return {"grr": 1, "oue": m, "olh": m, "hrr": 2}[oracle]


def _made(
    name: str,
    eps: float,
    samplers: tuple[Sampler, Sampler],
    law: ExactLaw | None,
    spent: float,
    description: str,
) -> Entry:
    """The entry: true ε the law's exact ε (none for OLH), buggy when the ε a user spends
    (``spent``) is above the claim."""
    true = law.epsilon if law is not None else None
    return make(name, eps, true, samplers, description, "any two items of one user",
                law=law, buggy=spent > eps * (1 + 1e-9))  # fmt: skip


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
        Discrete reports with their exact law (not for OLH, whose law depends on the hash).
    """
    d = _validate.whole("domain", domain, lower=2)
    run_eps = _run_eps(eps, stated_sensitivity)

    def item(v: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> IntArray:
            return user_reports(oracle, np.full(size, v, np.int64), run_eps, d, rng=rng)

        return sample

    law = None
    if oracle != "olh":
        law = ExactLaw(
            _report_pmf(oracle, run_eps, d, 0), _report_pmf(oracle, run_eps, d, d - 1),
            lambda o: _report_code(oracle, np.asarray(o).reshape(len(o), -1), d),
        )  # fmt: skip
    return _made(
        f"LDP range query (flat {oracle.upper()})", eps, (item(0), item(d - 1)), law, run_eps,
        f"{oracle.upper()} at ε = {run_eps:g} over {d} items: item 0 against item {d - 1}",
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
        Discrete reports (one integer row each) with their exact law, whose ε is ``eps``
        (``h eps`` with the levels ignored); no law for OLH.
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

    last = plan.tree.n_bins - 1
    law = None if oracle == "olh" else ExactLaw(*_tree_law(plan, 0, last))
    shown = "each level at ε" if levels_ignored else ("every level at ε / h" if levels ==
                                                       "split" else "one level at ε")  # fmt: skip
    return _made(
        "LDP range query (hierarchical" + (", levels ignored)" if levels_ignored else ")"),
        eps, (item(0), item(last)), law, spent,
        f"HH_{fanout} over {last + 1} items, {plan.levels} levels, {oracle.upper()}, {shown}: "
        f"item 0 against item {last}",
    )  # fmt: skip


def _tree_reports(plan: LdpTree, v: int, size: int, rng: np.random.Generator) -> IntArray:
    """``size`` reports of a user holding item ``v`` as integer rows (see the module)."""
    levels = list(zip(plan.level_items, plan.oracles, strict=True))

    def reports(depth: int, users: int) -> IntArray:
        (nodes, item_of_bin), name = levels[depth]
        held = np.full(users, item_of_bin[v])
        return user_reports(name, held, plan.level_eps, nodes.size, rng=rng).reshape(users, -1)

    if plan.levels_mode == "split":
        return np.concatenate([reports(depth, size) for depth in range(plan.levels)], axis=1)
    width = max(_width(name, nodes.size) for (nodes, _), name in levels)
    level = rng.integers(0, plan.levels, size=size)
    rows = np.full((size, 1 + width), -1, dtype=np.int64)
    rows[:, 0] = level
    for depth in range(plan.levels):
        mine = level == depth
        part = reports(depth, int(mine.sum()))
        rows[mine, 1 : 1 + part.shape[1]] = part
    return rows


def _tree_law(
    plan: LdpTree, v: int, w: int
) -> tuple[FloatArray, FloatArray, Callable[[IntArray], IntArray]]:
    """The laws of :func:`_tree_reports` for items ``v`` and ``w``, and the position of each
    row: level by level (sampled levels), or every level's report in mixed radix (split)."""
    levels = list(zip(plan.level_items, plan.oracles, strict=True))
    sizes = [int(nodes.size) for (nodes, _), _ in levels]
    pmfs = [
        [_report_pmf(name, plan.level_eps, m, int(item_of_bin[x])) for x in (v, w)]
        for ((_, item_of_bin), name), m in zip(levels, sizes, strict=True)
    ]
    widths = [_width(name, m) for (_, name), m in zip(levels, sizes, strict=True)]
    if plan.levels_mode == "split":
        joint = [pmfs[0][i] for i in (0, 1)]
        for level in pmfs[1:]:
            joint = [np.outer(joint[i], level[i]).ravel() for i in (0, 1)]
        counts = [pmf[0].size for pmf in pmfs]  # C order: the first level most significant
        stride = [math.prod(counts[i + 1 :]) for i in range(len(counts))]
        edges = np.cumsum([0, *widths])

        def split_index(rows: IntArray) -> IntArray:
            codes = [_report_code(name, rows[:, edges[i] : edges[i + 1]], sizes[i])
                     for i, (_, name) in enumerate(levels)]  # fmt: skip
            return np.asarray(sum(c * s for c, s in zip(codes, stride, strict=True)), np.int64)

        return joint[0], joint[1], split_index
    offsets = np.cumsum([0] + [pmf[0].size for pmf in pmfs])

    def sampled_index(rows: IntArray) -> IntArray:
        out = np.empty(rows.shape[0], np.int64)
        for depth, (_, name) in enumerate(levels):
            mine = rows[:, 0] == depth
            out[mine] = offsets[depth] + _report_code(name, rows[mine, 1:], sizes[depth])
        return out

    h = plan.levels
    return (
        np.concatenate([pmf[0] for pmf in pmfs]) / h,
        np.concatenate([pmf[1] for pmf in pmfs]) / h,
        sampled_index,
    )


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
        Rows ``(level, Hadamard row, signed bit)``, with their exact law.
    """
    h = haar_levels(domain)
    run_eps = _run_eps(eps, stated_sensitivity)
    coefficient, signs = item_signs(domain)
    # each item's node within its level (the coefficient's index less the levels above it)
    nodes = [(coefficient[k] - ((1 << k) - 1), signs[k]) for k in range(h)]

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

    sizes = [hadamard_size(1 << k) for k in range(h)]
    offsets = np.cumsum([0] + [2 * size for size in sizes])

    def pmf(v: int) -> FloatArray:
        return np.concatenate([
            _report_pmf("hrr", run_eps, 1 << k, int(node[v]), int(sign[v]))
            for k, (node, sign) in enumerate(nodes)
        ]) / h  # fmt: skip

    def index(rows: IntArray) -> IntArray:
        return np.asarray(offsets[rows[:, 0]] + _report_code("hrr", rows[:, 1:], 0), np.int64)

    return _made(
        "LDP range query (Haar)", eps, (item(0), item(domain - 1)),
        ExactLaw(pmf(0), pmf(domain - 1), index), run_eps,
        f"HaarHRR at ε = {run_eps:g} over {domain} items, {h} levels: item 0 against item "
        f"{domain - 1}",
    )  # fmt: skip
