"""A page's view is computed once for every session with the same inputs
(``dpui.kit.shared_views``): only pages whose view draws nothing, reads no session state and
gives the same result twice share it; two sessions of a page draw identical charts with the
second computing no view, and drawing leaves the shared view unchanged."""

import json
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from streamlit.delta_generator import DeltaGenerator
from streamlit.runtime.state.session_state_proxy import SessionStateProxy
from streamlit.testing.v1 import AppTest

from dpcore.histogram import from_counts
from dpui import registry
from dpui.kit import byte_cache, examples, pin, shared_views, sidebar
from dpui.kit.page import Inputs, Page
from dpui.kit.params import ChoiceParam
from dpui.meaning import figures as meaning_figures
from dpui.mechanisms import figures as mechanism_figures

ROOT = Path(__file__).resolve().parents[2]
SHARED = [p for p in registry.PAGES if p.shared_view]


@pytest.fixture(autouse=True)
def _empty() -> None:
    byte_cache.clear_caches()


def _spec(view) -> str:
    return json.dumps(view.figure.to_plotly_json(), sort_keys=True, default=str)


def test_the_lessons_pages_share_their_views():
    assert {p.key for p in SHARED} == {"epsilon", "laplace"}
    assert all(p.view is not None and p.extra is None for p in SHARED)


def _settings() -> list[tuple[Page, dict[str, object]]]:
    """Each shared page at its defaults, and at every option of each of its choices."""
    cases = []
    for page in SHARED:
        defaults = {p.name: p.default for p in (*page.params, sidebar.EPSILON)}
        cases.append((page, defaults))
        for param in page.params:
            if isinstance(param, ChoiceParam):
                others = [o for o in param.options if o != param.default]
                cases += [(page, defaults | {param.name: o}) for o in others]
    return cases


@pytest.mark.parametrize(("page", "values"), _settings(), ids=lambda c: getattr(c, "key", ""))
def test_a_shared_view_draws_nothing_reads_no_session_state_and_repeats_itself(
    page, values, monkeypatch
):
    def refused(*args, **kwargs):
        raise AssertionError(f"{page.key}'s view touched Streamlit")

    for name in ("_enqueue", "_block"):
        monkeypatch.setattr(DeltaGenerator, name, refused)
    for name in ("__getitem__", "__setitem__", "__contains__", "__getattr__"):
        monkeypatch.setattr(SessionStateProxy, name, refused)
    inputs = Inputs(values, examples.load(examples.DEFAULT))
    first, second = page.view(inputs), page.view(inputs)
    assert _spec(first) == _spec(second)
    assert first.numbers == second.numbers and first.stamp == second.stamp


def test_a_kept_view_is_the_same_object_for_the_same_inputs_only():
    hist = examples.load(examples.DEFAULT)
    made = []

    def compute(tag):
        made.append(tag)
        return object()

    a = shared_views.view("p", {"x": 1}, hist, lambda: compute("a"))
    assert shared_views.view("p", {"x": 1}, hist, lambda: compute("again")) is a
    assert shared_views.view("p", {"x": 2}, hist, lambda: compute("x")) is not a
    assert shared_views.view("q", {"x": 1}, hist, lambda: compute("q")) is not a
    labels = tuple(f"b{i}" for i in range(hist.n_bins))
    relabelled = from_counts(hist.counts, hist.name, labels=labels)
    assert shared_views.view("p", {"x": 1}, relabelled, lambda: compute("l")) is not a
    assert made == ["a", "x", "q", "l"]


def test_a_datasets_digest_is_made_once_and_tells_its_text_apart():
    counts, labels = np.array([3.0, 1.0, 2.0]), ("a", "b", "c")
    hist = from_counts(counts, "h", labels=labels)
    digest = shared_views.dataset_digest(hist)
    assert shared_views._DIGESTS[hist] == digest == shared_views.dataset_digest(hist)
    copy = from_counts(counts.copy(), "h", labels=labels)
    assert shared_views.dataset_digest(copy) == digest  # by content, not by object
    for other in (
        from_counts(counts, "h ", labels=labels),
        from_counts(counts + 1.0, "h", labels=labels),
        from_counts(counts, "h", labels=("a", "b", "d")),
        from_counts(counts, "h"),
    ):
        assert shared_views.dataset_digest(other) != digest


def test_a_view_that_raises_is_not_kept():
    hist = examples.load(examples.DEFAULT)

    def refuse():
        raise ValueError("nothing to show")

    with pytest.raises(ValueError, match="nothing to show"):
        shared_views.view("p", {}, hist, refuse)
    assert shared_views.view("p", {}, hist, lambda: 7) == 7


def _counting(calls: list[str], name: str, make, *args, **kwargs):
    calls.append(name)
    return make(*args, **kwargs)


@pytest.mark.parametrize(
    ("page", "query", "factories", "names"),
    [
        ("laplace", {}, mechanism_figures, ("noise_distribution", "true_vs_noisy")),
        ("epsilon", {"eps_part": "attacker"}, meaning_figures, ("posterior", "roc")),
    ],
    ids=["laplace", "epsilon-attacker"],
)
def test_two_sessions_draw_identical_charts_the_second_building_none(
    page, query, factories, names, monkeypatch
):
    computed, kept = [], []
    share = shared_views.view

    def counted(key, values, hist, compute):
        def counting():
            computed.append(key)
            return compute()

        view = share(key, values, hist, counting)
        kept.append((view, _spec(view)))
        return view

    monkeypatch.setattr(shared_views, "view", counted)
    built = []
    for name in names:
        make = getattr(factories, name)
        monkeypatch.setattr(factories, name, partial(_counting, built, name, make))
    specs = []
    for _ in range(2):
        at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=120)
        at.query_params.update(query)
        at.run()
        assert not at.exception
        specs.append([c.proto.spec for c in at.get("plotly_chart")])
    assert specs[0] and specs[0] == specs[1]
    assert computed == [page]  # the second session drew the kept view
    assert sorted(built) == sorted(names)  # each figure built once, by the first session
    assert len(kept) == 2 and kept[0][0] is kept[1][0]
    assert all(_spec(view) == before for view, before in kept)  # drawing changed nothing


def test_two_sessions_comparing_the_same_views_put_them_on_shared_axes_once(monkeypatch):
    ranged = []
    fit = pin.shared_range

    def counted(figs, axis):
        ranged.append(axis)
        return fit(figs, axis)

    monkeypatch.setattr(pin, "shared_range", counted)
    charts = []
    for _ in range(2):
        at = AppTest.from_file(str(ROOT / "pages" / "laplace.py"), default_timeout=120)
        at.query_params.update({"eps": "0.1", pin.URL_KEY: "eps=1"})
        at.run()
        assert not at.exception
        charts.append([json.loads(c.proto.spec) for c in at.get("plotly_chart")])
        if len(charts) == 1:
            ranges_fitted = len(ranged)
    assert charts[0] == charts[1]
    a, b = charts[0][:2]  # A (pinned, ε = 1) and B (ε = 0.1) side by side
    assert a["layout"]["yaxis"]["range"] == b["layout"]["yaxis"]["range"]
    assert a["data"] != b["data"]
    assert ranges_fitted > 0 and len(ranged) == ranges_fitted  # the second session fitted none
