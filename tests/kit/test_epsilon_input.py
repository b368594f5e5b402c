"""The sidebar's epsilon: down to 1e-5 from a link, the box or the log slider, kept in step."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _page(name: str) -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / name), default_timeout=120)


def test_link_with_eps_1e_minus_5_is_accepted_and_positions_the_slider() -> None:
    at = _page("exponential.py")
    at.query_params["eps"] = "1e-05"
    at.run()
    assert not at.exception and not at.warning
    assert at.number_input(key="eps").value == 1e-5
    assert at.slider(key="eps_log10").value == -5.0


def test_log_slider_sets_epsilon_and_the_box_sets_the_slider() -> None:
    at = _page("laplace.py").run()
    at.slider(key="eps_log10").set_value(-4.0).run()
    assert not at.exception
    assert at.number_input(key="eps").value == 1e-4
    assert at.query_params["eps"] == "0.0001"
    at.number_input(key="eps").set_value(0.25).run()
    assert at.slider(key="eps_log10").value == -0.6  # log10(0.25) = -0.602, 2 decimals


def test_below_1e_minus_5_falls_back_with_a_notice() -> None:
    at = _page("home.py")
    at.query_params["eps"] = "1e-06"
    at.run()
    assert at.number_input(key="eps").value == 1.0
    assert any("outside [1e-05, 100]" in w.value for w in at.warning)


def test_the_eps_control_says_which_end_is_private_and_what_eps_means():
    at = _page("home.py")
    at.run()
    words = " ".join(c.value for c in at.sidebar.caption)
    assert "← more private · more accurate →" in words
    assert "at most ×2.72" in words and "±1.4 " in words  # e^1, √2/1
    at.number_input(key="eps").set_value(0.1).run()
    words = " ".join(c.value for c in at.sidebar.caption)
    assert "at most ×1.11" in words and "±14 " in words
