"""Histogram-release algorithms compared the way DPBench compares them.

Hay, Machanavajjhala, Miklau, Chen, Zhang, "Principled Evaluation of Differentially
Private Algorithms using DPBench", SIGMOD 2016. Every algorithm takes a histogram,
``eps``, a workload and a ``numpy.random.Generator`` and returns an estimate of the
whole histogram; :func:`estimate` is the one entry point and :data:`NAMES` lists the
names it accepts.

>>> import numpy as np
>>> x = estimate("Identity", [3, 0, 5], 1.0, workload="prefix", rng=np.random.default_rng(0))
>>> x.shape
(3,)
"""

from dpcore.algorithms.common import Release
from dpcore.algorithms.registry import ALGORITHMS, NAMES, estimate, release

__all__ = ["ALGORITHMS", "NAMES", "Release", "estimate", "release"]
