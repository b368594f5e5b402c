"""A lesson: views of the app in order, each a page's link with a title and a note or question.

This module is the lesson's model and its two codecs, both pure (no Streamlit; the session
glue is :mod:`dpui.kit.lesson_steps`): a JSON file (:func:`to_json` / :func:`from_json`) and
one link parameter (:func:`to_link` / :func:`from_link`: the same JSON, zlib-compressed and
base64url-encoded). Everything loaded goes through :func:`validate`, which accepts a lesson
or raises :class:`LessonError` naming the first thing wrong and what is accepted; it checks
every step's page and the values of that page's parameters with the page's own codecs, so a
lesson cannot carry a link that the page would have to repair.

A step's link is a page key and the query string of its settings, as "Copy link" would give
them (``laplace?eps=0.5&lap_seed=3``), without the host: a lesson file opens on any server.
A step may also carry what answers it (fields added after the first lessons were saved, so
all optional): an ``answer`` shown with the figure, the ``section`` of the page it scrolls to
(a heading's anchor; a page that no longer has it opens at its top, with a notice), and a
``baseline``, settings of a pinned view A drawn beside the step's own (:mod:`dpui.kit.pin`):
the step's settings with these changed, such as ``eps=1`` beside a step at ε = 0.1; and a
time budget, the ``minutes`` the lecturer means to spend on it (shown while presenting, with
the time spent on the step and on the lesson: :mod:`dpui.kit.lesson_clock`).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlencode

from dpui.kit import params as codec
from dpui.kit import untrusted

FORMAT, VERSION = "dp-explorer-lesson", 1
PAGE_KEY = "lesson"
"""The key of the Lesson page, where a lesson is edited (not itself a step)."""
URL_KEY = "lesson"
"""The query parameter of a lesson's link (on the Lesson page)."""
MAX_STEPS, MAX_TITLE, MAX_NOTE = 40, 120, 1_000
MAX_SECTION = 60
MAX_LINK = 2_000
"""Characters of a step's link besides the values of its page's own settings (each bounded by
its parameter's own limit): the page's key, the setting names and other settings."""
MAX_FILE = 200_000
"""Bytes of a lesson file (a full lesson of long notes is under 100 kB)."""
MAX_DIGITS = 20
"""Digits of a whole number in a lesson file (the version, a step's minutes)."""
MIN_MINUTES, MAX_MINUTES = 0.5, 90.0
"""The shortest and the longest time budget of one step (minutes): a whole lecture."""
MAX_LINK_CHARS = 6_000
"""Characters of the encoded lesson in a link: browsers, proxies and servers take URLs of
8,000 characters and more; this leaves room for the address itself."""
_KEY = re.compile(r"[a-z][a-z0-9_]{0,39}")
_SECTION = re.compile(rf"[a-z][a-z0-9-]{{0,{MAX_SECTION - 1}}}")
FIELDS = ("link", "title", "note", "predict", "answer", "section", "baseline", "minutes")
"""A step's fields in a file: a link and a title, the others optional."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]")


class LessonError(ValueError):
    """A lesson that cannot be loaded; the message says what is wrong and what is accepted."""


@dataclass(frozen=True)
class Target:
    """A page a step may open: its key, title and the parameters its link may set (the
    page's own and the shared ones), whose values a loaded lesson must parse, and those a
    pinned view keeps (a step's baseline sets only these; none: the page has no pin)."""

    key: str
    title: str
    params: tuple[codec.Param, ...]
    pinned: tuple[codec.Param, ...] = ()


@dataclass(frozen=True)
class Step:
    """One view of a lesson: the page's key, its settings as a query string, a title, a note
    or question, whether its figure is hidden until revealed ("predict, then reveal"), the
    answer shown with the figure, the anchor of the page's section it scrolls to, and the
    settings of a baseline pinned beside it (a query string: the step's settings with these
    changed), and the minutes it is meant to take (0: no time budget)."""

    page: str
    query: str
    title: str
    note: str = ""
    predict: bool = False
    answer: str = ""
    section: str = ""
    baseline: str = ""
    minutes: float = 0.0

    @property
    def link(self) -> str:
        """``page?query`` (just ``page`` without settings)."""
        return f"{self.page}?{self.query}" if self.query else self.page

    def settings(self) -> dict[str, str]:
        """The step's query as a mapping (the last value of a repeated key)."""
        return dict(parse_qsl(self.query, keep_blank_values=True))

    def pin(self) -> str:
        """The pinned view A of this step as the ``pin`` link value: the step's settings with
        the baseline's over them (the pin reads those it keeps); "" without a baseline."""
        if not self.baseline:
            return ""
        return urlencode(self.settings() | dict(parse_qsl(self.baseline, keep_blank_values=True)))


@dataclass(frozen=True)
class Lesson:
    title: str
    steps: tuple[Step, ...] = ()


EMPTY = Lesson("My lesson")


def step_from_view(
    page: str, title: str, query: Mapping[str, str], dropped: Sequence[str], *, pin: str = ""
) -> Step:
    """A step opening page ``page`` with the settings ``query`` (its link's parameters less
    the ``dropped`` ones, such as presentation mode, and less the foreign ones a lesson does
    not take, such as ``Ref=newsletter``), titled ``title``; the link's ``pin`` value (a
    pinned view A, as :mod:`dpui.kit.pin` writes it), if any, becomes the step's baseline."""
    kept = {k: v for k, v in query.items() if k not in dropped and _KEY.fullmatch(k)}
    return Step(page, urlencode(kept), title[:MAX_TITLE], baseline=pin)


def appended(lesson: Lesson, step: Step, target: Target) -> Lesson:
    """``lesson`` with ``step`` (which opens ``target``) as its last step, checked as a load
    would check it, so that a lesson the app saves always loads.

    Parameters
    ----------
    lesson : Lesson
        The lesson so far.
    step : Step
        The new step, from :func:`step_from_view`.
    target : Target
        The page the step opens.

    Returns
    -------
    Lesson
        The longer lesson.

    Raises
    ------
    LessonError
        When the lesson is full, the step would be refused on load, or the lesson's file would
        be over :data:`MAX_FILE` bytes.
    """
    n = len(lesson.steps) + 1
    if n > MAX_STEPS:
        raise LessonError(f"The lesson has {MAX_STEPS} steps, the most it holds.")
    checked = _step(_step_data(step), n, {step.page: target})
    longer = replace(lesson, steps=(*lesson.steps, checked))
    check_size(longer)
    return longer


def updated(lesson: Lesson, index: int, view: Step, target: Target) -> Lesson:
    """``lesson`` with step ``index`` opening ``view``'s settings (a view of the same page,
    from :func:`step_from_view`), its title, note, answer, section, "predict" and time budget
    kept; its baseline becomes the view's pinned view, if the view has one (else it stays).

    Parameters
    ----------
    lesson : Lesson
        The lesson.
    index : int
        The step to update.
    view : Step
        The current view of the step's page.
    target : Target
        That page.

    Returns
    -------
    Lesson
        The lesson with the step updated, checked as a load would check it.

    Raises
    ------
    LessonError
        When the view is of another page than the step's, the step would be refused on load,
        or the lesson's file would be over :data:`MAX_FILE` bytes.
    """
    old = lesson.steps[index]
    if view.page != old.page or target.key != old.page:
        raise LessonError(
            f"Step {index + 1} opens {old.page}; a view of {view.page} cannot replace its link."
        )
    new = replace(old, query=view.query, baseline=view.baseline or old.baseline)
    checked = _step(_step_data(new), index + 1, {old.page: target})
    steps = list(lesson.steps)
    steps[index] = checked
    changed = replace(lesson, steps=tuple(steps))
    check_size(changed)
    return changed


def differences(step: Step, view: Step, target: Target) -> list[str]:
    """What ``view`` would change in the view ``step`` opens (both of page ``target``):
    ``name=value`` for each setting it sets to another value, ``-name`` for each it leaves
    out; a page's parameter left out of a link counts as its default, so a view that only
    writes out the defaults a step leaves implicit changes nothing.

    >>> from dpui.kit.params import IntParam
    >>> page = Target("p", "P", (IntParam("n", 4, 1, 9),))
    >>> differences(Step("p", "n=4&x=a", "t"), Step("p", "n=5", "t"), page)
    ['n=5', '-x']
    >>> differences(Step("p", "", "t"), Step("p", "n=4", "t"), page)
    []
    """
    by_name = {p.name: p for p in target.params}

    def meant(settings: Mapping[str, str], name: str) -> object:
        raw, param = settings.get(name), by_name.get(name)
        if param is None:
            return raw
        try:
            return param.default if raw is None else param.parse(raw)
        except ValueError:
            return raw

    old, new = step.settings(), view.settings()
    changed = [f"{k}={v}" for k, v in new.items() if meant(old, k) != meant(new, k)]
    return changed + [f"-{k}" for k in old if k not in new and meant(old, k) != meant(new, k)]


def check_size(lesson: Lesson) -> None:
    """Raise :class:`LessonError` when ``lesson`` as a file would be over :data:`MAX_FILE`
    bytes (it could not be loaded back).

    Parameters
    ----------
    lesson : Lesson
        A lesson about to be kept (after an edit).

    Raises
    ------
    LessonError
        Saying how large the file would be and what is accepted.
    """
    size = len(to_json(lesson).encode("utf-8"))
    if size > MAX_FILE:
        raise LessonError(
            f"The lesson would be a file of {size:,} bytes; a lesson file has at most "
            f"{MAX_FILE:,}. Save this lesson and start another, or shorten its notes."
        )


def moved(lesson: Lesson, index: int, by: int) -> Lesson:
    """``lesson`` with step ``index`` moved ``by`` places (-1 up, +1 down), clamped."""
    steps = list(lesson.steps)
    to = min(max(index + by, 0), len(steps) - 1)
    steps.insert(to, steps.pop(index))
    return replace(lesson, steps=tuple(steps))


def deleted(lesson: Lesson, index: int) -> Lesson:
    return replace(lesson, steps=lesson.steps[:index] + lesson.steps[index + 1 :])


def edited(lesson: Lesson, index: int, **changes: Any) -> Lesson:
    """``lesson`` with step ``index`` changed (``title=``, ``note=``, ``predict=``,
    ``answer=``, ``minutes=``, ...)."""
    steps = list(lesson.steps)
    steps[index] = replace(steps[index], **changes)
    return replace(lesson, steps=tuple(steps))


def as_data(lesson: Lesson) -> dict[str, Any]:
    """The lesson as JSON-ready data (the file format)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "title": lesson.title,
        "steps": [_step_data(s) for s in lesson.steps],
    }


def _step_data(step: Step) -> dict[str, Any]:
    """A step as a file holds it: the optional fields added later only when set, so that a
    lesson without them is the file an older app saved and reads."""
    data = {"link": step.link, "title": step.title, "note": step.note, "predict": step.predict}
    minutes = int(step.minutes) if step.minutes == int(step.minutes) else step.minutes
    later = {
        "answer": step.answer,
        "section": step.section,
        "baseline": step.baseline,
        "minutes": minutes,
    }
    return data | {name: value for name, value in later.items() if value}


def to_json(lesson: Lesson) -> str:
    return json.dumps(as_data(lesson), ensure_ascii=False, indent=2)


def to_link(lesson: Lesson) -> str:
    """The lesson as one query-parameter value: compact JSON, zlib-compressed, base64url
    without padding. Raises :class:`LessonError` when it is longer than
    :data:`MAX_LINK_CHARS`.

    Raises
    ------
    LessonError
        When the encoded lesson is too long for a link.
    """
    raw = json.dumps(as_data(lesson), ensure_ascii=False, separators=(",", ":"))
    packed = base64.urlsafe_b64encode(zlib.compress(raw.encode("utf-8"), 9)).decode("ascii")
    text = packed.rstrip("=")
    if len(text) > MAX_LINK_CHARS:
        raise LessonError(
            f"This lesson is too long for one link ({len(text):,} characters once compressed; "
            f"a link holds at most {MAX_LINK_CHARS:,}). Save it as a file instead, or shorten "
            "its notes."
        )
    return text


def from_link(text: str, targets: Mapping[str, Target]) -> Lesson:
    """The lesson encoded by :func:`to_link`, validated (:func:`validate`).

    Raises
    ------
    LessonError
        When the text is too long, not base64url, not zlib data, decompresses to more than
        :data:`MAX_FILE` bytes, or is not a valid lesson.
    """
    if len(text) > MAX_LINK_CHARS:
        raise LessonError(
            f"The lesson in this link is {len(text):,} characters long; a lesson link holds at "
            f"most {MAX_LINK_CHARS:,}."
        )
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise LessonError(
            "The lesson in this link is damaged (it is not base64url text, the form a lesson "
            "link is saved in); ask for the link again, or load the lesson's file."
        ) from None
    unpack = zlib.decompressobj()
    try:
        raw = unpack.decompress(packed, MAX_FILE + 1)  # a bounded output: no zip bomb
    except zlib.error:
        raise LessonError(
            "The lesson in this link is damaged (its compressed data does not unpack); ask "
            "for the link again, or load the lesson's file."
        ) from None
    if len(raw) > MAX_FILE or unpack.unconsumed_tail:
        raise LessonError(f"The lesson in this link unpacks to over {MAX_FILE:,} bytes.")
    return from_json(raw, targets)


def from_json(raw: bytes, targets: Mapping[str, Target]) -> Lesson:
    """The lesson in a JSON file's bytes, validated (:func:`validate`).

    Raises
    ------
    LessonError
        When the file is too large, not UTF-8 JSON, or not a valid lesson.
    """
    if len(raw) > MAX_FILE:
        raise LessonError(
            f"The file is {len(raw):,} bytes; a lesson file has at most {MAX_FILE:,}."
        )
    try:
        data = json.loads(raw.decode("utf-8"), parse_int=_whole_number)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise LessonError(
            f"This is not a lesson file: it is not UTF-8 JSON ({untrusted.markdown(err, 120)})."
        ) from None
    except RecursionError:  # the decoder recurses once per level of nesting
        raise LessonError(
            "This is not a lesson file: its lists or objects are nested too deep to read; a "
            "lesson nests three levels (the lesson, its list of steps, each step)."
        ) from None
    return validate(data, targets)


def _whole_number(digits: str) -> int:
    """A JSON integer of at most :data:`MAX_DIGITS` digits (Python refuses to read one of
    over 4,300 digits, with a ValueError of its own)."""
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise LessonError(
            f"This lesson has a number of {len(digits.lstrip('-')):,} digits; a lesson's "
            f"numbers have at most {MAX_DIGITS}."
        )
    return int(digits)


def _text(value: Any, where: str, limit: int, *, required: bool = False) -> str:
    if not isinstance(value, str):
        raise LessonError(f"{where} must be text, not {type(value).__name__}.")
    if unfit := untrusted.unfit_text(value, limit):
        raise LessonError(f"{where} is refused: {unfit}.")
    if required and not value.strip():
        raise LessonError(f"{where} is empty; give it a few words.")
    return _CONTROL.sub(" ", value)


def validate(data: Any, targets: Mapping[str, Target]) -> Lesson:
    """The lesson in ``data`` (a file's parsed JSON), every value checked.

    Accepted: an object with ``"format": "dp-explorer-lesson"``, ``"version": 1``, a title,
    and 1 to :data:`MAX_STEPS` steps, each with a ``link`` to one of the ``targets``' pages
    whose settings that page accepts, a non-empty ``title``, an optional ``note``, an
    optional boolean ``predict``, an optional ``answer``, an optional ``section`` (an anchor:
    lower-case letters, digits and -) and an optional ``baseline`` (settings that the page's
    pinned view keeps) and optional ``minutes``, the step's time budget (a number from
    :data:`MIN_MINUTES` to :data:`MAX_MINUTES`). Control characters in text become spaces.

    Raises
    ------
    LessonError
        Naming the first value that is wrong and what is accepted.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LessonError(f'This is not a DP Explorer lesson (it has no "format": "{FORMAT}").')
    if type(data.get("version")) is not int or data["version"] != VERSION:
        raise LessonError(
            f"This lesson is of version {untrusted.markdown(data.get('version'), 20)}; "
            f"this app reads version {VERSION}."
        )
    title = _text(data.get("title", ""), "The lesson's title", MAX_TITLE, required=True)
    steps = data.get("steps")
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        count = f"{len(steps)} steps" if isinstance(steps, list) else "no list of steps"
        raise LessonError(f"The lesson has {count}; a lesson has 1 to {MAX_STEPS} steps.")
    return Lesson(title, tuple(_step(raw, n, targets) for n, raw in enumerate(steps, 1)))


def _step(raw: Any, n: int, targets: Mapping[str, Target]) -> Step:
    where = f"Step {n}"
    if not isinstance(raw, dict):
        raise LessonError(f"{where} is not an object with a link, a title and a note.")
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        raise LessonError(
            f"{where} has the field {untrusted.markdown(unknown[0], 40)}; a step has only "
            f"{', '.join(FIELDS[:-1])} and {FIELDS[-1]}."
        )
    link = _text(raw.get("link"), f"{where}'s link", MAX_FILE, required=True)
    page, _, query = link.partition("?")
    if page not in targets:
        raise LessonError(
            f"{where}'s link opens {untrusted.markdown(page, 40)}, which is not a page of this "
            f"app; a link opens one of: {', '.join(sorted(targets))}."
        )
    _check_settings(query, targets[page], where)
    predict = raw.get("predict", False)
    if not isinstance(predict, bool):
        raise LessonError(f"{where}'s predict must be true or false.")
    section = _text(raw.get("section", ""), f"{where}'s section", MAX_SECTION)
    if section and not _SECTION.fullmatch(section):
        raise LessonError(
            f"{where}'s section {untrusted.markdown(section, 40)} is not a section's anchor: "
            "a lower-case letter, then lower-case letters, digits and -."
        )
    baseline = _text(raw.get("baseline", ""), f"{where}'s baseline", MAX_LINK)
    if baseline:
        _check_baseline(baseline, targets[page], where)
    return Step(
        page,
        query,
        _text(raw.get("title"), f"{where}'s title", MAX_TITLE, required=True),
        _text(raw.get("note", ""), f"{where}'s note", MAX_NOTE),
        predict,
        _text(raw.get("answer", ""), f"{where}'s answer", MAX_NOTE),
        section,
        baseline,
        minutes(raw.get("minutes", 0), where),
    )


def minutes(value: Any, where: str) -> float:
    """A step's time budget read from a file (``where``: "Step 2", for the message): 0 for
    none, else a number of minutes from :data:`MIN_MINUTES` to :data:`MAX_MINUTES`.

    Parameters
    ----------
    value : Any
        The ``minutes`` field as parsed from JSON (absent: 0).
    where : str
        The step, as the message names it.

    Returns
    -------
    float
        The minutes (0.0: no time budget).

    Raises
    ------
    LessonError
        When ``value`` is not a number (true/false and text are not), is not finite, or is
        outside the accepted range.
    """
    accepted = f"a number of minutes from {MIN_MINUTES:g} to {MAX_MINUTES:g} (0: no budget)"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LessonError(
            f"{where}'s minutes must be {accepted}, not {type(value).__name__} "
            f"{untrusted.markdown(value, 20)}."
        )
    if value != 0 and not MIN_MINUTES <= value <= MAX_MINUTES:  # NaN fails it too
        raise LessonError(
            f"{where}'s minutes {untrusted.markdown(value, 20)} is refused: {accepted}."
        )
    return float(value)


def _check_baseline(baseline: str, target: Target, where: str) -> None:
    """Every setting of a step's baseline is one that the page's pinned view keeps, and its
    value parses."""
    if not target.pinned:
        raise LessonError(
            f"{where} has a baseline, but {target.title} has no pinned view to compare with; "
            "remove the baseline, or open a page with Pin this view."
        )
    by_name = {p.name: p for p in target.pinned}
    for name, value in _pairs(baseline, f"{where}'s baseline"):
        if name not in by_name:
            raise LessonError(
                f"{where}'s baseline sets {untrusted.markdown(name, 40)}, which a pinned view "
                f"of {target.title} does not keep; it keeps: {', '.join(sorted(by_name))}."
            )
        _check_value(by_name[name], value, f"{where}'s baseline", target)


def _pairs(query: str, what: str) -> list[tuple[str, str]]:
    """The name=value pairs of ``query`` (``what``: "Step 2's link", for the message)."""
    try:
        return parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise LessonError(f"{what} has settings that are not name=value pairs.") from None


def _check_value(param: codec.Param, value: str, what: str, target: Target) -> None:
    """Raise :class:`LessonError` when ``value`` is not one ``param`` of ``target`` accepts
    (``what``: "Step 2's link", for the message)."""
    try:
        param.parse(value)
    except ValueError as err:
        raise LessonError(
            f"{what} sets {untrusted.markdown(f'{param.name}={value}')} on {target.title}: {err}."
        ) from None


def _check_settings(query: str, target: Target, where: str) -> None:
    """Every setting of a step's link is a parameter name, and the value of each of the
    page's parameters parses (others, such as a section's own settings, are checked by the
    page when the step opens, with a notice); the page's own values are bounded by their
    parameters, the rest of the link by :data:`MAX_LINK`."""
    pairs = _pairs(query, f"{where}'s link")
    by_name = {p.name: p for p in target.params}
    own = sum(len(part) for part in query.split("&") if unquote_plus(part.split("=")[0]) in by_name)
    if len(target.key) + 1 + len(query) - own > MAX_LINK:
        raise LessonError(
            f"{where}'s link has {len(target.key) + 1 + len(query) - own:,} characters besides "
            f"the settings of {target.title}; at most {MAX_LINK:,} are accepted."
        )
    for name, value in pairs:
        if not _KEY.fullmatch(name):
            raise LessonError(
                f"{where}'s link sets {untrusted.markdown(name, 40)}; setting names are lower-"
                "case letters, digits and _."
            )
        if name in by_name:
            _check_value(by_name[name], value, f"{where}'s link", target)
