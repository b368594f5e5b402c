"""What ε means: the page on the runner (AppTest) — defaults, bad input, pin and compare, limits."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpui.kit import examples
from dpui.meaning import attacker as atv
from dpui.meaning import composition as cov
from dpui.meaning import neighbours as nbv
from dpui.meaning import parts
from dpui.meaning import reconstruction as rev

ROOT = Path(__file__).resolve().parents[2]


def page(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "epsilon.py"), default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_defaults_show_the_laplace_promise():
    at = page()
    assert not at.exception and not at.error
    assert metric(at, "P[loss > ε]") == "0"
    assert float(metric(at, "Odds bound e^ε")) == pytest.approx(2.718, abs=1e-3)


def test_gaussian_noise_exceeds_eps_with_a_positive_chance():
    at = page(nb_mech="gaussian", nb_delta="0.01")
    assert not at.exception
    assert float(metric(at, "P[loss > ε]")) > 0.01  # the loss exceeds ε more often than δ


def test_an_empty_bin_is_refused_with_a_hint_and_the_settings_kept():
    counts = examples.load(examples.DEFAULT).counts
    empty = [i + 1 for i, c in enumerate(counts) if c < 1]
    if not empty:
        pytest.skip("the default dataset has no empty bin")
    at = page(nb_bin=str(empty[0]))
    assert not at.exception
    assert any("not empty" in w.value for w in at.warning)
    assert at.number_input(key=nbv.BIN.name).value == empty[0]


def test_pinned_against_itself_and_against_another_mechanism():
    at = page(pin="nb_mech=laplace&eps=1")
    assert not at.exception
    assert any("A (pinned)" in m.value for m in at.markdown)
    at.radio(key=nbv.MECHANISM.name).set_value("geometric").run()
    assert not at.exception
    assert any("different views" in c.value for c in at.caption)


def test_too_many_releases_are_refused_before_any_work(monkeypatch):
    monkeypatch.setenv("DP_EXPLORER_WORK_SECONDS", "0.01")
    at = page(nb_releases="1000000")
    assert not at.exception
    assert any("Not computed" in w.value for w in at.warning)


def test_a_bad_link_value_falls_back_with_a_notice():
    at = page(nb_mech="cauchy", nb_delta="2")
    assert not at.exception
    assert at.radio(key=nbv.MECHANISM.name).value == "laplace"
    assert sum("Ignored" in w.value for w in at.warning) == 2


def test_the_part_switch_is_in_the_link_and_the_attacker_part_shows_its_numbers():
    at = page(eps_part="attacker", eps="1")
    assert not at.exception and not at.error
    assert at.segmented_control(key=parts.PART.name).value == "attacker"
    assert float(metric(at, "Best accuracy (even odds)")) == pytest.approx(0.731, abs=1e-3)
    assert any("under the bound within its 95% interval" in m.value for m in at.markdown)
    at.slider(key=atv.PRIOR.name).set_value(0.2).run()
    assert not at.exception
    assert at.query_params["at_prior"] == "0.2"


@pytest.mark.parametrize("eps", ["1e-05", "100"])
def test_the_attacker_part_at_the_bounds_of_eps(eps):
    at = page(eps_part="attacker", eps=eps)
    assert not at.exception and not at.error


def test_a_pinned_neighbours_view_against_the_attacker_part():
    at = page(pin="eps_part=neighbours&eps=1", eps_part="attacker")
    assert not at.exception
    assert any("different views" in c.value for c in at.caption)


def test_the_composition_part_shows_the_ledger():
    at = page(eps_part="composition", eps="0.5", co_k="100")
    assert not at.exception and not at.error
    assert float(metric(at, "Basic kε")) == pytest.approx(50.0)
    assert float(metric(at, "Exact Gaussian ε at δ")) < float(metric(at, "zCDP ε at δ")) < 50
    assert any("tree_budgets" in m.value for m in at.markdown)


@pytest.mark.parametrize("eps", ["1e-05", "100"])
def test_the_composition_part_at_the_bounds_of_eps(eps):
    at = page(eps_part="composition", eps=eps)
    assert not at.exception and not at.error


def test_composition_beyond_its_limits_falls_back_with_a_notice():
    at = page(eps_part="composition", co_k="20000", co_delta="0")
    assert not at.exception and not at.error
    assert sum("Ignored" in w.value for w in at.warning) == 2
    assert at.number_input(key=cov.K.name).value == cov.K.default


def test_the_reconstruction_part_recovers_below_root_n_and_not_from_dp_answers():
    at = page(eps_part="reconstruction", eps="1")
    assert not at.exception and not at.error
    assert metric(at, "Recovered at b = √n/20") == "100.0%"
    assert float(metric(at, "Recovered from ε-DP answers").rstrip("%")) < 65


@pytest.mark.parametrize("eps", ["1e-05", "100"])
def test_the_reconstruction_part_at_the_bounds_of_eps(eps):
    at = page(eps_part="reconstruction", eps=eps)
    assert not at.exception and not at.error


def test_reconstruction_beyond_its_limits_is_refused_before_any_work(monkeypatch):
    at = page(eps_part="reconstruction", re_n="4096")
    assert sum("Ignored" in w.value for w in at.warning) == 1
    assert at.number_input(key=rev.BITS.name).value == rev.BITS.default
    monkeypatch.setenv("DP_EXPLORER_WORK_SECONDS", "0.2")
    at = page(eps_part="reconstruction", re_n="512", re_queries="8")
    assert not at.exception
    assert any("Not computed" in w.value for w in at.warning)
    # the part switch stays usable after a refusal (it is above the part, not in it)
    at.segmented_control(key=parts.PART.name).set_value("composition").run()
    assert not at.exception and not at.warning


def test_a_pinned_reconstruction_against_another_budget():
    at = page(pin="eps_part=reconstruction&eps=10&re_n=64", eps_part="reconstruction", re_n="64")
    assert not at.exception
    assert any("A (pinned)" in m.value for m in at.markdown)


def test_the_part_switch_is_with_the_content_while_presenting_and_not_in_the_sidebar():
    """The sidebar is hidden while presenting and on a phone: the switch is in the page."""
    at = page(present="1", eps_part="composition")
    assert not at.exception
    assert [c.key for c in at.main.segmented_control if c.key == parts.PART.name] == ["eps_part"]
    assert parts.PART.name not in [c.key for c in at.sidebar.segmented_control]
    at.main.segmented_control(key=parts.PART.name).set_value("attacker").run()
    assert not at.exception and at.query_params[parts.PART.name] == "attacker"


def test_every_part_says_what_to_notice_in_its_own_chart():
    said = {}
    for part in parts.PARTS:
        at = page(eps_part=part, re_n="64")
        assert not at.exception
        (notice,) = [m.value for m in at.markdown if m.value.startswith("**What to notice here:**")]
        said[part] = notice
    assert len(set(said.values())) == len(parts.PARTS)  # one of its own per part
    assert "privacy loss" in said["neighbours"] and "e^ε" in said["attacker"]
    assert "√k" in said["composition"] and "bit" in said["reconstruction"]
