"""The lesson model and its two codecs (file and link): round trips, and every bad input
refused with a message that names what is wrong and what is accepted."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import zlib
from urllib.parse import parse_qsl

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from dpui import registry
from dpui.kit import examples, lesson, params
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
        (_data(answer=["a"]), "Step 1's answer must be text, not list"),
        (_data(answer="a" * 1001), "answer is refused: it has 1,001 characters"),
        (_data(section="Posterior bound"), "section `Posterior bound` is not a section's anchor"),
        (_data(section="a" * 61), "section is refused: it has 61 characters; at most 60"),
        (_data(baseline="lap_show=bound"), "baseline sets `lap_show`, which a pinned view"),
        (_data(baseline="eps=0"), "baseline sets `eps=0` on Laplace mechanism: .*outside"),
        (_data(baseline="eps"), "baseline has settings that are not name=value pairs"),
        (_data(link="glossary", baseline="eps=1"), "Glossary has no pinned view to compare"),
        (_data(minutes="5"), "minutes must be a number of minutes from 0.5 to 90 .*not str `5`"),
        (_data(minutes=True), "minutes must be a number .*not bool"),
        (_data(minutes=None), "minutes must be a number .*not NoneType"),
        (_data(minutes=-3), "minutes `-3` is refused: a number of minutes from 0.5 to 90"),
        (_data(minutes=0.25), "minutes `0.25` is refused"),
        (_data(minutes=91), "minutes `91` is refused"),
        (_data(minutes=float("nan")), "minutes `nan` is refused"),
    ],
)
def test_every_bad_value_is_named_with_what_is_accepted(data: object, message: str) -> None:
    with pytest.raises(lesson.LessonError, match=message):
        lesson.validate(data, TARGETS)


OLD_FILE = b"""{
  "format": "dp-explorer-lesson",
  "version": 1,
  "title": "Saved before answers",
  "steps": [
    {
      "link": "laplace?lap_seed=3&eps=0.5",
      "title": "Noise",
      "note": "How wide?",
      "predict": true
    },
    {"link": "glossary", "title": "Terms"}
  ]
}"""


def test_a_lesson_saved_before_answers_sections_and_baselines_loads_and_saves_the_same() -> None:
    old = lesson.from_json(OLD_FILE, TARGETS)
    first, second = old.steps
    assert (first.page, first.settings(), first.note, first.predict) == (
        "laplace",
        {"lap_seed": "3", "eps": "0.5"},
        "How wide?",
        True,
    )
    assert (second.page, second.note, second.predict) == ("glossary", "", False)
    assert all((s.answer, s.section, s.baseline) == ("", "", "") for s in old.steps)
    assert all(s.minutes == 0 for s in old.steps)  # no time budget
    saved = json.loads(lesson.to_json(old))
    assert set(saved["steps"][0]) == {"link", "title", "note", "predict"}  # what it read


def test_an_answer_a_section_and_a_baseline_round_trip_in_a_file_and_a_link() -> None:
    step = lesson.Step(
        "epsilon",
        "eps_part=attacker&eps=0.5",
        "Attacker",
        "How sure?",
        predict=True,
        answer="At most e/(1+e), the posterior chart.",
        section="attacker-posterior",
        baseline="eps=1",
    )
    one = lesson.Lesson("New", (step,))
    assert lesson.from_json(lesson.to_json(one).encode(), TARGETS) == one
    assert lesson.from_link(lesson.to_link(one), TARGETS) == one


def test_a_time_budget_round_trips_in_a_file_and_a_link_whole_minutes_as_whole_numbers() -> None:
    steps = tuple(
        lesson.Step("laplace", "eps=0.5", f"t{m}", minutes=m) for m in (5.0, 2.5, 0.0, 90.0)
    )
    one = lesson.Lesson("Timed", steps)
    assert lesson.from_json(lesson.to_json(one).encode(), TARGETS) == one
    assert lesson.from_link(lesson.to_link(one), TARGETS) == one
    saved = [step.get("minutes") for step in json.loads(lesson.to_json(one))["steps"]]
    assert saved == [5, 2.5, None, 90]  # none without a budget: the file an older app reads
    assert isinstance(saved[0], int)


def test_a_number_past_floats_in_a_lesson_file_is_refused_as_minutes() -> None:
    raw = json.dumps(_data()).replace('"title": "One"', '"title": "One", "minutes": 1e400')
    with pytest.raises(lesson.LessonError, match="minutes `inf` is refused"):
        lesson.from_json(raw.encode(), TARGETS)


def test_a_step_updated_from_a_view_takes_its_settings_and_keeps_the_rest() -> None:
    old = lesson.Step(
        "laplace", "lap_seed=3&eps=1", "Noise", "How wide?", True, "b = 1", "", "eps=2", 4.0
    )
    two = lesson.Lesson("L", (old, lesson.Step("glossary", "", "Terms")))
    view = lesson.step_from_view("laplace", "Laplace", {"lap_seed": "9"}, ())
    new = lesson.updated(two, 0, view, TARGETS["laplace"])
    assert new.steps[0].settings() == {"lap_seed": "9"}
    kept = ("title", "note", "predict", "answer", "section", "baseline", "minutes")
    assert all(getattr(new.steps[0], f) == getattr(old, f) for f in kept)
    assert new.steps[1] == two.steps[1]
    pinned = lesson.step_from_view("laplace", "L", {"eps": "0.1"}, (), pin="eps=1")
    assert lesson.updated(two, 0, pinned, TARGETS["laplace"]).steps[0].baseline == "eps=1"
    with pytest.raises(lesson.LessonError, match="a view of laplace cannot replace its link"):
        lesson.updated(two, 1, view, TARGETS["glossary"])
    bad = lesson.step_from_view("laplace", "L", {"lap_seed": "-1"}, ())
    with pytest.raises(lesson.LessonError, match="`lap_seed=-1` on Laplace mechanism"):
        lesson.updated(two, 0, bad, TARGETS["laplace"])


def test_a_steps_pin_is_its_settings_with_the_baselines_over_them() -> None:
    step = lesson.Step("laplace", "lap_seed=3&eps=0.1", "t", baseline="eps=1")
    assert dict(parse_qsl(step.pin())) == {"lap_seed": "3", "eps": "1"}
    assert lesson.Step("laplace", "eps=0.1", "t").pin() == ""


def test_a_pinned_view_added_to_a_lesson_becomes_the_steps_baseline() -> None:
    query = {"lap_seed": "3", "eps": "0.1", "pin": "eps=1&lap_seed=3", "present": "true"}
    step = lesson.step_from_view("laplace", "L", query, ("present", "pin"), pin=query["pin"])
    assert step.settings() == {"lap_seed": "3", "eps": "0.1"}
    assert step.baseline == "eps=1&lap_seed=3"
    added = lesson.appended(lesson.EMPTY, step, TARGETS["laplace"])
    assert lesson.from_json(lesson.to_json(added).encode(), TARGETS) == added


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


def test_every_bundled_step_has_an_answer_and_its_range_step_a_range_worth_showing() -> None:
    """Each step answers its question (naming the figure that does), and the range explored
    on the tree lies in the middle half of the default histogram with people in it."""
    loaded = lesson.from_json(lesson_page.EXAMPLE.read_bytes(), TARGETS)
    assert all(len(step.answer.split()) >= 8 for step in loaded.steps)
    (ranged,) = [s for s in loaded.steps if s.settings().get("tb_show") == "range"]
    counts = examples.load(examples.DEFAULT).counts
    first, last = int(ranged.settings()["tb_from"]), int(ranged.settings()["tb_to"])
    assert counts.size / 4 <= first < last <= 3 * counts.size / 4
    assert counts[first - 1 : last].sum() > 0
    assert any("tb_tree" in s.baseline for s in loaded.steps)  # binary beside 16-ary
    assert any("eps" in s.baseline for s in loaded.steps)  # ε = 1 beside 0.1


def test_the_bundled_lessons_time_budgets_add_up_to_its_title() -> None:
    loaded = lesson.from_json(lesson_page.EXAMPLE.read_bytes(), TARGETS)
    assert all(step.minutes > 0 for step in loaded.steps)
    minutes = int(loaded.title.split(" in ")[1].split()[0])  # "DP histograms in 50 minutes"
    assert sum(step.minutes for step in loaded.steps) == minutes


# --- hostile files and links (issue 37, M1 and M2) -----------------------------------------


def _as_link(raw: bytes) -> str:
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


NESTED = b"[" * 1000 + b"]" * 1000
HUGE_VERSION = b'{"format": "dp-explorer-lesson", "version": ' + b"9" * 4400 + b"}"


def test_the_issues_nested_link_is_refused_with_a_message() -> None:
    link = "eNqLjh4Fo2AUDHcQOwpGwSgY9gAAbqbO3w"
    assert zlib.decompress(base64.urlsafe_b64decode(link + "==")) == b"[" * 1000 + b"]" * 1000
    with pytest.raises(lesson.LessonError, match=r"nested too deep.*three levels"):
        lesson.from_link(link, TARGETS)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (NESTED, "nested too deep to read; a lesson nests three levels"),
        (b'{"a": ' * 5000 + b"1" + b"}" * 5000, "nested too deep"),
        (HUGE_VERSION, "a number of 4,400 digits; a lesson's numbers have at most 20"),
        (HUGE_VERSION.replace(b"9" * 4400, b"-" + b"1" * 30), "a number of 30 digits"),
        (HUGE_VERSION.replace(b"9" * 4400, b"true"), "version `True`; this app reads version 1"),
    ],
)
def test_deep_nesting_and_huge_numbers_are_refused_from_a_file_and_a_link(
    raw: bytes, message: str
) -> None:
    with pytest.raises(lesson.LessonError, match=message):
        lesson.from_json(raw, TARGETS)
    with pytest.raises(lesson.LessonError, match=message):
        lesson.from_link(_as_link(raw), TARGETS)


@pytest.mark.parametrize("field", ["title", "note", "link", "lesson title"])
def test_a_lone_surrogate_in_any_text_is_refused_naming_the_character(field: str) -> None:
    bad = "\ud800 x"
    data = _data() if field == "lesson title" else _data(**{field: f"laplace?a={bad}"})
    if field == "lesson title":
        data["title"] = bad
    elif field != "link":
        data = _data(**{field: bad})
    raw = json.dumps(data).encode()  # ASCII: the surrogate as the escape \ud800
    assert b"\\ud800" in raw
    with pytest.raises(lesson.LessonError, match="is U\\+D800, a lone surrogate") as err:
        lesson.from_json(raw, TARGETS)
    str(err.value).encode("utf-8")  # the message itself can be shown


def test_a_surrogate_in_a_link_setting_is_refused_and_echoed_escaped() -> None:
    with pytest.raises(lesson.LessonError, match="link is refused: character 30 is U\\+D800"):
        lesson.validate(_data(link="which_algorithm?wa_ranges=0-1\ud800"), TARGETS)
    with pytest.raises(ValueError, match="character 4 is U\\+D800, a lone surrogate"):
        params.TextParam("t", "", 10).parse("0-1\ud800")  # the parameter's own check
    with pytest.raises(lesson.LessonError, match="has the field `x\\\\udc00`") as err:
        lesson.validate(_data(**{"x\udc00": 1}), TARGETS)
    str(err.value).encode("utf-8")


# --- what "Add to lesson" stores always loads (issue 37, M3) --------------------------------


def _longest(param: params.Param) -> str:
    """The longest text ``param`` accepts, as written in a link (percent-encoding triples a
    comma: the longest link)."""
    if isinstance(param, params.TextParam):
        return "," * param.max_chars
    if isinstance(param, params.IntParam):
        return max(str(param.lo), str(param.hi), key=len)
    if isinstance(param, params.FloatParam):
        return param.encode(param.lo + (param.hi - param.lo) / 3)
    if isinstance(param, params.ChoiceParam):
        return max(param.options, key=len)
    if isinstance(param, params.RangeParam):
        return f"{param.hi}-{param.hi}"
    assert isinstance(param, params.BoolParam)
    return "false"


@pytest.mark.parametrize("key", sorted(TARGETS))
def test_every_pages_longest_link_added_to_a_lesson_saves_and_loads_back(key: str) -> None:
    target = TARGETS[key]
    query = {p.name: _longest(p) for p in target.params}
    for p in target.params:
        p.parse(query[p.name])  # each value is one the page accepts
    foreign = {"fbclid": "x", "Ref": "newsletter", "present": "true"}
    step = lesson.step_from_view(key, target.title, query | foreign, ("present",))
    assert step.settings() == query | {"fbclid": "x"}  # Ref is not a setting name: dropped
    added = lesson.appended(lesson.EMPTY, step, target)
    assert lesson.from_json(lesson.to_json(added).encode(), TARGETS) == added
    try:
        link = lesson.to_link(added)
    except lesson.LessonError as err:
        assert "Save it as a file" in str(err)
    else:
        assert lesson.from_link(link, TARGETS) == added


def test_a_step_the_lesson_cannot_hold_is_not_added_and_says_why() -> None:
    target = TARGETS["paper_experiments"]
    query = {"px_ct_tree": "," * 12_000, "px_ct_eps": "," * 20_000}  # a 96 kB link
    step = lesson.step_from_view(target.key, "Big", query, ())
    one = lesson.appended(lesson.EMPTY, step, target)
    two = lesson.appended(one, step, target)
    with pytest.raises(lesson.LessonError, match="a lesson file has at most 200,000"):
        lesson.appended(two, step, target)
    assert lesson.from_json(lesson.to_json(two).encode(), TARGETS) == two
    with pytest.raises(lesson.LessonError, match="besides the settings of Laplace"):
        lesson.appended(lesson.EMPTY, lesson.step_from_view("laplace", "L", {"x": "y" * 2000}, ()),
                        TARGETS["laplace"])  # fmt: skip
    full = lesson.Lesson("t", (lesson.Step("laplace", "", "s"),) * lesson.MAX_STEPS)
    with pytest.raises(lesson.LessonError, match="40 steps, the most it holds"):
        lesson.appended(full, lesson.Step("laplace", "", "s"), TARGETS["laplace"])


# --- hostile input, generated -------------------------------------------------------------

HOSTILE_TEXT = hs.text(
    hs.characters(codec=None, categories=None) | hs.sampled_from("\ud800\udfff\x00\u2028`[]<>%&=?")
)
JSON_LEAVES = (
    hs.none()
    | hs.booleans()
    | hs.integers(min_value=-(10**30), max_value=10**30)
    | hs.floats()
    | HOSTILE_TEXT
)
JSON = hs.recursive(
    JSON_LEAVES,
    lambda inner: hs.lists(inner, max_size=4) | hs.dictionaries(HOSTILE_TEXT, inner, max_size=4),
    max_leaves=20,
)
STEP = hs.fixed_dictionaries(
    {
        "link": hs.sampled_from(["laplace?lap_seed=3", "laplace"]) | HOSTILE_TEXT,
        "title": HOSTILE_TEXT | JSON,
    },
    optional={
        "note": HOSTILE_TEXT | JSON,
        "predict": JSON,
        "extra": JSON,
        "answer": HOSTILE_TEXT | JSON,
        "section": hs.just("attacker-posterior") | HOSTILE_TEXT | JSON,
        "baseline": hs.just("eps=1") | HOSTILE_TEXT | JSON,
        "minutes": hs.floats() | hs.integers() | JSON,
    },
)
LESSONS = hs.fixed_dictionaries(
    {"format": hs.just(lesson.FORMAT) | JSON, "version": hs.just(1) | JSON},
    optional={"title": HOSTILE_TEXT | JSON, "steps": hs.lists(STEP | JSON, max_size=3) | JSON},
)


def _texts(step: lesson.Step) -> tuple[str, ...]:
    return (step.link, step.title, step.note, step.answer, step.section, step.baseline)


def _loads_or_refuses(raw: bytes) -> None:
    """Either a lesson whose every text the app can show, or a LessonError; nothing else."""
    try:
        loaded = lesson.from_json(raw, TARGETS)
    except lesson.LessonError as err:
        str(err).encode("utf-8")
        return
    for text in (loaded.title, *(t for s in loaded.steps for t in _texts(s))):
        text.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(LESSONS)
def test_any_json_either_loads_as_showable_text_or_is_refused(data: object) -> None:
    raw = json.dumps(data, ensure_ascii=True).encode()
    _loads_or_refuses(raw)
    _loads_or_refuses(raw[: len(raw) // 2])


@settings(max_examples=100, deadline=None)
@given(hs.integers(1, 3000), hs.sampled_from(["[", '{"a":', "[[{}, "]), hs.integers(0, 5000))
def test_nesting_and_long_numbers_of_any_size_are_refused_or_loaded(
    depth: int, opener: str, digits: int
) -> None:
    _loads_or_refuses((opener * depth).encode())
    _loads_or_refuses(HUGE_VERSION.replace(b"9" * 4400, b"1" * digits or b"1"))


@settings(max_examples=200, deadline=None)
@given(hs.text(max_size=200) | hs.binary(max_size=300).map(_as_link))
def test_any_link_text_either_loads_or_is_refused(text: str) -> None:
    with contextlib.suppress(lesson.LessonError):
        lesson.from_link(text, TARGETS)
