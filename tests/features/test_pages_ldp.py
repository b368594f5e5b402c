"""The "Key-value LDP" page driven through Streamlit's AppTest (widgets set by key)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.histogram import from_counts
from dpui.kit import byte_cache
from dpui.kit.page import Inputs, Refused
from dpui.ldp import settings as kv
from dpui.ldp import simulation as sim
from dpui.ldp import view as kv_view
from tests.uploads import uploader

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "kv_ldp.py")
GOOD_CSV = b"user,key,value\nu1,apple,0.5\nu2,apple,-1\nu2,pear,1\nu3,fig,0\nu3,pear,0.2\n"


def _errors_as_read(at: AppTest) -> str:
    """The error messages as the user reads them (they are markdown, the file's words escaped)."""
    return re.sub(r"\\(.)", r"\1", " ".join(e.value for e in at.error))


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state[kv.USERS.name] = 2_000
    at.session_state[kv.KEYS.name] = 30
    at.session_state[kv.REPS.name] = 2
    return at


def _text(at: AppTest) -> str:
    parts = [e.value for e in (*at.markdown, *at.caption, *at.info, *at.warning, *at.error)]
    return " ".join(str(p) for p in parts)


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _show(at: AppTest, section: str) -> AppTest:
    """The page with ``section`` chosen below the accuracy charts."""
    at.button_group(key=kv.SECTION.name).set_value(section)
    return at.run()


def test_defaults_render_every_section_and_label_the_reconstruction() -> None:
    at = AppTest.from_file(PAGE, default_timeout=120).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert [h.value for h in at.header] == ["Accuracy vs ε", "Privacy check (exact)"]
    assert len(at.get("plotly_chart")) == 2  # only the chosen section is drawn (a table)
    assert "reconstructed from the paper's description" in at.warning[0].value
    assert "Reconstruction notice" in _text(at)  # the prose in assets/kv_ldp.md
    assert len(at.get("download_button")) == 2
    sections = {
        "re": "Relative error vs top-t",
        "truncation": "Truncation length (HISKV's OETL)",
        "split": "Value / key budget split (HISKV)",
        "hiskv": "Why the reconstructed HISKV does not win (analysis of a reconstruction)",
    }
    for section, header in sections.items():
        _show(at, section)
        assert not at.exception and not at.error, section
        assert [h.value for h in at.header] == ["Accuracy vs ε", header]
        shown = at.query_params[kv.SECTION.name]
        assert (shown[0] if isinstance(shown, list) else shown) == section
    _show(at, "privacy")
    privacy = next(d.value for d in at.dataframe if "holds" in d.value.columns)
    checked = privacy[privacy["holds"] != "unavailable"]
    assert set(checked["holds"]) == {"yes"}
    assert privacy.set_index("mechanism").loc["LDPKV", "holds"] == "unavailable"
    assert len(privacy.columns) == 6  # fits the page at 1280 px: the notes are in the caption
    assert "LDPKV: cited by the HISKV paper" in _text(at)


def test_a_link_opens_its_section() -> None:
    at = _page()
    at.query_params[kv.SECTION.name] = "split"
    at.run()
    assert not at.exception
    assert at.header[-1].value == "Value / key budget split (HISKV)"


def test_mechanism_selection_and_eps_not_in_grid() -> None:
    at = _page()
    at.query_params[kv.SECTION.name] = "re"  # where the ε for RE is used
    at.run()
    for flag in kv.MECHANISM_FLAGS.values():
        at.checkbox(key=flag.name).uncheck()
    at.run()
    assert not at.exception
    assert "Tick at least one mechanism" in _text(at)
    at.checkbox(key=kv.MECHANISM_FLAGS["HISKV"].name).check()
    at.selectbox(key=kv.RE_EPS.name).set_value("0.1")  # not in the default grid
    at.run()
    assert not at.exception and not at.error
    assert "is not in the grid; showing ε = 0.4" in _text(at)


def test_settings_survive_in_the_url_and_bad_links_fall_back() -> None:
    at = _page()
    at.query_params[kv.GRID.name] = "bogus"
    at.query_params[kv.SHARE.name] = "0.3"
    at.run()
    assert not at.exception
    assert any("kv_grid=bogus" in w.value for w in at.warning)
    assert at.session_state[kv.GRID.name] == "coarse"
    assert at.session_state[kv.SHARE.name] == pytest.approx(0.3)


@pytest.mark.parametrize("source", ["gauss", "lnr", "uniform"])
def test_a_set_length_up_to_d_generates_data_instead_of_a_traceback(source: str) -> None:
    """Issue 27, 1: /kv_ldp?kv_max_len=100 (d = 100) spent seconds redrawing keys, then
    raised RuntimeError; every length up to d is now drawn exactly, and within the estimate."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    link = {"kv_source": source, "kv_lengths": "uniform", "kv_users": "5000", "kv_d": "100"}
    for name, value in {**link, "kv_max_len": "100", "kv_reps": "1"}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    assert _metric(at, "Users n") == "5,000" and _metric(at, "Keys d") == "100"
    assert float(_metric(at, "Mean set length")) == pytest.approx(50.5, abs=1.5)


def test_upload_source_waits_for_a_file_then_uses_it() -> None:
    at = _page().run()
    at.selectbox(key=kv.SOURCE.name).set_value(kv.UPLOAD)
    at.run()
    assert not at.exception and not at.error
    assert "Upload a CSV with columns user,key,value" in _text(at)
    uploader(at, kv.UPLOAD_WIDGET).set_value(("mine.csv", GOOD_CSV, "text/csv"))
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _metric(at, "Keys d") == "3" and _metric(at, "Users n") == "3"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"user,key,value\nu1,a,1.5\n", "[-1, 1]; see line(s) 2"),
        (b"user,key,value\nu1,a,x\n", "must be numbers"),
        (b"user,key,value\nu1,a,0.1\nu1,a,0.2\n", "same key twice"),
        (b"user,key,value\nu1,,0.1\n", "empty key"),
        (b"user,value\nu1,0.1\n", "missing column(s) key"),
        (b"", "the file is empty"),
        (b"user,key,value\nu1,a,0.5\n", "the mechanisms need at least 2"),
        (b"user,key,value,Value\nu1,a,0.5,0.7\n", "appear more than once"),
        (b"user,key,value\nu1,a,0.5,9\nu2,b,0.1,3\n", "line 2 has 4 fields"),
    ],
)
def test_bad_csv_is_rejected_and_previous_data_kept(content: bytes, reason: str) -> None:
    at = _page().run()
    at.selectbox(key=kv.SOURCE.name).set_value(kv.UPLOAD)
    at.run()
    uploader(at, kv.UPLOAD_WIDGET).set_value(("mine.csv", GOOD_CSV, "text/csv"))
    at.run()
    uploader(at, kv.UPLOAD_WIDGET).set_value(("bad.csv", content, "text/csv"))
    at.run()
    assert not at.exception
    errors = _errors_as_read(at)
    assert "Upload rejected, previous data kept" in errors and "bad.csv" in errors
    assert reason in errors
    assert _metric(at, "Keys d") == "3"  # still the good file


def test_a_wrong_file_type_is_rejected_with_a_message() -> None:
    at = _page().run()
    at.selectbox(key=kv.SOURCE.name).set_value(kv.UPLOAD)
    at.run()
    uploader(at, kv.UPLOAD_WIDGET).set_value(("photo.png", b"\x89PNG", "image/png"))
    at.run()
    assert not at.exception
    assert "photo.png is not a .csv or .txt file" in " ".join(e.value for e in at.error)


def test_a_bad_file_without_a_previous_one_shows_only_the_error() -> None:
    at = _page().run()
    at.selectbox(key=kv.SOURCE.name).set_value(kv.UPLOAD)
    at.run()
    uploader(at, kv.UPLOAD_WIDGET).set_value(("bad.csv", b"user,key\n", "text/csv"))
    at.run()
    assert not at.exception
    assert "missing column(s) value" in _errors_as_read(at)
    assert not at.header  # nothing computed on data we do not have


def test_share_slider_and_accounting_change_the_probability_table() -> None:
    at = _show(_page().run(), "split")
    before = at.dataframe[0].value
    at.slider(key=kv.SHARE.name).set_value(1.0)
    at.toggle(key=kv.AMPLIFIED.name).set_value(False)
    at.run()
    assert not at.exception and not at.error
    after = at.dataframe[0].value
    assert after["q1 (flip value)"].tolist() == pytest.approx(after["q2 (other pair)"].tolist())
    assert not before["q1 (flip value)"].equals(after["q1 (flip value)"])
    _show(at, "privacy")
    privacy = next(d.value for d in at.dataframe if "holds" in d.value.columns)
    privacy = privacy.set_index("mechanism")
    assert privacy.loc["HISKV", "claim about"] == "one report"
    assert privacy.loc["HISKV", "holds"] == "yes"


def test_sidebar_eps_above_the_ldp_cap_is_capped_and_said() -> None:
    at = _page()
    at.session_state["eps"] = 50.0
    at.run()
    assert not at.exception
    assert "This page uses ε = 10, not the sidebar's 50" in _text(at)


def test_simulation_hands_over_each_finished_mechanism_before_the_rest() -> None:
    byte_cache.clear_caches()  # computed here, not found in the cache
    spec = kv.DataSpec("gauss", "heavy", 1000, 20, 10, 0, b"")
    settings = kv.settings_for(
        kv.load_data(spec), share=0.5, amplified=False, beta=0.1, pckv_l=0, rounds=2
    )
    names, grid = ("HISKV", "PCKV-GRR", "SUE"), (0.5, 2.0)
    seen: list[list[str]] = []
    runs, _ = sim.simulation(
        spec, names, grid, 1, settings, 0, 20,
        _partial=lambda frame: seen.append(list(dict.fromkeys(frame["mechanism"]))),
    )  # fmt: skip
    assert seen == [["HISKV"], ["HISKV", "PCKV-GRR"]]  # the last one is the full result
    assert list(dict.fromkeys(runs["mechanism"])) == list(names)
    assert set(runs["eps"]) == set(grid)


def test_view_leaves_only_the_uncached_simulation_of_the_view_set_now_to_the_body() -> None:
    byte_cache.clear_caches()
    values = {p.name: p.default for p in kv.PARAMS} | {
        kv.USERS.name: 1_000, kv.KEYS.name: 20, kv.REPS.name: 1,
        **{flag.name: name == "HISKV" for name, flag in kv.MECHANISM_FLAGS.items()},
    }  # fmt: skip
    hist = from_counts(np.ones(4), "any")
    now = Inputs(values | {"eps": 1.0}, hist, {kv_view.SET_NOW: values})
    b = kv_view.view(now)
    assert b.detail.pending and b.detail.acc.summary is None  # the body streams it
    assert "HISKV: MSE of frequencies" not in b.numbers
    a = kv_view.view(Inputs(values | {"eps": 1.0}, hist))  # another view: simulated here
    assert not a.detail.pending and "HISKV: MSE of frequencies" in a.numbers
    b = kv_view.view(now)  # cached now
    assert not b.detail.pending and b.numbers == a.numbers and b.kind == a.kind == "mse_freq"
    with pytest.raises(Refused, match="No file is uploaded"):
        kv_view.view(Inputs(values | {kv.SOURCE.name: kv.UPLOAD, "eps": 1.0}, hist))
