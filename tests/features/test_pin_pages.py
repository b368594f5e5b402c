"""Pin and compare on the Error analysis and Laplace mechanism pages.

The key numbers of A and B are recomputed here from closed forms and ``dpcore``, not taken
from the UI code: Dwork's mean MSE over all ranges by enumerating them, Privelet's from the
formula the page shows, the Laplace widths from their definitions.
"""

from __future__ import annotations

import math
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import plans
from dpcore.histogram import from_counts
from dpcore.mechanisms import laplace_mechanism
from dpui.errors import figures as errors_figures
from dpui.kit import sidebar
from dpui.tree import view as tree_view

ROOT = Path(__file__).resolve().parents[2]
A, B = "A (pinned)", "B (current)"


def _page(name: str, **query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / f"{name}.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _table(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "quantity" in d.value.columns).set_index(
        "quantity"
    )


def _has_table(at: AppTest) -> bool:
    return any("quantity" in d.value.columns for d in at.dataframe)


def _pinned_url(at: AppTest) -> dict[str, str]:
    value = at.query_params["pin"]
    return dict(parse_qsl(value[0] if isinstance(value, list) else value))


def _titles(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith(("**A (pinned):**", "**B "))]


def _texts(elements) -> str:
    """The messages' text as read: without the backticks that set quoted text as code."""
    return " ".join(str(e.value).replace("`", "") for e in elements)


# --- oracles -----------------------------------------------------------------------------


def dwork_mean_mse(n: int, eps: float) -> float:
    """Flat Laplace: a range of length L has MSE 2L/ε²; averaged over all n(n+1)/2 ranges."""
    lengths = np.concatenate([np.arange(1, n - first + 1) for first in range(n)])
    return float(np.mean(2.0 * lengths / eps**2))


def privelet_mean_mse(n: int, eps: float) -> float:
    """Privelet on N = 2^h: 2(h+1)²/ε² times the mean error coefficient
    h/6 + (N³ + 37N² + 26N + 8) / (36 N² (N+1)) (the formula on the page, Wu et al. 2018)."""
    h = int(math.log2(n))
    coefficient = h / 6 + (n**3 + 37 * n**2 + 26 * n + 8) / (36 * n**2 * (n + 1))
    return 2 * (h + 1) ** 2 / eps**2 * coefficient


def test_the_privelet_oracle_matches_dpcore():
    for n in (2, 8, 64):
        prepared = plans.prepare("privelet", n, 0.7)
        assert plans.plan_expected_error(prepared) == pytest.approx(privelet_mean_mse(n, 0.7))


# --- Error analysis ----------------------------------------------------------------------


def test_half_width_shortens_legend_names_and_breaks_titles_on_a_copy():
    table = pd.DataFrame(
        {"algorithm": ["Boost (binary, uniform, BLUE)"] * 2, "L": [1, 2], "exact": [1.0, 2.0]}
    )
    fig = errors_figures.exact_vs_empirical(
        table, x="L", title="MSE per range (N = 8)", x_title="range (sorted)"
    )
    half = errors_figures.half_width(fig)
    assert half.data[0].name == "Boost"
    assert half.layout.title.text == "MSE per range<br>(N = 8)"
    assert half.layout.xaxis.title.text == "range<br>(sorted)"
    assert half.layout.margin.t == fig.layout.margin.t + 20  # room for the title's second line
    assert fig.data[0].name == "Boost<br>(binary, uniform, BLUE)"  # the original is unchanged


ONLY_DWORK_AND_PRIVELET = {
    "ea_binary_raw": "false",
    "ea_boost": "false",
    "ea_lue_dptree": "false",
}


def test_error_analysis_pin_then_change_compares_exact_errors_and_unpin_returns():
    at = _page(
        "error_analysis", ea_sim="false", ea_view="size", ea_max_m="6", **ONLY_DWORK_AND_PRIVELET
    ).run()
    assert not at.exception
    _button(at, "Pin this view").click().run()
    pinned = _pinned_url(at)
    assert (pinned["ea_view"], pinned["ea_max_m"], pinned["eps"]) == ("size", "6", "1")
    assert pinned["ea_boost"] == "false" and pinned["ea_privelet"] == "true"
    at.number_input(key="eps").set_value(0.5).run()
    at.number_input(key="ea_max_m").set_value(8).run()
    assert not at.exception and not at.error
    table = _table(at)
    assert table.loc["largest N", A] == 64 and table.loc["largest N", B] == 256
    assert table.loc["ε", B] == 0.5
    dwork = "Dwork · exact MSE, all ranges, largest N"
    privelet = "Privelet · exact MSE, all ranges, largest N"
    assert table.loc[dwork, A] == pytest.approx(dwork_mean_mse(64, 1.0), rel=1e-9)
    assert table.loc[dwork, B] == pytest.approx(dwork_mean_mse(256, 0.5), rel=1e-9)
    assert table.loc[privelet, A] == pytest.approx(privelet_mean_mse(64, 1.0), rel=1e-9)
    assert table.loc[privelet, B] == pytest.approx(privelet_mean_mse(256, 0.5), rel=1e-9)
    ratio = dwork_mean_mse(256, 0.5) / dwork_mean_mse(64, 1.0)
    assert table.loc[dwork, "B / A"] == f"{ratio:.3g}"
    assert not any("simulated" in q for q in table.index)  # closed forms only: no NaN rows
    titles = _titles(at)
    assert len(titles) == 2 and "(3) Average error vs N" in titles[0]
    assert not any("not shared" in c.value for c in at.caption)  # same view: shared axes
    _button(at, "Unpin").click().run()
    assert not at.exception and "pin" not in at.query_params
    assert not _titles(at) and not _has_table(at)


def test_error_analysis_pinned_link_reopens_a_comparison_of_two_views():
    # A: view (4) at ε = 0.5; B: the default view (1), closed forms only
    at = _page(
        "error_analysis",
        ea_sim="false",
        pin="ea_view=epsilon&ea_sim=false&eps=0.5&ea_dwork=true&ea_privelet=false",
    ).run()
    assert not at.exception and not at.error
    table = _table(at)
    n = 1024  # the default dataset's bins
    assert table.loc["Dwork · exact MSE, all ranges, at ε", A] == pytest.approx(
        dwork_mean_mse(n, 0.5), rel=1e-9
    )
    assert np.isnan(table.loc["Dwork · exact MSE, all ranges, at ε", B])  # B plots view (1)
    assert "Privelet · exact MSE, mean over lengths 1, 2, 4, …, n" in table.index  # B only
    assert any("not shared" in c.value for c in at.caption)
    assert _pinned_url(at)["ea_privelet"] == "false"


def test_error_analysis_bad_pinned_values_fall_back_and_a_refused_a_is_not_computed():
    at = _page("error_analysis", ea_sim="false", pin="ea_view=bogus&ea_releases=0").run()
    assert not at.exception
    warnings = _texts(at.warning)
    assert "Pinned view" in warnings and "ea_view=bogus" in warnings and "ea_releases=0" in warnings
    assert _table(at).loc["ε", A] == 1.0  # fell back to the defaults

    at = _page(
        "error_analysis",
        ea_sim="false",
        pin="ea_view=size&ea_max_m=20&ea_sim=true&ea_releases=1000",
    ).run()
    assert not at.exception
    assert "Not computed: Pinned view A" in _texts(at.warning)
    assert not _has_table(at) and not _titles(at)
    assert at.dataframe  # B's own results are still shown


# --- Laplace mechanism -------------------------------------------------------------------

GAPMINDER_K = 40  # countries under 5 million people in 2007 (the default query)


def laplace_numbers(k: int, eps: float, sensitivity: float, delta: float, seed: int):
    b = sensitivity / eps
    noise = laplace_mechanism(
        np.zeros(k), eps=eps, sensitivity=sensitivity, rng=np.random.default_rng(seed)
    )
    # t*: the (1-δ)-quantile of the max of k |Lap(1)|, from (1 - e^{-t})^k = 1 - δ
    t_star = -math.log(1 - (1 - delta) ** (1 / k))
    return {
        "entries k": k,
        "ε": eps,
        "noise scale b = Δf/ε": b,
        "bound ln(k/δ)·b": math.log(k / delta) * b,
        "exact width t*·b": t_star * b,
        "largest |noise| in this draw": np.abs(noise).max(),
        "mean |noise| in this draw": np.abs(noise).mean(),
    }


def test_laplace_pin_then_change_compares_the_key_numbers_and_unpin_returns():
    at = _page("laplace").run()
    assert not at.exception
    _button(at, "Pin this view").click().run()
    pinned = _pinned_url(at)
    assert (pinned["lap_sens"], pinned["lap_seed"], pinned["eps"]) == ("1", "0", "1")
    assert pinned["lap_source"] == "gapminder" and "lap_trials" not in pinned
    at.number_input(key="lap_sens").set_value(2.0).run()
    at.number_input(key="lap_seed").set_value(5).run()
    at.number_input(key="lap_delta").set_value(0.01).run()
    assert not at.exception and not at.error
    table = _table(at)
    for column, expected in (
        (A, laplace_numbers(GAPMINDER_K, 1.0, 1.0, 0.05, 0)),
        (B, laplace_numbers(GAPMINDER_K, 1.0, 2.0, 0.01, 5)),
    ):
        for quantity, value in expected.items():
            # noise = noisy - true loses ~1e-10 relative next to populations of millions
            assert table.loc[quantity, column] == pytest.approx(value, rel=1e-6), quantity
    titles = _titles(at)
    assert "b = 1," in titles[0] and "b = 2," in titles[1] and "seed 5" in titles[1]
    _button(at, "Unpin").click().run()
    assert not at.exception and "pin" not in at.query_params
    assert not _titles(at) and not _has_table(at)


def test_laplace_pinned_link_reopens_the_comparison():
    at = _page("laplace", pin="lap_source=sidebar&lap_delta=0.01&eps=2&lap_seed=3").run()
    assert not at.exception and not at.error
    table = _table(at)
    expected = laplace_numbers(1024, 2.0, 1.0, 0.01, 3)  # the default 1,024-bin histogram
    for quantity, value in expected.items():
        assert table.loc[quantity, A] == pytest.approx(value, rel=1e-6), quantity
    assert table.loc["entries k", B] == GAPMINDER_K


def test_laplace_bad_pinned_values_fall_back_and_an_empty_a_is_not_computed():
    at = _page("laplace", pin="lap_delta=5&lap_year=1800").run()
    assert not at.exception
    warnings = _texts(at.warning)
    assert "Pinned view" in warnings and "lap_delta=5" in warnings and "lap_year=1800" in warnings
    assert _table(at).loc["bound ln(k/δ)·b", A] == pytest.approx(math.log(GAPMINDER_K / 0.05))

    at = _page("laplace", pin="lap_pop_max=0.1").run()  # no country under 100,000 people
    assert not at.exception
    assert "Pinned view A: No country" in _texts(at.warning)
    assert not _has_table(at) and not _titles(at)


def test_a_pinned_view_passes_the_same_work_limit_as_the_current_one(monkeypatch):
    """Hardening: a pinned A of a Struct-Construct tree, refused on its own at this size, is
    refused as A too (it was computed regardless), while B (a 16-ary tree) is drawn."""
    monkeypatch.setenv("DP_EXPLORER_WORK_SECONDS", "0.5")
    n = 40_000  # Struct-Construct: about 0.7 s by its estimate; 16-ary: about 0.35 s
    assert tree_view.page_cost(n, "sc").seconds > 0.5 > tree_view.page_cost(n, "16").seconds
    at = AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120)
    at.session_state[sidebar.UPLOADED] = from_counts(np.ones(n), "flat")
    at.session_state["data"] = sidebar.UPLOADED
    at.query_params["tb_tree"] = "16"
    at.query_params["pin"] = "tb_tree=sc"
    at.run()
    assert not at.exception
    warnings = " ".join(w.value for w in at.warning)
    assert "Not computed: Pinned view A: the tree 'optimise (Struct-Construct)'" in warnings
    assert any(m.label == "Bins n" and m.value == "40,000" for m in at.metric)  # B is drawn
