"""The lesson in this session, and stepping through it in presentation mode.

The runner (:func:`dpui.kit.page.run`) calls four hooks: :func:`arrive` first (a step just
opened: its settings replace the page's), :func:`bar` under the page's toolbar (while
presenting a lesson: the step's title and note, its clock against the time budgets
(:mod:`dpui.kit.lesson_clock`), Previous / Next, also on the arrow keys; once
presentation mode is turned off mid-lesson, an offer to resume it), :func:`add_button` beside
"Pin this view", and :func:`hidden` before the main view (a "predict, then reveal" step shows
nothing of it until Reveal, in the step bar, or →). The lesson itself
(:class:`dpui.kit.lesson.Lesson`) is edited on the Lesson page
(``dpui.reference.lesson_page``).

→ (Next) on a step not yet revealed reveals it; the next → opens the next step. Which steps
were revealed is kept for the session's presentation, so ← (Previous) comes back to a step as
it was left; presenting the lesson again from the Lesson page (:func:`start`) hides them again.

A step opens with ``st.switch_page`` to its page with its link's settings. A page keeps the
values its widgets had (:mod:`dpui.kit.state`), so :func:`arrive` writes the step's values
into the session before the page draws its widgets: the page's parameters the link leaves
out take their defaults, the shared dataset and ε stay as they are.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpui.kit import anchors, lesson, lesson_clock, pin, present, sidebar, state, untrusted
from dpui.kit import params as codec

_LESSON, _PREVIOUS, _AT, _GOING, _ARRIVING, _REVEALED = (
    "_lesson",
    "_lesson.previous",
    "_lesson.at",
    "_lesson.going",
    "_lesson.arriving",
    "_lesson.revealed",
)
_TOAST, _SCROLL, _INTERACTIVE = "_lesson.toast", "_lesson.scroll", "_lesson.interactive"
_VIEWS = "_lesson.views"
FIRST_FIGURE = '[data-testid="stPlotlyChart"]'
"""Where a step without a section opens: its page's first figure, under the step bar (the
page's title and toolbar scroll under it), so that the figure and the step's answer share
one 1280x720 screen."""
DROPPED = (present.PRESENT.name, present.EXPORT.name, lesson.URL_KEY, pin.URL_KEY)
"""Link parameters a step does not keep in its link: how the app is shown, not what it shows
(a pinned view becomes the step's baseline)."""

STEP_CSS = (
    # the bar stays on screen while the page scrolls to a step's section under it (sticky is
    # confined to its parent: Streamlit wraps the bar's block in a wrapper of its own height);
    # not on a phone, where the bar, its note and its answer would hold most of the screen
    "<style>@media (min-width:641px){[data-testid=stLayoutWrapper]:has(> .st-key-dp-lesson-bar)"
    "{position:sticky;top:0;z-index:50;background:#fff;padding-bottom:.3rem}}"
    ".dp-lesson-title{font-size:1.25rem;font-weight:600;margin:0}"
    ".dp-lesson-note{white-space:pre-wrap;margin:0;font-size:1.15rem}"
    ".dp-lesson-answer{white-space:pre-wrap;margin:0;font-size:1.15rem;padding-left:.6rem;"
    "border-left:4px solid #1c64f2}</style>"
)
"""The step bar's styles (sent with its first text element): a presenter's or a follower's."""


def current() -> lesson.Lesson:
    """This session's lesson (an empty one at first)."""
    found = st.session_state.get(_LESSON)
    return found if isinstance(found, lesson.Lesson) else lesson.EMPTY


def put(new: lesson.Lesson, *, keep_previous: bool = False) -> None:
    """Make ``new`` the session's lesson; ``keep_previous`` keeps the one it replaces (a
    loaded lesson can be undone), when that one had steps."""
    old = current()
    if keep_previous and old.steps and old != new:
        st.session_state[_PREVIOUS] = old
    st.session_state[_LESSON] = new
    if old != new:  # step numbers may have moved: every predict step is hidden again
        st.session_state.pop(_REVEALED, None)
    at = position()
    if at is not None and at >= len(new.steps):
        st.session_state[_AT] = None


def previous() -> lesson.Lesson | None:
    """The lesson a load replaced, if any."""
    found = st.session_state.get(_PREVIOUS)
    return found if isinstance(found, lesson.Lesson) else None


def restore_previous() -> None:
    """Swap the lesson with the one a load replaced."""
    old = previous()
    if old is not None:
        st.session_state[_PREVIOUS] = current()
        put(old)


def position() -> int | None:
    """The index of the step being presented, or None when no lesson is being presented."""
    at = st.session_state.get(_AT)
    return at if isinstance(at, int) and 0 <= at < len(current().steps) else None


def inert(text: str, css_class: str) -> str:
    """``text`` (a user's title or note) as HTML that can only be text: escaped, so no tag,
    link or markdown forms, line breaks kept by CSS."""
    return f'<p class="{css_class}">{html.escape(text, quote=True)}</p>'


def target(
    page: str, title: str, params: Sequence[codec.Param], pinned: Sequence[codec.Param] = ()
) -> lesson.Target:
    """Page ``page`` (titled ``title``, with ``params``, of which a pinned view keeps
    ``pinned``) as a lesson step may open it: a link sets the page's own parameters and the
    shared ones, a baseline the pinned ones."""
    return lesson.Target(page, title, (*params, *sidebar.SHARED), tuple(pinned))


def _this_view(target: lesson.Target) -> lesson.Step:
    """The view now shown (page ``target`` with the settings in the link) as a lesson step."""
    query = st.query_params.to_dict()
    if query.get(sidebar.DATASET.name) == sidebar.UPLOAD_MARK:  # uploads are not in links
        del query[sidebar.DATASET.name]
    return lesson.step_from_view(
        target.key, target.title, query, DROPPED, pin=query.get(pin.URL_KEY, "")
    )


def last_view(page: str) -> lesson.Step | None:
    """This session's last view of page ``page`` (its settings as a step), if it opened it."""
    found = st.session_state.get(_VIEWS)
    step = found.get(page) if isinstance(found, dict) else None
    return step if isinstance(step, lesson.Step) else None


def update_from_view(index: int, target: lesson.Target) -> None:
    """Give step ``index`` the settings of this session's last view of its page (``target``),
    keeping its title, note, answer, section and time budget (the Lesson page's "Update from
    your current view", a button's callback); a step the lesson could not load back is not
    changed, and says why."""
    view = last_view(target.key)
    if view is None:
        return
    try:
        put(lesson.updated(current(), index, view, target))
    except lesson.LessonError as err:
        st.session_state[_TOAST] = f"Step {index + 1} was not updated: {err}"
        return
    st.session_state[_TOAST] = f"Step {index + 1} now opens your current view of {target.title}."


def toast() -> None:
    """Say what the last add or update did (here, not in the callback: a callback's output
    is lost when the run reruns early)."""
    if said := st.session_state.pop(_TOAST, None):
        st.toast(said, icon=":material/playlist_add_check:")


def _add(target: lesson.Target) -> None:
    now = current()
    step = _this_view(target)
    if now.steps and _same_view(now.steps[-1], step):
        # a second click on an unchanged view: Streamlit folds clicks that arrive during a
        # run into one, so counting them would add a random number of copies
        st.session_state[_TOAST] = (
            f"This view is already step {len(now.steps)}, the lesson's last: change a setting "
            "to add another view."
        )
        return
    try:
        put(lesson.appended(now, step, target))
    except lesson.LessonError as err:
        st.session_state[_TOAST] = f"Not added: {err}"
        return
    st.session_state[_TOAST] = (
        f"Added step {len(now.steps) + 1} to the lesson (edit it on the Lesson page)."
    )


def _same_view(last: lesson.Step, step: lesson.Step) -> bool:
    """Whether ``step`` opens the view ``last`` opens: the same page, settings and baseline."""
    return (last.page, last.settings(), last.baseline) == (
        step.page,
        step.settings(),
        step.baseline,
    )


def add_button(
    where: DeltaGenerator,
    page: str,
    title: str,
    params: Sequence[codec.Param],
    pinned: Sequence[codec.Param] = (),
) -> None:
    """The "Add to lesson" button (not while presenting): the view as now set (page ``page``
    with ``params``, a pinned view of ``pinned`` as its baseline) becomes the lesson's next
    step, titled ``title``, checked as a loaded lesson is (:func:`dpui.kit.lesson.appended`).
    Presenting or not, the view is remembered as this session's last view of the page
    (:func:`last_view`), which the Lesson page can put into a step of this page."""
    if page == lesson.PAGE_KEY:
        return
    shown = target(page, title, params, pinned)
    views = st.session_state.get(_VIEWS)
    st.session_state[_VIEWS] = (views if isinstance(views, dict) else {}) | {
        page: _this_view(shown)
    }
    if present.presenting():
        return
    toast()
    where.button(
        "Add to lesson",
        icon=":material/playlist_add:",
        key="_lesson_add",
        on_click=_add,
        args=(shown,),
        help="Add this view, with its settings, as the next step of your lesson (edit, "
        "reorder, save and present it on the Lesson page).",
    )


def go(index: int) -> None:
    """Open step ``index`` of the lesson in presentation mode (on the next run, from a button's
    callback: a callback cannot switch pages, and a run that reruns before reading a button
    would lose its click)."""
    st.session_state[_GOING] = index


def start(index: int) -> None:
    """Present the lesson from step ``index`` afresh: every predict step hidden again (a
    button's callback, like :func:`go`); the lesson's clock starts."""
    st.session_state.pop(_REVEALED, None)
    lesson_clock.start_lesson()
    go(index)


def revealed(index: int) -> bool:
    """Whether step ``index`` shows its figure: not a predict step, or revealed in this
    presentation."""
    found = st.session_state.get(_REVEALED)
    return not current().steps[index].predict or (isinstance(found, frozenset) and index in found)


def reveal(index: int) -> None:
    """Show step ``index``'s figure (Reveal, →, or the lecturer's reveal for a follower)."""
    found = st.session_state.get(_REVEALED)
    st.session_state[_REVEALED] = (found if isinstance(found, frozenset) else frozenset()) | {index}


def _forward(index: int) -> None:
    """Next (→): reveal step ``index`` when it is a predict step not yet revealed, else open
    the next step."""
    if not revealed(index):
        reveal(index)
    elif index + 1 < len(current().steps):
        go(index + 1)


def set_interactive(on: bool) -> None:
    """Open the lesson's steps in normal (interactive) mode, for a class following a lecturer
    (:mod:`dpui.kit.lesson_follow`), or in presentation mode (``on`` False, the default)."""
    st.session_state[_INTERACTIVE] = on


def interactive() -> bool:
    """Whether the lesson's steps open in normal mode (a class following a lecturer)."""
    return st.session_state.get(_INTERACTIVE) is True


def _stepping() -> bool:
    """Whether this run shows a lesson's step as such: presenting it, or following it."""
    return present.presenting() or interactive()


def asked() -> bool:
    """Whether a step was asked for (:func:`go`) and waits for the full run that opens it."""
    return _GOING in st.session_state


def switch(here: str = "") -> None:
    """Open the step :func:`go` asked for, if any. The router calls it before it draws
    anything (a step opened by a click then costs no navigation drawn for nothing), and
    :func:`arrive` for a page run on its own; ``here`` is the page this run draws. A step on
    that page opens in this run, with its settings put in the link (:func:`arrive` reads
    them): no second run; a step on another page ends this run and opens that page."""
    index = st.session_state.pop(_GOING, None)
    if not isinstance(index, int) or not 0 <= index < len(current().steps):
        return
    step = current().steps[index]
    st.session_state[_AT] = index
    st.session_state[_ARRIVING] = True
    st.session_state[_SCROLL] = True
    lesson_clock.start_step()
    query = step.settings()
    if not interactive():
        query[present.PRESENT.name] = present.PRESENT.encode(True)
    if step.baseline:  # the page's pin reads it from the link on its first run (arrive)
        query[pin.URL_KEY] = step.pin()
    if step.page == here:
        st.query_params.from_dict(query)
        return
    st.switch_page(f"pages/{step.page}.py", query_params=query)


def arrive(page: str, params: Sequence[codec.Param]) -> None:
    """First in every run: open the step :func:`go` asked for, if any; once it is open, set
    the session to the step's settings before page ``page`` (with ``params``) draws its
    widgets. Invalid values take their defaults with a notice."""
    switch(page)
    if not st.session_state.get(_ARRIVING):
        return
    st.session_state[_ARRIVING] = False
    at = position()
    if at is None or current().steps[at].page != page:
        return
    settings = current().steps[at].settings()
    # the shared dataset and ε change only when the step sets them
    shared = [p for p in sidebar.SHARED if p.name in settings]
    values, notices = codec.decode((*params, *shared), settings)
    state.put(values | {present.PRESENT.name: not interactive()})
    # the settings of a part of the page (not the page's own parameters) are read from the link
    state.forget(settings.keys() - values.keys())
    pin.forget(page)
    for notice in notices:
        st.warning(f"Lesson step {at + 1}: {notice}", icon=":material/link_off:")


def end() -> None:
    """Stop presenting the lesson (it stays in the session)."""
    st.session_state[_AT] = None


def _primary(
    where: DeltaGenerator,
    label: str,
    icon: str,
    on_click: Callable[[int], None],
    at: int,
    help_text: str,
) -> None:
    """The primary button ``label`` in ``where``, calling ``on_click(at)`` (keyed by the
    label's first word)."""
    where.button(
        label,
        icon=icon,
        type="primary",
        key=f"_lesson_{label.split()[0].lower()}",
        on_click=on_click,
        args=(at,),
        help=help_text,
    )


def _resume(at: int) -> None:
    """The offer to go back to step ``at`` of the lesson, presenting (presentation mode was
    turned off mid-lesson)."""
    box = st.container(key="dp-lesson-resume", border=True, horizontal=True, gap="small")
    _primary(
        box,
        "Resume the lesson",
        ":material/slideshow:",
        go,
        at,
        "Back to this step in presentation mode, with the step's own settings.",
    )
    box.button(
        "End lesson", icon=":material/stop:", type="tertiary", on_click=end, key="_lesson_end"
    )
    box.html(
        STEP_CSS
        + inert(
            f"The lesson is paused at step {at + 1} of {len(current().steps)}: "
            f"{current().steps[at].title}",
            "dp-lesson-note",
        ),
        width="content",
    )


def bar(page: str) -> None:
    """While presenting a lesson: the step's place, title and note, and Previous / Next (also
    on the left and right arrow keys; Next reveals a predict step first) and End. Out of
    presentation mode mid-lesson: the offer to resume it."""
    at = position()
    if at is None:
        return
    if not present.presenting():
        _resume(at)
        return
    steps = current().steps
    step = steps[at]
    # one row and the note under it: the figure below still has to fit a 720p projector
    box = st.container(key="dp-lesson-bar", gap="small")
    row = box.container(horizontal=True, vertical_alignment="center", gap="small")
    row.button(
        "Previous",
        icon=":material/arrow_back:",
        shortcut="Left",
        disabled=at == 0,
        key="_lesson_previous",
        on_click=go,
        args=(max(at - 1, 0),),
    )
    # the clock under the step's number, in small type: beside it, it wrapped the row (End
    # lesson on a second line pushed the figure below a 720p screen)
    counter = row.container(width="content", gap=None)
    counter.markdown(f"**Step {at + 1} of {len(steps)}**", width="content")
    lesson_clock.show(counter, steps, at)
    row.button(
        "Next",
        icon=":material/arrow_forward:",
        shortcut="Right",
        disabled=at == len(steps) - 1 and revealed(at),
        key="_lesson_next",
        on_click=_forward,
        args=(at,),
        help="Reveals a predict step's figure first, then opens the next step.",
    )
    row.html(STEP_CSS + inert(step.title, "dp-lesson-title"), width="content")
    row.button(
        "End lesson", icon=":material/stop:", type="tertiary", on_click=end, key="_lesson_end"
    )
    if step.page != page:
        box.caption("This page is not the step's: Next and Previous open the lesson's pages.")
    if step.note:
        box.html(inert(step.note, "dp-lesson-note"))
    if not revealed(at) and step.page == page:
        # here, not in the page's fragment: Reveal reruns the whole page, answer included
        predict = box.container(key="dp-lesson-predict", border=True, horizontal=True, gap="medium")
        _primary(predict, "Reveal", ":material/visibility:", reveal, at, "Show the figure (or →).")
        predict.markdown(
            ":material/psychology: **Predict first.** What will the figure show? The figure "
            "and its numbers stay hidden until you reveal them (Reveal, or →)."
        )
    elif step.answer and revealed(at):
        box.html(inert(step.answer, "dp-lesson-answer"))


def hidden(page: str) -> bool:
    """Whether page ``page`` is a "predict, then reveal" step not yet revealed (its Reveal
    button is in the step bar; the runner draws nothing of the view)."""
    at = position()
    return at is not None and _stepping() and current().steps[at].page == page and not revealed(at)


def open_section(page: str) -> None:
    """After page ``page`` drew its view: scroll to the section the step just opened names, or
    to its first figure, once it shows; a page that no longer draws the section stays at its
    top, and says so."""
    at = position()
    if at is None or not st.session_state.get(_SCROLL) or not _stepping():
        return
    step = current().steps[at]
    if step.page != page or not revealed(at):
        return
    st.session_state[_SCROLL] = False
    if not step.section:  # the page's first figure under the bar, with the step's answer
        anchors.scroll_to_first(FIRST_FIGURE, below=".st-key-dp-lesson-bar")
        return
    if step.section in anchors.headings_drawn():
        anchors.scroll_to(step.section, below=".st-key-dp-lesson-bar")
        return
    st.toast(
        f"Lesson step {at + 1} opens the section {untrusted.markdown(step.section, 60)}, which "
        "this page does not show (any more): it opens at its top.",
        icon=":material/link_off:",
        duration="long",
    )
