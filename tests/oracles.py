"""Brute-force oracles for the tree engine: explicit enumeration and dense linear algebra."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from scipy import sparse

from dpcore.hist.tree import Tree, from_intervals
from dpcore.spatial.regions import BoxTree


def random_tree(n: int, rng: np.random.Generator, max_children: int = 4) -> Tree:
    """A random interval tree: each range splits at random cut points into 2..max_children."""
    lo, hi = [], []
    stack = [(0, n - 1)]
    while stack:
        a, b = stack.pop()
        lo.append(a)
        hi.append(b)
        if a == b:
            continue
        parts = int(rng.integers(2, min(max_children, b - a + 1) + 1))
        cuts = np.sort(rng.choice(np.arange(a + 1, b + 1), size=parts - 1, replace=False))
        edges = [a, *cuts.tolist(), b + 1]
        stack.extend((edges[i], edges[i + 1] - 1) for i in range(parts))
    return from_intervals(lo, hi)


def workload_ranges(n: int, workload: str) -> list[tuple[int, int]]:
    """Every range of the workload, 0-based inclusive."""
    if workload == "uniform":
        return [(a, b) for a in range(n) for b in range(a, n)]
    if workload == "prefix":
        return [(0, b) for b in range(n)]
    if workload.startswith("ranges:"):  # "ranges:a-b,c-d", 0-based inclusive
        pairs = (item.split("-") for item in workload.split(":")[1].split(","))
        return [(int(a), int(b)) for a, b in pairs]
    length = int(workload.split(":")[1])
    return [(a, a + length - 1) for a in range(n - length + 1)]


def canonical_nodes(tree: Tree, a: int, b: int) -> list[int]:
    """Nodes x with [a,b] ⊇ x and [a,b] ⊉ parent(x), by definition."""
    inside = (tree.lo >= a) & (tree.hi <= b)
    parent_inside = np.where(tree.parent >= 0, inside[np.maximum(tree.parent, 0)], False)
    return np.flatnonzero(inside & ~parent_inside).tolist()


def coverage_by_enumeration(tree: Tree, workload: str) -> np.ndarray:
    counts = np.zeros(tree.size)
    ranges = workload_ranges(tree.n_bins, workload)
    for a, b in ranges:
        counts[canonical_nodes(tree, a, b)] += 1
    return counts / len(ranges)


def strategy_matrix(tree: Tree) -> np.ndarray:
    """Nodes x bins 0/1 matrix: row x sums the bins of node x."""
    bins = np.arange(tree.n_bins)
    return ((bins >= tree.lo[:, None]) & (bins <= tree.hi[:, None])).astype(float)


def dense_blue(tree: Tree, noisy: np.ndarray, budgets: np.ndarray) -> np.ndarray:
    """Weighted least squares with weights eps_x^2, solved densely; returns node values."""
    a = strategy_matrix(tree)
    w = budgets**2
    bins = np.linalg.solve(a.T @ (w[:, None] * a), a.T @ (w * noisy))
    return a @ bins


def central_differences(
    error: Callable[[np.ndarray], float], eps: np.ndarray, nodes: Iterable[int], h: float = 1e-6
) -> dict[int, float]:
    """d error / d eps_x by central differences at each of ``nodes``."""
    out = {}
    for x in nodes:
        up, down = eps.copy(), eps.copy()
        up[x] += h
        down[x] -= h
        out[int(x)] = (error(up) - error(down)) / (2 * h)
    return out


# ------------------------------------------------------------------ region trees


def axis_intervals(n: int, workload: str) -> list[tuple[int, int, float]]:
    """Every interval ``(a, b, probability)`` of one axis, by enumerating the sampler's draws."""
    if workload == "all rectangles":
        return [(a, b, 2.0 / (n * (n + 1))) for a in range(n) for b in range(a, n)]
    # DPBench's RandomRange: width uniform on 1..n, then start uniform on 0..n-w
    return [
        (a, a + w - 1, 1.0 / (n * (n - w + 1))) for w in range(1, n + 1) for a in range(n - w + 1)
    ]


def rectangles_by_enumeration(
    shape: tuple[int, int], workload: str
) -> list[tuple[tuple[int, int], tuple[int, int], float]]:
    """Every rectangle ``(lo, hi, probability)`` of a grid (axes independent)."""
    rows, cols = axis_intervals(shape[0], workload), axis_intervals(shape[1], workload)
    return [((a, c), (b, d), p * q) for a, b, p in rows for c, d, q in cols]


def box_strategy_matrix(tree: BoxTree) -> np.ndarray:
    """Nodes x cells 0/1 matrix (cells row-major): row x sums the cells of node x's box."""
    grids = np.indices(tree.shape).reshape(tree.ndim, -1).T  # (cells, ndim)
    inside = (grids[None, :, :] >= tree.lo[:, None, :]) & (grids[None, :, :] <= tree.hi[:, None, :])
    return inside.all(axis=2).astype(float)


def query_vector(shape: tuple[int, ...], lo: tuple[int, ...], hi: tuple[int, ...]) -> np.ndarray:
    """A rectangle's 0/1 indicator over the cells, row-major."""
    grid = np.zeros(shape)
    grid[tuple(slice(a, b + 1) for a, b in zip(lo, hi, strict=True))] = 1.0
    return grid.ravel()


def dense_rectangle_gram(shape: tuple[int, int], workload: str) -> np.ndarray:
    """``E[q q^T]`` over the cells, summed rectangle by rectangle."""
    gram = np.zeros((shape[0] * shape[1],) * 2)
    for lo, hi, p in rectangles_by_enumeration(shape, workload):
        q = query_vector(shape, lo, hi)
        gram += p * np.outer(q, q)
    return gram


def dense_gls_error(tree: BoxTree, budgets: np.ndarray, gram: np.ndarray) -> float:
    """``tr(G (A^T W A)^{-1})``, ``W = diag(eps^2 / 2)``: the BLUE's expected error, densely.

    ``A^T W A`` is formed from ``A`` held sparse (it is 0/1 with one node per level in each
    column) and inverted densely; ``tr(G M) = sum(G * M^T)`` needs no matrix product.
    """
    a = sparse.csr_array(box_strategy_matrix(tree))
    info = (a.T @ sparse.diags_array(budgets**2 / 2.0) @ a).toarray()
    return float(np.sum(gram * np.linalg.inv(info).T))
