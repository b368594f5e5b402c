"""DPBench's 2-D algorithms: grids of counts released for rectangle queries.

Hay, Machanavajjhala, Miklau, Chen, Zhang, "Principled Evaluation of Differentially
Private Algorithms using DPBench", SIGMOD 2016 (the 2-D runs), plus PrivTree (Zhang,
Xiao, Xie, SIGMOD 2016) and HDMM's Kronecker p-Identity (McKenna et al., VLDB 2018).
Every algorithm takes a grid, ``eps``, a rectangle workload and a generator and returns a
:class:`~dpcore.algorithms.common.Release` of the whole grid;
:func:`dpcore.algorithms.estimate` dispatches here for a 2-D ``counts``, and
:data:`NAMES_2D` lists the names it accepts.
"""

from dpcore.algorithms.grid2d.registry import ALGORITHMS_2D, NAMES_2D, release_2d

__all__ = ["ALGORITHMS_2D", "NAMES_2D", "release_2d"]
