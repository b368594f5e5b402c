"""The Lesson page: the lecturer's lesson in one place, to edit, save, load and present.

Steps are added from any page ("Add to lesson" in its toolbar); here they are titled,
annotated, given a time budget, reordered, deleted, marked "predict, then reveal" and updated
from the lecturer's current view of their page (the settings set there since); the lesson is
saved as a JSON file or one link and loaded back from either (or from the bundled example), and
"Present" opens its first step in presentation mode (:mod:`dpui.kit.lesson_steps`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpui.kit import (
    follow_store,
    lesson,
    lesson_follow,
    lesson_steps,
    lesson_store,
    qr,
    session_memory,
    state,
    untrusted,
)
from dpui.kit.page import Page, View

EXAMPLE = Path(__file__).resolve().parents[2] / "assets" / "lessons" / "dp_histograms_50min.json"
_MESSAGE = "_lesson.message"
_TEXTS = {
    "note": "Note or question (shown under the title while presenting)",
    "answer": "Answer (shown with the figure; say which figure answers the question)",
}
"""A step's longer texts, as the editor labels them."""
_UPLOAD = "_lesson_upload"

PAGE = Page(
    key=lesson.PAGE_KEY,
    title="Lesson",
    icon=":material/school:",
    group="Reference",
    blurb="Your lesson: views collected with Add to lesson, to reorder, annotate, save and "
    "step through in presentation mode.",
    notice=(
        "Collect views with Add to lesson on any page, give each a title and a question, then "
        "present them in order with the arrow keys."
    ),
    charts=False,
    data="",
)


def targets(pages: Sequence[Page]) -> dict[str, lesson.Target]:
    """The pages a step may open (every page but this one), with the parameters a link sets."""
    return {
        p.key: lesson_steps.target(p.key, p.title, p.params, p.pinned)
        for p in pages
        if p.key != lesson.PAGE_KEY
    }


def _say(kind: str, text: str) -> None:
    st.session_state[_MESSAGE] = (kind, text)


def _loaded(new: lesson.Lesson, source: str) -> None:
    lesson_steps.put(new, keep_previous=True)
    kept = " (the lesson you had is kept: restore it below)" if lesson_steps.previous() else ""
    _say("success", f"Loaded {len(new.steps)} steps from {source}{kept}.")


def _load_example(known: Mapping[str, lesson.Target]) -> None:
    try:
        _loaded(lesson.from_json(EXAMPLE.read_bytes(), known), "the example lesson")
    except lesson.LessonError as err:  # a defect of the app itself; the tests load it
        _say("error", f"The example lesson did not load: {err}")


def _load_file(known: Mapping[str, lesson.Target]) -> None:
    file = session_memory.uploaded(_UPLOAD)
    if file is None:
        return
    session_memory.release_upload(_UPLOAD)  # loaded or not, the lesson keeps no bytes
    name = untrusted.file_name(file.name)
    if wrong := untrusted.wrong_file_type(file.name, ("json",)):
        _say("error", f"{wrong} Your lesson is unchanged.")
        return
    try:
        _loaded(lesson.from_json(file.getvalue(), known), name)
    except lesson.LessonError as err:
        _say("error", f"{name} was not loaded: {err} Your lesson is unchanged.")


def _load_link(known: Mapping[str, lesson.Target]) -> None:
    """A lesson link opened (the whole lesson, a stored lesson's short id, or a class's follow
    link): load its lesson once, then take it out of the address; a follow link then opens
    the lecturer's step."""
    whole, short = st.query_params.get(lesson.URL_KEY), st.query_params.get(lesson_store.URL_KEY)
    room = st.query_params.get(follow_store.URL_KEY)
    for name in (lesson.URL_KEY, lesson_store.URL_KEY, follow_store.URL_KEY):
        if name in st.query_params:
            del st.query_params[name]
    if room is not None:
        try:
            lesson_follow.join(room, known)
        except lesson.LessonError as err:
            _say("error", f"You are not following the lecturer: {err}")
            return
        st.rerun()  # the frame opens the lecturer's step
    try:
        if whole is not None:
            _loaded(lesson.from_link(whole, known), "the link")
        elif short is not None:
            _loaded(lesson.from_json(lesson_store.get(short), known), "the link")
    except lesson.LessonError as err:
        _say("error", f"The lesson in the link was not loaded: {err} Your lesson is unchanged.")


def _edit(index: int, field: str, key: str) -> None:
    value = st.session_state.get(key)
    if field == "title" and not str(value).strip():
        return  # a step keeps a title
    if field == "minutes":
        try:
            value = lesson.minutes(value, f"Step {index + 1}")
        except lesson.LessonError as err:
            _say("error", f"Step {index + 1} was not changed: {err}")
            return
    new = lesson.edited(lesson_steps.current(), index, **{field: value})
    try:
        lesson.check_size(new)  # a lesson the app keeps must load back
    except lesson.LessonError as err:
        _say("error", f"Step {index + 1} was not changed: {err}")
        return
    lesson_steps.put(new)


def _retitle() -> None:
    value = str(st.session_state.get("_lesson_title", "")).strip()
    if value:
        lesson_steps.put(replace(lesson_steps.current(), title=value[: lesson.MAX_TITLE]))


def _move(index: int, by: int) -> None:
    lesson_steps.put(lesson.moved(lesson_steps.current(), index, by))


def _delete(index: int) -> None:
    lesson_steps.put(lesson.deleted(lesson_steps.current(), index))


def _steps(now: lesson.Lesson, known: Mapping[str, lesson.Target]) -> None:
    for i, step in enumerate(now.steps):
        box = st.container(border=True, key=f"dp-lesson-step-{i}")
        page = known[step.page].title if step.page in known else step.page
        box.markdown(f"**Step {i + 1}** · {page} · {untrusted.markdown(step.link, 90)}")
        if step.section or step.baseline:
            box.caption(_opens(step))
        if step.page in known:
            _update_offer(box, i, step, known[step.page])
        left, right = box.columns([3, 2])
        for field, value in (("title", step.title), ("note", step.note), ("answer", step.answer)):
            state.assign(f"_lesson_{field}_{i}", value)
        state.assign(f"_lesson_predict_{i}", step.predict)
        state.assign(f"_lesson_minutes_{i}", step.minutes)
        left.text_input(
            "Title",
            key=f"_lesson_title_{i}",
            max_chars=lesson.MAX_TITLE,
            on_change=_edit,
            args=(i, "title", f"_lesson_title_{i}"),
        )
        for field, label in _TEXTS.items():
            left.text_area(
                label,
                key=f"_lesson_{field}_{i}",
                max_chars=lesson.MAX_NOTE,
                height=80,
                on_change=_edit,
                args=(i, field, f"_lesson_{field}_{i}"),
            )
        right.checkbox(
            "Predict, then reveal",
            key=f"_lesson_predict_{i}",
            on_change=_edit,
            args=(i, "predict", f"_lesson_predict_{i}"),
            help="While presenting, the figure stays hidden until you click Reveal: ask the "
            "class to predict it first.",
        )
        right.number_input(
            "Time budget (minutes; 0: none)",
            key=f"_lesson_minutes_{i}",
            min_value=0.0,
            max_value=lesson.MAX_MINUTES,
            step=0.5,
            format="%g",
            on_change=_edit,
            args=(i, "minutes", f"_lesson_minutes_{i}"),
            help="Shown while presenting: the time spent on this step and on the lesson "
            "against their budgets (the lesson's is the sum of its steps').",
        )
        buttons = right.container(horizontal=True, gap="small")
        buttons.button(
            "Up", icon=":material/arrow_upward:", key=f"_lesson_up_{i}", disabled=i == 0,
            on_click=_move, args=(i, -1),
        )  # fmt: skip
        buttons.button(
            "Down", icon=":material/arrow_downward:", key=f"_lesson_down_{i}",
            disabled=i == len(now.steps) - 1, on_click=_move, args=(i, +1),
        )  # fmt: skip
        buttons.button(
            "Delete", icon=":material/delete:", key=f"_lesson_delete_{i}", on_click=_delete,
            args=(i,),
        )  # fmt: skip
        buttons.button(
            "Present from here", icon=":material/slideshow:", key=f"_lesson_from_{i}",
            on_click=lesson_steps.start, args=(i,),
        )  # fmt: skip


def _update_offer(
    box: DeltaGenerator, index: int, step: lesson.Step, target: lesson.Target
) -> None:
    """Offer "Update from your current view" under step ``index``, when this session's last
    view of its page (``target``) has other settings than the step."""
    view = lesson_steps.last_view(step.page)
    changes = [] if view is None else lesson.differences(step, view, target)
    if view is None or not (changes or view.baseline not in ("", step.baseline)):
        return
    row = box.container(horizontal=True, vertical_alignment="center", gap="small")
    row.button(
        "Update from your current view",
        icon=":material/sync:",
        key=f"_lesson_update_{index}",
        on_click=lesson_steps.update_from_view,
        args=(index, target),
        help="Replace this step's settings with those of the page as you last set it; its "
        "title, note, answer, section and time budget stay.",
    )
    said = [untrusted.markdown(change, 40) for change in changes[:6]]
    if len(changes) > 6:
        said.append(f"and {len(changes) - 6} more")
    if view.baseline:
        said.append(f"pinned {untrusted.markdown(view.baseline, 60)}")
    row.caption(f"Your current view of {target.title} sets {' '.join(said)}.")


def _opens(step: lesson.Step) -> str:
    """What a step opens besides its page's settings: its section and its pinned baseline."""
    parts = []
    if step.section:
        parts.append(f"scrolls to the section {untrusted.markdown(step.section, 60)}")
    if step.baseline:
        parts.append(f"pins the baseline {untrusted.markdown(step.baseline, 90)} beside it")
    return "Opens the page and " + " and ".join(parts) + "."


def _link_of(query: str) -> str:
    """This server's Lesson page with ``query``."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    return urlunsplit((parts.scheme, parts.netloc, f"/{lesson.PAGE_KEY}", query, ""))


def _save(now: lesson.Lesson) -> None:
    st.header("Save")
    st.download_button(
        "Download the lesson (JSON)",
        lesson.to_json(now),
        file_name="lesson.json",
        mime="application/json",
        icon=":material/download:",
        on_click="ignore",
    )
    try:
        short = _link_of(f"{lesson_store.URL_KEY}={lesson_store.put(lesson.to_json(now))}")
    except lesson.LessonError as err:
        st.warning(str(err), icon=":material/link_off:")
    else:
        row = st.container(horizontal=True, vertical_alignment="center")
        row.markdown(
            f"**Short link** (the lesson stored on this server; opens only here): `{short}`"
        )
        qr.popover(row, short, "this lesson", key="_lesson_qr")
    try:
        url = _link_of(f"{lesson.URL_KEY}={lesson.to_link(now)}")
    except lesson.LessonError as err:
        st.warning(str(err), icon=":material/link_off:")
        return
    st.markdown(
        f"**The lesson as one link** ({len(url):,} characters, any server): opening it loads "
        "the lesson on this page."
    )
    st.code(url, language=None, wrap_lines=True)


def _lead() -> None:
    try:
        lesson_follow.lead()
    except lesson.LessonError as err:
        _say("error", f"The class cannot follow this lesson: {err}")


def _follow() -> None:
    """The lecturer's follow link and its QR code, or the button that makes them."""
    st.header("Let the class follow")
    lead = lesson_follow.leading()
    if lead is None:
        st.button("Let the class follow this lesson", icon=":material/groups:", on_click=_lead)
        st.caption(
            "Makes a follow link for the class: while you present, each student's page opens "
            "the step you show, in normal mode (they can change its settings), and shows its "
            "figure when you reveal it."
        )
        return
    url = _link_of(f"{follow_store.URL_KEY}={lead.code}")
    row = st.container(horizontal=True, vertical_alignment="center")
    row.markdown(f"**Follow link** (class code {lead.code}): `{url}`")
    qr.popover(row, url, "the follow link", key="_follow_qr")
    st.caption(
        "While you present this lesson, every student who opened the follow link sees the step "
        f"you show (their page checks every {lesson_follow.POLL_S:g} s, then opens it), and its "
        "figure when you reveal it; they can stop following to explore and follow again. "
        "Followers may be on any replica of `dp-explorer serve` on this machine; the class closes "
        f"{follow_store.ROOM_HOURS:g} hours after your last step."
    )
    st.warning(
        "Following is new and measured for a handful of students only: with 5 followers on "
        "one replica of a 2-core machine, each step reached every follower, its bar in about "
        "1.5 s and a figure or a revealed answer in 4–5 s (95th percentile); for a whole "
        "class expect longer, each student's catch-up costing the server about 0.1–0.3 s of "
        "CPU per step.",
        icon=":material/science:",
    )


def _load(known: Mapping[str, lesson.Target]) -> None:
    st.header("Load")
    row = st.container(horizontal=True, vertical_alignment="center")
    row.button(
        "Load the example: DP histograms in 50 minutes",
        icon=":material/auto_stories:",
        on_click=_load_example,
        args=(known,),
    )
    if lesson_steps.previous() is not None:
        row.button(
            "Restore the lesson you had before",
            icon=":material/undo:",
            on_click=lesson_steps.restore_previous,
        )
    st.file_uploader(
        f"A lesson file (.json, at most {lesson.MAX_FILE // 1000} kB)",
        key=session_memory.uploader_key(_UPLOAD),
        on_change=_load_file,
        args=(known,),
        help="A file saved with Download the lesson. It replaces the lesson here (which you "
        "can restore); a file that is not a valid lesson changes nothing.",
    )


def editor(pages: Sequence[Page]) -> Page:
    """The Lesson page, whose steps may open any of ``pages`` (the registry)."""
    known = targets(pages)

    def body(view: View | None) -> None:
        _load_link(known)
        lesson_steps.toast()
        message = st.session_state.pop(_MESSAGE, None)
        if message is not None:
            kind, text = message
            (st.success if kind == "success" else st.error)(text)
        now = lesson_steps.current()
        state.assign("_lesson_title", now.title)
        st.text_input(
            "Lesson title", key="_lesson_title", max_chars=lesson.MAX_TITLE, on_change=_retitle
        )
        if not now.steps:
            st.info(
                "No steps yet. Open a page, set it up as you want to show it, and click **Add "
                "to lesson** in its toolbar; or load the example below.",
                icon=":material/playlist_add:",
            )
        else:
            st.button(
                "Present the lesson",
                icon=":material/slideshow:",
                type="primary",
                on_click=lesson_steps.start,
                args=(0,),
            )
            st.caption(
                "Opens step 1 in presentation mode; Next and Previous (or the → and ← keys) "
                "step through it."
            )
            _steps(now, known)
            _save(now)
            _follow()
        _load(known)

    return replace(PAGE, body=body)
