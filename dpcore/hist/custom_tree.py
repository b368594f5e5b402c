"""A tree typed by hand (one interval per line) with hand-set budgets, validated and scored.

The LUE-DPTree chapter's fig. 3.14(b) is the model: root [1, 4] with children [1], [2, 3],
[4], and [2, 3] split into [2], [3]. Lines and bins are 1-based, as users write them; every
message names the offending line and interval. :func:`dpcore.hist.tree.from_intervals` builds
the tree once the text is valid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore.hist import blue_error, budget, coverage
from dpcore.hist.tree import Tree, from_intervals

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

MAX_NODES = 1000
_SEPARATORS = re.compile(r"[\s,;:\-–]+")


class CustomTreeError(ValueError):
    """The typed tree or budgets are not valid; the message says where and why.

    The messages are written for users (1-based lines and bins).
    """


@dataclass(frozen=True, eq=False)
class CustomTree:
    """A validated tree and, for each input line, its node index in ``tree``.

    Attributes
    ----------
    tree : Tree
        The built tree (0-based bins).
    node_of_line : ndarray of int64, shape (lines,)
        Index in ``tree`` of the node typed on each line.
    lo, hi : ndarray of int64, shape (lines,)
        Each line's first and last bin, 1-based, in input order.
    """

    tree: Tree
    node_of_line: IntArray
    lo: IntArray  # 1-based, in input order
    hi: IntArray


def parse_intervals(text: str, *, max_nodes: int = MAX_NODES) -> tuple[IntArray, IntArray]:
    """1-based ``(first, last)`` per non-empty line: ``"2 3"``, ``"2-3"``, ``"2,3"`` or ``"4"``.

    Parameters
    ----------
    text : str
        One interval per line; blank lines are skipped.
    max_nodes : int, default MAX_NODES (1000)
        Most lines accepted.

    Returns
    -------
    lo, hi : ndarray of int64, shape (lines,)
        First and last bin per line, 1-based.

    Raises
    ------
    CustomTreeError
        If there is no line or more than ``max_nodes``, a line is not one or two whole
        numbers, or its first bin is 0 or after its last.
    """
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise CustomTreeError("No intervals: type one node per line, e.g. 1 4 (first, last bin).")
    if len(lines) > max_nodes:
        raise CustomTreeError(f"{len(lines)} nodes; at most {max_nodes} are accepted.")
    lo, hi = [], []
    for number, line in enumerate(lines, start=1):
        parts = [p for p in _SEPARATORS.split(line) if p]
        if len(parts) not in (1, 2) or not all(p.isdigit() for p in parts):
            raise CustomTreeError(
                f"Line {number} ({line[:40]!r}): expected one bin or two bins "
                "(first and last, whole numbers from 1)."
            )
        first, last = int(parts[0]), int(parts[-1])
        if not 1 <= first <= last:
            raise CustomTreeError(f"Line {number}: [{first}, {last}] needs 1 ≤ first ≤ last.")
        lo.append(first)
        hi.append(last)
    return np.array(lo, dtype=np.int64), np.array(hi, dtype=np.int64)


def _name(lo: IntArray, hi: IntArray, i: int) -> str:
    return f"node [{lo[i]}, {hi[i]}] (line {i + 1})"


def build(lo: IntArray, hi: IntArray) -> CustomTree:
    """Check the 1-based intervals form an interval tree, naming the offending node; build it.

    Parameters
    ----------
    lo, hi : ndarray of int64, shape (lines,)
        First and last bin per line, 1-based, ``1 <= lo <= hi``.

    Returns
    -------
    CustomTree
        The tree and the node of each line.

    Raises
    ------
    CustomTreeError
        If an interval repeats, the root ``[1, n]`` is missing, intervals overlap without
        nesting, a leaf covers more than one bin, children leave a bin of their parent
        uncovered, or a node has a single child.
    """
    n = int(hi.max())
    seen: dict[tuple[int, int], int] = {}
    for i, key in enumerate(zip(lo.tolist(), hi.tolist(), strict=True)):
        if key in seen:
            raise CustomTreeError(f"{_name(lo, hi, i)} repeats line {seen[key] + 1}.")
        seen[key] = i
    if (1, n) not in seen:
        raise CustomTreeError(f"The root [1, {n}] (all bins) is missing.")
    order = np.lexsort((-hi, lo))  # pre-order: by first bin, longer first
    parent = np.full(lo.size, -1, dtype=np.int64)
    stack = [int(order[0])]
    for i in order[1:].tolist():
        while hi[stack[-1]] < lo[i]:
            stack.pop()
        top = stack[-1]
        if hi[i] > hi[top]:
            raise CustomTreeError(
                f"{_name(lo, hi, i)} overlaps {_name(lo, hi, top)} without being inside it."
            )
        parent[i] = top
        stack.append(i)
    for p in range(lo.size):
        kids = np.flatnonzero(parent == p)
        if kids.size == 0:
            if lo[p] != hi[p]:
                raise CustomTreeError(
                    f"{_name(lo, hi, p)} has no children: a leaf must be a single bin "
                    f"(add its children, e.g. each bin {lo[p]} … {hi[p]})."
                )
            continue
        covered = np.zeros(hi[p] - lo[p] + 1, dtype=bool)
        for k in kids:
            covered[lo[k] - lo[p] : hi[k] - lo[p] + 1] = True
        if not covered.all():
            gap = int(lo[p] + np.argmin(covered))
            raise CustomTreeError(
                f"The children of {_name(lo, hi, p)} do not cover bin {gap}: children must "
                "partition their parent."
            )
        if kids.size == 1:
            raise CustomTreeError(f"{_name(lo, hi, p)} has one child; it needs at least two.")
    tree = from_intervals(lo - 1, hi - 1)
    index = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(tree.lo, tree.hi, strict=True))}
    node_of_line = np.array([index[(a - 1, b - 1)] for a, b in zip(lo, hi, strict=True)])
    return CustomTree(tree, node_of_line.astype(np.int64), lo, hi)


def parse_tree(text: str) -> CustomTree:
    """:func:`parse_intervals` then :func:`build`.

    Parameters
    ----------
    text : str
        One interval per line (:func:`parse_intervals`).

    Returns
    -------
    CustomTree
        The tree and the node of each line.

    Raises
    ------
    CustomTreeError
        As :func:`parse_intervals` and :func:`build` raise.
    """
    return build(*parse_intervals(text))


def check_budgets(custom: CustomTree, budgets_by_line: FloatArray) -> FloatArray:
    """Budgets per tree node from budgets per line; a leaf needs > 0, any node >= 0.

    Parameters
    ----------
    custom : CustomTree
        The tree.
    budgets_by_line : array_like of float, shape (lines,)
        One budget per input line.

    Returns
    -------
    ndarray of float64, shape (custom.tree.size,)
        The budgets in tree node order.

    Raises
    ------
    CustomTreeError
        If there is not one budget per line, or a budget is not finite, negative, or 0 on a
        leaf.
    """
    b = np.asarray(budgets_by_line, dtype=np.float64)
    if b.shape != custom.lo.shape:
        raise CustomTreeError(f"{b.size} budgets for {custom.lo.size} nodes.")
    for i in range(b.size):
        leaf = custom.lo[i] == custom.hi[i]
        if not np.isfinite(b[i]) or b[i] < 0 or (leaf and b[i] == 0):
            need = "a positive number (a leaf must be measured)" if leaf else "0 or more"
            raise CustomTreeError(
                f"Budget of {_name(custom.lo, custom.hi, i)} is {b[i]:g}; it must be {need}."
            )
    out = np.empty(b.size)
    out[custom.node_of_line] = b
    return out


@dataclass(frozen=True)
class Scores:
    """Release epsilon and uniform-workload errors of one allocation on one tree.

    Attributes
    ----------
    release_epsilon : float
        The largest root-to-leaf budget sum.
    raw_error, blue_error : float
        Mean range MSE over all ranges, raw and after BLUE (``inf`` if undefined).
    """

    release_epsilon: float
    raw_error: float
    blue_error: float


def score(tree: Tree, budgets: FloatArray) -> Scores:
    """Max path sum, raw error ``sum p_x 2 / eps_x^2`` and exact error after BLUE (all ranges).

    The raw error is infinite when a node that queries use has budget 0.

    Parameters
    ----------
    tree : Tree
        The tree.
    budgets : ndarray of float64, shape (tree.size,)
        Per-node budgets: 0 (not measured) or in ``[1e-300, inf)``.

    Returns
    -------
    Scores
        The scores.

    Raises
    ------
    ValueError
        If ``budgets`` is not ``tree.size`` finite numbers, each 0 or ``>= 1e-300``.
    """
    p = coverage.coverage_probabilities(tree)
    used_unmeasured = bool(np.any((budgets == 0) & (p > 0)))
    raw = np.inf if used_unmeasured else budget.raw_expected_error(p, budgets)
    return Scores(
        budget.release_epsilon(tree, budgets),
        float(raw),
        blue_error.blue_expected_error(tree, budgets),
    )
