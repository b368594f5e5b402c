"""A presented lesson's clock: elapsed whole minutes against the step's and the lesson's time
budgets, as text (over a budget says so in words, not only by colour)."""

from __future__ import annotations

import re

from dpui.kit import lesson, lesson_clock


def _words(shown: str) -> str:
    return re.sub(r"<[^>]+>", "", shown)


def test_the_clock_shows_whole_minutes_spent_against_each_budget() -> None:
    step_s, lesson_s = 2 * 60 + 59.0, 13 * 60 + 1.0  # 2 and 13 whole minutes
    shown = lesson_clock.text(step_s, 5, lesson_s, 50)
    assert _words(shown) == "2 of 5 min, lesson 13 of 50 min"
    assert "dp-over" not in shown and "over" not in _words(shown)
    # the script counts on from the seconds the server wrote
    assert f'data-s="{step_s:.1f}"' in shown and f'data-s="{lesson_s:.1f}"' in shown


def test_a_part_over_its_budget_says_over_in_words_and_class() -> None:
    shown = lesson_clock.text(7 * 60.0, 2.5, 10 * 60.0, 50)
    assert _words(shown) == "7 of 2.5 min (over), lesson 10 of 50 min"
    assert shown.count('class="dp-over"') == 1
    at_budget = lesson_clock.text(5 * 60.0 + 30, 5, 0, 5)  # 5 whole minutes: not yet over
    assert "over" not in _words(at_budget)


def test_a_part_without_a_budget_is_left_out_and_no_budget_shows_nothing() -> None:
    assert _words(lesson_clock.text(60.0, 0, 600.0, 20)) == "lesson 10 of 20 min"
    assert lesson_clock.text(60.0, 0, 600.0, 0) == ""


def test_the_lessons_budget_is_the_sum_of_its_steps_minutes() -> None:
    minutes = (4.0, 0.0, 2.5)
    steps = [lesson.Step("laplace", "", "t", minutes=m) for m in minutes]
    assert lesson_clock.budget(steps) == 6.5
    assert lesson_clock.budget([]) == 0
