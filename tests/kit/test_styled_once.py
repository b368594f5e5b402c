"""A chart is styled once for every session drawing the same figure (``dpui.kit.styled_once``):
the kept result is what styling afresh gives, any difference in the figure, its settings or
the presentation styles anew, and two sessions of a page draw identical charts with the second
styling none."""

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from dpui.kit import byte_cache, present, styled_once
from dpui.mechanisms import figures

ROOT = Path(__file__).resolve().parents[2]


def _figure(y: float = 2.0) -> go.Figure:
    fig = go.Figure(go.Bar(x=["a", "b"], y=np.array([1.0, y])))
    fig.update_layout(title="Counts", xaxis_title="bin")
    return fig


@pytest.fixture(autouse=True)
def _empty() -> None:
    byte_cache.clear_caches()


def _spec(shown: styled_once.Styled) -> str:
    return json.dumps(shown.figure.to_plotly_json(), sort_keys=True, default=str)


def test_an_identical_figure_gets_the_kept_result_and_is_left_unchanged():
    drawn = styled_once.shared(_figure())  # drawn by many sessions: styled on a copy
    first = styled_once.styled(drawn, {"ε": 1.0}, False, present._style)
    assert drawn.to_json() == _figure().to_json()
    assert styled_once.styled(drawn, {"ε": 1.0}, False, present._style) is first
    assert first.figure is not drawn
    again = _figure()
    before = again.to_json()
    second = styled_once.styled(again, {"ε": 1.0}, False, present._style)
    assert second is first
    assert again.to_json() == before  # not styled: the kept one is drawn
    fresh = present._style(_figure(), {"ε": 1.0}, False)
    assert _spec(second) == _spec(fresh)
    assert (second.summary, second.title) == (fresh.summary, fresh.title)
    assert second.title == "Counts"


@pytest.mark.parametrize(
    ("y", "eps", "presenting"), [(3.0, 1.0, False), (2.0, 0.5, False), (2.0, 1.0, True)]
)
def test_a_different_figure_settings_or_presentation_is_styled_anew(y, eps, presenting):
    kept = styled_once.styled(_figure(), {"ε": 1.0}, False, present._style)
    other = styled_once.styled(_figure(y), {"ε": eps}, presenting, present._style)
    assert other is not kept
    assert _spec(other) != _spec(kept)
    assert _spec(other) == _spec(present._style(_figure(y), {"ε": eps}, presenting))


def test_two_sessions_draw_identical_charts_and_the_second_styles_none(monkeypatch):
    calls = []
    style = present._style

    def counted(fig, settings, presenting):
        calls.append(presenting)
        return style(fig, settings, presenting)

    monkeypatch.setattr(present, "_style", counted)
    specs = []
    for _ in range(2):
        at = AppTest.from_file(str(ROOT / "pages" / "laplace.py"), default_timeout=120).run()
        assert not at.exception
        specs.append([c.proto.spec for c in at.get("plotly_chart")])
    assert specs[0] and specs[0] == specs[1]
    assert len(calls) == len(specs[0])  # the first session styled each chart, the second none


def test_the_digest_tells_every_number_and_label_apart_and_ignores_property_order():
    n = 10_000  # longer than numpy's printed form
    y = np.arange(n, dtype=float)
    labels = np.array([f"bin {i}" for i in range(n)], dtype=object)
    fig = go.Figure(go.Bar(x=labels, y=y))
    same = styled_once.digest(fig)
    go.Figure(fig)  # reorders fig's properties
    assert styled_once.digest(fig) == same == styled_once.digest(go.Figure(fig))
    moved, relabelled = y.copy(), labels.copy()
    moved[n // 2] += 1e-9
    relabelled[n // 2] = "bin x"
    assert styled_once.digest(go.Figure(go.Bar(x=labels, y=moved))) != same
    assert styled_once.digest(go.Figure(go.Bar(x=relabelled, y=y))) != same
    dated = go.Figure(go.Scatter(x=np.array(["2026-01-01", "2026-01-02"], dtype="datetime64[D]")))
    assert styled_once.digest(dated) != styled_once.digest(go.Figure(go.Scatter(x=[0, 1])))


def test_a_copy_leaves_a_shared_figure_as_it_is_and_keeps_its_subplots():
    shared = figures.true_vs_noisy(("a", "b"), np.array([1.0, 2.0]), np.array([1.5, 1.0]))
    before = shared.to_json()
    copied = styled_once.copy_of(shared)
    assert shared.to_json() == before  # go.Figure(shared) would reorder each trace's props
    assert styled_once.digest(copied) == styled_once.digest(shared)
    copied.add_bar(x=["a"], y=[0.5], row=2, col=1)  # make_subplots' grid came along
    assert copied.data[-1].yaxis == "y2" and len(shared.data) == len(copied.data) - 1


_INVALID = {
    "nested font size": lambda f: setattr(f.layout.xaxis.title.font, "size", "big"),
    "misspelt trace property": lambda f: setattr(f.data[0].marker.line, "colour", 1),
    "unknown layout property": lambda f: f.update_layout(nonsense=1),
    "annotation font": lambda f: setattr(f.layout.annotations[0], "font", {"size": "x"}),
    "new axis range": lambda f: f.update_layout(yaxis2={"range": "a"}),
    "line colour": lambda f: f.add_vline(x=1, line_color="notacolor"),
    "opacity": lambda f: f.update_traces(marker_opacity=5),
    "legend position": lambda f: setattr(f.layout, "legend", {"x": "far"}),
}


def _built() -> go.Figure:
    fig = go.Figure([go.Bar(x=["a", "b"], y=[1, 2], marker={"line": {"width": 1}})] * 2)
    fig.update_layout(xaxis_title_font_size=12, annotations=[{"text": "a", "x": 1, "y": 1}])
    return fig


@pytest.mark.parametrize("change", _INVALID.values(), ids=_INVALID.keys())
def test_a_copy_made_without_validating_validates_what_is_set_on_it(change):
    copied = styled_once.copy_of(_built())
    assert copied.to_plotly_json() == _built().to_plotly_json()
    for fig in (_built(), copied):  # the copy refuses what a figure built anew refuses
        with pytest.raises(ValueError):
            change(fig)
    copied.update_layout(xaxis_title_font_size=14)  # a valid change still takes
    assert copied.layout.xaxis.title.font.size == 14


def test_sessions_copying_and_digesting_one_shared_figure_at_once_agree():
    shared = figures.true_vs_noisy(
        tuple(f"c{i}" for i in range(200)), np.arange(200.0), np.arange(200.0) + 0.5
    )
    expected = styled_once.digest(shared)

    def session(_: int) -> str:
        styled_once.copy_of(shared)
        return styled_once.digest(shared)

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(session, range(200))) == {expected}


def test_a_figure_of_one_session_is_styled_in_place_sparing_the_copy():
    own = _figure()
    kept = styled_once.styled(own, {"ε": 1.0}, False, present._style)
    assert kept.figure is own and not styled_once.is_shared(own)
    assert _spec(kept) == _spec(present._style(_figure(), {"ε": 1.0}, False))


def test_a_kept_figure_is_sent_as_its_dict_made_once_and_anew_after_a_change():
    kept = styled_once.styled(_figure(), {"ε": 1.0}, False, present._style).figure
    sent = kept.to_dict()
    assert sent == go.Figure.to_dict(kept)  # what Plotly itself would send
    assert kept.to_dict() is sent  # every later session sends the same dict
    kept.update_layout(title="Changed")  # a page that changes its own figure after drawing it
    assert kept.to_dict()["layout"]["title"]["text"] == "Changed"
