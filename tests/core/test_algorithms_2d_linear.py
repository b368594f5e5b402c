"""The linear 2-D algorithms against dense oracles: HB-2D and QuadTree equal dense weighted
least squares on their trees; Kronecker p-Identity's and Privelet-2D's reconstruction,
sensitivity and exact error equal the dense Kronecker matrix's; AHP-2D and DAWA-2D are the 1-D
algorithms on the cells (row-major; the Hilbert order, checked as a curve)."""

import numpy as np
import pytest

from dpcore.algorithms import release
from dpcore.algorithms.grid2d import hilbert, kron, trees, wavelets
from dpcore.algorithms.grid2d.inputs import rectangle_answers
from dpcore.hist import privelet
from dpcore.hist.budget import geometric_budgets, uniform_budgets
from dpcore.spatial.rectangles import rectangle_workload
from dpcore.spatial.regions import hb_fanout, quadtree


def dense_gls(tree, noisy, budgets):
    """argmin_x sum_v eps_v^2 (y_v - sum of x over v's box)^2, by a dense solve."""
    cells = np.arange(int(np.prod(tree.shape))).reshape(tree.shape)
    a = np.zeros((tree.size, cells.size))
    for v in range(tree.size):
        box = cells[tree.lo[v, 0] : tree.hi[v, 0] + 1, tree.lo[v, 1] : tree.hi[v, 1] + 1]
        a[v, box.ravel()] = 1.0
    w = budgets**2
    y = np.where(budgets > 0, noisy, 0.0)
    return np.linalg.solve(a.T @ (w[:, None] * a), a.T @ (w * y)).reshape(tree.shape)


def replayed_noisy(tree, grid, budgets, seed):
    """The node measurements the release draws: one standard Laplace per node from the
    generator, scaled by 1/eps_v (dpcore.hist.release.release_sums' draw order)."""
    noise = np.random.default_rng(seed).laplace(0.0, 1.0, tree.size)
    sums = np.array(
        [
            grid[lo[0] : hi[0] + 1, lo[1] : hi[1] + 1].sum()
            for lo, hi in zip(tree.lo, tree.hi, strict=True)
        ]
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(budgets > 0, sums + noise / budgets, np.nan)


GRID16 = np.random.default_rng(4).poisson(2.0, (16, 16)).astype(float)


def test_hb2d_is_weighted_least_squares_on_qardajis_tree():
    """At 16 x 16 Qardaji's rule picks b = 4, h = 2 (cost b (n-1) h^2 = 240, tied with
    b = 16, h = 1; the first minimum): the root unmeasured, eps/2 on each other level."""
    assert hb_fanout((16, 16)) == (4, 2)
    run = release("HB-2D", GRID16, 0.8, workload="random rectangles", rng=np.random.default_rng(9))
    assert run.budget == {"level 0": 0.0, "level 1": 0.4, "level 2": 0.4}
    tree = quadtree((16, 16), (4, 4))
    budgets = uniform_budgets(tree, 0.8, measure_root=False)
    expected = dense_gls(tree, replayed_noisy(tree, GRID16, budgets, 9), budgets)
    assert np.allclose(run.estimate, expected, atol=1e-9)


@pytest.mark.parametrize("shape", [(8, 8), (5, 7)])
def test_quadtree_is_weighted_least_squares_with_geometric_budgets(shape):
    grid = np.random.default_rng(6).poisson(3.0, shape).astype(float)
    run = release("QuadTree", grid, 1.3, workload="all rectangles", rng=np.random.default_rng(2))
    tree = quadtree(shape)
    budgets = geometric_budgets(tree, 1.3)
    expected = dense_gls(tree, replayed_noisy(tree, grid, budgets, 2), budgets)
    assert np.allclose(run.estimate, expected, atol=1e-9)


def test_quadtree_budgets_are_cormodes_geometric_levels():
    """Spec 06 §4 at h = 7 (128 x 128), root to leaf: 0.0486 ... 0.2449 times eps."""
    run = release(
        "QuadTree",
        np.zeros((128, 128)),
        1.0,
        workload="random rectangles",
        rng=np.random.default_rng(0),
    )
    shares = list(run.budget.values())
    expected = [0.0486, 0.0612, 0.0771, 0.0972, 0.1224, 0.1543, 0.1943, 0.2449]
    assert shares == pytest.approx(expected, abs=6e-5)


def dense_kron(shape):
    rows, cols = (kron.axis_strategy(n) for n in shape)
    return np.kron(rows.matrix(), cols.matrix())


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (1, 6)])
def test_kron_pidentity_reconstructs_by_least_squares(shape):
    """Replaying the one Laplace draw of the release, the estimate equals the dense least
    squares solution of the Kronecker strategy's noisy answers."""
    grid = np.random.default_rng(1).poisson(4.0, shape).astype(float)
    a = dense_kron(shape)
    sens = np.abs(a).sum(axis=0).max()
    run = release(
        "KronPIdentity", grid, 0.9, workload="all rectangles", rng=np.random.default_rng(7)
    )
    rows, cols = (kron.axis_strategy(n) for n in shape)
    noise = np.random.default_rng(7).laplace(
        0.0, sens / 0.9, (rows.n + rows.theta.shape[0], cols.n + cols.theta.shape[0])
    )
    y = a @ grid.ravel() + noise.ravel()
    expected = np.linalg.lstsq(a, y, rcond=None)[0].reshape(shape)
    assert np.allclose(run.estimate, expected, atol=1e-9)
    assert rows.sensitivity * cols.sensitivity == pytest.approx(sens, rel=1e-12)


@pytest.mark.parametrize("kind", ["random rectangles", "all rectangles"])
def test_kron_expected_error_is_the_dense_trace(kind):
    """(2/eps^2) sens^2 tr(G (AᵀA)^-1) with G the dense Kronecker Gram of the workload."""
    shape = (5, 4)
    load = rectangle_workload(kind, shape)
    a = dense_kron(shape)
    sens = np.abs(a).sum(axis=0).max()
    gram = np.kron(load.axis_gram(0), load.axis_gram(1))
    dense = 2 * sens**2 / 0.5**2 * np.trace(gram @ np.linalg.inv(a.T @ a))
    assert kron.expected_error(shape, 0.5, load) == pytest.approx(dense, rel=1e-9)


@pytest.mark.slow
def test_kron_listed_error_is_the_dense_mean_and_matches_a_simulation():
    """Exact: the mean over listed rectangles q of (2/eps^2) sens^2 qᵀ(AᵀA)^-1 q. Seeded
    simulation (seed 3, 4,000 releases): the mean squared error within 5 % of it."""
    shape = (4, 5)
    rects = np.array([(0, 0, 3, 4), (1, 1, 2, 3), (0, 2, 0, 2), (2, 0, 3, 1)])
    load = rectangle_workload(rects.reshape(-1, 2, 2), shape)
    a = dense_kron(shape)
    sens = np.abs(a).sum(axis=0).max()
    cov = np.linalg.inv(a.T @ a)
    masks = np.zeros((len(rects), 20))
    for k, (r0, c0, r1, c1) in enumerate(rects):
        m = np.zeros(shape)
        m[r0 : r1 + 1, c0 : c1 + 1] = 1
        masks[k] = m.ravel()
    dense = np.mean([2 * sens**2 / 0.7**2 * q @ cov @ q for q in masks])
    assert kron.expected_error(shape, 0.7, load) == pytest.approx(dense, rel=1e-9)
    grid = np.arange(20.0).reshape(shape)
    rng = np.random.default_rng(3)
    errors = [
        masks
        @ (release("KronPIdentity", grid, 0.7, workload=rects, rng=rng).estimate - grid).ravel()
        for _ in range(4000)
    ]
    assert np.mean(np.square(errors)) == pytest.approx(dense, rel=0.05)


@pytest.mark.slow
def test_kron_error_on_all_rectangles_of_256_matches_hdmms_readme():
    """HDMM's README: KronPIdentity([16,16],[256,256]) on all rectangles has RMSE 32.69 at
    eps = sqrt(2); our per-axis optimiser's local optimum is within 2 % of it."""
    load = rectangle_workload("all rectangles", (256, 256))
    rmse = np.sqrt(kron.expected_error((256, 256), np.sqrt(2), load))
    assert rmse == pytest.approx(32.69, rel=0.02)


def padded_dense_haar(shape):
    return np.kron(privelet.strategy_matrix(shape[0]), privelet.strategy_matrix(shape[1]))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (1, 2)])
def test_privelet_2d_inverts_the_dense_kronecker_haar(shape):
    """Replaying the release's Laplace draw on the zero-padded grid, the estimate is the
    dense Kronecker Haar matrix's inverse applied to its noisy coefficients, cropped; the
    Laplace scale is the dense matrix's largest column L1 norm over eps."""
    grid = np.random.default_rng(2).poisson(3.0, shape).astype(float)
    a = padded_dense_haar(shape)
    big = (privelet.padded_size(shape[0]), privelet.padded_size(shape[1]))
    padded = np.zeros(big)
    padded[: shape[0], : shape[1]] = grid
    sens = np.abs(a).sum(axis=0).max()
    assert wavelets.sensitivity(shape) == sens
    noise = np.random.default_rng(5).laplace(0.0, sens / 0.6, big)
    y = a @ padded.ravel() + noise.ravel()
    expected = np.linalg.solve(a, y).reshape(big)[: shape[0], : shape[1]]
    run = release("Privelet-2D", grid, 0.6, workload="all rectangles", rng=np.random.default_rng(5))
    assert np.allclose(run.estimate, expected, atol=1e-9)


@pytest.mark.parametrize("kind", ["random rectangles", "all rectangles", "listed"])
def test_privelet_2d_expected_error_is_the_dense_covariance(kind):
    """(2/eps^2) sens^2 times the mean of qᵀ Σ q over the workload, Σ = (AᵀA)^-1 of the
    padded dense strategy restricted to the real cells (q on the real cells only)."""
    shape = (3, 5)
    rects = np.array([((0, 0), (2, 4)), ((1, 1), (1, 3)), ((0, 4), (2, 4))])
    load = rectangle_workload(rects if kind == "listed" else kind, shape)
    a = padded_dense_haar(shape)
    sens = np.abs(a).sum(axis=0).max()
    big = (privelet.padded_size(shape[0]), privelet.padded_size(shape[1]))
    real = np.zeros(big, dtype=bool)
    real[: shape[0], : shape[1]] = True
    cov = np.linalg.inv(a.T @ a)[np.ix_(real.ravel(), real.ravel())]
    if kind == "listed":
        masks = []
        for (r0, c0), (r1, c1) in rects:
            m = np.zeros(shape)
            m[r0 : r1 + 1, c0 : c1 + 1] = 1
            masks.append(m.ravel())
        mean_quad = np.mean([q @ cov @ q for q in masks])
    else:
        mean_quad = np.trace(np.kron(load.axis_gram(0), load.axis_gram(1)) @ cov)
    dense = 2 * sens**2 / 0.4**2 * mean_quad
    assert wavelets.expected_error(shape, 0.4, load) == pytest.approx(dense, rel=1e-9)


def test_ahp_2d_is_1d_ahp_on_the_cells_in_row_major_order():
    grid = np.random.default_rng(3).poisson(2.0, (6, 7)).astype(float)
    run = release("AHP-2D", grid, 0.5, workload="random rectangles", rng=np.random.default_rng(4))
    flat = release("AHP", grid.ravel(), 0.5, workload="prefix", rng=np.random.default_rng(4))
    assert np.array_equal(run.estimate, flat.estimate.reshape(grid.shape))
    assert run.budget == flat.budget


@pytest.mark.parametrize("d", [2, 8, 32])
def test_the_hilbert_order_visits_every_cell_once_stepping_to_a_neighbour(d):
    xs, ys = hilbert.hilbert_order(d)
    assert sorted(zip(xs.tolist(), ys.tolist(), strict=True)) == [
        (i, j) for i in range(d) for j in range(d)
    ]
    steps = np.abs(np.diff(xs)) + np.abs(np.diff(ys))
    assert (steps == 1).all()
    assert (xs[0], ys[0]) == (0, 0)


def test_dawa_2d_is_1d_dawa_along_the_hilbert_order_of_the_padded_grid():
    grid = np.random.default_rng(6).poisson(2.0, (5, 7)).astype(float)
    run = release("DAWA-2D", grid, 0.5, workload="random rectangles", rng=np.random.default_rng(1))
    xs, ys = hilbert.hilbert_order(8)
    padded = np.zeros((8, 8))
    padded[:5, :7] = grid
    flat = release("DAWA", padded[xs, ys], 0.5, workload="all ranges", rng=np.random.default_rng(1))
    expected = np.empty((8, 8))
    expected[xs, ys] = flat.estimate
    assert np.array_equal(run.estimate, expected[:5, :7])
    assert run.budget == {"partition": 0.125, "bucket counts": 0.375}


def test_quadtree_error_at_64_is_the_reference_value():
    """The exact error after BLUE of the full quadtree with geometric budgets at 64², eps = 1,
    DPBench's rectangles: 1,837 (reference table computed with dense GLS)."""
    load = rectangle_workload("random rectangles", (64, 64))
    assert trees.expected_error("QuadTree", (64, 64), 1.0, load) == pytest.approx(1837, abs=0.5)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "shape"), [("QuadTree", (8, 8)), ("HB-2D", (16, 16))])
def test_tree_releases_match_their_exact_error(name, shape):
    """Seeded simulation (seed 4, 600 releases): the mean squared error over listed
    rectangles is within 15 % of trees.expected_error (about 3.5 standard errors)."""
    rects = np.array([(0, 0, shape[0] - 1, 3), (1, 1, 5, 6), (2, 0, 2, 0), (3, 2, 7, 7)])
    load = rectangle_workload(rects.reshape(-1, 2, 2), shape)
    grid = np.random.default_rng(0).poisson(4.0, shape).astype(float)
    truth = rectangle_answers(grid, load.lo, load.hi)
    rng = np.random.default_rng(4)
    squared = [
        (
            rectangle_answers(
                release(name, grid, 0.9, workload=rects, rng=rng).estimate, load.lo, load.hi
            )
            - truth
        )
        ** 2
        for _ in range(600)
    ]
    exact = trees.expected_error(name, shape, 0.9, load)
    assert np.mean(squared) == pytest.approx(exact, rel=0.15)
