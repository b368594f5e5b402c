"""Error analysis and Matrix mechanism / Privelet pages: AppTest runs and the figure factories."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import pidentity, pidentity_store, privelet, privelet_error
from dpcore.histogram import from_counts
from dpui.errors import figures as figures
from dpui.errors import index as errors_index
from dpui.errors import matrix as mp
from dpui.errors import optimised, settings
from dpui.kit import examples, limits, sidebar, slow

ROOT = Path(__file__).resolve().parents[2]
ERRORS_PAGE = str(ROOT / "pages" / "error_analysis.py")
MATRIX_PAGE = str(ROOT / "pages" / "matrix_privelet.py")


def _errors(at: AppTest) -> list[str]:
    return [str(e.value) for e in at.error]


def test_matrix_page_default_shows_the_seed_example_three_ways() -> None:
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60).run()
    assert not at.exception and not _errors(at)
    table = at.dataframe[0].value
    coefficients = table["error coefficient"].to_numpy()
    expected = privelet_error.range_error_coefficient(8, 3, 7)
    np.testing.assert_allclose(coefficients[:3], expected, rtol=1e-12)
    # the simulation (5,000 releases) lands near the exact value
    assert abs(coefficients[3] - expected) / expected < 0.1


def test_matrix_page_rejects_a_reversed_range_and_keeps_the_input() -> None:
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60).run()
    at.number_input(key="mp_l").set_value(8).run()
    assert not at.exception
    assert any("after the last bin" in e for e in _errors(at))
    assert at.number_input(key="mp_l").value == 8
    assert len(at.dataframe) == 0  # no numbers for an invalid range


def test_matrix_page_pads_n_that_is_not_a_power_of_two() -> None:
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60).run()
    at.number_input(key="mp_n").set_value(5).run()
    at.number_input(key="mp_r").set_value(5).run()
    assert not at.exception and not _errors(at)
    sizes = {m.label: m.value for m in at.metric}
    assert sizes["Transform size N"] == "8"
    table = at.dataframe[0].value
    assert table["error coefficient"].iloc[0] == pytest.approx(
        privelet_error.range_error_coefficient(5, 3, 5)
    )


def test_matrix_page_bad_link_falls_back_with_a_notice() -> None:
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60)
    at.query_params["mp_n"] = "100000"  # beyond any size the page draws (n ≤ 2048)
    at.run()
    assert not at.exception
    assert any("mp_n=100000" in str(w.value) for w in at.warning)
    assert at.number_input(key="mp_n").value == 8


def test_error_page_default_and_every_view() -> None:
    at = AppTest.from_file(ERRORS_PAGE, default_timeout=120).run()
    assert not at.exception and not _errors(at)
    table = at.dataframe[0].value
    assert {"algorithm", "range length", "exact", "empirical", "ci"} <= set(table.columns)
    assert table["empirical"].notna().all()
    for view in ("fixed", "size", "epsilon", "index"):
        at.selectbox(key="ea_view").set_value(view).run()
        assert not at.exception and not _errors(at), view
        assert len(at.dataframe[0].value) > 0


def test_error_page_without_algorithms_warns() -> None:
    at = AppTest.from_file(ERRORS_PAGE, default_timeout=120)
    at.query_params["ea_sim"] = "false"
    at.run()
    for flag in settings.ALGORITHM_FLAGS.values():
        at.checkbox(key=flag.name).uncheck()
    at.run()
    assert not at.exception
    assert any("at least one algorithm" in str(w.value) for w in at.warning)


def test_error_page_closed_forms_only_has_no_simulated_values() -> None:
    at = AppTest.from_file(ERRORS_PAGE, default_timeout=120)
    at.query_params["ea_sim"] = "false"
    at.query_params["ea_view"] = "size"
    at.run()
    assert not at.exception
    table = at.dataframe[0].value
    assert table["empirical"].isna().all() and (table["exact"] > 0).all()


def test_matrix_heatmap_outlines_the_range() -> None:
    fig = figures.matrix_heatmap(privelet_error.covariance_matrix(8), title="t", outline=(3, 7))
    (shape,) = fig.layout.shapes
    assert (shape.x0, shape.x1, shape.y0, shape.y1) == (2.5, 7.5, 2.5, 7.5)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), privelet_error.covariance_matrix(8))


def test_exact_vs_empirical_draws_lines_and_points_with_bars() -> None:
    table = pd.DataFrame(
        {
            "algorithm": ["A", "A", "B", "B"],
            "L": [1, 2, 1, 2],
            "exact": [1.0, 2.0, 3.0, 4.0],
            "empirical": [1.1, np.nan, 2.9, 4.2],
            "ci": [0.1, np.nan, 0.2, 0.3],
        }
    )
    fig = figures.exact_vs_empirical(table, x="L", title="t", x_title="L")
    modes = [trace.mode for trace in fig.data]
    assert modes == ["lines", "markers", "lines", "markers"]
    assert list(fig.data[1].y) == [1.1]  # the missing simulation is skipped
    assert list(fig.data[3].error_y.array) == [0.2, 0.3]


def test_index_table_labels_limits_and_withholds_unjustified_fits() -> None:
    seen: list[float] = []
    curves = errors_index.index_curves(
        ("privelet", "dwork", "lue_dptree"), 16, progress=seen.append
    )
    assert seen == pytest.approx([1 / 3, 2 / 3, 1.0])
    table = errors_index.index_table(curves).set_index("algorithm")
    privelet_row = table.loc[settings.label("privelet")]
    assert privelet_row["paper's index"] == 6.0
    assert privelet_row["ratio at largest N"] < 5.5
    assert float(privelet_row["limit (index)"]) == pytest.approx(6.0, abs=0.05)
    assert table.loc[settings.label("dwork"), "limit (index)"] == "→ 0"
    assert table.loc[settings.label("lue_dptree"), "limit (index)"] == "not fitted"


def test_index_figure_puts_limits_at_the_m_infinity_edge() -> None:
    curves = errors_index.index_curves(("boost", "dwork"), 14)
    fig = figures.index_convergence(
        errors_index.curves_by_algorithm(curves),
        errors_index.index_estimates(curves),
        errors_index.paper_indices(("boost", "dwork")),
    )
    edge = {t.name: t.y[0] for t in fig.data if len(t.x) == 1 and t.x[0] == 0.0}
    assert fig.layout.xaxis.range[0] > fig.layout.xaxis.range[1]  # reversed: m grows rightwards
    boost = settings.label("boost")
    assert edge[f"{boost}: paper's index 6"] == 6.0
    assert [v for k, v in edge.items() if k.startswith(settings.label("dwork"))] == [0.0]


def test_error_page_index_view_shows_the_limits() -> None:
    at = AppTest.from_file(ERRORS_PAGE, default_timeout=120)
    at.query_params["ea_view"] = "index"
    at.query_params["ea_index_m"] = "14"
    at.run()
    assert not at.exception and not _errors(at)
    table = at.dataframe[0].value.set_index("algorithm")
    assert table.loc[settings.label("dwork"), "limit (index)"] == "→ 0"
    assert float(table.loc[settings.label("boost"), "limit (index)"]) == pytest.approx(6, abs=0.03)


def test_error_page_adds_the_optimised_strategy_and_the_new_tree_algorithms() -> None:
    at = AppTest.from_file(ERRORS_PAGE, default_timeout=300)
    at.session_state["ea_hb"] = True
    at.session_state["ea_consistent"] = True
    at.session_state["ea_sim"] = False
    at.run()
    at.selectbox(key="ea_view").set_value("fixed").run()
    at.number_input(key="ea_fixed_n").set_value(64).run()
    assert not at.exception and not _errors(at)
    labels = set(at.dataframe[0].value["algorithm"])
    assert {settings.label("hb"), settings.label("consistent")} <= labels
    assert optimised.PIDENTITY_LABEL not in labels
    button = next(b for b in at.button if "HDMM p-Identity" in str(b.label))
    assert "n = 64" in str(button.label)
    button.click().run()
    assert not at.exception and not _errors(at)
    table = at.dataframe[0].value
    assert optimised.PIDENTITY_LABEL in set(table["algorithm"])
    by = table.groupby("algorithm")["exact"].mean()
    # a reference line: finite, and better than Dwork (the identity alone) on these ranges
    assert np.isfinite(by[optimised.PIDENTITY_LABEL])
    assert by[optimised.PIDENTITY_LABEL] < by[settings.label("dwork")]
    # views over many n (here the average vs N) do not draw it
    at.selectbox(key="ea_view").set_value("size").run()
    assert not at.exception
    assert optimised.PIDENTITY_LABEL not in set(at.dataframe[0].value["algorithm"])


def _no_search(*args: object, **kwargs: object) -> None:
    raise AssertionError("the p-Identity optimiser ran")


def test_the_app_s_own_sizes_have_a_shipped_strategy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every n the app offers by its own choices (bundled datasets the optimiser takes, the
    default views' n, the fixed-range view's default N) gets its strategy on a fresh server
    without the optimiser, and it is the shipped one."""
    bundled = {examples.load(name).n_bins for name in examples.NAMES}
    offered = {n for n in bundled if n <= optimised.PIDENTITY_MAX_BINS}
    offered |= {examples.load(examples.DEFAULT).n_bins, settings.FIXED_N.default}
    assert offered <= set(pidentity_store.SHIPPED_BINS)
    monkeypatch.setattr(pidentity, "optimise", _no_search)
    for n in sorted(offered):
        slow.clear()  # a fresh server
        found = optimised.optimise_pidentity(n)
        shipped = pidentity_store.load(n)
        assert found is not None and shipped is not None
        assert found.n == n and found.loss == shipped.loss
        assert optimised.pidentity_strategy(n) is found  # kept: the views draw it
    slow.clear()


def test_error_page_adds_the_shipped_strategy_on_a_fresh_server_without_searching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pidentity, "optimise", _no_search)
    slow.clear()
    at = AppTest.from_file(ERRORS_PAGE, default_timeout=120)
    at.session_state["ea_sim"] = False
    at.run()
    button = next(b for b in at.button if "HDMM p-Identity" in str(b.label))
    assert str(button.label).endswith("n = 1,024")  # the default dataset's n
    assert "expected total squared error of all n(n+1)/2 ranges" in str(button.help)
    button.click().run()
    assert not at.exception and not _errors(at)
    table = at.dataframe[0].value
    rows = table[table["algorithm"] == optimised.PIDENTITY_LABEL]
    assert len(rows) > 0 and np.isfinite(rows["exact"]).all()
    shipped = pidentity_store.load(1024)
    assert shipped is not None
    lengths = rows["range length"].to_numpy()
    np.testing.assert_allclose(
        rows["exact, all ranges of this length"],
        [shipped.expected_error(1.0, f"length:{x}") for x in lengths],
        rtol=1e-9,
    )
    assert not [b for b in at.button if "HDMM p-Identity" in str(b.label)]  # added, offer gone
    slow.clear()


def test_pidentity_rows_match_the_strategy_errors() -> None:
    strategy = optimised.pidentity.optimise(16, starts=1, max_iter=20)
    rows = optimised.pidentity_rows("epsilon", strategy, 1.0)
    assert rows["exact"].to_numpy() == pytest.approx(
        [strategy.expected_error(e) for e in settings.EPSILONS]
    )
    lengths = optimised.pidentity_rows("length", strategy, 0.5, per_length=5, seed=3)
    assert lengths["exact, all ranges of this length"].iloc[0] == pytest.approx(
        strategy.expected_error(0.5, "length:1")
    )
    with pytest.raises(ValueError, match="views"):
        optimised.pidentity_rows("size", strategy, 1.0)


def test_error_page_pinned_view_equal_to_an_over_limit_current_one_draws_one_offer() -> None:
    """A pinned view A equal to B, whose simulation is over the limit: only B offers "Run it"
    (A and B once drew the same button key, StreamlitDuplicateElementKey)."""
    at = AppTest.from_file(ERRORS_PAGE, default_timeout=120)
    at.query_params["ea_releases"] = "1000"
    at.query_params["ea_queries"] = "2000"
    at.query_params["pin"] = "ea_releases=1000&ea_queries=2000"
    at.run()
    assert not at.exception
    assert len([b for b in at.button if str(b.label).startswith("Run it")]) == 1
    numbers = next(d.value for d in at.dataframe if "quantity" in d.value.columns)
    assert len(numbers) > 1  # A and B compared (closed forms)


def _compared(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "quantity" in d.value.columns).set_index(
        "quantity"
    )


def _range_mse(n: int, left: int, right: int, eps: float) -> float:
    """Algorithm 3's coefficient times Privelet's noise variance 2(h+1)²/ε²."""
    return privelet_error.range_error_coefficient(n, left, right) * privelet.noise_variance(n, eps)


def test_matrix_page_pinned_against_itself_compares_equal_numbers() -> None:
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60)
    at.query_params["pin"] = "mp_n=8&mp_l=3&mp_r=7&mp_releases=5000&mp_seed=0&eps=1"
    at.run()
    assert not at.exception and not _errors(at)
    table = _compared(at)
    expected = _range_mse(8, 3, 7, 1.0)
    for column in ("A (pinned)", "B (current)"):
        assert table.loc["range's MSE: Algorithm 3", column] == pytest.approx(expected)
        assert table.loc["range's MSE: sum of the sub-matrix of B Bᵀ", column] == pytest.approx(
            expected
        )
        assert table.loc["range's MSE: ‖Bᵀw‖²", column] == pytest.approx(expected)
    assert (table["B / A"] == "1").all()  # the same view, the same seeded simulation
    titles = [m.value for m in at.markdown if m.value.startswith(("**A (pinned):**", "**B "))]
    assert len(titles) == 2 and "range [3, 7]" in titles[0]


def test_matrix_page_pinned_against_another_view_compares_their_errors() -> None:
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60)
    at.query_params["pin"] = "mp_n=16&mp_l=1&mp_r=16&eps=0.5"
    at.run()
    assert not at.exception and not _errors(at)
    table = _compared(at)
    a, b = "A (pinned)", "B (current)"
    assert table.loc["bins n", a] == 16 and table.loc["bins n", b] == 8
    assert table.loc["range's MSE: Algorithm 3", a] == pytest.approx(_range_mse(16, 1, 16, 0.5))
    assert table.loc["range's MSE: Algorithm 3", b] == pytest.approx(_range_mse(8, 3, 7, 1.0))
    simulated = table.loc["range's MSE: simulated", a]
    assert abs(simulated - _range_mse(16, 1, 16, 0.5)) / _range_mse(16, 1, 16, 0.5) < 0.1
    # an invalid range in A: its sizes are compared, its errors are not computed
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60)
    at.query_params["pin"] = "mp_l=8&mp_r=2"
    at.run()
    assert not at.exception
    table = _compared(at)
    assert np.isnan(table.loc["range's MSE: Algorithm 3", "A (pinned)"])
    assert table.loc["bins n", "A (pinned)"] == 8


def test_matrix_page_over_the_work_limit_refuses_with_what_to_reduce(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(limits.SECONDS_VARIABLE, "0.001")
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60).run()
    assert not at.exception
    (warning,) = [str(w.value) for w in at.warning if "Not computed" in str(w.value)]
    assert "fewer bins n" in warning and "fewer simulated releases" in warning
    assert limits.SECONDS_VARIABLE in warning and "dpcore.hist.privelet" in warning
    assert not at.dataframe and not at.metric  # nothing computed
    # within the limit B runs, and a pinned A too big for it is refused alone
    a = mp.page_cost(64, 200_000).seconds
    assert mp.page_cost(8, 5000).seconds < a
    monkeypatch.setenv(limits.SECONDS_VARIABLE, str(a / 2))
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60)
    at.query_params["pin"] = "mp_n=64&mp_l=1&mp_r=64&mp_releases=200000"
    at.run()
    assert not at.exception
    assert any("Not computed: Pinned view A" in str(w.value) for w in at.warning)
    assert not any("quantity" in d.value.columns for d in at.dataframe)
    assert at.dataframe  # B's own table is still shown


def test_matrix_page_a_large_n_is_refused_by_the_default_limit() -> None:
    """The size cap is the work limit: n = 1,000 is a valid link, too big for this server."""
    at = AppTest.from_file(MATRIX_PAGE, default_timeout=60)
    at.query_params["mp_n"] = "1000"
    at.run()
    assert not at.exception
    assert any("Not computed" in str(w.value) for w in at.warning)
    assert at.number_input(key="mp_n").value == 1000  # the input is kept


@pytest.mark.parametrize("view", ["fixed", "length", "epsilon"])
def test_a_histogram_too_large_to_simulate_shows_the_exact_values_and_says_why(view):
    """Twelve countries' populations in persons (total 4e9): repeated to N, or at ε = 10,
    float64 cannot keep the noise; the closed forms do not depend on the data."""
    populations = [1318e6, 1125e6, 302e6, 232e6, 190e6, 169e6, 150e6, 144e6, 141e6, 127e6]
    at = AppTest.from_file(str(ROOT / "pages" / "error_analysis.py"), default_timeout=120)
    at.session_state[sidebar.UPLOADED] = from_counts(np.array([*populations, 109e6, 91e6]), "c")
    at.session_state["data"] = sidebar.UPLOADED
    at.query_params["ea_view"] = view
    at.query_params["eps"] = "100"
    at.run()
    assert not at.exception, at.exception
    assert any("Not simulated" in w.value and "larger units" in w.value for w in at.warning)
