"""Every algorithm by name, with what DPBench needs to know of it, and the entry points."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcore import _validate
from dpcore.algorithms.acs import efpa, php
from dpcore.algorithms.ahp import ahp
from dpcore.algorithms.common import (
    Algorithm,
    FloatArray,
    Ranges,
    Release,
    WorkloadSpec,
    as_workload,
    checked_counts,
)
from dpcore.algorithms.dawa import dawa
from dpcore.algorithms.dpcube import dpcube
from dpcore.algorithms.greedy_h import greedy_h
from dpcore.algorithms.grid2d.inputs import RectangleSpec
from dpcore.algorithms.grid2d.registry import release_2d
from dpcore.algorithms.independent import hb, hb_opt, identity, privelet_release, uniform
from dpcore.algorithms.mwem import mwem
from dpcore.algorithms.structure_first import structure_first
from dpcore.spatial.rectangles import Rectangles


@dataclass(frozen=True)
class Entry:
    """An algorithm and what the page says of it.

    Attributes
    ----------
    run : Algorithm
        ``(counts, eps, workload, rng) -> Release`` on checked inputs.
    data_dependent : bool
        Whether it spends budget learning the data's shape.
    cite : str
        Who published it, where.
    plan : str or None
        Its key in :data:`dpcore.hist.plans.ALGORITHMS` when its per-query mean squared
        error has a closed form there (data-independent linear algorithms).
    """

    run: Algorithm
    data_dependent: bool
    cite: str
    plan: str | None = None


ALGORITHMS: dict[str, Entry] = {
    "Identity": Entry(identity, False, "Dwork, McSherry, Nissim, Smith, TCC 2006", "dwork"),
    "Uniform": Entry(uniform, False, "Hay et al., SIGMOD 2016 (DPBench)"),
    "HB": Entry(hb, False, "Qardaji, Yang, Li, VLDB 2013", "hb"),
    "Privelet": Entry(privelet_release, False, "Xiao, Wang, Gehrke, ICDE 2010", "privelet"),
    "HB-opt": Entry(
        hb_opt,
        False,
        "H_b's tree (Qardaji et al. 2013); budgets optimal after BLUE (this project)",
        "consistent",
    ),
    "GreedyH": Entry(greedy_h, False, "Li, Hay, Miklau, Wang, PVLDB 2014"),
    "DAWA": Entry(dawa, True, "Li, Hay, Miklau, Wang, PVLDB 2014"),
    "MWEM": Entry(mwem, True, "Hardt, Ligett, McSherry, NIPS 2012"),
    "EFPA": Entry(efpa, True, "Ács, Castelluccia, Chen, ICDM 2012"),
    "PHP": Entry(php, True, "Ács, Castelluccia, Chen, ICDM 2012"),
    "AHP": Entry(ahp, True, "Zhang, Chen, Xu, Meng, Xie, SDM 2014"),
    "SF": Entry(structure_first, True, "Xu, Zhang, Xiao, Yang, Yu, VLDB J. 2013"),
    "DPCube": Entry(dpcube, True, "Xiao, Xiong, Yuan, SDM workshop 2010"),
}
"""Name -> algorithm, in the order the page lists them."""

NAMES: tuple[str, ...] = tuple(ALGORITHMS)
"""The names :func:`estimate` accepts for a 1-D histogram (:data:`NAMES_2D` for a grid)."""


def release(
    name: str,
    counts: ArrayLike,
    eps: float,
    *,
    workload: WorkloadSpec | Ranges | RectangleSpec | Rectangles,
    rng: np.random.Generator,
) -> Release:
    """One run of algorithm ``name``: the estimate, the budget split, any buckets.

    Parameters
    ----------
    name : str
        One of :data:`NAMES` (a 1-D ``counts``) or of :data:`NAMES_2D` (a 2-D one).
    counts : array_like of float, shape (n,) or (n1, n2)
        The histogram: finite, ``>= 0``, at least one bin. A 2-D grid goes to
        :func:`dpcore.algorithms.grid2d.release_2d` (``counts.ndim`` decides).
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    workload : str or array_like
        For 1-D: ``"prefix"``, ``"all ranges"`` or an array of inclusive 0-based
        ``(lo, hi)`` ranges; for 2-D: ``"random rectangles"``, ``"all rectangles"`` or an
        array of inclusive ``(r0, c0, r1, c1)`` rectangles. What workload-aware algorithms
        adapt to.
    rng : numpy.random.Generator
        The only source of randomness (numpy's generator: for teaching and
        exploration, not a hardened noise source for real releases).

    Returns
    -------
    Release
        The estimate (the shape of ``counts``) and how ``eps`` was spent.

    Raises
    ------
    ValueError
        For an unknown name (listing the known ones), bad counts, ``eps`` or workload.
    """
    if np.ndim(counts) == 2:
        if isinstance(workload, Ranges):
            raise ValueError("a 1-D range workload needs a 1-D histogram of counts")
        return release_2d(name, counts, eps, workload=workload, rng=rng)
    entry = ALGORITHMS.get(name)
    if entry is None:
        raise ValueError(f"unknown algorithm {str(name)[:40]!r}; accepted: {', '.join(NAMES)}")
    values = checked_counts(counts)
    epsilon = _validate.positive("eps", eps)
    if isinstance(workload, Rectangles):
        raise ValueError("a rectangle workload needs a 2-D grid of counts")
    ranges = as_workload(workload, values.size)
    return entry.run(values, epsilon, ranges, rng)


def estimate(
    name: str,
    counts: ArrayLike,
    eps: float,
    *,
    workload: WorkloadSpec | Ranges | RectangleSpec | Rectangles,
    rng: np.random.Generator,
) -> FloatArray:
    """The estimated histogram (the shape of ``counts``) of algorithm ``name``; see
    :func:`release`.

    Raises
    ------
    ValueError
        As :func:`release`.
    """
    return release(name, counts, eps, workload=workload, rng=rng).estimate
