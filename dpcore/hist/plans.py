"""Every closed-form histogram algorithm by name, and its exact errors.

:data:`ALGORITHMS` lists flat Laplace (Dwork), trees (shape, budget rule, raw or
BLUE-consistent) and Privelet; :func:`prepare` sets one up for ``n`` bins and ``eps``, and
:func:`plan_range_errors` / :func:`plan_expected_error` give its exact mean squared errors
(per range, and over a workload) from :mod:`~dpcore.hist.flat_error`,
:mod:`~dpcore.hist.raw_error`, :mod:`~dpcore.hist.blue_error` and
:mod:`~dpcore.hist.privelet_error`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcore import _validate
from dpcore.hist import budget, consistent_budget, coverage, hb, privelet, privelet_error
from dpcore.hist.blue_error import blue_expected_error, blue_range_errors
from dpcore.hist.flat_error import flat_expected_error, flat_range_errors
from dpcore.hist.raw_error import raw_expected_error, raw_range_errors
from dpcore.hist.tree import Tree, kary_tree, struct_construct
from dpcore.hist.workload import Workload, parse_workload, workload_ranges

FloatArray = NDArray[np.float64]


def range_errors(
    t: Tree, budgets: ArrayLike, a: ArrayLike, b: ArrayLike, *, consistent: bool
) -> FloatArray:
    """Per-range MSE of a tree release, raw or BLUE-consistent.

    Parameters
    ----------
    t : Tree
        The tree.
    budgets : array_like of float, shape (t.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.
    consistent : bool
        BLUE-consistent (True) or raw (False) answers.

    Returns
    -------
    ndarray of float64
        MSE per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < t.n_bins``, ``a`` and ``b`` do not broadcast, or
        ``budgets`` is invalid.
    """
    if consistent:
        return blue_range_errors(t, budgets, a, b)
    return raw_range_errors(t, budgets, a, b)


def expected_range_error(
    t: Tree,
    budgets: ArrayLike,
    *,
    consistent: bool,
    workload: str | Workload = "uniform",
) -> float:
    """Exact mean squared error of a random workload range answered from a tree release.

    Raw: ``sum_x p_x Var(h~_x)``; consistent: the BLUE error (module docstring).

    Parameters
    ----------
    t : Tree
        The tree.
    budgets : array_like of float, shape (t.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.
    consistent : bool
        BLUE-consistent (True) or raw (False) answers.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    float
        Mean MSE over the workload's ranges.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``t.n_bins`` bins or ``budgets`` is invalid.
    """
    if consistent:
        return blue_expected_error(t, budgets, workload)
    return raw_expected_error(t, budgets, workload)


TreeShape = Literal["binary", "sc", "hb"]
BudgetRule = budget.BudgetRule | Literal["hb", "consistent_level"]


@dataclass(frozen=True)
class AlgorithmSpec:
    """One histogram algorithm: flat Laplace, Privelet, or a tree + budgets + post-processing.

    Attributes
    ----------
    label : str
        Name shown to users.
    kind : {"flat", "tree", "privelet"}
        The family of the algorithm.
    shape : {"binary", "sc", "hb"} or None
        Tree shape (trees only).
    budgets : str or None
        Budget rule (trees only): a :data:`dpcore.hist.budget.BUDGET_RULES` entry, ``"hb"`` or
        ``"consistent_level"``.
    consistent : bool
        Whether answers are BLUE-consistent (trees only).
    """

    label: str
    kind: Literal["flat", "tree", "privelet"]
    shape: TreeShape | None = None
    budgets: BudgetRule | None = None
    consistent: bool = False


ALGORITHMS: dict[str, AlgorithmSpec] = {
    "dwork": AlgorithmSpec("Dwork (Laplace per bin)", "flat"),
    "binary_raw": AlgorithmSpec("Binary tree, raw", "tree", "binary", "uniform", False),
    "boost": AlgorithmSpec("Boost (binary, uniform, BLUE)", "tree", "binary", "uniform", True),
    "boost_un": AlgorithmSpec(
        "Boost-UN (binary, per-level optimal for the raw tree, BLUE)",
        "tree",
        "binary",
        "per_level",
        True,
    ),
    "sc_raw": AlgorithmSpec("SC tree, raw (no consistency)", "tree", "sc", "uniform", False),
    "sc_tree": AlgorithmSpec("SC tree, uniform budgets + BLUE", "tree", "sc", "uniform", True),
    "lue_dptree": AlgorithmSpec(
        "LUE-DPTree (SC tree, per-node optimal for the raw tree, BLUE)",
        "tree",
        "sc",
        "optimal",
        True,
    ),
    "hb": AlgorithmSpec("H_b (b-ary, root not measured, BLUE)", "tree", "hb", "hb", True),
    "consistent": AlgorithmSpec(
        "Tree, optimal after consistency (H_b's tree, per-level, BLUE)",
        "tree",
        "hb",
        "consistent_level",
        True,
    ),
    "privelet": AlgorithmSpec("Privelet (Haar wavelet)", "privelet"),
}


@dataclass(frozen=True, eq=False)
class Plan:
    """An algorithm set up for ``n`` bins and ``eps``: its tree and budgets if it has them.

    Budgets that depend on the workload (per-level, per-node) are optimised for
    ``workload``.

    Attributes
    ----------
    key : str
        The algorithm's key in :data:`ALGORITHMS`.
    n : int
        Number of bins.
    eps : float
        Total privacy budget.
    workload : Workload
        The workload the budgets were optimised for, and the default one for errors.
    tree : Tree or None
        The tree (tree algorithms only).
    budgets : ndarray of float64, shape (tree.size,), or None
        Per-node budgets (tree algorithms only).
    spec : AlgorithmSpec
        ``ALGORITHMS[key]``.
    """

    key: str
    n: int
    eps: float
    workload: Workload
    tree: Tree | None = None
    budgets: FloatArray | None = None

    @property
    def spec(self) -> AlgorithmSpec:
        return ALGORITHMS[self.key]


def prepare(key: str, n: int, eps: float, workload: str | Workload = "uniform") -> Plan:
    """Build the tree and budgets of algorithm ``key`` (see :data:`ALGORITHMS`).

    Parameters
    ----------
    key : str
        A key of :data:`ALGORITHMS`.
    n : int
        Number of bins (``>= 1``).
    eps : float
        Total privacy budget, in ``[1e-300, inf)``.
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    Plan
        The prepared algorithm.

    Raises
    ------
    ValueError
        If ``key`` is unknown, ``n < 1``, ``eps`` is not a finite number in
        ``[1e-300, inf)``, ``workload`` is invalid for ``n`` bins, or (``"consistent"``) the
        workload's gradient is over a limit (see
        :func:`dpcore.hist.blue_gradient.blue_error_gradient`).
    """
    if key not in ALGORITHMS:
        raise ValueError(f"unknown algorithm '{key}'; choose from {', '.join(ALGORITHMS)}")
    if n < 1:
        raise ValueError(f"need at least one bin, got n={n}")
    eps = _validate.positive("epsilon", eps)
    spec = ALGORITHMS[key]
    load = parse_workload(workload, n)
    if spec.kind != "tree":
        return Plan(key, n, eps, load)
    if spec.shape == "sc":
        shape = struct_construct(n)
    else:
        shape = kary_tree(n, 2 if spec.shape == "binary" else hb.hb_fanout(n))
    if spec.budgets == "hb":
        eps_x = budget.uniform_budgets(shape, eps, measure_root=False)
    elif spec.budgets == "consistent_level":
        eps_x = consistent_budget.consistent_optimal_budgets(shape, eps, load)
    else:
        assert spec.budgets is not None
        p = (
            np.zeros(0)
            if spec.budgets == "uniform"
            else coverage.coverage_probabilities(shape, load)
        )
        eps_x = budget.allocate(spec.budgets, shape, eps, p)
    return Plan(key, n, eps, load, shape, eps_x)


def plan_range_errors(plan: Plan, a: ArrayLike, b: ArrayLike) -> FloatArray:
    """Exact per-range MSE of a prepared algorithm (0-based inclusive ranges).

    Parameters
    ----------
    plan : Plan
        A prepared algorithm (:func:`prepare`).
    a, b : array_like of int
        Range starts and ends (0-based, inclusive), broadcast together.

    Returns
    -------
    ndarray of float64
        MSE per range, shaped like the broadcast ``a`` and ``b``.

    Raises
    ------
    ValueError
        If a range is not ``0 <= a <= b < plan.n`` or ``a`` and ``b`` do not broadcast.
    """
    a_arr, b_arr = _validate.ranges(plan.n, a, b)
    if plan.spec.kind == "flat":
        return flat_range_errors(plan.eps, a_arr, b_arr)
    if plan.spec.kind == "privelet":
        coefficient = privelet_error.range_error_coefficients(plan.n, a_arr, b_arr)
        return privelet.noise_variance(plan.n, plan.eps) * coefficient
    assert plan.tree is not None and plan.budgets is not None
    return range_errors(plan.tree, plan.budgets, a_arr, b_arr, consistent=plan.spec.consistent)


def plan_expected_error(plan: Plan, workload: str | Workload | None = None) -> float:
    """Exact mean range MSE of a prepared algorithm over a workload (default: its own).

    Parameters
    ----------
    plan : Plan
        A prepared algorithm (:func:`prepare`).
    workload : str or Workload, optional
        Any form :func:`dpcore.hist.workload.parse_workload` accepts; ``plan.workload`` if
        omitted.

    Returns
    -------
    float
        Mean MSE over the workload's ranges.

    Raises
    ------
    ValueError
        If ``workload`` is invalid for ``plan.n`` bins.
    """
    load = plan.workload if workload is None else parse_workload(workload, plan.n)
    if plan.spec.kind == "flat":
        return flat_expected_error(plan.n, plan.eps, load)
    if plan.spec.kind == "privelet":
        return privelet.noise_variance(plan.n, plan.eps) * privelet_average_coefficient(
            plan.n, load
        )
    assert plan.tree is not None and plan.budgets is not None
    return expected_range_error(
        plan.tree, plan.budgets, consistent=plan.spec.consistent, workload=load
    )


def privelet_average_coefficient(n: int, workload: str | Workload = "uniform") -> float:
    """Privelet's mean error coefficient over a workload (eq. 16 for all ranges).

    Parameters
    ----------
    n : int
        Number of bins (``>= 1``).
    workload : str or Workload, default "uniform"
        Any form :func:`dpcore.hist.workload.parse_workload` accepts.

    Returns
    -------
    float
        Mean of ``w^T B B^T w`` over the workload (multiply by
        :func:`dpcore.hist.privelet.noise_variance` for the MSE).

    Raises
    ------
    ValueError
        If ``n < 1`` or ``workload`` is invalid for ``n`` bins.
    """
    spec = parse_workload(workload, n)
    if spec.kind == "uniform":
        return privelet_error.average_error_coefficient(n)
    a, b = workload_ranges(n, spec)
    return float(privelet_error.range_error_coefficients(n, a, b).mean())
