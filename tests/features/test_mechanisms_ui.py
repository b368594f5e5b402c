"""The mechanism pages' support code as plain functions: figure factories and cached helpers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.histogram import from_counts
from dpcore.mechanisms import exponential_probabilities
from dpui.kit import byte_cache, downloads
from dpui.kit.page import Inputs, Refused
from dpui.kit.sidebar import EPSILON
from dpui.mechanisms import exponential as em
from dpui.mechanisms import figures as figures
from dpui.mechanisms import figures as mechanisms_figures
from dpui.mechanisms import laplace as lap

ROOT = Path(__file__).resolve().parents[2]


def test_true_vs_noisy_uses_bars_then_lines():
    small = figures.true_vs_noisy(["a", "b"], np.array([1.0, 2.0]), np.array([1.5, 1.0]))
    assert [t.type for t in small.data] == ["bar", "bar", "bar"]  # true, noisy, the noise
    np.testing.assert_array_equal(small.data[1].customdata, [0.5, -1.0])  # noise in the hover
    n = figures.MAX_BARS + 1
    large = figures.true_vs_noisy([str(i) for i in range(n)], np.zeros(n), np.ones(n))
    assert [t.type for t in large.data] == ["scattergl"] * 3


def test_noise_distribution_marks_both_widths_on_both_sides():
    noise = np.random.default_rng(0).laplace(size=50)
    fig = figures.noise_distribution(noise, scale=1.0, bound=6.0, exact=5.9, delta=0.05)
    lines = sorted(shape.x0 for shape in fig.layout.shapes)
    assert lines == [-6.0, -5.9, 5.9, 6.0]
    density = next(t for t in fig.data if t.name == "Laplace density")
    assert max(density.y) == pytest.approx(0.5, rel=1e-3)  # 1/(2b) at 0


def test_probabilities_vs_frequencies_plots_counts_over_runs():
    fig = figures.probabilities_vs_frequencies(
        ["a", "b"], np.array([0.7, 0.3]), np.array([6, 4]), 10
    )
    np.testing.assert_allclose(fig.data[1].y, [0.6, 0.4])
    assert (
        len(figures.probabilities_vs_frequencies(["a"], np.ones(1), np.zeros(1, int), 0).data) == 1
    )


def test_accuracy_curves_keep_the_line_at_one_in_view():
    values = np.array([1.0, 2.0, 3.0])
    fig = figures.accuracy_curves(
        values, np.array([1e-9, 1e-4, 1.0]), values, np.array([5.0, 8.0, 3.0]), best=3.0
    )
    low, high = fig.layout.yaxis.range
    assert low <= math.log10(1e-9) and high >= math.log10(8.0)


def test_effective_trials_bounds_the_simulation():
    assert lap.effective_trials(10, 1000) == 1000
    assert lap.effective_trials(lap.K2.hi, 1000) * lap.K2.hi <= lap.MAX_SIMULATED_DRAWS
    assert lap.effective_trials(10**5, lap.TRIALS.hi) * 10**5 <= lap.MAX_SIMULATED_DRAWS
    assert lap.effective_trials(2**22, 1000) == lap.MIN_TRIALS


def test_sweep_includes_the_page_ks_and_the_curves_are_ordered():
    ks = lap.sweep_ks(40, 123)
    assert ks[0] == 1 and ks[-1] == lap.SWEEP_MAX_K and {40, 123} <= set(ks)
    table = lap.max_error_vs_k((1, 10, 100), 0.1, 2.0, 400, 0)
    assert (table["exact t*·b"] <= table["bound ln(k/δ)·b"] + 1e-12).all()
    assert (table["mean max error b·H_k"] < table["exact t*·b"]).all()
    assert table["bound ln(k/δ)·b"].iloc[0] == pytest.approx(2.0 * math.log(10))


def test_gapminder_filter():
    table = lap.gapminder_populations(2007, 5.0)
    assert (table["population"] < 5e6).all()
    assert list(table["country"]) == sorted(table["country"])
    assert len(lap.gapminder_populations(2007, 2000.0)) == 142  # every country


def test_histogram_candidates_get_unique_names():
    table = em.table_from_histogram(from_counts([3.0, 1.0], "h", ("x", "x")))
    assert table.names == ("1: x", "2: x")
    unlabelled = em.table_from_histogram(from_counts([3.0, 1.0], "h"))
    assert unlabelled.names == ("bin 1", "bin 2")


def test_shown_candidates_are_the_best_in_table_order():
    scores = np.arange(100.0)[::-1]
    shown = em.shown_candidates(scores)
    np.testing.assert_array_equal(shown, np.arange(em.MAX_SHOWN))
    np.testing.assert_array_equal(em.shown_candidates(np.ones(3)), [0, 1, 2])


def test_analysis_events_compare_bound_and_exact():
    scores = np.array([10.0, 7.0, 7.0, 3.0])
    analysis = em.analyse(scores, 0.5, 1.0)
    first = analysis.events.iloc[0]
    assert "wrong answer" in first["event"]
    assert first["bound"] == pytest.approx(4 * math.exp(0.5 * (7 - 10) / 2))
    p = exponential_probabilities(scores, 0.5, 1.0)
    assert first["exact probability"] == pytest.approx(p[1:].sum())
    assert analysis.cumulative[-1] == pytest.approx(1.0)
    assert analysis.best_probability == pytest.approx(p[0])
    assert analysis.log_weight_offset == pytest.approx(0.5 * 10 / 2)


def test_release_table_has_exact_intervals():
    counts = np.array([10.0, 20.0, 30.0])
    rel = lap.release(counts, eps=0.5, sensitivity=1.0, delta=0.1, seed=3)
    table = lap.release_table(("a", "b", "c"), counts, rel, eps=0.5, sensitivity=1.0, delta=0.1)
    np.testing.assert_allclose(table["noisy"] - table["true"], table["noise"])
    each = table["upper (each)"] - table["lower (each)"]
    np.testing.assert_allclose(each, 2 * 2.0 * math.log(10))  # b = 2, width b ln(1/δ) each side
    together = table["upper (all k at once)"] - table["lower (all k at once)"]
    t_star = -math.log(1 - 0.9 ** (1 / 3))
    np.testing.assert_allclose(together, 2 * 2.0 * t_star)
    assert rel.exact == pytest.approx(2.0 * t_star)


def test_noise_figure_bins_values_instead_of_sending_them_all():
    noise = np.random.default_rng(1).laplace(size=200_000)
    fig = figures.noise_distribution(noise, scale=1.0, bound=14.0, exact=13.9, delta=0.05)
    assert len(fig.data[0].x) <= 80
    true = np.zeros(figures.MAX_POINTS + 5)
    big = figures.true_vs_noisy([str(i) for i in range(true.size)], true, true)
    assert len(big.data[0].x) == figures.MAX_POINTS and "first" in big.layout.title.text


def test_simulated_quantile_is_hidden_when_too_few_trials_lie_beyond_it():
    table = lap.max_error_vs_delta(10, 1.0, 400, 0)
    expected_beyond = table["δ"] * 400
    hidden = table["simulated (1-δ)-quantile"].isna()
    assert (hidden == (expected_beyond < lap.MIN_EXPECTED_BEYOND)).all()
    assert hidden.any() and not hidden.all()


def _inputs(edited: pd.DataFrame | None, *, shown: str = "sports", **values: object) -> Inputs:
    """A view's inputs: ``values`` over the defaults, the page showing preset ``shown`` with
    the table ``edited`` in Settings."""
    defaults = {p.name: p.default for p in (*em.PARAMS, EPSILON)}
    extra = {em.SOURCE.name: shown, em.EDITED: edited}
    return Inputs(defaults | values, from_counts([5.0, 1.0, 2.0], "h"), extra)


def test_exponential_view_uses_the_edited_table_only_for_the_preset_shown_now():
    edited = em.preset_frame("sports")
    edited.loc[3, em.SCORE_COLUMN] = "100"  # Tennis now wins
    scores = np.array([30.0, 24.0, 9.0, 100.0])
    b = em.view(_inputs(edited, exp_sens=2.0))
    assert b.numbers["Pr[best answer]"] == pytest.approx(
        exponential_probabilities(scores, 1.0, 2.0)[3]
    )
    assert "the table in Settings" in b.described and not b.note
    assert b.figure.data[0].y == pytest.approx(exponential_probabilities(scores, 1.0, 2.0))
    a = em.view(_inputs(edited, shown="adult", exp_source="sports"))  # A of another preset
    shipped = np.array([30.0, 24.0, 9.0, 6.0])
    assert a.numbers["Pr[best answer]"] == pytest.approx(
        exponential_probabilities(shipped, 1.0, 1.0)[0]
    )
    assert "preset as shipped" in a.described and "as shipped" in a.note
    on_hist = em.view(_inputs(edited, exp_source="sidebar", eps=0.5))
    assert on_hist.numbers["candidates |R|"] == 3 and on_hist.stamp["candidates"] == "h"
    assert on_hist.numbers["ε"] == 0.5


def test_exponential_view_refuses_an_invalid_edited_table_and_cost_counts_its_rows():
    edited = em.preset_frame("sports")
    edited.loc[1, em.SCORE_COLUMN] = "lots"
    with pytest.raises(Refused, match=r"'lots' is not a number.*your edits are kept"):
        em.view(_inputs(edited))
    assert em.view(_inputs(edited, exp_source="adult")).numbers["candidates |R|"] == 16
    longer = pd.concat([edited] * 3, ignore_index=True)
    assert em.cost(_inputs(longer, exp_draws=1000)).cost == em.page_cost(12, 1000)
    assert em.cost(_inputs(longer, exp_source="adult")).cost == em.page_cost(16, 100)
    assert em.cost(_inputs(None, exp_source="sidebar")).cost == em.page_cost(3, 100)


def test_the_best_candidates_zero_ln_weight_is_labelled_not_a_gap():
    """Issue 22 (9): the best candidate's ln-weight is 0, so its bar has no height and looked
    missing; every bar carries its value, the best one '0 (best)'."""
    fig = mechanisms_figures.log_weights(["a", "b", "c"], np.array([-1.5, 0.0, -0.25]))
    assert list(fig.data[0].text) == ["-1.5", "0 (best)", "-0.25"]
    assert fig.data[0].textposition == "outside"


def test_the_laplace_pages_download_makes_the_release_table_on_the_click_only(monkeypatch):
    offered, made, queries = {}, [], []
    table, query, button = lap.release_table, lap.query, downloads.csv_button
    monkeypatch.setattr(lap, "release_table", lambda *a, **k: made.append(1) or table(*a, **k))
    monkeypatch.setattr(lap, "query", lambda inputs: queries.append(query(inputs)) or queries[-1])

    def kept(label, data, file_name, **kwargs):
        offered[file_name] = data
        button(label, data, file_name, **kwargs)

    monkeypatch.setattr(downloads, "csv_button", kept)
    byte_cache.clear_caches()  # the view is computed here, not taken from another test
    at = AppTest.from_file(str(ROOT / "pages" / "laplace.py"), default_timeout=120)
    at.query_params.update({"lap_source": "gapminder", "eps": "0.5"})
    at.run()
    assert not at.exception and not made  # a run makes no table
    clicked = offered["laplace_release.csv"]()  # what the button writes when clicked
    assert made == [1]
    q = queries[-1]
    expected = table(q.labels, q.counts, q.rel, eps=q.eps, sensitivity=q.sensitivity, delta=q.delta)
    pd.testing.assert_frame_equal(clicked, expected)
    assert q.eps == 0.5 and len(clicked) == len(q.labels) > 0
