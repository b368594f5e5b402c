"""Interaction tests for the Laplace and exponential mechanism pages (Streamlit AppTest)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpui.mechanisms import laplace as lap
from dpui.mechanisms.exponential import ADULT_EDUCATION, SPORTS_VOTE, batch_size

ROOT = Path(__file__).resolve().parents[2]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


@pytest.fixture
def laplace() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "laplace.py"), default_timeout=120)


@pytest.fixture
def exponential() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "exponential.py"), default_timeout=120)


# --- Laplace -------------------------------------------------------------------------------


def test_laplace_defaults_use_gapminder_and_the_textbook_numbers(laplace):
    laplace.run()
    assert not laplace.exception and not errors(laplace)
    assert metric(laplace, "Entries k") == "40"  # 40 countries under 5 million in 2007
    # b = Δf/ε = 1; bound ln(k/δ) with k = 40, δ = 0.05.
    assert float(metric(laplace, "Bound ln(k/δ)·b")) == pytest.approx(math.log(40 / 0.05), rel=1e-3)
    exact = -math.log(1 - (1 - 0.05) ** (1 / 40))
    assert float(metric(laplace, "Exact width t*·b")) == pytest.approx(exact, rel=1e-3)
    assert len(laplace.get("plotly_chart")) == 2  # the release and the noise below it
    for section, shown in (("bound", "Bound vs exact"), ("two_k", "Two query sizes k")):
        laplace.button_group(key="lap_show").set_value(section).run()
        assert not laplace.exception and not errors(laplace), section
        assert shown in laplace.header[-1].value
        assert laplace.query_params["lap_show"] in (section, [section])
    assert len(laplace.get("plotly_chart")) == 1  # the two-k section is a table


def test_laplace_two_k_table_reports_probabilities(laplace):
    laplace.query_params["lap_show"] = "two_k"
    laplace.run()
    laplace.number_input(key="lap_k2").set_value(200)
    laplace.number_input(key="lap_trials").set_value(2000).run()
    table = laplace.dataframe[-1].value
    assert list(table["k"]) == [40, 200]
    # Each entry crosses the bound with probability δ/k, so δ are expected beyond it.
    np.testing.assert_allclose(table["expected number beyond the bound"], 0.05, rtol=1e-12)
    exact = table["P[max ≥ bound], exact"].to_numpy()
    np.testing.assert_allclose(
        exact, 1 - (1 - 0.05 / table["k"].to_numpy()) ** table["k"].to_numpy()
    )
    simulated = table["P[max ≥ bound], simulated"].to_numpy()
    assert np.all(np.abs(simulated - exact) < 4 * np.sqrt(exact * (1 - exact) / 2000))


def test_laplace_scale_mode_sets_b_and_derives_eps(laplace):
    laplace.run()
    laplace.radio(key="lap_scale_mode").set_value("scale").run()
    laplace.number_input(key="lap_b").set_value(1000.0).run()
    assert not laplace.exception
    assert float(metric(laplace, "ε")) == pytest.approx(0.001)
    assert float(metric(laplace, "Bound ln(k/δ)·b")) == pytest.approx(
        1000 * math.log(40 / 0.05), rel=1e-3
    )


def test_laplace_on_the_sidebar_histogram_and_an_empty_filter(laplace):
    laplace.run()
    laplace.selectbox(key="lap_source").set_value("sidebar").run()
    assert not laplace.exception
    assert metric(laplace, "Entries k") == "1,024"  # the default bundled example
    laplace.selectbox(key="lap_source").set_value("gapminder").run()
    laplace.number_input(key="lap_pop_max").set_value(0.1).run()  # smallest is ~0.2 million
    assert not laplace.exception
    assert any("No country" in w.value for w in laplace.warning)


def test_laplace_seed_reproduces_and_new_noise_changes_the_draw(laplace):
    laplace.query_params["lap_show"] = "two_k"
    laplace.run()
    first = laplace.dataframe[-1].value["largest |noise| in one draw"].to_list()
    again = AppTest.from_file(str(ROOT / "pages" / "laplace.py"), default_timeout=120)
    again.query_params["lap_show"] = "two_k"
    again.run()
    assert again.dataframe[-1].value["largest |noise| in one draw"].to_list() == first
    next(b for b in laplace.button if b.label == "New noise").click().run()
    assert laplace.number_input(key="lap_seed").value == 1
    assert laplace.dataframe[-1].value["largest |noise| in one draw"].to_list() != first


def test_laplace_invalid_link_falls_back_with_a_notice(laplace):
    laplace.query_params["lap_delta"] = "2"
    laplace.query_params["lap_year"] = "2008"
    laplace.run()
    assert not laplace.exception
    notices = " ".join(w.value for w in laplace.warning)
    assert "lap_delta=2" in notices and "lap_year=2008" in notices
    assert laplace.number_input(key="lap_delta").value == 0.05


# --- Exponential ---------------------------------------------------------------------------


def state(at: AppTest) -> tuple[int, bool]:
    return at.session_state["exp_drawn"], at.session_state["exp_playing"]


def edit(at: AppTest, source: str, **changes: object) -> None:
    """Seed the data editor's edit state (AppTest cannot type into cells)."""
    edits = {"edited_rows": {}, "added_rows": [], "deleted_rows": []} | changes
    at.session_state[f"exp_table_{source}"] = edits


def test_exponential_defaults_show_exact_probabilities(exponential):
    exponential.run()
    assert not exponential.exception and not errors(exponential)
    scores = np.array([s for _, s in SPORTS_VOTE], dtype=float)
    weights = np.exp(scores / 2)  # ε = 1, Δu = 1: small enough for the naive formula
    assert float(metric(exponential, "Pr[best answer]")) == pytest.approx(
        weights[0] / weights.sum(), rel=1e-3
    )
    assert state(exponential) == (0, False)


def test_exponential_animation_play_runs_in_batches_to_the_end(exponential):
    exponential.run()
    exponential.button(key="exp_play").click().run()
    assert state(exponential) == (batch_size(100), True)
    exponential.run()  # one more frame (what the fragment timer does in a browser)
    assert state(exponential) == (2 * batch_size(100), True)
    frames = 2
    while state(exponential)[1] and frames < 40:
        exponential.run()
        frames += 1
    assert state(exponential) == (100, False)
    assert frames == math.ceil(100 / batch_size(100))
    assert not exponential.exception
    assert any("in 100 runs" in c.value for c in exponential.caption)


def test_exponential_pause_reset_and_all_at_once(exponential):
    exponential.run()
    exponential.button(key="exp_play").click().run()
    exponential.button(key="exp_pause").click().run()
    paused = state(exponential)
    assert paused[1] is False and paused[0] > 0
    exponential.run()
    assert state(exponential) == paused  # no frames while paused
    exponential.button(key="exp_reset").click().run()
    assert state(exponential) == (0, False)
    exponential.button(key="exp_finish").click().run()
    assert state(exponential) == (100, False)


def test_exponential_frequencies_converge_and_new_inputs_restart(exponential):
    exponential.session_state["eps"] = 0.1
    exponential.run()
    exponential.number_input(key="exp_draws").set_value(20_000).run()
    exponential.button(key="exp_finish").click().run()
    caption = next(c.value for c in exponential.caption if "Best answer output" in c.value)
    best = int(caption.split("output ")[1].split(" times")[0].replace(",", ""))
    scores = np.array([s for _, s in SPORTS_VOTE], dtype=float)
    weights = np.exp(0.1 * scores / 2)
    p = weights[0] / weights.sum()
    assert abs(best / 20_000 - p) < 4 * math.sqrt(p * (1 - p) / 20_000)
    exponential.number_input(key="exp_seed").set_value(5).run()
    assert state(exponential) == (0, False)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"edited_rows": {1: {"score": "lots"}}}, "'lots' is not a number"),
        ({"edited_rows": {2: {"candidate": "Football"}}}, "appears in rows 1 and 3"),
        ({"deleted_rows": [0, 1, 2, 3]}, "The table is empty"),
        ({"edited_rows": {0: {"score": "inf"}}}, "not finite"),
        ({"edited_rows": {3: {"candidate": ""}}}, "no candidate name"),
    ],
)
def test_exponential_invalid_score_table_gives_a_clear_message(exponential, changes, message):
    edit(exponential, "sports", **changes)
    exponential.run()
    assert not exponential.exception
    assert len(errors(exponential)) == 1 and message in errors(exponential)[0]
    assert not exponential.get("plotly_chart")  # no numbers from an invalid table
    # The user's edits are still there after the error.
    kept = exponential.session_state["exp_table_sports"]
    assert all(kept[name] == value for name, value in changes.items())


def test_exponential_restore_preset_after_an_error(exponential):
    edit(exponential, "sports", edited_rows={1: {"score": "lots"}})
    exponential.run()
    assert errors(exponential)
    next(b for b in exponential.button if b.label == "Restore the preset table").click().run()
    assert not errors(exponential) and not exponential.exception


def test_exponential_edited_scores_are_used(exponential):
    edit(exponential, "sports", edited_rows={3: {"score": "1e12"}})
    exponential.run()
    assert not errors(exponential)
    assert float(metric(exponential, "Pr[best answer]")) == 1.0  # Tennis now wins outright


def test_exponential_adult_bound_exceeds_one_for_small_eps(exponential):
    exponential.session_state["eps"] = 0.001
    exponential.run()
    exponential.selectbox(key="exp_source").set_value("adult").run()
    assert not exponential.exception
    assert metric(exponential, "Candidates |R|") == "16"
    events = exponential.dataframe[-1].value
    wrong = events.iloc[0]
    assert "wrong answer" in wrong["event"]
    # Bound: |R|/|R_OPT| · exp(ε (c - OPT) / 2) with OPT = 10501, c = 7291.
    scores = [s for _, s in ADULT_EDUCATION]
    assert wrong["bound"] == pytest.approx(16 * math.exp(0.001 * (7291 - 10501) / 2))
    assert wrong["bound"] > 1 and bool(wrong["bound ≥ 1 (useless)"])
    weights = np.exp(0.001 * (np.array(scores, dtype=float) - 10501) / 2)
    assert wrong["exact probability"] == pytest.approx(1 - weights[0] / weights.sum())


def test_exponential_on_the_sidebar_histogram(exponential):
    exponential.run()
    exponential.selectbox(key="exp_source").set_value("sidebar").run()
    assert not exponential.exception and not errors(exponential)
    assert metric(exponential, "Candidates |R|") == "1,024"
    assert any("40 highest-scoring of 1,024" in c.value for c in exponential.caption)


def test_exponential_edits_survive_a_visit_to_another_page():
    """Issue 27, 9: edit a score, open the Glossary, come back: the edit is still there (the
    data editor's state is dropped by Streamlit when its page is not run)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/exponential.py").run()
    before = metric(at, "Pr[best answer]")
    edit(
        at,
        "sports",
        edited_rows={3: {"score": "1e12"}},
        added_rows=[{"candidate": "Golf", "score": "3"}],
    )
    at.run()
    assert float(metric(at, "Pr[best answer]")) == 1.0
    at.switch_page("pages/glossary.py").run()
    assert not at.exception
    at.switch_page("pages/exponential.py").run()
    assert not at.exception and not errors(at)
    assert float(metric(at, "Pr[best answer]")) == 1.0  # Tennis still wins outright
    assert metric(at, "Candidates |R|") == str(len(SPORTS_VOTE) + 1)  # Golf is still there
    at.run()  # a rerun on the page keeps them too (the edits are not applied twice)
    assert float(metric(at, "Pr[best answer]")) == 1.0
    assert metric(at, "Candidates |R|") == str(len(SPORTS_VOTE) + 1)
    next(b for b in at.button if b.label == "Restore the preset table").click().run()
    assert metric(at, "Pr[best answer]") == before
    assert metric(at, "Candidates |R|") == str(len(SPORTS_VOTE))


def test_exponential_play_comes_right_after_the_key_numbers(exponential):
    """Issue 22 (9): Play sat about 1,000 px down, under the weights; the repeated runs (and
    their Play) now come first."""
    at = exponential.run()
    assert not at.exception
    headings = [h.value for h in at.header]
    assert headings.index("Repeated runs") < headings.index("Weights and probabilities")
    assert at.button(key="exp_play").label == "Play"


def test_laplace_a_section_over_the_limit_is_refused_with_its_estimate_below_the_release(laplace):
    """Issue 37 H1 on the Laplace page: the simulated sections' cost was part of the page's,
    so a link asking for a big simulation on a big histogram showed nothing at all (not even
    the release, nor the trials to lower). The release is drawn; the section's settings, then
    its estimate, and nothing simulated."""
    for key, value in {
        "data": "spiky-65536",
        "lap_source": "sidebar",
        "lap_show": "bound",
        "lap_trials": "10000",
        "lap_k2": "100000",
    }.items():
        laplace.query_params[key] = value
    laplace.run()
    assert not laplace.exception and not errors(laplace)
    assert metric(laplace, "Entries k") == "65,536"
    assert len(laplace.get("plotly_chart")) == 1  # the release, not the simulated curves
    (refusal,) = [w.value for w in laplace.warning if "Not computed" in w.value]
    k, trials = 65536, 10000
    draws = sum(size * lap.effective_trials(size, trials) for size in lap.sweep_ks(k, 100000))
    assert f"{draws:,} Laplace values" in refusal and "about" in refusal and "MB" in refusal
    assert laplace.number_input(key="lap_trials").value == trials  # there to be lowered
    laplace.number_input(key="lap_trials").set_value(100).run()
    laplace.number_input(key="lap_k2").set_value(10).run()
    assert not laplace.exception and not [w for w in laplace.warning if "Not computed" in w.value]
    assert len(laplace.get("plotly_chart")) == 3  # the release and the two simulated curves
