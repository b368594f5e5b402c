"""The lesson model and its two codecs (file and link): round trips, and every bad input
refused with a message that names what is wrong and what is accepted."""

from __future__ import annotations

import base64
import hashlib
import json
import zlib

import pytest

from dpui import registry
from dpui.kit import lesson
from dpui.reference import lesson_page

TARGETS = lesson_page.targets(registry.PAGES)
ORDER = ("epsilon", "laplace", "exponential", "tree_budgets", "error_analysis")


def _lesson(n: int = 3, note: str = "Why?") -> lesson.Lesson:
    steps = tuple(
        lesson.Step(
            "laplace", f"lap_seed={i}&eps=0.5", f"Step «{i}» <b>x</b>", note, predict=i % 2 == 1
        )
        for i in range(n)
    )
    return lesson.Lesson("A lesson", steps)


def test_file_and_link_round_trip_exactly() -> None:
    original = _lesson(note="Line one\nline two: [a](http://x) `code` é")
    assert lesson.from_json(lesson.to_json(original).encode(), TARGETS) == original
    link = lesson.to_link(original)
    assert set(link) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert lesson.from_link(link, TARGETS) == original


def test_a_tampered_link_is_refused_with_a_message() -> None:
    link = lesson.to_link(_lesson())
    middle = len(link) // 2
    flipped = link[:middle] + ("A" if link[middle] != "A" else "B") + link[middle + 1 :]
    for bad in (flipped, link[:-6], "not a lesson", "A"):
        with pytest.raises(lesson.LessonError, match=r"damaged|not UTF-8 JSON|not a DP Explorer"):
            lesson.from_link(bad, TARGETS)


def test_an_oversized_link_or_one_that_unpacks_too_far_is_refused() -> None:
    with pytest.raises(lesson.LessonError, match="at most 6,000"):
        lesson.from_link("A" * (lesson.MAX_LINK_CHARS + 1), TARGETS)
    bomb = base64.urlsafe_b64encode(zlib.compress(b" " * (lesson.MAX_FILE + 10), 9)).decode()
    assert len(bomb) < lesson.MAX_LINK_CHARS  # small, but it unpacks past the file limit
    with pytest.raises(lesson.LessonError, match="unpacks to over 200,000 bytes"):
        lesson.from_link(bomb, TARGETS)


def test_a_lesson_too_long_for_a_link_says_to_save_a_file() -> None:
    # hex digests: text zlib cannot shrink below half, 40 notes of 1,000 characters
    notes = [
        "".join(hashlib.sha256(f"{i}.{j}".encode()).hexdigest() for j in range(16))[:1000]
        for i in range(lesson.MAX_STEPS)
    ]
    big = lesson.Lesson("Long", tuple(lesson.Step("laplace", "", "t", note) for note in notes))
    with pytest.raises(lesson.LessonError, match="Save it as a file"):
        lesson.to_link(big)
    assert lesson.from_json(lesson.to_json(big).encode(), TARGETS) == big


def _data(**step: object) -> dict[str, object]:
    return {
        "format": lesson.FORMAT,
        "version": 1,
        "title": "T",
        "steps": [{"link": "laplace?lap_seed=3", "title": "One"} | step],
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "not a DP Explorer lesson"),
        ({"format": lesson.FORMAT, "version": 7}, "version `7`; this app reads version 1"),
        ({**_data(), "steps": []}, "0 steps; a lesson has 1 to 40 steps"),
        ({**_data(), "steps": [{"link": "laplace", "title": "x"}] * 41}, "41 steps"),
        ({**_data(), "title": "x" * 121}, "121 characters; at most 120"),
        (_data(link="nowhere?a=1"), "opens `nowhere`, which is not a page.*laplace"),
        (_data(link="laplace?lap_seed=-1"), "`lap_seed=-1` on Laplace mechanism: -1 is outside"),
        (_data(link="laplace?eps=0"), "`eps=0`.*outside"),
        (_data(link="laplace?Bad-Name=1"), "sets `Bad-Name`"),
        (_data(link="laplace?x"), "not name=value pairs"),
        (_data(title=" "), "Step 1's title is empty"),
        (_data(note=5), "Step 1's note must be text, not int"),
        (_data(note="n" * 1001), "1,001 characters; at most 1,000"),
        (_data(predict="yes"), "predict must be true or false"),
        (_data(script="x"), "has the field `script`"),
    ],
)
def test_every_bad_value_is_named_with_what_is_accepted(data: object, message: str) -> None:
    with pytest.raises(lesson.LessonError, match=message):
        lesson.validate(data, TARGETS)


def test_a_file_that_is_not_json_or_too_large_is_refused() -> None:
    with pytest.raises(lesson.LessonError, match="not UTF-8 JSON"):
        lesson.from_json(b"\xff\xfe{", TARGETS)
    with pytest.raises(lesson.LessonError, match="a lesson file has at most 200,000"):
        lesson.from_json(b" " * (lesson.MAX_FILE + 1), TARGETS)


def test_control_characters_in_text_become_spaces_and_line_breaks_stay() -> None:
    loaded = lesson.validate(_data(title="a\x1b[31mb", note="one\ntwo\u2028"), TARGETS)
    assert loaded.steps[0].title == "a [31mb"
    assert loaded.steps[0].note == "one\ntwo "


def test_reorder_delete_and_edit() -> None:
    three = _lesson(3)
    seeds = [s.settings()["lap_seed"] for s in lesson.moved(three, 0, +1).steps]
    assert seeds == ["1", "0", "2"]
    assert lesson.moved(three, 0, -1) == three  # clamped at the top
    assert [s.query for s in lesson.deleted(three, 1).steps] == [
        three.steps[0].query,
        three.steps[2].query,
    ]
    changed = lesson.edited(three, 2, title="New", predict=True)
    assert changed.steps[2].title == "New" and changed.steps[2].predict
    assert changed.steps[:2] == three.steps[:2]


def test_a_step_from_a_view_keeps_its_settings_and_drops_how_it_is_shown() -> None:
    step = lesson.step_from_view(
        "laplace", "Laplace", {"lap_seed": "3", "present": "true", "eps": "0.5"}, ("present",)
    )
    assert step.link == "laplace?lap_seed=3&eps=0.5"
    assert lesson.validate(lesson.as_data(lesson.Lesson("t", (step,))), TARGETS).steps == (step,)


def test_the_bundled_lesson_validates_and_walks_the_pages_in_teaching_order() -> None:
    raw = lesson_page.EXAMPLE.read_bytes()
    loaded = lesson.from_json(raw, TARGETS)
    assert loaded.title == "DP histograms in 50 minutes"
    assert json.loads(raw)["steps"][0]["link"] == loaded.steps[0].link
    pages = list(dict.fromkeys(step.page for step in loaded.steps))
    assert [p for p in pages if p in ORDER] == list(ORDER)
    assert {"matrix_privelet", "kv_ldp"} <= set(pages)
    predicts = [s for s in loaded.steps if s.predict]
    assert len(predicts) >= 4 and all("?" in s.note for s in predicts)
    assert lesson.from_link(lesson.to_link(loaded), TARGETS) == loaded  # fits one link
