"""Lesson mode in the app (AppTest): collect views, edit the lesson, save and load it, and step
through it in presentation mode landing on each step's page with its settings.

AppTest keeps the page of its own last ``switch_page`` for every later run; a step the app
opens itself lasts one run there, so after checking where a click landed, a test that
clicks again on that page first tells AppTest to stay on it (:func:`_stay`), as the browser
would.
"""

from __future__ import annotations

import html
import json
import re
import threading
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from dpui import registry
from dpui.kit import follow_http, follow_store, lesson, lesson_follow, lesson_store, navigation
from dpui.ldp import figures as ldp_figures
from dpui.reference import lesson_page
from tests.uploads import uploader

ROOT = Path(__file__).resolve().parents[2]
TARGETS = lesson_page.targets(registry.PAGES)
EXAMPLE = lesson.from_json(lesson_page.EXAMPLE.read_bytes(), TARGETS)


def _app(**query: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.query_params.update(query)
    return at.run()


def _stay(at: AppTest, key: str) -> AppTest:
    return at.switch_page(f"pages/{key}.py")


def _open(at: AppTest, key: str, **query: str) -> AppTest:
    at.query_params.clear()
    at.query_params.update(query)
    return _stay(at, key).run()


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def _ok(at: AppTest) -> None:
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]


def _steps_shown(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**Step ")]


def _link_code(at: AppTest) -> str:
    url = next(c.value for c in at.code if "lesson=" in c.value)
    return dict(parse_qsl(urlsplit(url).query))["lesson"]


def test_add_reorder_edit_delete_and_the_saved_link_round_trips():
    at = _app()
    _open(at, "laplace", lap_seed="7", lap_show="bound")
    _ok(at)
    _button(at, "Add to lesson").click().run()
    assert any("Added step 1" in t.value for t in at.toast)
    _open(at, "exponential", exp_draws="300")
    _button(at, "Add to lesson").click().run()
    _open(at, "lesson")
    _ok(at)
    shown = _steps_shown(at)
    assert len(shown) == 2
    assert "Laplace mechanism" in shown[0] and "lap_seed=7" in shown[0]
    assert "lap_show=bound" in shown[0] and "present=" not in shown[0]
    assert "Exponential" in shown[1] and "exp_draws=300" in shown[1]

    _stay(at, "lesson")
    at.button(key="_lesson_down_0").click().run()
    assert "Exponential" in _steps_shown(at)[0]
    at.text_input(key="_lesson_title_0").set_value("Choosing a winner").run()
    at.text_area(key="_lesson_note_0").set_value("Which sport wins?").run()
    at.checkbox(key="_lesson_predict_0").check().run()
    at.button(key="_lesson_delete_1").click().run()
    _ok(at)
    assert len(_steps_shown(at)) == 1

    saved = lesson.from_link(_link_code(at), TARGETS)
    (step,) = saved.steps
    assert (step.page, step.title, step.note, step.predict) == (
        "exponential",
        "Choosing a winner",
        "Which sport wins?",
        True,
    )
    assert step.settings()["exp_draws"] == "300"

    # the link opens the same lesson in a new session, and leaves the address
    fresh = _app()
    _open(fresh, "lesson", lesson=_link_code(at))
    _ok(fresh)
    assert any("Loaded 1 steps from the link" in s.value for s in fresh.success)
    assert "lesson" not in fresh.query_params
    assert "exponential?" in _steps_shown(fresh)[0]
    assert fresh.text_input(key="_lesson_title_0").value == "Choosing a winner"


def test_bad_links_and_files_say_what_is_wrong_and_keep_the_lesson():
    at = _app()
    _open(at, "lesson")
    _button(at, "Load the example: DP histograms in 50 minutes").click().run()
    assert len(_steps_shown(at)) == len(EXAMPLE.steps)
    good = _link_code(at)

    for bad, message in (
        (good[:40] + "x" + good[41:], "damaged"),
        ("A" * (lesson.MAX_LINK_CHARS + 1), "holds at most 6,000"),
        ("eNqLjh4Fo2AUDHcQOwpGwSgY9gAAbqbO3w", "nested too deep"),  # issue 37, M1
    ):
        _open(at, "lesson", lesson=bad)
        assert any(message in e.value and "unchanged" in e.value for e in at.error)
        assert len(_steps_shown(at)) == len(EXAMPLE.steps)

    _stay(at, "lesson")
    bad_file = b'{"format": "dp-explorer-lesson", "version": 1, "title": "x", "steps": ' \
        b'[{"link": "nowhere", "title": "<b>y</b>"}]}'  # fmt: skip
    uploader(at, "_lesson_upload").set_value(("l.json", bad_file, "application/json"))
    at.run()
    (error,) = at.error
    assert "l.json was not loaded" in error.value and "`nowhere`" in error.value
    assert "kv_ldp" in error.value  # the pages a link may open
    assert len(_steps_shown(at)) == len(EXAMPLE.steps)
    uploader(at, "_lesson_upload").set_value(("l.csv", b"a", "text/csv")).run()
    assert "is not a .json file" in at.error[0].value
    huge = b'{"format": "dp-explorer-lesson", "version": ' + b"9" * 4400 + b"}"
    uploader(at, "_lesson_upload").set_value(("v.json", huge, "application/json")).run()
    assert not at.exception  # issue 37, M1: Python's integer string limit was a traceback
    assert "a number of 4,400 digits" in at.error[0].value
    assert len(_steps_shown(at)) == len(EXAMPLE.steps)

    mine = lesson.Lesson("Mine", (lesson.Step("glossary", "", "Terms"),))
    uploader(at, "_lesson_upload").set_value(
        ("mine.json", lesson.to_json(mine).encode(), "application/json")
    )
    at.run()
    assert "Loaded 1 steps from mine.json" in at.success[0].value
    assert len(_steps_shown(at)) == 1
    _button(at, "Restore the lesson you had before").click().run()
    assert len(_steps_shown(at)) == len(EXAMPLE.steps)


def _step_caption(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step ") and " of " in m.value)


def _charts(at: AppTest) -> int:
    return len(at.get("plotly_chart"))


def test_a_step_a_click_asked_for_opens_before_the_router_draws_anything(
    monkeypatch: pytest.MonkeyPatch,
):
    """A click that opens a step (Next, Catch up) switches page in the router, before the
    navigation's thirty links: the step's own run draws them (a class of followers catching
    up had each drawn them for nothing in the click's run first)."""
    going = []
    links = navigation.links

    def drawn(sections):
        going.append(st.session_state.get("_lesson.going"))
        return links(sections)

    monkeypatch.setattr(navigation, "links", drawn)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.session_state["_lesson"] = EXAMPLE
    at.session_state["_lesson.going"] = 2  # as Next or Catch up leave it
    at.run()
    _ok(at)
    assert at.title[0].value == "Laplace mechanism"  # the step opened
    assert going.count(2) == 0  # no links drawn by the run that switched


def test_a_step_on_the_page_shown_opens_in_the_same_run(monkeypatch: pytest.MonkeyPatch):
    """Next to a step on the same page puts its settings in the link and draws it in the
    click's run; a step on another page switches page (one run more)."""
    at = _app()
    _open(at, "lesson")
    _button(at, "Load the example: DP histograms in 50 minutes").click().run()
    _button(at, "Present the lesson").click().run()
    switched = []
    switch_page = st.switch_page
    monkeypatch.setattr(
        st, "switch_page", lambda *a, **k: switched.append(a) or switch_page(*a, **k)
    )
    _stay(at, "epsilon")
    _button(at, "Next").click().run()  # step 2: What ε means again, the attacker's part
    _ok(at)
    assert _step_caption(at) == "**Step 2 of 10**" and not switched
    assert at.query_params["eps_part"] == "attacker" and at.query_params["present"] == "true"
    _stay(at, "epsilon")
    _button(at, "Next").click().run()  # its reveal
    _stay(at, "epsilon")
    _button(at, "Next").click().run()  # step 3: the Laplace page
    _ok(at)
    assert _step_caption(at) == "**Step 3 of 10**" and switched == [("pages/laplace.py",)]


def test_next_and_previous_open_each_step_with_its_settings_and_reveal():
    at = _app()
    # settings changed by hand before the lesson: the step's link replaces them
    _open(at, "laplace", lap_seed="5")
    assert at.number_input(key="lap_seed").value == 5
    _open(at, "lesson")
    _button(at, "Load the example: DP histograms in 50 minutes").click().run()
    _button(at, "Present the lesson").click().run()
    _ok(at)
    assert at.title[0].value == "What ε means"
    assert _step_caption(at) == "**Step 1 of 10**"
    assert at.query_params["present"] == "true" and at.query_params["eps_part"] == "neighbours"
    assert at.toggle(key="present").value is True
    assert _charts(at) >= 1

    _stay(at, "epsilon")
    _button(at, "Next").click().run()
    _ok(at)
    assert _step_caption(at) == "**Step 2 of 10**"
    assert at.query_params["eps_part"] == "attacker"
    assert _charts(at) == 0 and not at.metric  # predict first: nothing of the view
    _stay(at, "epsilon")
    _button(at, "Reveal").click().run()
    _ok(at)
    assert _charts(at) >= 1 and not any(b.label == "Reveal" for b in at.button)

    _stay(at, "epsilon")
    _button(at, "Next").click().run()
    _ok(at)
    assert at.title[0].value == "Laplace mechanism" and _step_caption(at) == "**Step 3 of 10**"
    assert at.number_input(key="eps").value == 1.0
    assert at.number_input(key="lap_seed").value == 0  # the link leaves it at its default
    _stay(at, "laplace")
    _button(at, "Next").click().run()
    assert _step_caption(at) == "**Step 4 of 10**" and at.number_input(key="eps").value == 0.1
    assert at.query_params["eps"] == "0.1"
    _stay(at, "laplace")
    _button(at, "Reveal").click().run()
    _stay(at, "laplace")
    _button(at, "Previous").click().run()
    _ok(at)
    assert _step_caption(at) == "**Step 3 of 10**" and at.number_input(key="eps").value == 1.0
    _stay(at, "laplace")
    _button(at, "End lesson").click().run()
    assert not any(m.value.startswith("**Step 3") for m in at.markdown)


def _shared_axes(chart) -> dict[str, list[float]]:
    """A chart's axes given one range for a comparison (not left to Plotly's autorange)."""
    layout = json.loads(chart.proto.spec)["layout"]
    return {
        name: axis["range"]
        for name, axis in layout.items()
        if name.startswith(("xaxis", "yaxis")) and axis.get("autorange") is False
    }


@pytest.mark.parametrize("index", range(len(EXAMPLE.steps)))
def test_every_step_of_the_bundled_lesson_opens_its_page_section_and_baseline(index: int):
    """Each step as the lesson opens it (its settings, its baseline pinned): no error, no
    value of the link replaced, the section it scrolls to drawn, the baseline beside it."""
    step = EXAMPLE.steps[index]
    at = AppTest.from_file(str(ROOT / "pages" / f"{step.page}.py"), default_timeout=180)
    at.query_params.update(step.settings() | {"present": "1"})
    if step.baseline:
        at.query_params["pin"] = step.pin()
    at.run()
    _ok(at)
    notices = [w.value for w in at.warning if w.icon == ":material/link_off:"]
    assert notices == []  # no value of the link (or of its pinned view) was replaced
    assert at.title[0].value == TARGETS[step.page].title
    for name, value in step.settings().items():
        assert at.query_params[name] == value, name
    if step.section:
        assert step.section in [h.proto.anchor for h in at.header]
    if step.baseline:
        assert any(m.value.startswith("**A (pinned):**") for m in at.markdown)
        pinned = dict(parse_qsl(at.query_params["pin"]))
        kept = {p.name: p for p in TARGETS[step.page].pinned}
        for name, value in parse_qsl(step.baseline):
            assert kept[name].parse(pinned[name]) == kept[name].parse(value), name
        fixed = [_shared_axes(chart) for chart in at.get("plotly_chart")]
        a_axes, b_axes = [axes for axes in fixed if axes]  # A and B: their values on one axis
        assert a_axes == b_axes
    if step.page == "kv_ldp":  # local against central DP: the central baseline is drawn
        specs = [chart.proto.spec for chart in at.get("plotly_chart")]
        assert any(ldp_figures.CENTRAL in spec for spec in specs)


def test_a_view_with_foreign_keys_in_its_link_is_added_as_a_step_that_loads_back():
    """``/laplace?fbclid=x&Ref=newsletter``: "Add to lesson" stored ``Ref``, which the loader
    refuses, so the saved lesson was lost on load (issue 37, M3)."""
    at = _app()
    _open(at, "laplace", lap_seed="4", fbclid="x", Ref="newsletter")
    _button(at, "Add to lesson").click().run()
    assert any("Added step 1" in t.value for t in at.toast)
    _open(at, "lesson")
    saved = lesson.from_link(_link_code(at), TARGETS)  # it loads
    (step,) = saved.steps
    assert step.settings()["lap_seed"] == "4" and "Ref" not in step.settings()
    assert lesson.from_json(lesson.to_json(saved).encode(), TARGETS) == saved


def test_add_to_lesson_on_an_unchanged_view_adds_it_once_however_often_it_is_clicked():
    """45 clicks 50 ms apart added 32 steps (issue 37, L6): Streamlit folds the clicks that
    reach the server during a run into one, so the count was random. A click on the view the
    lesson already ends with adds nothing and says so; a changed view is added."""
    at = _app()
    _open(at, "laplace", lap_seed="7")
    for _ in range(3):
        _button(at, "Add to lesson").click().run()
    assert any("already step 1" in t.value for t in at.toast)
    _open(at, "exponential", exp_draws="300")
    _button(at, "Add to lesson").click().run()
    assert any("Added step 2" in t.value for t in at.toast)
    _open(at, "lesson")
    shown = _steps_shown(at)
    assert len(shown) == 2 and "lap_seed=7" in shown[0] and "exp_draws=300" in shown[1]


def _revealed(at: AppTest) -> bool:
    """The step's figure shows: a chart drawn and no Reveal button."""
    return _charts(at) >= 1 and not any(b.label == "Reveal" for b in at.button)


def test_next_reveals_a_predict_step_first_previous_keeps_it_and_leaving_offers_to_resume():
    at = _app()
    _open(at, "lesson")
    _button(at, "Load the example: DP histograms in 50 minutes").click().run()
    assert not EXAMPLE.steps[0].predict and EXAMPLE.steps[1].predict
    _button(at, "Present the lesson").click().run()
    _stay(at, "epsilon")
    _button(at, "Next").click().run()
    assert _step_caption(at) == "**Step 2 of 10**" and _charts(at) == 0

    _stay(at, "epsilon")
    _button(at, "Next").click().run()  # → on a hidden step: the figure, not the next step
    _ok(at)
    assert _step_caption(at) == "**Step 2 of 10**" and _revealed(at)
    assert "At most e/(1 + e) ≈ 0.731" in _html(at)  # the answer, with the figure
    assert '"attacker-posterior"' in _html(at)  # the section the step names: scrolled to
    assert not [t.value for t in at.toast if "opens the section" in t.value]
    _stay(at, "epsilon")
    _button(at, "Next").click().run()  # the second → opens the next step
    assert _step_caption(at) == "**Step 3 of 10**"
    assert at.title[0].value == "Laplace mechanism"

    _stay(at, "laplace")
    _button(at, "Previous").click().run()  # ← comes back to step 2 as it was left: revealed
    _ok(at)
    assert _step_caption(at) == "**Step 2 of 10**" and _revealed(at)

    _stay(at, "epsilon")
    at.toggle(key="present").set_value(False).run()  # leaving presentation mode mid-lesson
    _ok(at)
    assert not any(m.value.startswith("**Step ") and " of " in m.value for m in at.markdown)
    assert [b.label for b in at.button if b.label == "Resume the lesson"] == ["Resume the lesson"]
    _stay(at, "epsilon")
    _button(at, "Resume the lesson").click().run()
    _ok(at)
    assert _step_caption(at) == "**Step 2 of 10**" and at.toggle(key="present").value is True
    assert at.query_params["eps_part"] == "attacker" and _revealed(at)

    _open(at, "lesson")  # presenting afresh hides every predict step again
    at.button(key="_lesson_from_1").click().run()
    assert _step_caption(at) == "**Step 2 of 10**" and _charts(at) == 0


def _html(at: AppTest) -> str:
    """The text of every st.html element (the step bar's title, note and answer)."""
    return "\n".join(element.proto.body for element in at.get("html"))


def test_a_step_shows_its_answer_with_the_figure_pins_its_baseline_and_names_a_lost_section():
    steps = (
        lesson.Step(
            "laplace",
            "lap_source=gapminder&eps=0.1",
            "Wider",
            "How much wider?",
            predict=True,
            answer="Ten times: b from 1 to 10.",
            baseline="eps=1",
        ),
        lesson.Step("epsilon", "eps_part=neighbours", "Gone", section="no-such-part"),
    )
    at = _app()
    _open(at, "lesson", lesson=lesson.to_link(lesson.Lesson("Answers", steps)))
    captions = [c.value for c in at.caption]
    assert any("pins the baseline `eps=1` beside it" in c for c in captions)
    assert any("scrolls to the section `no-such-part`" in c for c in captions)
    _stay(at, "lesson")
    _button(at, "Present the lesson").click().run()
    _ok(at)
    assert _step_caption(at) == "**Step 1 of 2**" and _charts(at) == 0
    assert "How much wider?" in _html(at) and "Ten times" not in _html(at)  # not yet
    assert float(dict(parse_qsl(at.query_params["pin"]))["eps"]) == 1.0

    _stay(at, "laplace")
    _button(at, "Reveal").click().run()
    _ok(at)
    assert "Ten times: b from 1 to 10." in _html(at)  # revealed with the figure
    labels = [m.value.split(":**")[0] for m in at.markdown if m.value.startswith("**A (")]
    assert labels == ["**A (pinned)"]  # the baseline drawn beside the step's own view
    assert at.number_input(key="eps").value == 0.1

    _stay(at, "laplace")
    _button(at, "Next").click().run()
    _ok(at)
    assert _step_caption(at) == "**Step 2 of 2**" and _charts(at) >= 1
    (notice,) = [t.value for t in at.toast if "no-such-part" in t.value]
    assert "does not show" in notice and "opens at its top" in notice


def test_the_short_link_opens_the_stored_lesson_in_another_session():
    at = _app()
    _open(at, "lesson")
    _button(at, "Load the example: DP histograms in 50 minutes").click().run()
    _ok(at)
    short = next(m.value for m in at.markdown if m.value.startswith("**Short link**"))
    key = dict(parse_qsl(urlsplit(short.split("`")[1]).query))[lesson_store.URL_KEY]
    assert len(key) == 10

    fresh = _app()
    _open(fresh, "lesson", l=key)
    _ok(fresh)
    assert any(f"Loaded {len(EXAMPLE.steps)} steps from the link" in s.value for s in fresh.success)
    assert lesson_store.URL_KEY not in fresh.query_params
    assert len(_steps_shown(fresh)) == len(EXAMPLE.steps)

    _open(fresh, "lesson", l="abcdefghij")
    assert any("No lesson abcdefghij is stored" in e.value for e in fresh.error)
    assert len(_steps_shown(fresh)) == len(EXAMPLE.steps)  # the lesson is kept


def _follow_link_code(at: AppTest) -> str:
    link = next(m.value for m in at.markdown if m.value.startswith("**Follow link**"))
    return dict(parse_qsl(urlsplit(link.split("`")[1]).query))[follow_store.URL_KEY]


def _following(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Following the lecturer"))


def _poll_first(at: AppTest) -> bool:
    """Whether the follower's timer (its "Catch up" click) is the page's first block: one
    place on every page, so that a timer firing as the page changes finds itself on the new
    one (elsewhere it blanked the new page in the browser, bench/bench_follow.py)."""
    first = at.main.children[0]
    return any("follow_sync" in h.proto.body for h in first.get("html"))


def test_a_student_following_the_link_gets_the_lecturers_step_interactive_and_can_explore():
    lecturer = _app()
    _open(lecturer, "lesson")
    _button(lecturer, "Load the example: DP histograms in 50 minutes").click().run()
    _button(lecturer, "Let the class follow this lesson").click().run()
    _ok(lecturer)
    code = _follow_link_code(lecturer)
    _button(lecturer, "Present the lesson").click().run()
    _ok(lecturer)

    student = _app()
    _open(student, "lesson", f=code)
    _ok(student)
    assert _following(student) == "**Following the lecturer · step 1 of 10**"
    assert student.title[0].value == "What ε means" and _charts(student) >= 1
    assert student.toggle(key="present").value is False  # interactive, not presenting
    assert follow_store.URL_KEY not in student.query_params

    _stay(lecturer, "epsilon")
    _button(lecturer, "Next").click().run()  # step 2: predict first
    _stay(student, "epsilon")
    student.run()  # the page reads the room and asks for Catch up (a click in the browser)
    assert _poll_first(student)
    _button(student, "Catch up").click().run()
    _ok(student)
    assert _following(student) == "**Following the lecturer · step 2 of 10**"
    assert student.query_params["eps_part"] == "attacker"
    assert _charts(student) == 0 and not any(b.label == "Reveal" for b in student.button)

    _stay(lecturer, "epsilon")
    _button(lecturer, "Reveal").click().run()
    _stay(student, "epsilon")
    _button(student, "Catch up").click().run()
    assert _charts(student) >= 1 and "At most e/(1 + e) ≈ 0.731" in _html(student)

    # the student explores: the lecturer's next step does not move them ...
    _stay(student, "epsilon")
    _button(student, "Stop following").click().run()
    _stay(lecturer, "epsilon")
    _button(lecturer, "Next").click().run()  # step 3, Laplace mechanism
    _stay(student, "epsilon")
    student.run()
    _ok(student)
    assert student.title[0].value == "What ε means"
    assert not any("follow_sync" in h.proto.body for h in student.get("html"))
    # ... until they follow again
    _stay(student, "epsilon")
    _button(student, "Follow the lecturer again").click().run()
    _ok(student)
    assert student.title[0].value == "Laplace mechanism"
    assert _following(student) == "**Following the lecturer · step 3 of 10**"
    # a follower on another page than the step's (a sidebar link, or a run that lost the
    # step's page switch) is asked back by the timer, and Catch up opens the step's page
    _stay(student, "glossary").run()
    _ok(student)
    assert student.title[0].value == "Glossary" and _poll_first(student)
    assert any("This page is not the step's" in c.value for c in student.caption)
    _button(student, "Catch up").click().run()
    _ok(student)
    assert student.title[0].value == "Laplace mechanism"
    assert not any("follow_sync" in h.proto.body for h in student.get("html"))
    _stay(lecturer, "laplace")
    _button(lecturer, "Next").click().run()  # step 4, on another page
    _stay(student, "laplace")
    student.run()
    assert _poll_first(student)  # on this page too


def _watch(at: AppTest) -> tuple[str, follow_http.Shown] | None:
    """The follower's watch mark, first on the page: the room's code and what it shows."""
    first = at.main.children[0]
    for block in first.get("html") if hasattr(first, "children") else [first]:
        found = re.search(r'data-dp-follow="([^"]*)" data-dp-shown="([^"]*)"', block.proto.body)
        if found:
            shown = dict(parse_qsl(html.unescape(found[2])))
            return found[1], follow_http.Shown(
                shown["lesson"], int(shown["step"]), shown["revealed"] == "1", shown["here"] == "1"
            )
    return None


def test_served_with_its_route_a_followers_page_asks_the_server_instead_of_a_timer(
    monkeypatch: pytest.MonkeyPatch,
):
    served = threading.Event()
    served.set()  # as in app_server.py, which serves the route
    monkeypatch.setattr(follow_http, "_SERVED", served)
    timers: list[str] = []
    monkeypatch.setattr(lesson_follow, "_poll", lambda code, page: timers.append(page))
    lecturer = _app()
    _open(lecturer, "lesson")
    _button(lecturer, "Load the example: DP histograms in 50 minutes").click().run()
    _button(lecturer, "Let the class follow this lesson").click().run()
    code = _follow_link_code(lecturer)
    _button(lecturer, "Present the lesson").click().run()
    student = _app()
    _open(student, "lesson", f=code)
    _ok(student)
    watched = _watch(student)
    assert watched is not None and watched[0] == code
    room = follow_store.room(code)
    assert watched[1] == follow_http.Shown(room.lesson, 0, True, True)
    assert not follow_http.behind(room, watched[1])  # the server holds the request
    _stay(lecturer, "epsilon")
    _button(lecturer, "Next").click().run()
    assert follow_http.behind(follow_store.room(code), watched[1])  # answered: click Catch up
    _stay(student, "epsilon")
    _button(student, "Catch up").click().run()
    _ok(student)
    assert _following(student) == "**Following the lecturer · step 2 of 10**"
    caught_up = _watch(student)
    assert caught_up is not None and caught_up[1].step == 1
    assert not follow_http.behind(follow_store.room(code), caught_up[1])
    _stay(student, "glossary").run()  # another page than the step's: behind at once
    away = _watch(student)
    assert away is not None and not away[1].here
    assert follow_http.behind(follow_store.room(code), away[1])
    _stay(student, "glossary")
    _button(student, "Stop following").click().run()
    assert _watch(student) is None  # exploring: nothing asks the server
    assert not timers  # and no page ran the fragment's timer


def test_a_follow_link_to_no_class_says_so_and_keeps_the_students_lesson():
    student = _app()
    _open(student, "lesson")
    _button(student, "Load the example: DP histograms in 50 minutes").click().run()
    _open(student, "lesson", f="abcdefgh")
    assert any("You are not following the lecturer: No class is following" in e.value
               for e in student.error)  # fmt: skip
    assert len(_steps_shown(student)) == len(EXAMPLE.steps)
    _open(student, "lesson", f="../x")
    assert any("eight letters" in e.value for e in student.error)
