"""Audit a mechanism: the page on the runner (AppTest), its menu against the gallery, its
verdict and figure as plain functions, and its cost model against measured CPU time."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.audit import gallery, lower_bound
from dpui import registry
from dpui.audit import figures, menu
from dpui.audit import view as au
from dpui.kit import byte_cache, examples, limits
from dpui.kit.page import Inputs

ROOT = Path(__file__).resolve().parents[2]


def page(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "audit.py"), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def texts(at: AppTest) -> str:
    return " ".join(e.value for kind in (at.info, at.error, at.markdown) for e in kind)


def test_the_default_view_audits_laplace_and_finds_no_violation_without_claiming_privacy():
    at = page()
    assert not at.exception and not at.error
    assert any("No violation found at 95 %" in i.value for i in at.info)
    assert "does not prove privacy" in texts(at)
    bound = float(metric(at, "Lower bound ε_LB"))
    assert 0.9 < bound <= 1.0  # 70,000 counted runs of Laplace at ε = 1
    assert metric(at, "True ε (gallery)") == "1"
    assert "100,000 runs per input" in texts(at) and "70,000 counted" in texts(at)


def test_a_buggy_mechanism_shows_the_violation_and_the_gallery_agrees():
    at = page(au_mech="noisy_max_value")
    assert not at.exception
    shown = [e.value for e in at.error]
    assert any("Violation shown at 95 %" in s and "claimed ε = 1" in s for s in shown), shown
    assert float(metric(at, "Lower bound ε_LB")) > 1.0
    assert "The gallery agrees: its true ε is 2.5" in texts(at)


def test_a_correct_mechanism_with_an_exact_law_shows_its_exact_epsilon():
    at = page(au_mech="exponential")
    assert not at.exception
    assert any("No violation found" in i.value for i in at.info)
    assert "0.8716 (exact, from its output distribution)" in texts(at)
    assert "largest |ln P(o | D) − ln P(o | D′)| over its outputs" in texts(at)
    assert float(metric(at, "True ε (gallery)")) == pytest.approx(0.8716, abs=1e-4)


def test_the_exhibit_is_caught_only_with_its_own_score():
    at = page(au_mech="fp_laplace")
    assert not at.exception
    assert any("Violation shown" in e.value for e in at.error)
    assert any("this product's own noise" in w.value for w in at.warning)
    at.toggle(key=au.SCORE.name).set_value(False).run()
    assert not at.exception
    assert any("No violation found" in i.value for i in at.info)
    assert "In fact it is not 1-DP" in texts(at) and "Use its own score" in texts(at)


def test_the_exhibit_button_opens_the_exhibit():
    at = page()
    next(b for b in at.button if "Show the exhibit" in b.label).click().run()
    assert not at.exception
    assert at.selectbox(key=au.MECHANISM.name).value == menu.EXHIBIT


def test_the_gallery_claim_button_sets_the_sidebar_epsilon():
    at = page(au_mech="truncated_geometric")
    assert not at.exception
    assert any("No violation found" in i.value for i in at.info)  # not buggy at ε = 1
    next(b for b in at.button if b.label == "Use ε = 0.1").click().run()
    assert not at.exception
    assert at.number_input(key="eps").value == pytest.approx(0.1)
    assert metric(at, "Claimed ε (sidebar)") == "0.1"


def test_bad_link_values_fall_back_with_a_notice():
    at = page(au_mech="cauchy", au_conf="1.5", au_runs="2")
    assert not at.exception
    assert at.selectbox(key=au.MECHANISM.name).value == "laplace"
    assert at.number_input(key=au.CONFIDENCE.name).value == 0.95
    assert sum("Ignored" in w.value for w in at.warning) == 3
    assert any("No violation found" in i.value for i in at.info)


def test_too_few_runs_for_any_bound_are_refused_in_words_and_the_settings_kept():
    at = page(au_runs="10", au_conf="0.9999")
    assert not at.exception
    assert any(
        "No bound can be computed" in w.value and "at least 21" in w.value for w in at.warning
    )
    assert not at.get("progress")  # no progress bar left behind
    assert at.number_input(key=au.RUNS.name).value == 10


def test_a_claim_the_mechanism_is_not_built_for_is_refused_in_words():
    at = page(au_mech="truncated_geometric", eps="3")
    assert not at.exception
    assert any("up to 1.9" in w.value for w in at.warning)


def test_a_claim_below_the_mechanism_s_smallest_is_refused_in_words():
    at = page(au_mech="ldp_tree", eps="0.00001")
    assert not at.exception
    assert any("from 0.0001" in w.value for w in at.warning)


def test_pinned_against_another_mechanism_compares_the_key_numbers():
    at = page(pin="au_mech=laplace&au_runs=10000&au_conf=0.95&au_seed=0&au_score=true&eps=1")
    assert not at.exception
    assert any(m.value.startswith("**A (pinned):**") for m in at.markdown)
    at.selectbox(key=au.MECHANISM.name).set_value("svt5").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert "lower bound ε_LB" in list(table["quantity"])


def test_over_the_work_limit_the_ladder_is_cut_and_says_so(monkeypatch):
    monkeypatch.setenv("DP_EXPLORER_WORK_SECONDS", "0.2")
    at = page(au_runs="10000000")
    assert not at.exception
    assert any("Reduced by this server's work limit" in i.value for i in at.info)
    assert float(metric(at, "Lower bound ε_LB")) > 0.5


# --- the menu and the gallery --------------------------------------------------------------


def test_every_catalogue_entry_is_a_menu_choice_at_its_claim():
    """The page's menu is the gallery: every catalogue entry is some choice built at the
    entry's claimed ε (same name, true ε and verdict), and each choice's default claim is
    a catalogue entry's."""
    entries = gallery.catalogue()
    for entry in entries:
        built = [m.build(entry.claimed_epsilon) for m in menu.MECHANISMS.values()]
        same = [b for b in built if b.name == entry.name]
        assert same, entry.name
        assert same[0].buggy == entry.buggy
        if entry.true_epsilon is None:
            assert same[0].true_epsilon is None
        else:
            assert same[0].true_epsilon == pytest.approx(entry.true_epsilon)
    names = {e.name for e in entries}
    for key, mechanism in menu.MECHANISMS.items():
        entry = mechanism.build(mechanism.claim)
        assert entry.name in names, key
        assert entry.buggy == mechanism.known_bug, key


@pytest.mark.parametrize("key", list(menu.MECHANISMS))
def test_every_choice_builds_across_the_claims_it_accepts_with_a_finite_truth_if_correct(key):
    mechanism = menu.MECHANISMS[key]
    for claim in (max(1e-5, mechanism.min_claim), 0.1, 1.0, mechanism.max_claim):
        entry = mechanism.build(claim)
        if not mechanism.known_bug:
            assert entry.true_epsilon is not None and math.isfinite(entry.true_epsilon)
            assert not entry.buggy, (key, claim)


# --- plain functions ---------------------------------------------------------------------


def test_the_ladder_and_its_cost():
    assert au.ladder(100_000) == (100, 300, 1_000, 3_000, 10_000, 30_000, 100_000)
    assert au.ladder(100) == (100,) and au.ladder(150) == (100, 150)
    laplace = menu.MECHANISMS["laplace"]
    assert au.ladder_cost(laplace, au.ladder(100_000)).seconds < 0.2


def test_the_default_view_is_estimated_and_measured_well_under_a_second():
    page_ = next(p for p in registry.PAGES if p.key == "audit")
    values = {p.name: p.default for p in (*au.PARAMS, au.EPSILON)}
    inputs = Inputs(values, examples.load(examples.DEFAULT))
    estimate = au.cost(inputs)
    assert estimate.cost.seconds < 0.5
    byte_cache.clear_caches()
    start = time.process_time()
    assert page_.view is not None
    page_.view(inputs)
    assert time.process_time() - start < 1.0


@pytest.mark.slow
@pytest.mark.parametrize("key", ["svt2", "tree", "sue", "fp_laplace"])
def test_the_cost_model_holds_at_a_million_runs(key):
    """The measured CPU of the largest rung is within the model (the slowest samplers, the
    widest outputs, and the cheapest one)."""
    mechanism = menu.MECHANISMS[key]
    byte_cache.clear_caches()
    au.built(key, 1.0)
    start = time.process_time()
    au.audit_at(key, 1.0, 1_000_000, 0.95, 0, True)
    measured = time.process_time() - start
    assert measured <= 1.5 * au.ladder_cost(mechanism, (1_000_000,)).seconds  # shared CI cores


@pytest.mark.parametrize(("confidence", "delta"), [(0.5, 0.0), (0.95, 0.0), (0.9999, 1e-5)])
def test_fewest_runs_is_where_the_auditor_starts_to_accept(confidence, delta):
    fewest = au.fewest_runs(confidence, delta)
    entry = gallery.randomized_response()
    rng = np.random.default_rng(0)

    def audit(n: int) -> None:
        lower_bound(
            entry.sample_d, entry.sample_d_prime, samples=n, confidence=confidence,
            delta=delta, rng=rng,
        )  # fmt: skip

    audit(fewest)
    with pytest.raises(ValueError, match="too few"):
        audit(fewest - 1)


def test_a_plan_over_the_limit_keeps_the_rungs_that_fit(monkeypatch):
    monkeypatch.setenv(limits.SECONDS_VARIABLE, "0.5")
    chosen = au.plan(menu.MECHANISMS["svt2"], 10_000_000)
    assert chosen.cut and chosen.wanted == 10_000_000
    assert limits.within(au.ladder_cost(menu.MECHANISMS["svt2"], chosen.rungs))
    assert chosen.rungs == au.ladder(10_000_000)[: len(chosen.rungs)]


def _result(key: str, claim: float, runs: int = 20_000) -> au.Result:
    entry = au.built(key, claim)
    point = au.audit_at(key, claim, runs, 0.95, 0, True)
    return au.Result(key, entry, claim, au.Plan((runs,), runs), (point,), 0.95, 0, True)


def test_the_verdict_says_what_the_bound_shows_and_what_the_gallery_knows():
    caught = au.verdict(_result("svt5", 1.0))
    assert caught.violation and caught.headline.startswith("Violation shown at 95 %")
    missed = au.verdict(_result("svt4", 0.1))  # true 0.175: invisible at 20,000 runs
    assert not missed.violation and "does not prove privacy" in missed.headline
    assert "In fact it is not 0.1-DP" in missed.gallery and "missed it" in missed.gallery
    unrefutable = au.verdict(_result("laplace", 20.0, runs=1_000))
    assert "no audit could have shown a violation" in unrefutable.reason


def test_the_upper_end_and_the_bound_use_the_same_favoured_input():
    for key in ("laplace", "svt5", "rr", "hiskv_printed"):
        point = au.audit_at(key, 1.0, 20_000, 0.95, 3, True)
        assert point.upper >= point.audit.epsilon
        if math.isfinite(point.audit.point_estimate) and point.audit.epsilon > 0:
            assert point.upper >= point.audit.point_estimate >= point.audit.epsilon


def test_the_figure_draws_infinite_values_at_its_top_and_says_so():
    fig = figures.bound_vs_runs(
        np.array([100.0, 1000.0]),
        np.array([0.5, 2.0]),
        np.array([1.0, math.inf]),
        np.array([math.inf, 4.0]),
        claimed=1.0,
        true_epsilon=math.inf,
        exact=False,
        confidence=0.95,
        title="t",
    )
    top = fig.layout.yaxis.range[1]
    assert top == pytest.approx(1.15 * 2.0)
    cap = 1.08 * 2.0
    assert list(fig.data[1].y) == pytest.approx([cap, cap])  # the band's upper ends, cut
    assert fig.data[1].customdata[0] == "∞" and fig.data[1].customdata[1] == "4.000"
    assert fig.data[2].y[1] == pytest.approx(cap) and fig.data[2].customdata[1] == "∞"
    assert fig.data[3].name == "true ε = ∞ (off the chart)" and fig.data[3].y == (None,)
    assert fig.data[-1].name == "claimed ε = 1"  # drawn last, over an equal true ε
    assert fig.layout.xaxis.type == "log"
