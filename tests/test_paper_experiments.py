"""Paper experiments: Privelet's Table 2, error vs range length, error vs fan-out (and the page)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import budget, coverage, experiments, privelet_error, tree
from dpcore.hist import matrix_mechanism as mm
from dpui.papers import figures as figures
from dpui.papers import view as view
from tests.oracles import canonical_nodes, strategy_matrix, workload_ranges

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "paper_experiments.py")


def test_all_ranges_mean_squared_error_equals_enumeration() -> None:
    rng = np.random.default_rng(3)
    e = rng.normal(size=(4, 9))
    brute = [
        np.mean([row[a : b + 1].sum() ** 2 for a, b in workload_ranges(9, "uniform")]) for row in e
    ]
    np.testing.assert_allclose(experiments.all_ranges_mean_squared_error(e), brute, rtol=1e-12)


def test_table2_eq16_is_the_brute_force_average_and_eq17_the_papers_asymptote() -> None:
    t = experiments.privelet_table2(
        np.arange(6), 0.5, releases=2, rng=np.random.default_rng(0), simulate_up_to=-1
    )
    for m in range(6):
        n = 2**m
        sigma = privelet_error.covariance_matrix(n)
        brute = np.mean(
            [sigma[a : b + 1, a : b + 1].sum() for a, b in workload_ranges(n, "uniform")]
        )
        scale = 2 * (m + 1) ** 2 / 0.5**2
        assert t.eq16[m] == pytest.approx(scale * brute, rel=1e-12)
        assert t.eq17[m] == pytest.approx(scale * (m / 6 + 1 / 36), rel=1e-12)
    assert np.isnan(t.simulated).all()


def test_table2_at_m0_is_the_issues_example() -> None:
    """At m = 0 (eps = 1) eq. 17 gives 0.056 where the exact error is 2.0 (one bin, Lap(1))."""
    t = experiments.privelet_table2(
        [0], 1.0, releases=2, rng=np.random.default_rng(0), simulate_up_to=-1
    )
    assert t.eq16[0] == pytest.approx(2.0) and t.eq17[0] == pytest.approx(1 / 18)
    assert t.difference[0] == pytest.approx(1 / 18 - 2)


def test_table2_simulation_agrees_with_eq16_within_its_interval() -> None:
    """400 seeded releases per m; each mean within 3 half-widths of the exact value."""
    t = experiments.privelet_table2(
        np.arange(8), 1.0, releases=400, rng=np.random.default_rng(11), simulate_up_to=7
    )
    assert np.all(np.abs(t.simulated - t.eq16) < 3 * t.ci)
    assert np.all(t.ci < 0.25 * t.eq16)


def _brute_force_errors(t: tree.Tree, eps_x: np.ndarray) -> tuple[float, float]:
    ranges = workload_ranges(t.n_bins, "uniform")
    raw = np.mean([np.sum(2 / eps_x[canonical_nodes(t, a, b)] ** 2) for a, b in ranges])
    cov = mm.reconstruction_covariance(strategy_matrix(t), eps_x)
    blue = np.mean([cov[a : b + 1, a : b + 1].sum() for a, b in ranges])
    return float(raw), float(blue)


def test_fanout_sweep_equals_brute_force_for_every_rule() -> None:
    n, eps = 11, 0.7
    sweep = experiments.fanout_sweep(n, eps, [2, 3, 4, 5])
    for i, k in enumerate(sweep.ks):
        t = tree.kary_tree(n, int(k))
        assert sweep.heights[i] == t.height
        p = coverage.coverage_probabilities(t)
        for rule in budget.BUDGET_RULES:
            eps_x = budget.allocate(rule, t, eps, p)
            assert budget.release_epsilon(t, eps_x) == pytest.approx(eps)
            raw, blue = _brute_force_errors(t, eps_x)
            assert sweep.errors[(rule, False)][i] == pytest.approx(raw, rel=1e-9)
            assert sweep.errors[(rule, True)][i] == pytest.approx(blue, rel=1e-9)


@pytest.mark.parametrize("n", [5, 100, 2010])
def test_uniform_raw_sweep_minimum_is_struct_constructs_k_star(n: int) -> None:
    ks = np.arange(2, min(20, n) + 1)
    sweep = experiments.fanout_sweep(n, 1.0, ks)
    assert int(ks[np.argmin(sweep.errors[("uniform", False)])]) == tree.best_fanout(n)


def test_length_experiment_exact_columns_match_enumeration() -> None:
    n, eps = 20, 1.0
    table = view.lengths(n, eps, 30, 200, 5, None)
    assert set(table["algorithm"]) == {
        "Dwork (Laplace per bin)",
        "Binary tree, raw",
        "SC tree, raw (no consistency)",
    }
    sc = tree.struct_construct(n)
    eps_x = budget.uniform_budgets(sc, eps)
    rows = table[table["algorithm"] == "SC tree, raw (no consistency)"].set_index("range length")
    for length in (1, 2, 4, 8, 16):
        brute = np.mean(
            [
                np.sum(2 / eps_x[canonical_nodes(sc, a, a + length - 1)] ** 2)
                for a in range(n - length + 1)
            ]
        )
        assert rows.loc[length, "exact, all ranges of this length"] == pytest.approx(brute)
    dwork = table[table["algorithm"] == "Dwork (Laplace per bin)"]
    np.testing.assert_allclose(dwork["exact"], 2 * dwork["range length"] / eps**2)
    # 200 seeded releases: every simulated point within 4 half-widths of its exact line
    assert np.all(np.abs(table["empirical"] - table["exact"]) < 4 * table["ci"])


def test_work_limits_scale_down_or_refuse_with_a_reason() -> None:
    assert view.table2_simulation_limit(10, 10, 100).message == ""
    scaled = view.table2_simulation_limit(20, 16, 1000)
    assert scaled.value == 13 and "instead of 16" in scaled.message
    assert view.length_queries_limit(48130, 500, 1000).value < 1000
    assert view.fanout_check(2010, 64) == ""
    assert "n ≤" in view.fanout_check(48130, 64)


def test_fanout_figure_marks_k_star_and_each_best_k() -> None:
    table = view.fanout(64, 1.0, 16)
    fig = figures.fanout(table, view.best_fanout(64))
    k_star = [t for t in fig.data if t.name and t.name.startswith("k* =")]
    assert len(k_star) == 1 and list(k_star[0].x) == [view.best_fanout(64)] * 2
    stars = [t for t in fig.data if t.marker.symbol == "star"]
    assert len(stars) == 6


def test_page_default_shows_table2_with_eq17_beside_eq16() -> None:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    first = table.iloc[0]
    assert first["eq. 16 (exact)"] == pytest.approx(2.0)
    assert first["eq. 17 (paper's theory)"] == pytest.approx(1 / 18)
    assert table["simulated"].notna().all() and len(table) == 11


def test_page_fanout_view_and_too_large_n() -> None:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["px_view"] = "fanout"
    at.query_params["px_fan_n"] = "100"
    at.query_params["px_fan_k"] = "20"
    at.run()
    assert not at.exception and not at.error
    minima = at.dataframe[0].value
    uniform_raw = minima[(minima["budgets"] == "uniform ε/Δ") & (minima["answered"] == "raw")]
    assert int(uniform_raw["k"].iloc[0]) == tree.best_fanout(100)
    at.number_input(key="px_fan_n").set_value(100_000).run()
    assert not at.exception
    assert any("too much work" in str(e.value) for e in at.error)
    assert at.number_input(key="px_fan_n").value == 100_000


def test_page_lengths_view_runs_on_a_chosen_n() -> None:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.query_params["px_view"] = "lengths"
    at.query_params["px_n"] = "300"
    at.query_params["px_len_releases"] = "10"
    at.run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert table["range length"].max() == 256 and table["algorithm"].nunique() == 3
