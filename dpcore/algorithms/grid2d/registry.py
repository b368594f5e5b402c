"""Every 2-D algorithm by name, and the 2-D entry point :func:`dpcore.algorithms.estimate`
dispatches to for a grid of counts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcore import _validate
from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d.dpcube2d import dpcube_2d
from dpcore.algorithms.grid2d.flat import agrid, ahp_2d, identity, ugrid, uniform
from dpcore.algorithms.grid2d.hilbert import dawa_2d
from dpcore.algorithms.grid2d.inputs import (
    GridAlgorithm,
    RectangleSpec,
    as_rectangles,
    checked_grid,
)
from dpcore.algorithms.grid2d.kron import kron_pidentity
from dpcore.algorithms.grid2d.mwem2d import mwem_2d
from dpcore.algorithms.grid2d.privtree import privtree
from dpcore.algorithms.grid2d.trees import hb2d, quadtree_release
from dpcore.algorithms.grid2d.wavelets import privelet_2d
from dpcore.spatial.rectangles import Rectangles


@dataclass(frozen=True)
class Entry2D:
    """A 2-D algorithm and what a page says of it.

    Attributes
    ----------
    run : GridAlgorithm
        ``(grid, eps, workload, rng) -> Release`` on checked inputs.
    data_dependent : bool
        Whether it spends budget learning the data (the number of records counts).
    cite : str
        Who published it, where.
    """

    run: GridAlgorithm
    data_dependent: bool
    cite: str


ALGORITHMS_2D: dict[str, Entry2D] = {
    "Identity": Entry2D(identity, False, "Dwork, McSherry, Nissim, Smith, TCC 2006"),
    "Uniform": Entry2D(uniform, False, "Hay et al., SIGMOD 2016 (DPBench)"),
    "HB-2D": Entry2D(hb2d, False, "Qardaji, Yang, Li, PVLDB 2013"),
    "QuadTree": Entry2D(quadtree_release, False, "Cormode et al., ICDE 2012"),
    "KronPIdentity": Entry2D(kron_pidentity, False, "McKenna et al., VLDB 2018 (HDMM)"),
    "UGrid": Entry2D(ugrid, True, "Qardaji, Yang, Li, ICDE 2013"),
    "AGrid": Entry2D(agrid, True, "Qardaji, Yang, Li, ICDE 2013"),
    "PrivTree": Entry2D(privtree, True, "Zhang, Xiao, Xie, SIGMOD 2016"),
    "Privelet-2D": Entry2D(privelet_2d, False, "Xiao, Wang, Gehrke, ICDE 2010"),
    "AHP-2D": Entry2D(ahp_2d, True, "Zhang, Chen, Xu, Meng, Xie, SDM 2014"),
    "MWEM-2D": Entry2D(mwem_2d, True, "Hardt, Ligett, McSherry, NIPS 2012"),
    "DAWA-2D": Entry2D(dawa_2d, True, "Li, Hay, Miklau, Wang, PVLDB 2014"),
    "DPCube-2D": Entry2D(dpcube_2d, True, "Xiao, Xiong, Fan, Goryczka, Li, TDP 2014"),
}
"""Name -> 2-D algorithm, in the order a page lists them."""

NAMES_2D: tuple[str, ...] = tuple(ALGORITHMS_2D)
"""The names :func:`dpcore.algorithms.estimate` accepts for a 2-D ``counts``."""


def release_2d(
    name: str,
    counts: ArrayLike,
    eps: float,
    *,
    workload: RectangleSpec | Rectangles,
    rng: np.random.Generator,
) -> Release:
    """One run of 2-D algorithm ``name``: the estimated grid and how ``eps`` was spent.

    Parameters
    ----------
    name : str
        One of :data:`NAMES_2D`.
    counts : array_like of float, shape (n1, n2)
        The grid: finite, ``>= 0``, at least one cell.
    eps : float
        Privacy budget, in ``[1e-300, inf)``.
    workload : str, Rectangles or array_like of int, shape (m, 4)
        ``"random rectangles"``, ``"all rectangles"`` or inclusive ``(r0, c0, r1, c1)``
        rectangles: what workload-aware algorithms adapt to.
    rng : numpy.random.Generator
        The only source of randomness (numpy's generator: for teaching and exploration).

    Returns
    -------
    Release
        ``estimate`` of shape ``(n1, n2)``; ``budget`` whose parts sum to ``eps``;
        ``buckets`` for partitioning algorithms, rows ``(r0, c0, r1, c1)``.

    Raises
    ------
    ValueError
        For an unknown name (listing the known ones), a bad grid, ``eps`` or workload.

    Examples
    --------
    >>> run = release_2d("Identity", [[1, 0], [0, 2]], 1.0, workload="random rectangles",
    ...                  rng=np.random.default_rng(0))
    >>> run.estimate.shape, run.budget
    ((2, 2), {'cells': 1.0})
    """
    entry = ALGORITHMS_2D.get(name)
    if entry is None:
        raise ValueError(
            f"unknown 2-D algorithm {str(name)[:40]!r}; accepted: {', '.join(NAMES_2D)}"
        )
    grid = checked_grid(counts)
    epsilon = _validate.positive("eps", eps)
    generator = _validate.generator("rng", rng)
    rectangles = as_rectangles(workload, (int(grid.shape[0]), int(grid.shape[1])))
    return entry.run(grid, epsilon, rectangles, generator)
