"""The Error analysis page's settings: its parameters (with their URL codecs), the views it
draws, and :class:`Settings`, one view's settings read from parameter values.

Budgets of per-level and per-node algorithms are optimised for the uniform workload (all
ranges equally likely); errors of Privelet on ``n`` not a power of two are those of the
zero-padded transform.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dpcore.hist import accuracy_index, plans
from dpui.kit.params import BoolParam, ChoiceParam, IntParam, Param
from dpui.kit.sidebar import EPSILON

DEFAULT_ON = ("dwork", "binary_raw", "boost", "lue_dptree", "privelet")
ALGORITHM_FLAGS = {key: BoolParam(f"ea_{key}", key in DEFAULT_ON) for key in plans.ALGORITHMS}
VIEWS = {
    "length": "(1) Error vs range length",
    "fixed": "(2) Fixed random ranges",
    "size": "(3) Average error vs N",
    "epsilon": "(4) Error vs ε",
    "index": "(5) Accuracy index",
}
VIEW = ChoiceParam("ea_view", "length", tuple(VIEWS))
SIMULATE = BoolParam("ea_sim", True)
RELEASES = IntParam("ea_releases", 50, 2, 1000)
QUERIES = IntParam("ea_queries", 50, 1, 2000)
FIXED_N = IntParam("ea_fixed_n", 1024, 2, 65_536)
FIXED_RANGES = IntParam("ea_fixed_q", 50, 1, 500)
MAX_M = IntParam("ea_max_m", 10, 1, 20)
INDEX_M = IntParam("ea_index_m", 16, 6, accuracy_index.MAX_TREE_LEVELS)
SEED = IntParam("ea_seed", 0, 0, 2**31 - 1)
PARAMS: tuple[Param, ...] = (
    *ALGORITHM_FLAGS.values(),
    VIEW,
    SIMULATE,
    RELEASES,
    QUERIES,
    FIXED_N,
    FIXED_RANGES,
    MAX_M,
    INDEX_M,
    SEED,
)

SIMULATED_MAX_M = 12
"""Table 2 simulates up to N = 2^12; larger N show the exact values only."""
ALL_RANGES_LIMIT = 20_000
"""Table 2 scores every range when there are at most this many, else fresh random ranges."""
EPSILONS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
FORMULAS = {
    "length": r"\mathrm{MSE}_{\mathrm{Dwork}}(L) = \frac{2L}{\varepsilon^2},\quad "
    r"\mathrm{MSE}_{\mathrm{BLUE\ tree}}(w) = w^\top (A^\top W A)^{-1} w",
    "fixed": r"\mathrm{MSE}_{\mathrm{Privelet}}([l,r]) = "
    r"\frac{2(h+1)^2}{\varepsilon^2}\,\mathrm{coef}(l,r)",
    "size": r"\bar c_{\mathrm{Privelet}}(2^h) = \frac{h}{6} + "
    r"\frac{N^3 + 37N^2 + 26N + 8}{36N^2(N+1)} \to \frac{h}{6} + \frac{1}{36}",
    "epsilon": r"\mathrm{MSE}(\varepsilon) = \mathrm{MSE}(1) / \varepsilon^2",
    "index": r"k_A = \lim_{N\to\infty} \frac{\mathrm{lb}^3 N}{f_A(N)},\quad "
    r"f_A(N) = \frac{\varepsilon^2}{2}\,\overline{\mathrm{MSE}}_A(N)",
}


def label(key: str) -> str:
    return plans.ALGORITHMS[key].label


@dataclass(frozen=True)
class Settings:
    """What defines one view of the page: its own settings and ε (the dataset is the sidebar's)."""

    keys: tuple[str, ...]
    view: str
    simulate: bool
    releases: int
    queries: int
    seed: int
    fixed_n: int
    fixed_ranges: int
    max_m: int
    index_m: int
    eps: float

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> Settings:
        """From parameter name -> value (:attr:`dpui.kit.page.Inputs.values`, ε included)."""
        return cls(
            keys=tuple(key for key, flag in ALGORITHM_FLAGS.items() if values[flag.name]),
            view=str(values[VIEW.name]),
            simulate=bool(values[SIMULATE.name]),
            releases=int(values[RELEASES.name]),
            queries=int(values[QUERIES.name]),
            seed=int(values[SEED.name]),
            fixed_n=int(values[FIXED_N.name]),
            fixed_ranges=int(values[FIXED_RANGES.name]),
            max_m=int(values[MAX_M.name]),
            index_m=int(values[INDEX_M.name]),
            eps=float(values[EPSILON.name]),
        )

    def describe(self) -> str:
        text = f"{VIEWS[self.view]}, {len(self.keys)} algorithm(s)"
        if self.view not in ("epsilon", "index"):
            text += f", ε = {self.eps:g}"
        return text + (f", simulated ({self.releases} releases)" if self.simulate else "")


PINNED: tuple[Param, ...] = (*PARAMS, EPSILON)
"""The parameters a pinned view keeps: the page's own and the shared ε."""
