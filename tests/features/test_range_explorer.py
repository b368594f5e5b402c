"""The range-query explorer: its computations against independent derivations, and the page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import budget, consistency, coverage, matrix_mechanism, privelet, release
from dpcore.hist.tree import kary_tree, struct_construct
from dpui.tree import figures as tree_figures
from dpui.tree import range_explorer as rx
from dpui.tree import range_figures

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("selection", "n", "block", "expected"),
    [
        ({"box": [{"x": [10.4, 3.2]}], "points": []}, 100, 1, (4, 10)),
        ({"box": [], "points": [{"point_index": 2}, {"point_index": 5}]}, 8, 1, (3, 6)),
        # blocks of 4 bins: points 1..2 are bins 5..12
        ({"box": [], "points": [{"point_index": 1}, {"point_index": 2}]}, 100, 4, (5, 12)),
        ({"box": [{"x": [-50.0, 1e9]}], "points": []}, 100, 1, (1, 100)),
        ({"box": [{"x": ["a", "b"]}], "points": []}, 100, 1, None),
        ({"box": [], "points": []}, 8, 1, None),
    ],
)
def test_a_selection_on_the_histogram_becomes_a_bin_range(selection, n, block, expected):
    assert rx.range_from_selection(selection, n, block) == expected


def test_clamp_keeps_ranges_inside_the_histogram():
    assert rx.clamp(11, 2, 8) == (2, 8)
    assert rx.clamp(0, 0, 5) == (1, 1)
    assert rx.clamp(3, 4, 10) == (3, 4)


def _release(t, eps, seed):
    counts = np.random.default_rng(seed).integers(0, 50, t.n_bins).astype(float)
    p = coverage.coverage_probabilities(t, "uniform")
    b = budget.optimal_budgets(t, eps, p)
    noisy = release.laplace_release(t, counts, b, np.random.default_rng(seed + 1))
    consistent = consistency.blue(t, noisy, b)
    return counts, b, noisy, consistent


@pytest.mark.parametrize("t", [kary_tree(13, 2), kary_tree(27, 3), struct_construct(20)])
def test_every_range_answers_and_errors_match_dense_least_squares(t):
    counts, b, noisy, consistent = _release(t, 1.0, 7)
    leaves = consistent[t.leaf_of_bin]
    a_mat = np.zeros((t.size, t.n_bins))
    for x in range(t.size):
        a_mat[x, t.lo[x] : t.hi[x] + 1] = 1.0
    w = np.diag(b**2 / 2.0)  # precision of each node's measurement
    cov = np.linalg.inv(a_mat.T @ w @ a_mat)  # BLUE covariance of the bins
    for first in range(1, t.n_bins + 1):
        for last in range(first, t.n_bins + 1):
            s = rx.study(t, b, counts, noisy, leaves, first, last)
            ind = np.zeros(t.n_bins)
            ind[first - 1 : last] = 1.0
            # raw: the noisy decomposition nodes tile the range exactly
            covered = a_mat[s.decomposition].sum(axis=0)
            assert np.array_equal(covered, ind)
            assert s.raw_answer == pytest.approx(noisy[s.decomposition].sum())
            assert s.raw_error == pytest.approx(np.sum(2.0 / b[s.decomposition] ** 2))
            # BLUE: the consistent answer is sum_x c_x noisy_x, its MSE w^T cov w
            assert s.blue_answer == pytest.approx(float(s.weights @ noisy), abs=1e-9)
            assert s.blue_error == pytest.approx(float(ind @ cov @ ind), rel=1e-9)
            assert s.blue_shares.sum() == pytest.approx(1.0)
            assert s.true == counts[first - 1 : last].sum()


def test_node_table_lists_the_decomposition_and_the_largest_blue_shares():
    t = kary_tree(64, 4)
    counts, b, noisy, consistent = _release(t, 0.5, 3)
    s = rx.study(t, b, counts, noisy, consistent[t.leaf_of_bin], 6, 41)
    table = rx.node_table(t, b, s, top=5)
    listed = set(table["node"])
    assert set(s.decomposition) <= listed
    assert set(np.argsort(-s.blue_shares)[:5]) <= listed
    raw = table[table["in raw answer"] == "yes"]
    assert raw["raw share of error"].sum() == pytest.approx(1.0)
    assert np.all(np.diff(table["BLUE share of error"].to_numpy()) <= 1e-15)  # largest first


def test_simulated_spread_matches_the_exact_variance():
    """20,000 seeded draws: the sample variance of a sum of Laplace terms (kurtosis <= 6) has
    relative standard error <= sqrt(5 / 20,000) = 1.6%; allow 4 of them."""
    t = kary_tree(256, 2)
    counts, b, noisy, consistent = _release(t, 1.0, 11)
    s = rx.study(t, b, counts, noisy, consistent[t.leaf_of_bin], 30, 200)
    from dpcore.hist import laplace_sum

    for weights, exact in (
        (np.isin(np.arange(t.size), s.decomposition), s.raw_error),
        (s.weights, s.blue_error),
    ):
        scales = laplace_sum.node_scales(weights, b)
        spread = rx.error_spread(scales[scales > 0], 20_000, seed=5)
        assert spread.draws.var() == pytest.approx(exact, rel=4 * np.sqrt(5 / 20_000))
        step = spread.x[1] - spread.x[0]
        assert spread.density.sum() * step == pytest.approx(1.0, abs=1e-3)
        assert (spread.x**2 * spread.density).sum() * step == pytest.approx(exact, rel=1e-3)


def test_method_errors_match_the_dense_matrix_mechanism():
    """Flat Laplace is 2L/eps^2; Privelet's range error from its dense strategy matrix."""
    n, eps, first, last = 16, 0.5, 3, 12
    table = rx.method_errors(n, eps, "uniform", first, last, {}).set_index("method")
    assert table.loc["flat Laplace", "this range"] == pytest.approx(2 * 10 / eps**2)
    strategy = privelet.strategy_matrix(n)
    rows = strategy.shape[0]
    budgets = np.full(rows, eps / privelet.sensitivity(n))
    query = np.zeros((1, n))
    query[0, first - 1 : last] = 1.0
    dense = matrix_mechanism.least_squares_query_mse(strategy, budgets, query)
    assert table.loc["Privelet", "this range"] == pytest.approx(float(np.ravel(dense)[0]))


def test_figures_draw_both_spreads_and_every_method():
    t = kary_tree(64, 2)
    counts, b, noisy, consistent = _release(t, 1.0, 1)
    s = rx.study(t, b, counts, noisy, consistent[t.leaf_of_bin], 5, 20)
    spread = {"raw tree": rx.error_spread(np.array([1.0, 2.0]), 100, 0)}
    table = rx.method_errors(64, 1.0, "uniform", 5, 20, {"uniform": (1.0, 2.0, 3.0, 4.0)})
    fig = range_figures.range_panels(spread, table, "uniform, BLUE")
    binned, exact, this_range, average = fig.data
    assert [tr.type for tr in fig.data] == ["bar", "scatter", "bar", "bar"]
    # the simulated density is binned here: 60 bars whose areas add up to 1
    assert len(binned.x) == range_figures.BINS
    assert float(np.sum(np.asarray(binned.y) * np.asarray(binned.width))) == pytest.approx(1.0)
    assert len(this_range.y) == len(average.y) == len(table) == 4
    names = [a.text for a in fig.layout.annotations if a.yref == "y2"]
    assert names == ["<b>uniform, BLUE</b>" if m == "uniform, BLUE" else m for m in table.method]
    assert (binned.xaxis or "x", this_range.xaxis) == ("x", "x2")  # upper and lower panel
    # the exact density drawn with at most CURVE_POINTS of its 2,048 grid points, still
    # spanning the curve and reaching its peak to within a grid step's change
    curve = spread["raw tree"]
    drawn = len(exact.x)
    assert curve.x.size > range_figures.CURVE_POINTS >= drawn > range_figures.CURVE_POINTS / 2
    assert exact.x[0] < -2 * np.std(curve.draws) and exact.x[-1] > 2 * np.std(curve.draws)
    assert max(exact.y) == pytest.approx(curve.density.max(), rel=0.02)
    assert "100 seeded releases" in fig.layout.annotations[0].text
    # no finite spread (an unmeasured node): said in the panel, no count of releases invented
    empty = range_figures.range_panels({}, table, "uniform, BLUE")
    texts = [a.text for a in empty.layout.annotations]
    assert any("No finite error" in t for t in texts) and "0 seeded" not in texts[0]
    assert [tr.type for tr in empty.data] == ["bar", "bar"]
    hist = tree_figures.histogram_comparison({"true": counts}, None, (s.first, s.last))
    assert hist.layout.dragmode == "select" and len(hist.layout.shapes) == 1


def _page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120)


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_page_range_inputs_update_the_numbers_and_the_link():
    at = _page().run()
    assert not at.exception
    at.number_input(key=rx.FIRST.name).set_value(100).run()
    # moving the first bin past the last one drags the last one along
    assert at.number_input(key=rx.LAST.name).value == 100
    at.number_input(key=rx.LAST.name).set_value(400).run()
    assert not at.exception
    assert at.query_params[rx.FIRST.name] in (["100"], "100")
    assert at.query_params[rx.LAST.name] in (["400"], "400")
    raw = float(_metric(at, "Expected error, raw").replace(",", ""))
    blue = float(_metric(at, "Expected error, BLUE").replace(",", ""))
    assert 0 < blue < raw
    assert len(at.get("plotly_chart")) == 3  # tree, histogram, the range's two panels


def test_page_range_from_a_link_is_clamped_to_the_histogram_and_bad_values_fall_back():
    at = _page()
    at.query_params[rx.FIRST.name] = "900"
    at.query_params[rx.LAST.name] = "99999999"
    at.session_state["data"] = "teaching-16"
    at.run()
    assert not at.exception
    assert at.number_input(key=rx.LAST.name).value == 16
    at = _page()
    at.query_params[rx.FIRST.name] = "zero"
    at.run()
    assert not at.exception
    assert any("tb_from=zero" in w.value for w in at.warning)
