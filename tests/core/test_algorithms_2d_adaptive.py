"""The data-dependent 2-D algorithms: UGrid's and AGrid's sizes against the spec's worked
numbers, AGrid's consistency against dense least squares, PrivTree's splits against a
recursive brute force, and the noise of their published partitions by simulation."""

import math

import numpy as np
import pytest

from dpcore.algorithms import release
from dpcore.algorithms.grid2d import dpcube2d, flat, privtree
from dpcore.algorithms.grid2d.tiles import spread, tile, tile_tree
from dpcore.hist.consistency import blue
from dpcore.spatial.regions import quadtree


@pytest.mark.parametrize(
    ("shape", "scale", "side"),
    [((128, 128), 1e4, 12), ((128, 128), 1e6, 1), ((256, 256), 1e4, 25), ((256, 256), 1e6, 2)],
)
def test_ugrid_sides_are_dpcomps(shape, scale, side):
    """Spec 06 §6 at eps = 0.1: 128² -> 12 (11 x 11 tiles) at 10^4, 1 at 10^6; 256² -> 25, 2."""
    assert flat.ugrid_side(shape, scale, 0.1) == side


@pytest.mark.parametrize(("scale", "expected"), [(1e4, (10, 12)), (1e6, (25, 5)), (1e8, (250, 1))])
def test_agrid_first_levels_are_dpcomps(scale, expected):
    """Spec 06 §6, 128², eps = 0.1: m1 = 10, side 12; 25, 5; 250, 1."""
    assert flat.agrid_level1((128, 128), scale, 0.1) == expected


def test_agrid_sub_sides_by_hand():
    """v = 500, eps2 = 0.05, c2 = 5: m2 = floor(sqrt(5)) = 2, side floor(sqrt(144/4)) = 6
    in a 12 x 12 tile; v <= 0 gives m2 = 1, the whole tile; a 3 x 2 tile with a large v
    gets side 1."""
    lo = np.array([[0, 0], [0, 12], [12, 0]])
    hi = np.array([[11, 11], [11, 23], [14, 1]])
    sides = flat.agrid_sub_sides(lo, hi, np.array([500.0, -3.0, 1e9]), 0.05)
    assert sides.tolist() == [6, 12, 1]


def test_tiles_and_spreading_by_brute_force():
    owner, lo, hi = tile(np.array([[0, 0], [5, 2]]), np.array([[4, 6], [6, 2]]), [3, 1])
    cells = set()
    for k, (a, b) in enumerate(zip(lo, hi, strict=True)):
        box = {(r, c) for r in range(a[0], b[0] + 1) for c in range(a[1], b[1] + 1)}
        assert not box & cells
        cells |= box
        assert b[0] - a[0] < [3, 1][owner[k]] and b[1] - a[1] < [3, 1][owner[k]]
    assert cells == {(r, c) for r in range(5) for c in range(7)} | {(5, 2), (6, 2)}
    assert owner.tolist() == [0] * 6 + [1, 1]  # 5 x 7 in 3 x 3 tiles: 2 x 3 of them
    grid = spread((5, 7), lo[:6], hi[:6], np.arange(6.0))
    for k in range(6):
        block = grid[lo[k, 0] : hi[k, 0] + 1, lo[k, 1] : hi[k, 1] + 1]
        assert np.allclose(block, k / block.size)


def test_agrid_consistency_is_dense_least_squares_and_the_stated_formula():
    """On a two-level tile tree (the root unmeasured, tiles at a, sub-tiles at b) the engine's
    BLUE equals the dense weighted least squares of the sub-tile values, and each tile's
    value is (a^2 k v + b^2 S) / (a^2 k + b^2)."""
    shape = (5, 4)
    subs = np.array([2, 1, 3, 4])
    tree = tile_tree(shape, [lambda lo, hi: np.full(lo.shape[0], 3), lambda lo, hi: subs])
    rng = np.random.default_rng(0)
    a_eps, b_eps = 0.3, 0.7
    budgets = np.where(tree.depth == 1, a_eps, np.where(tree.depth == 2, b_eps, 0.0))
    noisy = np.where(tree.depth == 0, np.nan, rng.normal(10, 5, tree.size))
    smoothed = blue(tree, noisy, budgets)
    leaves = np.flatnonzero(tree.is_leaf)
    design = np.zeros((tree.size, leaves.size))  # node value = sum of its leaves
    design[leaves, np.arange(leaves.size)] = 1.0
    design[tree.parent[leaves], np.arange(leaves.size)] = 1.0
    w = budgets**2
    y = np.nan_to_num(noisy)
    dense = np.linalg.solve(design.T @ (w[:, None] * design), design.T @ (w * y))
    assert np.allclose(smoothed[leaves], dense, atol=1e-9)
    for t in np.flatnonzero(tree.depth == 1):
        kids = np.flatnonzero(tree.parent == t)
        k, s = kids.size, noisy[kids].sum()
        formula = (a_eps**2 * k * noisy[t] + b_eps**2 * s) / (a_eps**2 * k + b_eps**2)
        assert smoothed[t] == pytest.approx(formula, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["UGrid", "PrivTree"])
def test_published_boxes_carry_laplace_noise_of_their_budget(name):
    """Simulation (seed 12, 300 releases of a 32 x 32 grid): each published box's estimated
    sum minus its true sum has mean 0 and variance 2 / eps_box^2 (within 10 %), eps_box =
    the budget's "tiles" or "leaves" part."""
    grid = np.random.default_rng(1).poisson(1.0, (32, 32)).astype(float)
    grid[:8, :8] += 40
    rng = np.random.default_rng(12)
    gaps, eps_box = [], 0.0
    for _ in range(300):
        run = release(name, grid, 0.5, workload="random rectangles", rng=rng)
        eps_box = run.budget.get("tiles", run.budget.get("leaves"))
        for r0, c0, r1, c1 in run.buckets:
            block = (slice(r0, r1 + 1), slice(c0, c1 + 1))
            gaps.append(run.estimate[block].sum() - grid[block].sum())
    gaps = np.asarray(gaps)
    assert gaps.var() == pytest.approx(2 / eps_box**2, rel=0.1)
    assert abs(gaps.mean()) < 4 * np.sqrt(2 / eps_box**2 / gaps.size)


def brute_privtree(grid, lam, delta, noise_of, theta=0.0):
    """PrivTree's recursion as the paper states it, on boxes: returns the leaf boxes."""
    leaves = []

    def visit(lo, hi, depth):
        count = grid[lo[0] : hi[0] + 1, lo[1] : hi[1] + 1].sum()
        biased = max(theta - delta, count - depth * delta)
        one_cell = lo == hi
        if one_cell or not biased + lam * noise_of(lo, hi) > theta:
            leaves.append((lo, hi))
            return
        cuts = []
        for d in range(2):  # each axis in two, the first half gets the extra cell
            if lo[d] == hi[d]:
                cuts.append([(lo[d], hi[d])])
            else:
                mid = lo[d] + (hi[d] - lo[d] + 2) // 2 - 1
                cuts.append([(lo[d], mid), (mid + 1, hi[d])])
        for r in cuts[0]:
            for c in cuts[1]:
                visit((r[0], c[0]), (r[1], c[1]), depth + 1)

    visit((0, 0), (grid.shape[0] - 1, grid.shape[1] - 1), 0)
    return sorted(leaves)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_privtree_splits_match_the_recursive_definition(seed):
    rng = np.random.default_rng(seed)
    grid = rng.poisson(1.5, (8, 6)).astype(float)
    grid[:3, :2] += 9
    tree = quadtree(grid.shape)
    noise = rng.laplace(0.0, 1.0, tree.size)
    index = {
        (tuple(a.tolist()), tuple(b.tolist())): v
        for v, (a, b) in enumerate(zip(tree.lo, tree.hi, strict=True))
    }
    sums = np.array(
        [
            grid[a[0] : b[0] + 1, a[1] : b[1] + 1].sum()
            for a, b in zip(tree.lo, tree.hi, strict=True)
        ]
    )
    lam, delta = 1.3, 1.3 * math.log(4)
    reached, split = privtree.split_decisions(tree, sums, lam, delta, noise)
    leaves = np.flatnonzero(reached & ~split)
    got = sorted((tuple(tree.lo[v].tolist()), tuple(tree.hi[v].tolist())) for v in leaves)
    expected = brute_privtree(grid, lam, delta, lambda lo, hi: noise[index[(lo, hi)]])
    assert got == expected
    assert 1 < len(got) < grid.size  # the example splits some nodes and not others


@pytest.mark.parametrize("beta", [2, 4, 8])
def test_privtree_noise_scale_spends_exactly_the_structure_budget(beta):
    """The theorem's cost with delta = lambda ln(beta) and lambda = (2 beta - 1)/((beta - 1)
    eps_s) is eps_s: (1/lambda)(2 beta - 1)/(beta - 1) by hand."""
    lam = privtree.noise_scale(0.37, beta)
    assert privtree.structure_epsilon(lam, lam * math.log(beta)) == pytest.approx(0.37, rel=1e-12)
    assert privtree.noise_scale(0.05) == pytest.approx(7 / (3 * 0.05))


def test_ugrid_and_agrid_pay_for_the_number_of_records():
    grid = np.ones((16, 16))
    for name in ("UGrid", "AGrid"):
        run = release(name, grid, 0.4, workload="random rectangles", rng=np.random.default_rng(0))
        assert run.budget["records N"] == pytest.approx(0.05 * 0.4)


def brute_kd(guide, eps2):
    """DPCube-2D's cuts as stated: longer axis (axis 1 on ties), best cut by direct SSE, kept
    iff best + 2/eps2 < SSE(box) + 1/eps2; returns the final boxes."""

    def sse(r0, c0, r1, c1):
        block = guide[r0 : r1 + 1, c0 : c1 + 1]
        return ((block - block.mean()) ** 2).sum()

    out = []

    def visit(r0, c0, r1, c1):
        rows, cols = r1 - r0 + 1, c1 - c0 + 1
        axis = 0 if rows > cols else 1
        if (rows, cols)[axis] < 2:
            out.append((r0, c0, r1, c1))
            return
        options = []
        for cut in range((r0, c0)[axis], (r1, c1)[axis]):
            if axis == 0:
                parts = ((r0, c0, cut, c1), (cut + 1, c0, r1, c1))
            else:
                parts = ((r0, c0, r1, cut), (r0, cut + 1, r1, c1))
            options.append((sse(*parts[0]) + sse(*parts[1]), parts))
        best = min(options, key=lambda o: o[0])
        if best[0] + 2 / eps2 < sse(r0, c0, r1, c1) + 1 / eps2:
            visit(*best[1][0])
            visit(*best[1][1])
        else:
            out.append((r0, c0, r1, c1))

    visit(0, 0, guide.shape[0] - 1, guide.shape[1] - 1)
    return sorted(out)


@pytest.mark.parametrize(("seed", "eps2"), [(0, 0.05), (1, 0.2), (2, 1.0)])
def test_dpcube_2d_cuts_match_the_recursive_definition(seed, eps2):
    rng = np.random.default_rng(seed)
    guide = rng.gamma(0.6, 20.0, (9, 7))
    guide[:4, :3] += 60
    lo, hi = dpcube2d.kd_partition(guide, eps2)
    got = sorted(map(tuple, np.hstack([lo, hi]).tolist()))
    assert got == brute_kd(guide, eps2)
    assert len(got) > 1


def test_dpcube_2d_guide_is_an_11_cell_grid_it_does_not_publish():
    """With one dense 11 x 11 tile and noise far below it, the cuts follow that tile, and the
    published boxes' totals are fresh measurements (budget (1 - alpha) eps)."""
    grid = np.zeros((22, 22))
    grid[:11, :11] = 1000.0
    run = release(
        "DPCube-2D", grid, 2.0, workload="random rectangles", rng=np.random.default_rng(0)
    )
    assert run.budget == {"grid": 1.0, "partition counts": 1.0}
    boxes = {tuple(b) for b in run.buckets.tolist()}
    assert (0, 0, 10, 10) in boxes
