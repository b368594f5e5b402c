"""Which algorithm for my data? on a 2-D map (AppTest and plain functions): the default 2-D
view, the ranking of every 2-D algorithm, the release heatmaps with a partition's cells, bad
input (a message, the entered value kept, the previous view still drawn), the link, the cost
model, Identity's exact error and the crossover in words."""

import json
import tracemalloc

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.algorithms import NAMES_2D, release
from dpcore.algorithms.cost import run_seconds_2d
from dpcore.algorithms.dpbench_2d import random_rectangles, sample_grid, scaled_errors
from dpcore.algorithms.grid2d.inputs import rectangle_answers
from dpcore.spatial.grid_data import Grid
from dpui.algorithms import compare, figures, map2d, map_page
from dpui.kit.page import Inputs, Refused
from dpui.kit.sidebar import EPSILON
from dpui.spatial import data
from tests.features.test_pages_which_algorithm import page, ranking

TWO_D = {"wa_data": "2d", "wa_trials": "2"}


def warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def test_the_default_2d_view_ranks_every_2d_algorithm():
    """Adaptive trials on the default map (stroke-32x32, its own 19,435 records)."""
    at = page(wa_data="2d")
    assert not at.exception and not at.error and not warnings(at)
    table = ranking(at)
    assert sorted(table["algorithm"]) == sorted(NAMES_2D)
    assert (np.diff(table["mean"].astype(float)) >= 0).all()
    assert table.set_index("algorithm").loc["Identity", "how"] == "exact"
    card = [m.value for m in at.markdown if m.value.startswith("**Recommendation**")]
    assert card and "your map's N = 19,435 records" in card[0]
    assert "2,000 random rectangles" in card[0] and "records per cell" in card[0]
    assert any("No 2-D algorithm here reads the true number" in c.value for c in at.caption)
    assert at.radio(key=map2d.DATA.name).value == "2d"


def test_the_1d_view_is_unchanged_by_the_2d_parameters():
    at = page(wa_map="gowalla-128x128", wa_rows="32", wa_domain="256", wa_trials="2")
    assert not at.exception and not warnings(at)
    assert "DAWA" in set(ranking(at)["algorithm"])
    assert not set(ranking(at)["algorithm"]) & {"PrivTree", "AGrid"}


def test_a_2d_link_round_trips():
    """Every 2-D setting read from the link is drawn and written back unchanged."""
    link = {
        "wa_data": "2d",
        "wa_map": "sf-taxi-64x64",
        "wa_rows": "32",
        "wa_rect_workload": "listed",
        "wa_rect_list": "0 0 7 9; 3 4 20 31",
        "wa_release_2d": "AGrid",
        "wa_show_2d": "release",
        "wa_trials": "2",
        "wa_scale": "5000",
    }
    at = page(**link)
    assert not at.exception and not warnings(at)
    for key, value in link.items():
        assert at.query_params[key] == value, key
    assert at.selectbox(key=map2d.MAP.name).value == "sf-taxi-64x64"
    assert at.selectbox(key=map2d.ROWS.name).value == 32
    assert at.text_input(key=map2d.LISTED.name).value == "0 0 7 9; 3 4 20 31"
    assert any("5,000 records" in m.value for m in at.markdown)


@pytest.mark.parametrize(
    ("params", "says", "kept"),
    [
        ({"wa_rows": "5"}, "cannot be made from 'stroke-32x32'", ("wa_rows", 5)),
        (
            {"wa_rect_workload": "listed", "wa_rect_list": "0 0 40 40"},
            "The listed rectangles",
            ("wa_rect_list", "0 0 40 40"),
        ),
        (
            {"wa_rect_workload": "listed", "wa_rect_list": "0 0 3"},
            "is not a rectangle",
            ("wa_rect_list", "0 0 3"),
        ),
        (
            {"wa_map": "gowalla-128x128", "wa_rect_workload": "all"},
            "the page evaluates at most 600,000",
            ("wa_rect_workload", "all"),
        ),
        ({"wa_map": "upload"}, "No 2-D file is uploaded", ("wa_map", "upload")),
    ],
)
def test_bad_2d_input_says_what_is_accepted_and_keeps_the_value(params, says, kept):
    at = page(**TWO_D, **params)
    assert not at.exception
    assert any(says in w for w in warnings(at)), warnings(at)
    key, value = kept
    widget = next(w for w in (*at.selectbox, *at.text_input, *at.radio) if w.key == key)
    assert widget.value == value


def test_after_bad_input_every_setting_is_kept_and_one_edit_goes_back():
    """A domain that does not divide the grid: the message, every entered setting kept (the
    bad one too), and setting the domain back draws the ranking of the good setting."""
    good = ranking(page(**TWO_D))
    at = page(**TWO_D, wa_rows="5", wa_map="stroke-32x32", wa_seed="0")
    assert not at.exception
    assert any("must be a whole number" in w for w in warnings(at))
    assert not [d for d in at.dataframe if "regret" in d.value.columns]
    assert at.selectbox(key=map2d.ROWS.name).value == 5
    assert at.radio(key=map2d.DATA.name).value == "2d"
    assert at.selectbox(key=map2d.MAP.name).value == "stroke-32x32"
    at.selectbox(key=map2d.ROWS.name).set_value(0).run()
    assert not at.exception and not warnings(at)
    pd.testing.assert_frame_equal(ranking(at), good)


def test_a_refused_upload_keeps_the_previous_map_in_use():
    """After a refused file the grid uploaded before stays in use, and the page says so."""
    kept = Grid(np.arange(64.0).reshape(8, 8), "kept.csv")
    session = {
        data.UPLOADED: kept,
        data.UPLOAD_ERROR: "bad.csv was not loaded: row 3 has 2 cells. The previous data are "
        "still in use; upload the file again to retry.",
    }
    at = page(session, wa_map="upload", **TWO_D)
    assert not at.exception
    assert any("Upload rejected" in e.value and "previous data" in e.value for e in at.error)
    assert sorted(ranking(at)["algorithm"]) == sorted(NAMES_2D)
    assert any("In use: kept.csv, 8 x 8 cells." in c.value for c in at.caption)


def test_an_all_zero_upload_is_refused():
    zero = Grid(np.zeros((8, 8)), "zeros.csv")
    at = page({data.UPLOADED: zero}, wa_map="upload", **TWO_D)
    assert not at.exception
    assert any("'zeros.csv' holds no records" in w for w in warnings(at))


def test_a_scale_below_the_number_of_cells_says_what_it_means():
    at = page(wa_scale="100", **TWO_D)
    assert not at.exception and not warnings(at)
    assert any("100 records over 1,024 cells: most cells are empty" in c.value for c in at.caption)


@pytest.mark.parametrize("eps", [str(EPSILON.lo), str(EPSILON.hi)])
def test_eps_at_its_bounds_ranks_every_2d_algorithm(eps):
    at = page(eps=eps, wa_show_2d="release", wa_release_2d="AGrid", **TWO_D)
    assert not at.exception and not at.error and not warnings(at)
    table = ranking(at)
    assert sorted(table["algorithm"]) == sorted(NAMES_2D)
    assert np.isfinite(table["mean"].astype(float)).all()


def test_the_release_section_draws_and_the_scale_section_describes_the_crossover():
    at = page(wa_show_2d="scale", **TWO_D)
    assert not at.exception and not at.error
    words = [m.value for m in at.markdown if m.value.startswith("Best data-dependent over")]
    assert words and "Identity's regret" in words[0]


@pytest.mark.parametrize("name", ["PrivTree", "AGrid", "UGrid", "DPCube-2D"])
def test_the_release_map_outlines_the_partitions_cells_on_both_heatmaps(name):
    """The default map at 2,000 records: each partition is coarser than the grid."""
    x = sample_grid(data.bundled("stroke-32x32").counts, 2_000, 32, np.random.default_rng(0))
    run = release(name, x, 1.0, workload="random rectangles", rng=np.random.default_rng(1))
    fig = figures.release_map(x, run.estimate, run.buckets, name=name)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap"]
    assert np.array_equal(fig.data[0].z, x) and np.array_equal(fig.data[1].z, run.estimate)
    assert [s.type for s in fig.layout.shapes] == ["path", "path"]
    assert {(s.xref, s.yref) for s in fig.layout.shapes} == {("x", "y"), ("x2", "y2")}
    path = fig.layout.shapes[0].path
    assert path.count("M") == len(run.buckets) > 1
    # every cell of the grid lies in exactly one outlined cell: the outlines tile the grid
    areas = (run.buckets[:, 2] - run.buckets[:, 0] + 1) * (
        run.buckets[:, 3] - run.buckets[:, 1] + 1
    )
    assert areas.sum() == x.size


def test_cells_as_fine_as_the_grid_are_not_outlined():
    """AGrid's 4,096 cells on sf-taxi-64x64 at its 464,040 records were the grid itself: a
    white mesh over the whole map. Over half as many cells as the grid: no outlines."""
    x = np.ones((8, 8))
    fine = np.array([[r, c, r, c] for r in range(8) for c in range(8)])
    assert not figures.release_map(x, x, fine, name="AGrid").layout.shapes
    assert not figures.release_map(x, x, fine[:33], name="AGrid").layout.shapes
    assert len(figures.release_map(x, x, fine[:32], name="AGrid").layout.shapes) == 2


def test_the_release_map_of_an_algorithm_without_cells_has_no_outlines():
    x = np.ones((4, 4))
    run = release("Identity", x, 1.0, workload="random rectangles", rng=np.random.default_rng(1))
    assert not figures.release_map(x, run.estimate, run.buckets, name="Identity").layout.shapes


def test_cells_path_draws_each_cell_around_its_grid_cells():
    path = figures.cells_path(np.array([[0, 0, 0, 0], [1, 2, 3, 5]]))
    assert path == "M-0.5,-0.5H0.5V0.5H-0.5ZM1.5,0.5H5.5V3.5H1.5Z"


def _inputs(**values: object) -> Inputs:
    defaults = {p.name: p.default for p in (*map2d.PARAMS, *compare.PARAMS, EPSILON)}
    defaults |= {"wa_data": "2d", **values}
    return Inputs(defaults, None, {})  # type: ignore[arg-type]


def test_identitys_exact_error_matches_its_simulation():
    """Identity is ranked at E|sum of k Laplace(1/eps)| per rectangle of k cells (exact);
    checked against 400 seeded releases on the same rectangles (tolerance: 4 standard
    errors of the simulated mean)."""
    s = map2d.setting(_inputs(wa_rows=16, wa_scale=5000))
    exact = map2d.exact_errors(s)["Identity"]
    truth, _ = map2d.sample(s, 0)
    lo, hi = s.corners()
    rng = np.random.default_rng(7)
    errors = []
    for _ in range(400):
        noisy = truth + rng.laplace(0.0, 1 / s.eps, truth.shape)
        diff = rectangle_answers(noisy, lo, hi) - rectangle_answers(truth, lo, hi)
        errors.append(np.abs(diff).mean() / s.scale)
    mean, se = np.mean(errors), np.std(errors, ddof=1) / np.sqrt(len(errors))
    assert abs(mean - exact) < 4 * se


def test_the_ranking_chart_draws_identity_at_its_exact_error():
    """The 2-D ranking gives Identity no closed-form column (its exact value is its mean),
    and the chart drew its diamond at no x: the row was empty on the page."""
    s = map2d.setting(_inputs(wa_rows=16, wa_scale=5000, wa_trials=3))
    fig = figures.ranking(map2d.summary(map2d.errors(s, s.key()), s))
    (diamond,) = [t for t in fig.data if t.name == "exact expected error"]
    assert list(diamond.y) == ["Identity"]
    assert diamond.x[0] == pytest.approx(map2d.exact_errors(s)["Identity"])


def test_all_rectangles_are_every_rectangle_once():
    """Brute force: every (r0 <= r1, c0 <= c1) of a 3 x 4 grid, each listed once."""
    s = map2d.setting(_inputs(wa_map="stroke-32x32", wa_rows=4, wa_rect_workload="all"))
    lo, hi = s.corners()
    listed = {(*a, *b) for a, b in zip(lo.tolist(), hi.tolist(), strict=True)}
    brute = {
        (r0, c0, r1, c1)
        for r0 in range(4)
        for r1 in range(r0, 4)
        for c0 in range(4)
        for c1 in range(c0, 4)
    }
    assert len(lo) == len(listed) == map2d.all_count(4, 4) == s.query_count()
    assert listed == brute


def test_the_page_scores_random_rectangles_as_dpbenchs_scaled_error():
    """The page's trial error equals dpcore's DPBench scaled error on the same inputs."""
    s = map2d.setting(_inputs(wa_rows=16, wa_scale=3000, wa_trials=1))
    rows = map2d.run_trials(s, ("AGrid",), range(1))
    truth, _ = map2d.sample(s, 0)
    run = release("AGrid", truth, s.eps, workload=s.rectangles(), rng=map2d.noise(s, 0, "AGrid"))
    l1, _ = scaled_errors(truth, run.estimate, random_rectangles((16, 16)))
    assert rows[0][2] == pytest.approx(l1, rel=1e-12)


def test_slow_2d_algorithms_are_left_out_with_their_estimate():
    """At 512 x 512 DAWA-2D is estimated over a second per run: left out, and said."""
    cells = 512 * 512
    assert run_seconds_2d("DAWA-2D", cells, 2000) > 1.0
    names = map2d.compared(cells, 2000, slow=False)
    assert "DAWA-2D" not in names and "Identity" in names
    assert "DAWA-2D" in map2d.compared(cells, 2000, slow=True)
    s = map2d.Setting2D(
        Grid(np.ones((512, 512)), "big"), 10**6, (512, 512), "random", "", 1.0, 2, 0, names
    )
    said = map_page.left_out(s)
    assert "DAWA-2D (about" in said and "512 × 512" in said


def test_a_refused_map_gives_no_estimate_and_the_view_says_why():
    inputs = _inputs(wa_rows=5)
    assert map2d.cost(inputs) is None
    with pytest.raises(Refused, match="accepted: 32 × 32, 16 × 16"):
        map2d.setting(inputs)


def test_the_crossover_in_words_comes_from_the_curves():
    curves = pd.DataFrame(
        {
            "algorithm": ["AGrid", "Identity", "HB-2D"] * 2,
            "scale": [1000] * 3 + [10**7] * 3,
            "mean": [0.01, 0.05, 0.04, 0.002, 0.001, 0.0012],
        }
    )
    words = map_page.crossover(curves)
    assert "1,000: 0.25 (AGrid vs HB-2D)" in words
    assert "10,000,000: 2 (AGrid vs Identity)" in words
    assert (
        "Data-dependent algorithms win at 1,000 records, data-independent ones at 10,000,000"
        in words
    )
    assert "Identity's regret (its error over the best's): 1,000: 5, 10,000,000: 1." in words


def test_a_pinned_2d_view_is_compared_with_the_current_one():
    """Pin and compare in 2-D: view A at 1,000 records beside B at the map's own N."""
    at = page(pin="wa_data=2d&wa_trials=2&wa_scale=1000&eps=1", **TWO_D)
    assert not at.exception and not warnings(at)
    assert any("A (pinned)" in m.value for m in at.markdown)
    assert sorted(ranking(at)["algorithm"]) == sorted(NAMES_2D)


@pytest.mark.parametrize(
    "params", [{"wa_domain": "256", "wa_trials": "2"}, TWO_D], ids=["1-D", "2-D"]
)
def test_error_vs_scale_draws_identity_at_its_exact_error(params):
    """Identity, ranked at its exact error, never runs a trial: the 1-D curves left it out
    (the trials' frame has no row of it). Both modes now draw its line."""
    section = "wa_show_2d" if params.get("wa_data") == "2d" else "wa_show"
    at = page(**params, **{section: "scale"})
    assert not at.exception and not warnings(at)
    names = [
        [trace.get("name") for trace in json.loads(chart.proto.spec)["data"]]
        for chart in at.get("plotly_chart")
    ]
    curves = next(n for n in names if any(str(name).startswith("your ") for name in n))
    assert "Identity" in curves


@pytest.mark.parametrize("name", ["AHP-2D", "DAWA-2D", "AGrid", "PrivTree", "HB-2D"])
def test_the_2d_memory_model_holds_a_runs_peak(name):
    """The page's memory estimate of one run and its evaluation at 64 x 64 is at least the
    peak traced (the bench measured AHP-2D at 16 MB there, DAWA-2D at 7 MB)."""
    x = sample_grid(data.bundled("sf-taxi-64x64").counts, 10**6, 64, np.random.default_rng(0))
    workload = random_rectangles((64, 64))
    release(name, x, 1.0, workload=workload, rng=np.random.default_rng(1))  # warm caches
    tracemalloc.start()
    run = release(name, x, 1.0, workload=workload, rng=np.random.default_rng(1))
    scaled_errors(x, run.estimate, workload)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    estimate = map2d.page_cost((name,), 64 * 64, 2000, 1).megabytes * 1e6
    assert peak <= estimate, (peak, estimate)


def test_dawa_2d_on_512_by_512_is_over_the_memory_limit_and_said():
    """DAWA-2D's 2,500 bytes per cell make 655 MB at 512 x 512: over the default 600 MB, so
    ticking "Include slow algorithms" there is refused with the memory, not run."""
    cost = map2d.page_cost(("Identity", "DAWA-2D"), 512 * 512, 2000, 1)
    assert cost.megabytes > 600
