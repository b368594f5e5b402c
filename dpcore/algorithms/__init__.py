"""Histogram-release algorithms compared the way DPBench compares them.

Hay, Machanavajjhala, Miklau, Chen, Zhang, "Principled Evaluation of Differentially
Private Algorithms using DPBench", SIGMOD 2016. Every algorithm takes a histogram,
``eps``, a workload and a ``numpy.random.Generator`` and returns an estimate of the
whole histogram; :func:`estimate` is the one entry point and :data:`NAMES` lists the
names it accepts. A 2-D ``counts`` (a grid) goes to DPBench's 2-D algorithms
(:mod:`dpcore.algorithms.grid2d`, names in :data:`NAMES_2D`) with a rectangle workload.

>>> import numpy as np
>>> x = estimate("Identity", [3, 0, 5], 1.0, workload="prefix", rng=np.random.default_rng(0))
>>> x.shape
(3,)
>>> estimate("Identity", [[3, 0], [5, 1]], 1.0, workload="random rectangles",
...          rng=np.random.default_rng(0)).shape
(2, 2)
"""

from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d import ALGORITHMS_2D, NAMES_2D
from dpcore.algorithms.registry import ALGORITHMS, NAMES, estimate, release

__all__ = ["ALGORITHMS", "ALGORITHMS_2D", "NAMES", "NAMES_2D", "Release", "estimate", "release"]
