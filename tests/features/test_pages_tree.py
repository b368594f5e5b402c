"""Interaction tests for the Tree & budgets page and the shared sidebar (AppTest)."""

import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import budget
from dpcore.hist.tree import kary_tree
from dpui.kit import limits, sidebar, slow
from dpui.tree import typed_ranges
from dpui.tree import view as tree_view
from tests.oracles import canonical_nodes
from tests.uploads import uploader

ROOT = Path(__file__).resolve().parents[2]


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _table_with(at: AppTest, column: str):
    """The page's first table that has ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.fixture
def page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120)


def test_defaults_show_a_release_spending_exactly_eps(page):
    page.run()
    assert not page.exception
    assert float(metric(page, "Release ε (max path sum)")) == pytest.approx(1.0)
    assert len(page.get("plotly_chart")) == 3  # tree, histogram, the range's two panels
    assert page.button_group(key="tb_show").value == "range"


def test_only_the_chosen_section_is_drawn_and_it_stays_in_the_link(page):
    page.run()
    page.button_group(key="tb_show").set_value("errors").run()
    assert not page.exception
    assert len(page.get("plotly_chart")) == 3  # tree, histogram, error chart
    assert _table_with(page, "allocation") is not None
    assert not any(m.label == "True answer" for m in page.metric)
    shown = page.query_params["tb_show"]
    assert (shown[0] if isinstance(shown, list) else shown) == "errors"


def test_node_table_is_a_section_with_every_node_up_to_its_limit(page):
    page.run()
    assert not any("coverage p_x" in d.value.columns for d in page.dataframe)
    page.button_group(key="tb_show").set_value("nodes").run()
    table = _table_with(page, "coverage p_x")
    nodes = int(metric(page, "Nodes").replace(",", ""))
    assert len(table) == min(nodes, tree_view.TABLE_LIMIT)
    assert table["node"].tolist() == list(range(len(table)))
    assert not page.exception


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
    next(b for b in page.button if b.label == "New noise").click().run()
    assert page.number_input(key="tb_seed").value == 1
    page.selectbox(key="tb_workload").set_value("length").run()
    page.number_input(key="tb_length").set_value(5000).run()
    assert any("longer than the histogram" in i.value for i in page.info)
    assert not page.exception


def _chart_spec(at: AppTest, key: str) -> str:
    """The Plotly JSON that chart ``key`` sends to the browser."""
    return next(c.proto.spec for c in at.get("plotly_chart") if c.proto.id.endswith(key))


def test_a_new_release_redraws_the_histogram_but_not_the_tree(page):
    # the browser redraws a chart whenever its JSON changes (tenths of a second each):
    # the tree shows budgets and coverage, which no noise seed changes
    page.run()
    tree, histogram = _chart_spec(page, "tree_chart"), _chart_spec(page, "hist_chart")
    page.number_input(key="tb_seed").set_value(7).run()
    assert _chart_spec(page, "tree_chart") == tree
    assert _chart_spec(page, "hist_chart") != histogram
    page.selectbox(key="tb_alloc").set_value("level").run()
    assert _chart_spec(page, "tree_chart") != tree  # the budgets are in its hover


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
    uploader(at, "upload_file").set_value(("mine.csv", b"count\n5\n1\n0\n7\n9\n", "text/csv"))
    at.run()
    assert not at.exception and at.session_state["data"] == sidebar.UPLOADED
    assert "5 bins" in " ".join(m.value for m in at.markdown)
    uploader(at, "upload_file").set_value(("bad.csv", b"count\n5\n-1\n", "text/csv"))
    at.run()
    errors = " ".join(e.value for e in at.error)
    assert "bad.csv was not loaded" in errors and "negative" in errors
    assert at.session_state[sidebar.UPLOADED].name == "mine.csv"
    at.switch_page("pages/tree_budgets.py").run()
    assert not at.exception
    assert metric(at, "Bins n") == "5"


def test_a_wrong_file_type_is_a_message_and_a_good_file_clears_it():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    uploader(at, "upload_file").set_value(("photo.png", b"\x89PNG", "image/png"))
    at.run()
    errors = " ".join(e.value for e in at.error)
    assert "photo.png is not a .csv or .tsv or .txt file" in errors
    assert at.session_state["data"] != sidebar.UPLOADED
    uploader(at, "upload_file").set_value(("mine.csv", b"count\n5\n1\n", "text/csv"))
    at.run()
    assert not at.exception and not at.error  # the stale message is gone
    assert at.session_state["data"] == sidebar.UPLOADED


def test_a_link_made_during_an_upload_says_the_upload_is_not_in_it():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    uploader(at, "upload_file").set_value(("mine.csv", b"count\n5\n1\n", "text/csv"))
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
def test_page_handles_one_bin_to_a_million_bins(n, monkeypatch):
    import numpy as np

    from dpcore.histogram import from_counts

    # a million bins are beyond the default work limits (tests/kit/test_limits.py): lift them
    monkeypatch.setenv(limits.SECONDS_VARIABLE, "600")
    monkeypatch.setenv(limits.MEMORY_VARIABLE, "16000")
    at = AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=300)
    at.session_state[sidebar.UPLOADED] = from_counts(np.ones(n), "ones")
    at.session_state["data"] = sidebar.UPLOADED
    at.run()
    assert not at.exception
    assert metric(at, "Bins n") == f"{n:,}"
    assert float(metric(at, "Release ε (max path sum)")) == pytest.approx(1.0)


def test_allocations_say_which_error_they_minimise_and_searches_after_blue(page):
    slow.clear()  # a fresh server: no search after BLUE has run yet
    page.session_state["tb_show"] = "errors"
    page.run()
    assert not page.exception
    labels = page.selectbox(key="tb_alloc").options
    assert "per-node, optimal for the raw tree (LUE-DPTree)" in labels
    assert "per-level, optimal for the raw tree (Boost-UN)" in labels
    assert "per-level, optimal after consistency (BLUE)" in labels
    assert "per-node, optimal after consistency (BLUE)" in labels
    assert "H_b: uniform, root not measured" in labels
    assert all("optimal" not in x or "raw tree" in x or "after consistency" in x for x in labels)
    table = _table_with(page, "allocation")
    assert list(table["allocation"])[:5] == [
        "uniform ε/Δ (Boost)",
        "H_b: uniform, root not measured",
        "per-level, optimal for the raw tree (Boost-UN)",
        "per-node, optimal for the raw tree (LUE-DPTree)",
        "per-level, optimal after consistency (BLUE)",
    ]
    errors = dict(zip(table["allocation"], table["after BLUE"], strict=True))
    best_rule = min(errors[x] for x in list(errors)[:4])
    assert errors["per-level, optimal after consistency (BLUE)"] <= min(
        errors["uniform ε/Δ (Boost)"], errors["H_b: uniform, root not measured"]
    ) * (1 + 1e-9)
    # the per-node search after BLUE is behind a button
    search = next(b for b in page.button if b.label == "Search the budgets optimal after BLUE")
    search.click().run()
    assert not page.exception
    table = _table_with(page, "allocation")
    after = dict(zip(table["allocation"], table["after BLUE"], strict=True))
    assert after["per-node, optimal after consistency (BLUE)"] <= best_rule * (1 + 1e-9)
    assert set(table["optimal for"]) >= {"raw tree", "after BLUE"}
    page.selectbox(key="tb_alloc").set_value("consistent_node").run()
    assert not page.exception
    assert float(metric(page, "Release ε (max path sum)")) == pytest.approx(1.0)


def test_root_switch_and_fanout_after_consistency(page):
    page.session_state["tb_show"] = "errors"
    page.session_state["tb_alloc"] = "uniform"
    page.run()
    before = _table_with(page, "allocation")["after BLUE"].iloc[0]
    page.checkbox(key="tb_root").uncheck().run()
    table = _table_with(page, "allocation")
    assert table["after BLUE"].iloc[0] == pytest.approx(table["after BLUE"].iloc[1])  # = H_b
    assert table["after BLUE"].iloc[0] != pytest.approx(before)
    assert float(metric(page, "Release ε (max path sum)")) == pytest.approx(1.0)
    assert metric(page, "Fan-out after BLUE") == "—"
    next(b for b in page.button if b.label == "Find the fan-out after BLUE").click().run()
    assert not page.exception
    assert int(metric(page, "Fan-out after BLUE")) in range(2, 21)
    assert int(metric(page, "k* (raw tree, uniform budgets)")) in range(2, 21)


def test_counts_float64_cannot_perturb_at_this_eps_give_a_message():
    """Total 2^32 passes the parser; at eps = 100 the root's noise (scale 1/eps_root) is
    too small for float64 at that magnitude, so the page says so instead of a silent release."""
    from dpcore.histogram import from_counts

    at = AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120)
    at.session_state[sidebar.UPLOADED] = from_counts([2.0**31, 2.0**31], "huge")
    at.session_state["data"] = sidebar.UPLOADED
    at.session_state["eps"] = 100.0
    at.run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "No release at ε = 100" in errors and "2^32 x noise scale" in errors
    at.session_state["eps"] = 0.001
    at.run()
    assert not at.exception and not at.error


def test_upload_reports_how_the_first_row_was_read():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    uploader(at, "upload_file").set_value(("c.csv", b"country,2020\na,1\n", "text/csv"))
    at.run()
    captions = " ".join(c.value for c in at.caption)
    assert "No header" in captions and "country, 2020" in captions
    assert at.session_state[sidebar.UPLOADED].n_bins == 2
    at.radio(key="upload_header").set_value("yes").run()
    assert at.session_state[sidebar.UPLOADED].n_bins == 1
    assert "First row read as a header" in " ".join(c.value for c in at.caption)


def _workload_note(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Workload: **"))


def test_custom_ranges_workload_gives_exact_errors_and_stays_in_the_link(page):
    page.session_state["tb_show"] = "errors"
    page.session_state["tb_tree"] = "4"
    page.run()
    page.selectbox(key="tb_workload").set_value("ranges").run()
    page.text_area(key="tb_ranges").input("1-100, 50-60, 200-300").run()
    assert not page.exception
    assert not page.warning
    assert "3 listed ranges equally likely" in _workload_note(page)
    ranges = page.query_params["tb_ranges"]
    assert (ranges[0] if isinstance(ranges, list) else ranges) == "1-100, 50-60, 200-300"
    table = _table_with(page, "allocation").set_index("allocation")
    # the 1,024-bin default on a 4-ary tree, uniform budgets: enumerate each 0-based range's
    # canonical decomposition (oracle) and average its nodes' Laplace variances
    t = kary_tree(1024, 4)
    eps = budget.uniform_budgets(t, 1.0)
    listed = ((0, 99), (49, 59), (199, 299))
    raw = np.mean([np.sum(2.0 / eps[canonical_nodes(t, a, b)] ** 2) for a, b in listed])
    assert table.loc["uniform ε/Δ (Boost)", "raw tree"] == pytest.approx(raw)
    after = table["after BLUE"]
    assert after["per-level, optimal after consistency (BLUE)"] <= min(
        after["uniform ε/Δ (Boost)"], after["H_b: uniform, root not measured"]
    ) * (1 + 1e-9)
    next(b for b in page.button if b.label == "Search the budgets optimal after BLUE").click().run()
    assert not page.exception
    after = _table_with(page, "allocation").set_index("allocation")["after BLUE"]
    assert after["per-node, optimal after consistency (BLUE)"] <= min(after.iloc[:5]) * (1 + 1e-9)
    page.selectbox(key="tb_alloc").set_value("consistent_node").run()
    assert not page.exception
    assert float(metric(page, "Release ε (max path sum)")) == pytest.approx(1.0)


def shown(markdown: str) -> str:
    """A message as the reader sees it: user text in it is backslash-escaped markdown."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_bad_custom_ranges_keep_the_text_and_say_what_is_wrong(page):
    page.session_state["tb_show"] = "errors"
    page.run()
    page.selectbox(key="tb_workload").set_value("ranges").run()
    page.text_area(key="tb_ranges").input("1-100, 7-x").run()
    assert not page.exception
    assert any("'7-x' is not a range" in shown(w.value) for w in page.warning)
    assert page.text_area(key="tb_ranges").value == "1-100, 7-x"
    assert "all ranges" in _workload_note(page)
    page.text_area(key="tb_ranges").input("1-2000").run()
    assert any("1 <= first <= last <= 1,024" in shown(w.value) for w in page.warning)


def test_a_link_with_custom_ranges_reopens_them_and_the_count_is_capped(page):
    page.query_params["tb_workload"] = "ranges"
    page.query_params["tb_ranges"] = "5-9;12"
    page.query_params["tb_show"] = "errors"
    page.run()
    assert not page.exception
    assert page.text_area(key="tb_ranges").value == "5-9;12"
    assert "2 listed ranges equally likely" in _workload_note(page)
    page.text_area(key="tb_ranges").input(", ".join(["1-2"] * 101)).run()
    assert any("at most 100 fit in a link" in shown(w.value) for w in page.warning)


def test_typed_ranges_are_one_based_and_become_the_library_string():
    assert typed_ranges.to_workload("1-100, 50-60\n7; 3 – 4", 200) == ("ranges:0-99,49-59,6-6,2-3")
    with pytest.raises(ValueError, match="type at least one range"):
        typed_ranges.to_workload(" , ", 200)


def test_searches_over_typed_ranges_say_when_they_are_over_the_limit():
    n = 2**20
    spec = typed_ranges.to_workload(", ".join(["1-9"] * 100), n)
    message = tree_view.fanout_unavailable(n, spec, "consistent_level")
    assert message is not None and "100 listed ranges on 2,097,151 nodes" in message
    assert tree_view.fanout_unavailable(n, spec, "hb") is None  # no search: scores only
    assert tree_view.fanout_unavailable(n, "uniform", "consistent_level") is None
    # the scan's estimate grows with the typed ranges (30 gradients of 40 ns per range-node)
    assert tree_view.fanout_scan(65_536, 100).seconds > 5 * tree_view.fanout_scan(65_536).seconds


def test_a_button_after_the_range_inputs_left_the_session_does_not_raise(page):
    """Classroom defect: on a fresh server, Expected error & fan-out -> "Find the fan-out after
    BLUE" raised KeyError 'tb_from': the section switch reran only the fragment, so the range
    explorer's inputs (not drawn there) left the session, and the button's full rerun read
    them. Every read now has a default; here the inputs are dropped by hand."""
    page.query_params["tb_show"] = "errors"
    page.query_params["data"] = "spiky-65536"  # the scan waits for a click at this size
    page.run()
    for key in ("tb_from", "tb_to", "_kept.tb_from", "_kept.tb_to"):
        if key in page.session_state:
            del page.session_state[key]
    next(b for b in page.button if b.label == "Find the fan-out after BLUE").click().run()
    assert not page.exception, page.exception
    assert metric(page, "Fan-out after BLUE") != "—"


def test_a_rejected_upload_is_said_in_the_main_area_too():
    at = AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120).run()
    uploader(at, "upload_file").set_value(("bad.csv", b"count\n5\n-3\nx\n", "text/csv"))
    at.run()
    main = " ".join(e.value for e in at.main.error)
    assert "Upload rejected" in main and "Line 3" in main  # the first bad cell, not line 4
    assert any("bad.csv was not loaded" in e.value for e in at.sidebar.error)
