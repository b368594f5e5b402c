"""The lesson's time budgets and "Update from your current view" in the app (AppTest): the
editor sets a step's minutes, the step bar shows the time spent against them, and a step
takes the settings the lecturer set on its page since, keeping its texts."""

from __future__ import annotations

import re
import time

from dpui.kit import lesson
from tests.features.test_lesson import (
    EXAMPLE,
    TARGETS,
    _app,
    _button,
    _html,
    _link_code,
    _ok,
    _open,
    _stay,
)

CLOCK = re.compile(r'<p class="dp-lesson-clock">(.*?)</p>')


def _clock(at) -> str:
    """The step bar's clock, as the words it shows ("" when there is none)."""
    found = CLOCK.search(_html(at))
    return re.sub(r"<[^>]+>", "", found.group(1)) if found else ""


def test_the_step_bar_shows_the_time_spent_against_the_step_and_lesson_budgets():
    at = _app()
    _open(at, "lesson")
    _button(at, "Load the example: DP histograms in 50 minutes").click().run()
    _button(at, "Present the lesson").click().run()
    _ok(at)
    first, total = EXAMPLE.steps[0].minutes, sum(s.minutes for s in EXAMPLE.steps)
    assert _clock(at) == f"0 of {first:g} min, lesson 0 of {total:g} min"

    # seven minutes on the step, twelve on the lesson: the step is over its budget
    at.session_state["_lesson.step_clock"] = time.monotonic() - 7 * 60 - 5
    at.session_state["_lesson.clock"] = time.monotonic() - 12 * 60 - 5
    _stay(at, "epsilon").run()
    _ok(at)
    assert first < 7
    assert _clock(at) == f"7 of {first:g} min (over), lesson 12 of {total:g} min"
    assert 'class="dp-over"' in _html(at)

    _stay(at, "epsilon")
    _button(at, "Next").click().run()  # the next step's clock starts at 0
    second = EXAMPLE.steps[1].minutes
    assert _clock(at).startswith(f"0 of {second:g} min, lesson 12 of")

    # the page as the step opened it is the step's own view: only step 1 may be updated
    _open(at, "lesson")
    _ok(at)
    updates = [b.key for b in at.button if b.label == "Update from your current view"]
    assert updates == ["_lesson_update_0"]  # step 1 opens another part of the same page


def test_a_lesson_without_time_budgets_shows_no_clock():
    steps = (lesson.Step("laplace", "eps=1", "Noise"), lesson.Step("glossary", "", "Terms"))
    at = _app()
    _open(at, "lesson", lesson=lesson.to_link(lesson.Lesson("Untimed", steps)))
    _stay(at, "lesson")
    _button(at, "Present the lesson").click().run()
    _ok(at)
    assert "Noise" in _html(at) and _clock(at) == ""


def test_the_editor_sets_a_time_budget_and_refuses_one_out_of_range():
    at = _app()
    _open(at, "laplace", lap_seed="7")
    _button(at, "Add to lesson").click().run()
    _open(at, "lesson")
    at.number_input(key="_lesson_minutes_0").set_value(2.5).run()
    _ok(at)
    assert lesson.from_link(_link_code(at), TARGETS).steps[0].minutes == 2.5
    _stay(at, "lesson")
    at.number_input(key="_lesson_minutes_0").set_value(0.25).run()
    (error,) = at.error
    assert "Step 1 was not changed" in error.value and "`0.25` is refused" in error.value
    assert "from 0.5 to 90" in error.value
    assert lesson.from_link(_link_code(at), TARGETS).steps[0].minutes == 2.5


def test_a_step_is_updated_from_the_lecturers_current_view_of_its_page_keeping_its_texts():
    at = _app()
    _open(at, "laplace", lap_seed="7")
    _button(at, "Add to lesson").click().run()
    _open(at, "lesson")
    at.text_input(key="_lesson_title_0").set_value("Noise").run()
    at.text_area(key="_lesson_answer_0").set_value("Ten times wider.").run()
    at.number_input(key="_lesson_minutes_0").set_value(3.0).run()
    # the view is the step's own: nothing to update
    assert not [b for b in at.button if b.label == "Update from your current view"]

    _open(at, "laplace")  # the lecturer sets the page up differently
    at.number_input(key="lap_seed").set_value(9).run()
    at.number_input(key="eps").set_value(0.5).run()
    _ok(at)
    _open(at, "lesson")
    _ok(at)
    offer = next(c.value for c in at.caption if c.value.startswith("Your current view of"))
    assert "Laplace mechanism sets" in offer
    assert "`lap_seed=9`" in offer and "`eps=0.5`" in offer
    _button(at, "Update from your current view").click().run()
    _ok(at)
    assert any("Step 1 now opens your current view" in t.value for t in at.toast)
    (step,) = lesson.from_link(_link_code(at), TARGETS).steps
    assert step.settings()["lap_seed"] == "9" and step.settings()["eps"] == "0.5"
    assert (step.title, step.answer, step.minutes) == ("Noise", "Ten times wider.", 3.0)
    assert not [b for b in at.button if b.label == "Update from your current view"]
