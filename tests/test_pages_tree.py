"""Interaction tests for the Tree & budgets page and the shared sidebar (AppTest)."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpui import sidebar

ROOT = Path(__file__).resolve().parents[1]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture
def page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120)


def test_defaults_show_a_release_spending_exactly_eps(page):
    page.run()
    assert not page.exception
    assert float(metric(page, "Release ε (max path sum)")) == pytest.approx(1.0)
    assert len(page.get("plotly_chart")) == 3


def test_changing_fanout_epsilon_and_allocation(page):
    page.session_state["eps"] = 0.25
    page.run()
    page.selectbox(key="tb_tree").set_value("2").run()
    assert metric(page, "Height Δ") == "11"  # 1024 bins, binary: 11 levels
    page.selectbox(key="tb_tree").set_value("16").run()
    assert metric(page, "Height Δ") == "4"
    for alloc in ("uniform", "level", "node"):
        page.selectbox(key="tb_alloc").set_value(alloc).run()
        assert not page.exception
        assert float(metric(page, "Release ε (max path sum)")) == pytest.approx(0.25)
    assert page.query_params["tb_tree"] == ["16"] or page.query_params["tb_tree"] == "16"


def test_new_noise_button_changes_seed_and_workload_length_is_clamped(page):
    page.run()
    page.button[0].click().run()
    assert page.number_input(key="tb_seed").value == 1
    page.selectbox(key="tb_workload").set_value("length").run()
    page.number_input(key="tb_length").set_value(5000).run()
    assert any("longer than the histogram" in i.value for i in page.info)
    assert not page.exception


def test_invalid_query_parameters_fall_back_with_notice(page):
    page.query_params["tb_tree"] = "99"
    page.query_params["tb_seed"] = "-3"
    page.run()
    assert not page.exception
    warnings = " ".join(w.value for w in page.warning)
    assert "tb_tree=99" in warnings and "tb_seed=-3" in warnings
    assert page.selectbox(key="tb_tree").value == "sc"


def test_every_dataset_renders(page):
    page.run()
    for name in ("teaching-16", "zipf-4096", "spiky-65536", "gapminder-pop-2007"):
        page.session_state["data"] = name
        page.run()
        assert not page.exception, name


def test_upload_then_bad_upload_keeps_previous_histogram():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.file_uploader(key="upload_file").set_value(
        ("mine.csv", b"count\n5\n1\n0\n7\n9\n", "text/csv")
    )
    at.run()
    assert not at.exception and at.session_state["data"] == sidebar.UPLOADED
    assert "5 bins" in " ".join(m.value for m in at.markdown)
    at.file_uploader(key="upload_file").set_value(("bad.csv", b"count\n5\n-1\n", "text/csv"))
    at.run()
    errors = " ".join(e.value for e in at.error)
    assert "bad.csv was not loaded" in errors and "negative" in errors
    assert at.session_state[sidebar.UPLOADED].name == "mine.csv"
    at.switch_page("pages/tree_budgets.py").run()
    assert not at.exception
    assert metric(at, "Bins n") == "5"


def test_a_wrong_file_type_is_a_message_and_a_good_file_clears_it():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.file_uploader(key="upload_file").set_value(("photo.png", b"\x89PNG", "image/png"))
    at.run()
    errors = " ".join(e.value for e in at.error)
    assert "photo.png is not a .csv or .tsv or .txt file" in errors
    assert at.session_state["data"] != sidebar.UPLOADED
    at.file_uploader(key="upload_file").set_value(("mine.csv", b"count\n5\n1\n", "text/csv"))
    at.run()
    assert not at.exception and not at.error  # the stale message is gone
    assert at.session_state["data"] == sidebar.UPLOADED


def test_a_link_made_during_an_upload_says_the_upload_is_not_in_it():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.file_uploader(key="upload_file").set_value(("mine.csv", b"count\n5\n1\n", "text/csv"))
    at.run()
    assert at.query_params["data"] == sidebar.UPLOAD_MARK  # not the previous dataset's name
    opened = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    opened.query_params["data"] = sidebar.UPLOAD_MARK
    opened.run()
    assert not opened.exception
    notes = " ".join(w.value for w in opened.warning)
    assert "Uploads are not part of links" in notes
    assert f"**{sidebar.DATASET.default}** is shown instead" in notes


@pytest.mark.slow
@pytest.mark.parametrize("n", [1, 2, 2**20])
def test_page_handles_one_bin_to_a_million_bins(n):
    import numpy as np

    from dpcore.histogram import from_counts

    at = AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=300)
    at.session_state[sidebar.UPLOADED] = from_counts(np.ones(n), "ones")
    at.session_state["data"] = sidebar.UPLOADED
    at.run()
    assert not at.exception
    assert metric(at, "Bins n") == f"{n:,}"
    assert float(metric(at, "Release ε (max path sum)")) == pytest.approx(1.0)
