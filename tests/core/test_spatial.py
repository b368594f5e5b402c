"""Region trees, rectangle coverage and the exact errors of spec 06, against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpcore import spatial
from dpcore.hist import blue_error, budget, consistency, coverage, raw_error, release, tree
from dpcore.spatial import allocation, error, gradient, rectangles, regions, rules
from tests import oracles

SHAPES = [(8, 8), (6, 10), (5, 3), (1, 7)]
BUILDERS = {
    "quad": lambda shape: regions.quadtree(shape),
    "4x4": lambda shape: regions.quadtree(shape, (4, 4)),
    "3x2": lambda shape: regions.quadtree(shape, (3, 2)),
    "kd": regions.kd_tree,
}
WORKLOADS = ["random rectangles", "all rectangles"]


def random_budgets(t: regions.BoxTree, rng: np.random.Generator) -> np.ndarray:
    """Random positive per-node shares, scaled so that the worst path sums to 1."""
    b = rng.uniform(0.2, 1.0, t.size)
    return b / budget.release_epsilon(t, b)


# ------------------------------------------------------------------ trees


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", list(BUILDERS))
def test_children_tile_their_parent_and_leaves_are_cells(shape, kind):
    t = BUILDERS[kind](shape)
    a = oracles.box_strategy_matrix(t)
    assert a[0].all()  # the root is the grid
    for x in range(t.size):
        kids = np.arange(t.child_ptr[x], t.child_ptr[x + 1])
        if kids.size == 0:
            assert a[x].sum() == 1
        else:
            assert kids.size >= 2 and (t.parent[kids] == x).all()
            np.testing.assert_array_equal(a[kids].sum(axis=0), a[x])  # disjoint and covering
    np.testing.assert_array_equal(t.depth[1:], t.depth[t.parent[1:]] + 1)


def test_quadtree_sizes_and_uneven_split_gives_the_first_part_the_extra_cell():
    assert regions.quadtree((64, 64)).size == 5461
    assert regions.quadtree((256, 256)).size == 87381
    t = regions.quadtree((3, 5))
    kids = slice(t.child_ptr[0], t.child_ptr[1])
    assert t.lo[kids].tolist() == [[0, 0], [0, 3], [2, 0], [2, 3]]
    assert t.hi[kids].tolist() == [[1, 2], [1, 4], [2, 2], [2, 4]]
    g = regions.quadtree((7, 7), (3, 3))  # 7 = 3 + 2 + 2
    assert g.hi[1:4, 1].tolist() == [2, 4, 6]


def test_kd_tree_cuts_the_longest_axis_ties_to_the_later():
    t = regions.kd_tree((4, 6))
    assert (t.lo[1].tolist(), t.hi[1].tolist()) == ([0, 0], [3, 2])
    assert (t.lo[3].tolist(), t.hi[3].tolist()) == ([0, 0], [1, 2])  # 4 x 3: rows
    assert (t.lo[7].tolist(), t.hi[7].tolist()) == ([0, 0], [1, 1])  # 2 x 3: columns, 2 + 1
    assert (t.lo[15].tolist(), t.hi[15].tolist()) == ([0, 0], [1, 0])  # 2 x 2, a tie: columns
    assert t.size == 2 * 24 - 1


def test_node_sums_and_canonical_decomposition_by_brute_force():
    rng = np.random.default_rng(3)
    t = regions.quadtree((6, 10))
    counts = rng.integers(0, 50, (6, 10)).astype(float)
    a = oracles.box_strategy_matrix(t)
    np.testing.assert_allclose(regions.node_sums(t, counts), a @ counts.ravel())
    for lo, hi, _ in oracles.rectangles_by_enumeration((6, 10), "all rectangles")[::37]:
        nodes = regions.canonical_decomposition(t, lo, hi)
        np.testing.assert_array_equal(a[nodes].sum(axis=0), oracles.query_vector((6, 10), lo, hi))


def test_bad_boxes_and_grids_are_refused():
    t = regions.quadtree((4, 4))
    with pytest.raises(ValueError, match="not inside the grid"):
        regions.canonical_decomposition(t, (0, 2), (4, 3))
    with pytest.raises(ValueError, match="one fan-out per axis"):
        regions.quadtree((4, 4), (2,))
    with pytest.raises(ValueError, match="over the limit"):
        regions.quadtree((1 << 12, 1 << 11))
    with pytest.raises(ValueError, match="shape"):
        regions.node_sums(t, np.zeros((4, 5)))


# ------------------------------------------------------------------ coverage


def test_dpbench_axis_containment_matches_the_spec():
    c = rectangles.rectangle_workload("random rectangles", (8, 8)).axis_containment(0)
    got = [c[0, 0], c[7, 7], c[2, 2], c[3, 5], c[0, 7]]
    np.testing.assert_allclose(got, [0.339732, 0.339732, 0.657589, 0.539583, 0.125], atol=1e-6)


@pytest.mark.parametrize("workload", WORKLOADS)
@pytest.mark.parametrize("kind", ["quad", "3x2", "kd"])
def test_coverage_equals_enumeration_of_every_rectangle(workload, kind):
    shape = (6, 10)
    t = BUILDERS[kind](shape)
    expected = np.zeros(t.size)
    total = 0.0
    for lo, hi, p in oracles.rectangles_by_enumeration(shape, workload):
        expected[regions.canonical_decomposition(t, lo, hi)] += p
        total += p
    assert total == pytest.approx(1.0)
    np.testing.assert_allclose(rectangles.coverage_probabilities(t, workload), expected, atol=1e-12)


def test_listed_rectangles_coverage_counts_each_listing():
    t = regions.quadtree((5, 7))
    listed = [((0, 0), (4, 6)), ((1, 2), (3, 5)), ((1, 2), (3, 5)), ((4, 6), (4, 6))]
    expected = np.zeros(t.size)
    for lo, hi in listed:
        expected[regions.canonical_decomposition(t, lo, hi)] += 0.25
    np.testing.assert_allclose(rectangles.coverage_probabilities(t, listed), expected)
    with pytest.raises(ValueError, match=r"box \[2, 0\]..\[5, 1\] is not inside"):
        rectangles.coverage_probabilities(t, [((0, 0), (1, 1)), ((2, 0), (5, 1))])
    with pytest.raises(ValueError, match="unknown workload"):
        rectangles.rectangle_workload("random ranges", (5, 7))


def test_generator_sampler_draws_dpbench_widths_and_positions():
    lo, hi = rectangles.sample_rectangles((5, 3), 60_000, np.random.default_rng(9))
    expected = {
        (a, c, b, d): p
        for (a, c), (b, d), p in oracles.rectangles_by_enumeration((5, 3), "random rectangles")
    }
    keys, counts = np.unique(np.hstack([lo, hi]), axis=0, return_counts=True)
    assert len(keys) == len(expected)
    freq = counts / 60_000
    prob = np.array([expected[tuple(int(v) for v in k)] for k in keys])
    # binomial standard errors: every frequency within 4.5 of them
    assert np.all(np.abs(freq - prob) < 4.5 * np.sqrt(prob * (1 - prob) / 60_000))


def test_sampler_draws_in_dpbench_order():
    lo, hi = rectangles.sample_rectangles((128, 128), 2000, np.random.RandomState(0))
    assert [lo[:3].tolist(), hi[:3].tolist()] == [
        [[64, 67], [1, 19], [36, 7]],
        [[108, 114], [124, 86], [57, 121]],
    ]
    area = np.prod(hi - lo + 1, axis=1)
    assert round(area.mean()) == 4303  # spec 06: the first 2,000 queries average 4,303
    w = rectangles.rectangle_workload("random rectangles", (128, 128))
    assert w.expected_area() == pytest.approx(64.5**2)


def test_node_usage_by_height_at_128():
    t = regions.quadtree((128, 128))
    p = rectangles.coverage_probabilities(t, "random rectangles")
    by_height = np.bincount(t.height - 1 - t.depth, weights=p)
    expected = [125.0, 61.4, 29.5, 13.4, 5.2, 1.08, 0.01, 0.00]  # spec 06, §3 (derived)
    np.testing.assert_allclose(by_height, expected, atol=0.051)
    assert by_height.sum() == pytest.approx(236, abs=0.5)


# ------------------------------------------------------------------ budgets and BLUE


def test_budget_rules_at_128_match_the_spec_and_spend_eps():
    t = regions.quadtree((128, 128))
    p = rectangles.coverage_probabilities(t, "random rectangles")
    geometric = budget.geometric_budgets(t, 1.0)
    np.testing.assert_allclose(
        geometric[t.level_ptr[:-1]],
        [0.0486, 0.0612, 0.0771, 0.0972, 0.1224, 0.1543, 0.1943, 0.2449],
        atol=5e-5,
    )
    per_level = budget.per_level_budgets(t, 1.0, p)[t.level_ptr[:-1]][::-1]
    np.testing.assert_allclose(
        per_level, [0.288, 0.227, 0.178, 0.137, 0.100, 0.059, 0.010, 0.002], atol=5e-4
    )
    for b in (geometric, budget.optimal_budgets(t, 1.0, p), budget.uniform_budgets(t, 1.0)):
        assert budget.release_epsilon(t, b) == pytest.approx(1.0)


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_blue_on_a_region_tree_is_dense_least_squares(kind):
    rng = np.random.default_rng(11)
    t = BUILDERS[kind]((6, 10))
    eps = random_budgets(t, rng)
    noisy = regions.node_sums(t, rng.integers(0, 9, (6, 10))) + rng.normal(0, 3, t.size)
    a = oracles.box_strategy_matrix(t)
    w = eps**2
    cells = np.linalg.solve(a.T @ (w[:, None] * a), a.T @ (w * noisy))
    np.testing.assert_allclose(consistency.blue(t, noisy, eps), a @ cells, atol=1e-9)


# ------------------------------------------------------------------ exact errors


@pytest.mark.parametrize("workload", WORKLOADS)
@pytest.mark.parametrize("shape", [(8, 8), (6, 10), (5, 3)])
@pytest.mark.parametrize("kind", list(BUILDERS))
def test_blue_error_equals_dense_gls(workload, shape, kind):
    t = BUILDERS[kind](shape)
    eps = random_budgets(t, np.random.default_rng(5))
    gram = oracles.dense_rectangle_gram(shape, workload)
    expected = oracles.dense_gls_error(t, eps, gram)
    assert error.blue_expected_error(t, eps, workload) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("kind", ["quad", "kd"])
def test_blue_error_with_unmeasured_internal_nodes_equals_dense_gls(kind):
    t = BUILDERS[kind]((6, 10))
    eps = random_budgets(t, np.random.default_rng(6))
    eps[0] = 0.0  # the root and every node of depth 2 are not measured
    eps[t.depth == 2] = 0.0
    gram = oracles.dense_rectangle_gram((6, 10), "random rectangles")
    expected = oracles.dense_gls_error(t, eps, gram)
    got = error.blue_expected_error(t, eps, "random rectangles")
    assert got == pytest.approx(expected, rel=1e-10)


def test_blue_error_of_listed_rectangles_equals_dense_gls():
    t = regions.quadtree((6, 10))
    eps = random_budgets(t, np.random.default_rng(2))
    lo, hi = rectangles.sample_rectangles((6, 10), 40, np.random.default_rng(8))
    qs = np.stack([oracles.query_vector((6, 10), a, b) for a, b in zip(lo, hi, strict=True)])
    listed = np.stack([lo, hi], axis=1)
    expected = oracles.dense_gls_error(t, eps, qs.T @ qs / len(qs))
    assert error.blue_expected_error(t, eps, listed) == pytest.approx(expected, rel=1e-10)


def test_blue_error_refuses_undetermined_nodes():
    t = regions.quadtree((4, 4))
    eps = np.full(t.size, 1 / 3)
    eps[t.size - 1] = 0.0
    with pytest.raises(ValueError, match="not determined"):
        error.blue_expected_error(t, eps, "all rectangles")


@pytest.mark.parametrize("workload", WORKLOADS)
def test_raw_error_equals_enumeration(workload):
    t = regions.quadtree((6, 10), (3, 2))
    eps = random_budgets(t, np.random.default_rng(4))
    var = 2.0 / eps**2
    expected = sum(
        p * var[regions.canonical_decomposition(t, lo, hi)].sum()
        for lo, hi, p in oracles.rectangles_by_enumeration((6, 10), workload)
    )
    assert error.raw_expected_error(t, eps, workload) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("n, fanout", [(37, 2), (50, 3), (64, 16)])
def test_the_general_path_on_an_interval_tree_equals_the_1d_shortcut(n, fanout):
    t = tree.kary_tree(n, fanout)
    p = coverage.coverage_probabilities(t)
    eps = budget.optimal_budgets(t, 1.0, p)
    boxes = regions.as_box_tree(t)
    np.testing.assert_allclose(rectangles.coverage_probabilities(boxes, "all rectangles"), p)
    assert error.blue_expected_error(boxes, eps, "all rectangles") == pytest.approx(
        blue_error.blue_expected_error(t, eps, "uniform"), rel=1e-10
    )
    assert error.raw_expected_error(boxes, eps, "all rectangles") == pytest.approx(
        raw_error.raw_expected_error(t, eps, "uniform"), rel=1e-12
    )


# ------------------------------------------------------------------ the headline numbers

TARGETS = [  # spec 06, §4: 64 x 64, eps = 1, DPBench rectangles, full quadtree
    ("per-node", True, 1393),
    ("geometric", True, 1837),
    ("uniform", True, 4475),
    ("per-level", True, 1525),
    ("per-node", False, 3348),
    ("geometric", False, 5159),
    ("uniform", False, 10853),
    ("per-level", False, 3930),
    ("identity", True, 2112.5),
]


@pytest.mark.parametrize("budgets, consistent, target", TARGETS)
def test_headline_numbers_at_64(budgets, consistent, target):
    got = spatial.expected_error((64, 64), budgets=budgets, consistent=consistent)
    assert got == pytest.approx(target, rel=0.005)


@pytest.mark.parametrize(
    "budgets, target",
    [
        ("identity", 8320.5),
        ("uniform", 30159),
        ("geometric", 13159),
        ("per-level", 10506),
        ("per-node", 8747),
    ],
)
def test_held_out_raw_numbers_at_128(budgets, target):
    got = spatial.expected_error((128, 128), budgets=budgets, consistent=False)
    assert got == pytest.approx(target, rel=0.005)


def test_headline_numbers_scale_with_eps_and_reject_unknown_rules():
    one = spatial.expected_error((16, 16), budgets="geometric")
    assert spatial.expected_error((16, 16), budgets="geometric", eps=0.5) == pytest.approx(4 * one)
    with pytest.raises(ValueError, match="unknown budgets"):
        spatial.expected_error((16, 16), budgets="optimal")  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("budgets", ["per-node", "geometric", "uniform"])
def test_targets_at_64_against_dense_gls(budgets):
    t = regions.quadtree((64, 64))
    load = rectangles.rectangle_workload("random rectangles", (64, 64))
    p = rectangles.coverage_probabilities(t, load)
    eps = {
        "per-node": budget.optimal_budgets(t, 1.0, p),
        "geometric": budget.geometric_budgets(t, 1.0),
        "uniform": budget.uniform_budgets(t, 1.0),
    }[budgets]
    gram = np.kron(load.axis_gram(0), load.axis_gram(1))
    expected = oracles.dense_gls_error(t, eps, gram)
    assert spatial.expected_error((64, 64), budgets=budgets) == pytest.approx(expected, rel=1e-9)


def simulated_error(
    shape: tuple[int, int], budgets: str, trials: int, seed: int
) -> tuple[float, float]:
    """Mean squared error of DPBench rectangles from seeded releases after BLUE, and its
    standard error (over trials: one release and 200 fresh rectangles each)."""
    rng = np.random.default_rng(seed)
    t = regions.quadtree(shape)
    p = rectangles.coverage_probabilities(t, "random rectangles")
    eps = {
        "per-node": budget.optimal_budgets(t, 1.0, p),
        "geometric": budget.geometric_budgets(t, 1.0),
    }[budgets]
    counts = rng.integers(0, 20, shape).astype(float)
    truth = regions.node_sums(t, counts)
    smoother = consistency.BlueSmoother.build(t, eps)
    leaves = np.flatnonzero(t.is_leaf)
    per_trial = np.empty(trials)
    for k in range(trials):
        estimate = smoother.apply(release.release_sums(truth, eps, rng))
        cells = np.zeros(shape)
        cells[t.lo[leaves, 0], t.lo[leaves, 1]] = estimate[leaves]
        table = regions.summed_area_table(cells - counts)
        lo, hi = rectangles.sample_rectangles(shape, 200, rng)
        per_trial[k] = np.mean(regions.box_sums(table, lo, hi) ** 2)
    return float(per_trial.mean()), float(per_trial.std(ddof=1) / np.sqrt(trials))


@pytest.mark.parametrize("budgets", ["per-node", "geometric"])
def test_simulation_agrees_with_the_exact_error_at_16(budgets):
    mean, se = simulated_error((16, 16), budgets, trials=1500, seed=1)
    exact = spatial.expected_error((16, 16), budgets=budgets)
    assert se < 0.04 * exact  # the test can resolve a 4 SE = 16 % miss
    assert abs(mean - exact) < 4 * se


@pytest.mark.parametrize("budgets, target", [("per-node", 1393), ("geometric", 1837)])
def test_simulation_agrees_with_the_targets_at_64(budgets, target):
    mean, se = simulated_error((64, 64), budgets, trials=600, seed=2)
    assert se < 0.03 * target
    assert abs(mean - target) < 4 * se


# ------------------------------------------------------------------ budgets optimal after BLUE


def simplex_grid(levels: int, step: float) -> np.ndarray:
    """Every share vector on a grid of the simplex with all shares >= step."""
    k = round(1 / step)
    rows = [c for c in itertools.product(range(1, k), repeat=levels - 1) if sum(c) < k]
    points = np.array([[*c, k - sum(c)] for c in rows], dtype=float)
    return points / k


@pytest.mark.parametrize(
    "shape, step", [((4, 4), 0.02), pytest.param((5, 7), 0.05, marks=pytest.mark.slow)]
)
def test_level_budgets_after_blue_beat_a_grid_search(shape, step):
    t = regions.quadtree(shape)
    found = allocation.level_budgets_after_blue(t, 1.0, "random rectangles")
    assert budget.release_epsilon(t, found) == pytest.approx(1.0)
    np.testing.assert_allclose(found, found[t.level_ptr[t.depth]])  # one budget per depth
    best = min(
        error.blue_expected_error(t, shares[t.depth], "random rectangles")
        for shares in simplex_grid(t.height, step)
    )
    ours = error.blue_expected_error(t, found, "random rectangles")
    assert ours <= best * (1 + 1e-3)


def test_level_budgets_after_blue_improve_on_the_rules_at_16():
    t = regions.quadtree((16, 16))
    p = rectangles.coverage_probabilities(t, "random rectangles")
    found = allocation.level_budgets_after_blue(t, 1.0)
    ours = error.blue_expected_error(t, found, "random rectangles")
    for rule in (budget.per_level_budgets(t, 1.0, p), budget.geometric_budgets(t, 1.0)):
        assert ours < 0.8 * error.blue_expected_error(t, rule, "random rectangles")
    assert ours < spatial.expected_error((16, 16), budgets="identity")


@pytest.mark.parametrize("kind", ["quad", "kd", "4x4"])
def test_error_gradient_matches_central_differences(kind):
    t = BUILDERS[kind]((6, 10))
    eps = random_budgets(t, np.random.default_rng(12))
    eps[1] = 0.05  # a small budget and an unmeasured internal node
    eps[0] = 0.0
    grad = gradient.blue_error_gradient(t, eps, "random rectangles")
    assert grad.error == pytest.approx(error.blue_expected_error(t, eps, "random rectangles"))
    assert grad.d_budget[0] == 0.0  # d/d eps at eps = 0 of a function of eps^2
    nodes = [1, 2, t.size // 2, t.size - 1]
    numeric = oracles.central_differences(
        lambda b: error.blue_expected_error(t, b, "random rectangles"), eps, nodes
    )
    for x in nodes:
        assert grad.d_budget[x] == pytest.approx(numeric[x], rel=1e-5)


def test_node_budgets_after_blue_beat_every_other_allocation_at_16():
    t = regions.quadtree((16, 16))
    p = rectangles.coverage_probabilities(t, "random rectangles")
    found = allocation.node_budgets_after_blue(t, 1.0, max_iter=60)
    assert budget.release_epsilon(t, found) == pytest.approx(1.0)
    ours = error.blue_expected_error(t, found, "random rectangles")
    level = allocation.level_budgets_after_blue(t, 1.0, max_evaluations=60)
    assert ours <= error.blue_expected_error(t, level, "random rectangles") * (1 + 1e-12)
    lue = budget.optimal_budgets(t, 1.0, p)
    assert ours < 0.7 * error.blue_expected_error(t, lue, "random rectangles")
    with pytest.raises(ValueError, match="independent axes"):
        gradient.blue_error_gradient(t, found, [((0, 0), (3, 3))])


@pytest.mark.parametrize("shape", [(8, 8), (6, 5)])
def test_identity_as_a_tree_has_identitys_error_raw_and_after_blue(shape):
    """Leaves-only budgets are Identity: ``2 E[area] / eps^2`` (DPBench's mean area per axis
    ``(n + 1) / 2`` on an ``n x n`` grid; any grid: the product of the axes' mean widths)."""
    t = regions.quadtree(shape)
    eps_x = rules.tree_budgets(t, "identity", 0.5, np.zeros(t.size))
    assert set(eps_x[t.is_leaf]) == {0.5} and not eps_x[~t.is_leaf].any()
    mean_width = [np.mean(np.arange(1, n + 1)) for n in shape]  # width uniform on 1..n
    expected = 2 * np.prod(mean_width) / 0.5**2
    assert error.raw_expected_error(t, eps_x, "random rectangles") == pytest.approx(expected)
    assert error.blue_expected_error(t, eps_x, "random rectangles") == pytest.approx(expected)
    with pytest.raises(ValueError, match="unknown budgets"):
        rules.tree_budgets(t, "flat", 1.0, np.zeros(t.size))  # type: ignore[arg-type]
