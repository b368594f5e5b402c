"""This product's histogram releases on neighbouring histograms, audited through one count.

Every DPBench algorithm (:data:`dpcore.algorithms.NAMES`, :data:`dpcore.algorithms.NAMES_2D`)
and the region-tree release of :mod:`dpcore.spatial` run on a histogram ``D`` with one more
record in one bin than ``D'`` (add/remove neighbours). The audited output is the released
count of that bin: post-processing of the release, so a bound on it is a bound on the
release (a weak one: the other bins' information is thrown away, and for data-dependent
algorithms the partition's). MWEM, which takes the number of records as public, is
compared on histograms of one total, one record moved (``moved_from``; the output is then
the count gained minus the count lost); under add/remove neighbours its released total
(``read="total"``) is ``N + 1`` against ``N``, an event of probability 1 against 0.

Linear data-independent tree releases (HB, HB-opt, GreedyH, HB-2D, QuadTree, the region
tree) are sampled in batches: Laplace releases of the tiled node sums
(:func:`dpcore.hist.release.release_sums`, the same draws as that many runs one after
another) times the BLUE's weights for the bin
(:meth:`dpcore.hist.consistency.BlueSmoother.transpose`), which is the BLUE estimate of
the bin (tested equal to the algorithm's runs on the same seed). The other algorithms run
once per output (the registry's ``run`` on inputs checked once, as
:func:`dpcore.algorithms.release` checks them).

``stated_sensitivity`` breaks a release the gallery's way: the algorithm runs at
``eps / stated_sensitivity`` (every noise scale and every selection's sharpness scaled by
``stated_sensitivity``) while ``eps`` is claimed.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.algorithms import ALGORITHMS, ALGORITHMS_2D
from dpcore.algorithms.common import Ranges, as_workload
from dpcore.algorithms.greedy_h import greedy_strategy, kernel
from dpcore.algorithms.grid2d.inputs import as_rectangles
from dpcore.algorithms.grid2d.trees import hb2d_plan, quadtree_plan
from dpcore.audit.gallery.entry import Entry, make
from dpcore.audit.outputs import Sampler
from dpcore.hist import budget
from dpcore.hist.consistency import BlueSmoother
from dpcore.hist.plans import prepare
from dpcore.hist.release import node_sums, release_sums
from dpcore.hist.tree import Tree
from dpcore.spatial import regions
from dpcore.spatial.rectangles import Rectangles
from dpcore.spatial.regions import BoxTree

FloatArray = NDArray[np.float64]

COUNTS_1D = np.array([0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0, 0.0])
"""The default 1-D histogram ``D'``: eight bins, 100 records in bin 3 (``D`` has 101)."""

COUNTS_2D = np.zeros((4, 4))
COUNTS_2D[1, 2] = 100.0
"""The default grid ``D'``: 4 x 4 cells, 100 records in cell (1, 2) (``D`` has 101)."""


def algorithm(
    name: str,
    eps: float = 1.0,
    *,
    counts: ArrayLike | None = None,
    changed: int | tuple[int, int] | None = None,
    moved_from: int | tuple[int, int] | None = None,
    workload: str | ArrayLike = "prefix",
    read: Literal["count", "total"] = "count",
    stated_sensitivity: float = 1.0,
) -> Entry:
    """An algorithm of :func:`dpcore.algorithms.release` on two neighbouring histograms.

    ``D'`` is ``counts``; ``D`` has one more record in bin ``changed`` or, with
    ``moved_from``, one record moved from that bin to ``changed`` (same total). The output
    of one run is the released count of ``changed`` (minus that of ``moved_from``). HB,
    HB-opt, GreedyH, HB-2D and QuadTree are sampled in one batch (see the module), the
    others run once per output.

    Parameters
    ----------
    name : str
        One of :data:`dpcore.algorithms.NAMES` or :data:`dpcore.algorithms.NAMES_2D`.
    eps : float, default 1
        The claimed ε.
    counts : array_like of float, optional
        ``D'``: 1-D or a grid; default :data:`COUNTS_1D`, or :data:`COUNTS_2D` for a name
        that is only 2-D.
    changed : int or tuple of int, optional
        The bin (cell) that gains a record on ``D``; default the largest of ``counts``.
    moved_from : int or tuple of int, optional
        The bin (cell) that loses it on ``D`` (a move: both histograms hold as many
        records); ``None``: the record is added.
    workload : str or array_like, default "prefix"
        What workload-aware algorithms adapt to, as :func:`dpcore.algorithms.release`
        takes it ("prefix" stands for "all rectangles" on a grid).
    read : {"count", "total"}, default "count"
        The output of one run: the changed bin's count as above, or the released total
        (the sum of every bin).
    stated_sensitivity : float, default 1
        The algorithm runs at ``eps / stated_sensitivity`` (below 1: too little noise).

    Returns
    -------
    Entry
        True ε unknown (``None``); buggy when ``stated_sensitivity < 1``.

    Raises
    ------
    ValueError
        For an unknown name, or invalid counts, bins, workload, ``read``, ``eps`` or
        ``stated_sensitivity``.
    """
    stated = _validate.positive("stated_sensitivity", stated_sensitivity)
    run_eps = _validate.positive("eps", eps) / stated
    if counts is None:
        counts = COUNTS_1D if name in ALGORITHMS else COUNTS_2D
    if np.ndim(counts) not in (1, 2):
        raise ValueError(f"counts must be a histogram or a grid, got shape {np.shape(counts)}")
    base = _validate.finite_array("counts", np.ravel(counts), nonnegative=True).reshape(
        np.shape(counts)
    )
    grid = base.ndim == 2
    if name not in (ALGORITHMS_2D if grid else ALGORITHMS):
        known = ", ".join(ALGORITHMS_2D if grid else ALGORITHMS)
        raise ValueError(f"unknown algorithm {name!r} for this histogram; accepted: {known}")
    largest = tuple(int(i) for i in np.unravel_index(np.argmax(base), base.shape))
    gain = _bin(base, changed if changed is not None else largest, "changed")
    loss = None if moved_from is None else _bin(base, moved_from, "moved_from")
    neighbour = base.copy()
    neighbour[gain] += 1.0
    if loss is not None:
        if loss == gain or base[loss] < 1.0:
            raise ValueError("moved_from must be another bin holding at least one record")
        neighbour[loss] -= 1.0
    dims: tuple[int, ...] = tuple(map(int, np.shape(base)))
    shape = (dims[0], dims[-1])
    spec = (
        "all rectangles"
        if grid and isinstance(workload, str) and workload == "prefix"
        else workload
    )
    load = as_rectangles(spec, shape) if grid else as_workload(spec, base.size)
    plan = _tree_plan(name, grid, base.shape, run_eps, load)
    if read not in ("count", "total"):
        raise ValueError(f"read must be 'count' or 'total', got {read!r}")
    weights = np.ones(base.shape) if read == "total" else np.zeros(base.shape)
    if read == "count":
        weights[gain] = 1.0
        if loss is not None:
            weights[loss] = -1.0

    def runs(histogram: FloatArray) -> Sampler:
        if plan is not None:
            return _blue_sampler(*plan, histogram, weights)

        def estimate(rng: np.random.Generator) -> FloatArray:  # inputs checked above
            if isinstance(load, Ranges):
                return ALGORITHMS[name].run(histogram, run_eps, load, rng).estimate
            return ALGORITHMS_2D[name].run(histogram, run_eps, load, rng).estimate

        def sample(size: int, rng: np.random.Generator) -> FloatArray:
            return np.array([np.sum(weights * estimate(rng)) for _ in range(size)])

        return sample

    where = _show(gain) if loss is None else f"{_show(loss)} -> {_show(gain)}"
    kind = "record moved" if loss is not None else "record added"
    what = "count gained minus count lost" if loss is not None else "released count"
    what = "released total" if read == "total" else what
    return make(
        f"{name}{' (2-D)' if grid else ''}", eps, None, (runs(neighbour), runs(base)),
        f"{name} at ε = {run_eps:g} on {'x'.join(map(str, base.shape))} bins, one {kind} "
        f"({where}): the {what}", f"one {kind}", buggy=stated < 1,
    )  # fmt: skip


def region_tree(
    eps: float = 1.0,
    shape: tuple[int, int] = (4, 4),
    fanout: tuple[int, int] = (2, 2),
    *,
    levels_ignored: bool = False,
) -> Entry:
    """The region-tree release of :mod:`dpcore.spatial`: the full quadtree of a grid, ``eps``
    split evenly over its levels, BLUE; cell ``(rows // 3, columns // 2)`` (``(1, 2)`` on
    4 x 4) holds ten records on ``D'`` and one more on ``D``.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    shape, fanout : tuple of int
        The grid and the tree (:func:`dpcore.spatial.regions.quadtree`).
    levels_ignored : bool, default False
        The bug of a per-level budget that ignores the number of levels: every level
        gets the whole ``eps``.

    Returns
    -------
    Entry
        True ε ``eps`` (every root-to-leaf path spends it), or ``levels x eps`` when the
        levels are ignored (:func:`dpcore.hist.budget.release_epsilon`); the output is the
        changed cell's released count.
    """
    tree = regions.quadtree(shape, fanout)
    per_path = _validate.positive("eps", eps) * (tree.height if levels_ignored else 1)
    budgets = budget.uniform_budgets(tree, per_path)
    cell = (tree.shape[0] // 3, tree.shape[1] // 2)
    base = np.zeros(tree.shape)
    base[cell] = 10.0
    neighbour = base.copy()
    neighbour[cell] += 1.0
    weights = np.zeros(tree.shape)
    weights[cell] = 1.0
    name = "Region-tree release" + (", levels ignored" if levels_ignored else "")
    return make(
        name, eps, budget.release_epsilon(tree, budgets),
        (_blue_sampler(tree, budgets, neighbour, weights),
         _blue_sampler(tree, budgets, base, weights)),
        f"{shape[0]}x{shape[1]} grid, quadtree of {tree.height} levels, "
        f"{'ε on every level' if levels_ignored else 'ε / levels per level'}, BLUE: the "
        "released count of the cell holding one more record on D", "one record added",
    )  # fmt: skip


def efpa_phase_kept(eps: float = 1.0, bins: int = 8) -> Entry:
    """BUG: EFPA's release step as the code DPComp runs does it (see
    :mod:`dpcore.algorithms.acs`): ``Lap(sqrt(k) / eps_2)`` on the magnitude of each kept
    Fourier coefficient, its phase kept exactly. Every coefficient is kept (``k = n/2 + 1``,
    the selection left out: its own flaw is not needed here) and ``eps_2 = eps / 2``.

    One record in bin 1 turns coefficient 1 of ``(100, 0, ..., 0, 50)`` by a fixed angle; the
    released coefficient lies on the line of the true one, so its phase modulo π is one
    number on ``D`` and another on ``D'``: an event of probability 1 against 0. dpcore's own
    EFPA (:func:`dpcore.algorithms.acs.efpa`) noises every real coefficient instead.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    bins : int, default 8
        At least 3.

    Returns
    -------
    Entry
        True ε infinite; rows are the released histograms and the ``score`` their
        coefficient 1's phase modulo π (rounded to 1e-9).
    """
    scale = 2.0 * (bins // 2 + 1) ** 0.5 / _validate.positive("eps", eps)
    base = np.zeros(_validate.whole("bins", bins, lower=3))
    base[0], base[-1] = 100.0, 50.0
    neighbour = base.copy()
    neighbour[1] += 1.0

    def run(histogram: FloatArray) -> Sampler:
        true = np.fft.rfft(histogram)  # unnormalised, as scipy.fftpack.rfft

        def sample(size: int, rng: np.random.Generator) -> FloatArray:
            magnitude = np.abs(true) + rng.laplace(0.0, scale, size=(size, true.size))
            return np.fft.irfft(magnitude * np.exp(1j * np.angle(true)), n=bins, axis=1)

        return sample

    def phase(rows: FloatArray) -> FloatArray:
        return np.asarray(np.round(np.angle(np.fft.rfft(rows, axis=1)[:, 1]) % np.pi, 9))

    return make(
        "EFPA as DPComp runs it (phase kept)", eps, math.inf, (run(neighbour), run(base)),
        f"{bins} bins, every Fourier coefficient's magnitude + Lap(sqrt(k)/(ε/2)), its phase "
        "kept: one record added to bin 1", "one record added", score=phase,
    )  # fmt: skip


Plan = tuple[Tree | BoxTree, FloatArray]

_BATCH = 2**14
"""Releases drawn at once by the batched tree samplers."""


def _tree_plan(
    name: str, grid: bool, shape: tuple[int, ...], eps: float, load: Ranges | Rectangles
) -> Plan | None:
    """The tree and budgets of a linear tree algorithm (as the algorithm builds them)."""
    if grid and name in ("HB-2D", "QuadTree"):
        make_plan = hb2d_plan if name == "HB-2D" else quadtree_plan
        tree, budgets = make_plan((int(shape[0]), int(shape[1])), eps)
        return tree, budgets
    if not grid and name == "GreedyH" and isinstance(load, Ranges):
        strategy = greedy_strategy(kernel(load))
        return strategy.tree, eps * strategy.weight
    if not grid and name in ("HB", "HB-opt") and isinstance(load, Ranges):
        prepared = prepare("hb" if name == "HB" else "consistent", int(shape[0]), eps,
                           load.for_closed_forms())  # fmt: skip
        assert prepared.tree is not None and prepared.budgets is not None
        return prepared.tree, prepared.budgets
    return None


def _blue_sampler(
    tree: Tree | BoxTree, budgets: FloatArray, histogram: FloatArray, weights: FloatArray
) -> Sampler:
    """``size`` Laplace releases of ``tree``'s node sums, each made consistent (BLUE) and
    read through ``weights`` on the leaves: ``w . leaves = c . noisy`` with ``c`` from
    :meth:`~dpcore.hist.consistency.BlueSmoother.transpose`."""
    on_leaves = np.zeros(tree.size)
    if isinstance(tree, BoxTree):
        sums = regions.node_sums(tree, histogram)
        leaves = np.flatnonzero(tree.is_leaf)
        on_leaves[leaves] = weights[tuple(tree.lo[leaves].T)]
    else:
        sums = node_sums(tree, histogram)
        on_leaves[tree.leaf_of_bin] = weights
    c = BlueSmoother.build(tree, budgets).transpose(on_leaves)
    measured = budgets > 0

    def sample(size: int, rng: np.random.Generator) -> FloatArray:
        out = np.empty(size)
        for start in range(0, size, _BATCH):  # in blocks: the same draws, less memory
            runs = min(_BATCH, size - start)
            noisy = release_sums(np.tile(sums, runs), np.tile(budgets, runs), rng)
            out[start : start + runs] = noisy.reshape(runs, tree.size)[:, measured] @ c[measured]
        return out

    return sample


def _bin(counts: FloatArray, where: int | tuple[int, ...], name: str) -> tuple[int, ...]:
    index = (where,) if isinstance(where, int | np.integer) else tuple(where)
    if len(index) != counts.ndim or not all(
        0 <= i < s for i, s in zip(index, counts.shape, strict=True)
    ):
        raise ValueError(f"{name} must be a bin of the {counts.shape} histogram, got {where}")
    return tuple(int(i) for i in index)


def _show(index: tuple[int, ...]) -> str:
    return f"bin {index[0]}" if len(index) == 1 else f"cell {index}"
