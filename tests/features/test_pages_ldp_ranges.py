"""The "Range queries under local DP" page: AppTest runs (default view, every section, bad
links, refusals, pin and compare) and its view's numbers against dpcore and independent
formulas (the team's notes on LDP range queries give the D = 256 values)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpcore.histogram import from_counts
from dpcore.ldp import ranges
from dpui.kit import examples
from dpui.kit.page import Inputs, Refused
from dpui.kit.sidebar import EPSILON
from dpui.ldp_ranges import figures
from dpui.ldp_ranges import page as lr_page
from dpui.ldp_ranges import sections as sec
from dpui.ldp_ranges import view as lr

ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "ldp_ranges.py")
V1 = 4 * math.e / (math.e - 1) ** 2  # OUE's V at eps = 1


def _page(**query: str) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for name, value in query.items():
        at.query_params[name] = value
    return at


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def _warnings(at: AppTest) -> str:
    return " ".join(w.value.replace("`", "") for w in at.warning)


def _setting(counts: np.ndarray, **changes: object) -> lr.Setting:
    values = {p.name: p.default for p in (*lr.PARAMS, EPSILON)} | {k: v for k, v in changes.items()}
    return lr.setting(Inputs(values, from_counts(counts, "test")))


def _bump(d: int) -> np.ndarray:
    x = np.arange(d)
    return np.round(1000 * np.exp(-0.5 * ((x - 0.33 * d) / (d / 10)) ** 2)) + 1


def test_default_view_draws_every_method_says_its_units_and_matches_dpcores_averages():
    at = _page().run()
    assert not at.exception and not at.warning and not at.error
    text = _captions(at)
    assert "variance of a range's estimated fraction" in text and "fraction²" in text
    assert "ideal-random-hash" in text and "not a hardened noise source" in text
    assert "20 simulated collections" in text
    hist = examples.load(examples.DEFAULT)
    d = hist.n_bins
    shown = {m.label: float(m.value) for m in at.metric}
    expected = {
        "flat OUE: all ranges": ranges.average_variance(
            "flat-oue", domain=d, eps=1.0, users=100_000
        ),
        "HH4 OUE + BLUE: all ranges": ranges.average_variance(
            "hh-oue", domain=d, eps=1.0, users=100_000, fanout=4, consistent=True
        ),
        "HaarHRR: all ranges": ranges.average_variance(
            "haar-hrr", domain=d, eps=1.0, users=100_000
        ),
    }
    for label, value in expected.items():
        assert shown[label] == pytest.approx(value, rel=5e-3), label  # shown to 3 digits


def test_closed_forms_equal_dpcore_and_the_flat_formula_and_the_simulation_agrees():
    """On a 256-bin bump, the chart's exact values are dpcore's on the ranges evaluated, flat
    OUE's is (r V + f_Q) / N written out, and 200 simulated collections land within 15%."""
    counts = _bump(256)
    s = _setting(counts, lr_reps=200)
    assert s.reps == 200 and s.domain == 256
    c = lr.curves(s)
    first, last = lr.evaluated_ranges(256, 4)
    pop = lr.population(s)
    f = pop / pop.sum()
    plan = ranges.ldp_tree(256, 4, eps=1.0, users=s.users)
    blue = ranges.tree_range_variance(plan, first, last, consistency="blue", frequencies=f)
    blue += ranges.sampling_variance(plan, first, last, frequencies=f, consistency="blue")
    fq = np.concatenate(([0.0], np.cumsum(f)))
    flat = ((last - first + 1) * V1 + fq[last + 1] - fq[first]) / s.users
    table = c.table.set_index(["method", "length"])
    lengths = last - first + 1
    for r in np.unique(lengths):
        at = lengths == r
        assert table.loc[("blue", r), "closed"] == pytest.approx(blue[at].mean(), rel=1e-12)
        assert table.loc[("flat", r), "closed"] == pytest.approx(flat[at].mean(), rel=1e-9)
    inner = c.table[(c.table["length"] < 256) & c.table["method"].isin(lr.CLOSED)]
    ratio = inner["simulated"] / inner["closed"]
    assert ratio.between(0.85, 1.15).all(), ratio.describe()
    ahead = c.table[c.table["method"] == "ahead"]  # simulated only: no closed form
    assert ahead["closed"].isna().all() and (ahead["simulated"] > 0).all()
    assert set(c.averages) == set(lr.CLOSED)
    # the averages over all ranges, in units V/N: the notes' 86.0 (flat) and 11.80 (B = 4)
    unit = V1 / s.users
    assert c.averages["flat"] / unit == pytest.approx(86.0, abs=0.01)
    assert c.averages["blue"] / unit == pytest.approx(11.80, abs=0.01)
    assert c.averages["haar"] / ((math.e + 1) / (math.e - 1)) ** 2 * s.users == pytest.approx(
        9.571, abs=1e-3
    )


def test_at_large_eps_the_trees_and_haars_lines_include_the_level_groups_term():
    """At ε = 6 the level groups' own deviation is most of a tree node's error (0.25 against
    V = 0.01 per user): without it the simulated markers sat 40% above the lines; HaarHRR's
    (c² = 1.01) up to twice as high."""
    s = _setting(_bump(256), eps=6.0, lr_reps=200)
    table = lr.curves(s).table
    inner = table[(table["length"] < 256) & table["method"].isin(["raw", "blue", "haar"])]
    ratio = inner["simulated"] / inner["closed"]
    assert ratio.between(0.85, 1.15).all(), ratio.describe()
    assert ratio.mean() == pytest.approx(1.0, abs=0.06)


def test_norm_sub_moves_the_markers_off_the_unbiased_lines_and_the_page_says_so():
    """Norm-Sub (on the 256-bin bump, most bins near 0): a single bin's error halves, a
    96-bin range's grows severalfold as the bias adds up (measured 0.49 and 4.3 at 50
    collections); the lines stay the unbiased closed forms."""
    plain = _setting(_bump(256), lr_reps=50)
    cut = _setting(_bump(256), lr_reps=50, lr_normsub=True)
    assert cut.normalise and cut.stamp()["Norm-Sub"] == "on"
    table = lr.curves(cut).table.set_index(["method", "length"])
    pd.testing.assert_series_equal(
        table["closed"], lr.curves(plain).table.set_index(["method", "length"])["closed"]
    )
    ratio = table["simulated"] / table["closed"]
    assert ratio[("flat", 1)] < 0.7 and ratio[("flat", 96)] > 2.0
    at = _page(lr_normsub="true", lr_reps="3").run()
    assert not at.exception and not at.warning
    assert "Norm-Sub is on" in _captions(at)


def test_crossover_and_fanout_at_256_bins_match_the_notes():
    s = _setting(_bump(256))
    cross = sec.crossover(s)
    assert cross.domain == 256
    assert cross.crossings["blue"] == pytest.approx(0.931, abs=2e-3)
    assert cross.crossings["raw"] == pytest.approx(2.53, abs=0.01)
    table = sec.fanout_table(s).set_index("B")
    assert int(table["LDP + BLUE"].idxmin()) in (3, 4, 5)
    assert int(table["central + BLUE"].idxmin()) > int(table["LDP + BLUE"].idxmin())
    assert table.loc[4, "LDP raw"] / (V1 / s.users) == pytest.approx(34.96, abs=0.01)


def test_haar_is_padded_on_a_domain_that_is_not_a_power_of_2_and_the_page_says_so():
    at = _page(data="gapminder-pop-2007").run()
    assert not at.exception and not at.warning
    text = _captions(at)
    assert "padded from 142 to 256 items" in text
    assert "142 bins is not a power of B = 4" in text
    s = _setting(examples.load("gapminder-pop-2007").counts)
    assert s.padded == 256
    _, last = lr.evaluated_ranges(142, 4)
    assert last.max() == 141  # every range stays inside the real domain


@pytest.mark.parametrize("section", tuple(lr_page.SECTIONS))
def test_each_section_runs(section):
    at = _page(lr_show=section, data="gapminder-pop-2007").run()
    assert not at.exception and not at.warning and not at.error
    assert lr_page.SECTIONS[section].title in [h.value for h in at.header]


def test_bad_link_values_fall_back_with_a_notice():
    at = _page(lr_fanout="99", lr_oracle="grr", lr_reps="x").run()
    assert not at.exception
    warned = _warnings(at)
    for name in ("lr_fanout=99", "lr_oracle=grr", "lr_reps=x"):
        assert name in warned
    assert any(m.label.startswith("HH4 OUE") for m in at.metric)  # the defaults


def test_refusals_say_why_and_keep_the_settings():
    at = _page(lr_users="3").run()
    assert not at.exception and "Choose N ≥ 10" in _warnings(at)
    assert at.number_input(key=lr.USERS.name).value == 3
    at = _page(data="teaching-16", lr_fanout="32").run()
    assert not at.exception and "choose B ≤ 16" in _warnings(at)
    big = from_counts(np.ones(lr.MAX_DOMAIN + 1), "big")
    values = {p.name: p.default for p in (*lr.PARAMS, EPSILON)}
    with pytest.raises(Refused, match="fewer, wider bins"):
        lr.setting(Inputs(values, big))


@pytest.mark.parametrize(("eps", "used"), [(100.0, lr.MAX_EPS), (1e-5, 1e-4)])
def test_epsilon_at_the_sidebars_bounds_is_clamped_and_said(eps, used):
    at = _page(eps=repr(eps), lr_reps="2").run()
    assert not at.exception and not at.warning
    assert any(f"ε = {used:g}, not the sidebar's" in i.value for i in at.info)


def test_the_simulation_is_bounded_to_about_a_second():
    reps = lr.affordable_reps(65_536, 4, 65_536, "oue", 200)
    assert 1 <= reps < 200
    per = lr.page_cost(65_536, 4, 1, 65_536).seconds - lr.page_cost(65_536, 4, 0, 65_536).seconds
    assert reps * per <= lr.SIMULATION_SECONDS
    assert lr.affordable_reps(1024, 4, 1024, "oue", 20) == 20
    assert lr.affordable_reps(1024, 4, 1024, "oue", 0) == 0


def test_pinned_compare_puts_a_and_b_side_by_side():
    at = _page(pin="lr_fanout=2&lr_reps=2&eps=1", lr_reps="2").run()
    assert not at.exception and not at.warning
    table = next(d.value for d in at.dataframe if "quantity" in d.value.columns)
    table = table.set_index("quantity")
    assert table.loc["fan-out B", "A (pinned)"] == 2 and table.loc["fan-out B", "B (current)"] == 4
    name = "HH_B + BLUE: average variance, all ranges"
    d = examples.load(examples.DEFAULT).n_bins
    for column, fanout in (("A (pinned)", 2), ("B (current)", 4)):
        expected = ranges.average_variance(
            "hh-oue", domain=d, eps=1.0, users=100_000, fanout=fanout, consistent=True
        )
        assert table.loc[name, column] == pytest.approx(expected, rel=1e-12)


def test_the_length_figure_draws_a_method_without_closed_form_as_named_markers():
    table = pd.DataFrame(
        {
            "method": ["haar", "haar", "ahead", "ahead"],
            "length": [1, 8, 1, 8],
            "closed": [1e-3, 2e-3, np.nan, np.nan],
            "simulated": [1.1e-3, 2e-3, 0.5e-3, 1e-3],
            "lo": [0.9e-3, 1.8e-3, 0.4e-3, 0.9e-3],
            "hi": [1.3e-3, 2.2e-3, 0.6e-3, 1.1e-3],
        }
    )
    fig = figures.error_vs_length(table, {"haar": "HaarHRR", "ahead": "AHEAD"}, domain=8)
    drawn = [(t.name, t.mode, t.showlegend) for t in fig.data]
    assert drawn == [
        ("HaarHRR", "lines", None),
        ("HaarHRR (simulated)", "markers", False),
        ("AHEAD", "markers", True),
    ]


def test_the_length_figure_leaves_out_exact_zeros_on_its_log_axis():
    table = pd.DataFrame(
        {
            "method": ["haar", "haar"],
            "length": [1, 8],
            "closed": [1e-3, 1e-20],
            "simulated": [1.1e-3, 1e-33],
            "lo": [0.9e-3, 0.0],
            "hi": [1.3e-3, 1e-32],
        }
    )
    fig = figures.error_vs_length(table, {"haar": "HaarHRR"}, domain=8)
    for trace in fig.data:
        assert np.isnan(trace.y[1]) and trace.y[0] > 0


@pytest.fixture(autouse=True)
def _cold_caches():
    st.cache_data.clear()


def test_the_fanout_figure_stars_each_curves_minimum():
    table = pd.DataFrame(
        {
            "B": [2, 3, 4, 5],
            "LDP raw": [4.0, 3.0, 2.0, 2.5],
            "LDP + BLUE": [1.0, 0.9, 1.1, 1.2],
            "central raw": [9.0, 8.0, 7.0, 6.0],
            "central + BLUE": [5.0, 4.0, 3.0, 3.5],
        }
    )
    fig = figures.error_vs_fanout(table, domain=64)
    stars = {t.legendgroup: t.x[0] for t in fig.data if t.mode == "markers"}
    assert stars == {"LDP + BLUE": 3, "LDP raw": 4, "central + BLUE": 4, "central raw": 5}
    assert all(min(t.y) == 1.0 for t in fig.data if t.mode == "lines")


def test_the_crossover_figure_labels_each_eps_star_where_its_line_is():
    """Plotly puts an annotation on a log axis at log10 of its x (a shape at x itself)."""
    table = pd.DataFrame({"eps": [0.1, 1.0, 10.0]} | {m: [1.0, 0.1, 0.01] for m in lr.METHODS})
    names = lr.method_names("oue", 4)
    fig = figures.crossover(table, names, {"blue": 0.93, "raw": None}, eps=1.0, domain=256)
    (note,) = fig.layout.annotations
    assert note.x == pytest.approx(math.log10(0.93)) and "0.93" in note.text
    assert {round(shape.x0, 2) for shape in fig.layout.shapes} == {0.93, 1.0}
