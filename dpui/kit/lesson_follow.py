"""A class following the lecturer: each student's page opens the step the lecturer presents.

The lecturer lets the class follow from the Lesson page (:func:`lead`): the lesson is stored
(:mod:`dpui.kit.lesson_store`) and a room opened (:mod:`dpui.kit.follow_store`), whose
follow link ``/lesson?f=<code>`` the class scans. While the lecturer presents, every full
run of the lecturer's page writes the step shown and whether it is revealed to the room
(only when that changed). A student who opens the link (:func:`join`) gets the lesson and
follows: the step bar says so, and a fragment reads the room every :data:`POLL_S` seconds;
when the lecturer moves on or reveals, the student's page opens that step, in normal
(interactive) mode, or shows its figure. A student can stop following to explore, and
follow again (back to the lecturer's step).

The runner calls :func:`bar` where the step bar goes; it draws a follower's bar, or the
presenter's (:func:`dpui.kit.lesson_steps.bar`).
"""

from __future__ import annotations

import html
import time
from collections.abc import Mapping

import streamlit as st

from dpui.kit import follow_http, follow_store, lesson, lesson_steps, lesson_store, present

POLL_S = 1.0
"""How often a follower's page reads the room (seconds): the lecturer's step reaches the
class within about this much plus the page's own run."""
_FOLLOW, _PAUSED, _JOINED = "_follow.code", "_follow.paused", "_follow.lesson"
_LEAD, _PUBLISHED, _STORED = "_follow.lead", "_follow.published", "_follow.stored"
_NOTICE, _KNOWN = "_follow.notice", "_follow.known"


def code() -> str | None:
    """The room this session follows (also while paused), or None."""
    found = st.session_state.get(_FOLLOW)
    return found if isinstance(found, str) else None


def paused() -> bool:
    """Whether this session stopped following to explore (it may follow again)."""
    return code() is not None and st.session_state.get(_PAUSED) is True


def leading() -> follow_store.Lead | None:
    """The room this session (the lecturer's) opened, if any."""
    found = st.session_state.get(_LEAD)
    return found if isinstance(found, follow_store.Lead) else None


def _stored_id(now: lesson.Lesson) -> str:
    """The id under which ``now`` is stored, storing it when it changed (kept per session:
    the JSON and its hash are made once per version of the lesson)."""
    found = st.session_state.get(_STORED)
    if isinstance(found, tuple) and found[0] == now:
        return str(found[1])
    key = lesson_store.put(lesson.to_json(now))
    st.session_state[_STORED] = (now, key)
    return key


def lead() -> None:
    """Let the class follow the session's lesson: store it and open a room at its first step.

    Raises
    ------
    dpui.kit.lesson.LessonError
        When the lesson cannot be stored or the room opened.
    """
    key = _stored_id(lesson_steps.current())
    st.session_state[_LEAD] = follow_store.open_room(key)
    st.session_state.pop(_PUBLISHED, None)


def notice() -> str | None:
    """Why this session stopped following, once."""
    found = st.session_state.pop(_NOTICE, None)
    return found if isinstance(found, str) else None


def _publish() -> None:
    """The lecturer presenting: write the step shown to the room when it changed."""
    lead_ = leading()
    at = lesson_steps.position()
    if lead_ is None or at is None or not present.presenting():
        return
    try:
        now = (_stored_id(lesson_steps.current()), at, lesson_steps.revealed(at))
        if st.session_state.get(_PUBLISHED) == now:
            return
        if follow_store.move(lead_, *now):
            st.session_state[_PUBLISHED] = now
        else:
            st.session_state.pop(_LEAD, None)
            st.toast("The class's follow room has closed; open a new one on the Lesson page.")
    except lesson.LessonError as err:
        st.toast(f"The class did not get this step: {err}", icon=":material/sync_problem:")


def join(room_code: str, known: Mapping[str, lesson.Target]) -> None:
    """Follow room ``room_code``: load its lesson and open the lecturer's step (on the next
    run; :func:`dpui.kit.lesson_steps.go`).

    Raises
    ------
    dpui.kit.lesson.LessonError
        When the code is not a room's, the room is gone, or its lesson cannot be loaded.
    """
    room = follow_store.room(room_code)
    lesson_steps.put(lesson.from_json(lesson_store.get(room.lesson), known), keep_previous=True)
    st.session_state[_FOLLOW], st.session_state[_JOINED] = room_code, room.lesson
    st.session_state[_KNOWN] = dict(known)  # to load the lesson again if the lecturer edits it
    st.session_state[_PAUSED] = False
    lesson_steps.set_interactive(True)
    _open(room)


def _open(room: follow_store.Room) -> None:
    if room.revealed:
        lesson_steps.reveal(room.step)
    lesson_steps.go(room.step)


def _again() -> None:
    """Follow again after exploring: back to the lecturer's step."""
    found = code()
    if found is None:
        return
    try:
        room = follow_store.room(found)
    except lesson.LessonError as err:
        _leave(f"{err}")
        return
    st.session_state[_PAUSED] = False
    _open(room)


def _pause() -> None:
    st.session_state[_PAUSED] = True


def _leave(why: str = "") -> None:
    """Stop following for good (the lesson stays in the session, presented no more)."""
    for key in (_FOLLOW, _PAUSED, _JOINED, _KNOWN):
        st.session_state.pop(key, None)
    lesson_steps.set_interactive(False)
    lesson_steps.end()
    if why:
        st.session_state[_NOTICE] = f"You no longer follow the lecturer: {why}"


_CLICK = """<script>
/* %s */ document.querySelector('.st-key-_follow_sync button')?.click();
</script>"""
"""Our own fixed script (a nonce in the comment makes each one new): click the bar's "Catch
up" button, so that the browser asks for the full run that opens the lecturer's step."""


def _shown(page: str) -> follow_http.Shown | None:
    """What page ``page`` shows of the lesson this session follows (None: no step)."""
    at = lesson_steps.position()
    if at is None:
        return None
    return follow_http.Shown(
        lesson=str(st.session_state.get(_JOINED)),
        step=at,
        revealed=lesson_steps.revealed(at),
        here=lesson_steps.current().steps[at].page == page,
    )


_WATCH = """<span hidden data-dp-follow="%s" data-dp-shown="%s"></span><script>
/* dpui.kit.follow_http: ask the server whether the lecturer moved; if so, click Catch up */
(() => {
  if (window.dpFollowWatch) return;  // one watch per document, whichever page shows it
  window.dpFollowWatch = true;
  const pause = (ms) => new Promise((done) => setTimeout(done, ms));
  const asked = () => {
    const mark = document.querySelector('[data-dp-follow]');
    return mark ? mark.dataset.dpFollow + '?' + mark.dataset.dpShown : null;
  };
  (async () => {
    for (;;) {
      const now = asked();
      if (now === null) { await pause(1000); continue; }  // not following now
      const stop = new AbortController();
      const moved = setInterval(() => { if (asked() !== now) stop.abort(); }, 250);
      let late = false;
      try {
        const answer = await fetch('/_dp/follow/' + now, {cache: 'no-store', signal: stop.signal});
        if (!answer.ok) { await pause(5000); continue; }
        late = (await answer.json()).behind === true;
      } catch (error) {
        if (asked() === now) await pause(2000);  // the network, not the page, stopped it
        continue;
      } finally {
        clearInterval(moved);
      }
      if (!late || asked() !== now) continue;
      document.querySelector('.st-key-_follow_sync button')?.click();
      for (let i = 0; i < 50 && asked() === now; i++) await pause(100);  // the catch-up's run
    }
  })();
})();
</script>"""
"""The page's watch (:mod:`dpui.kit.follow_http`): a hidden mark saying what the page shows,
and our own fixed script holding one request open with it; when the answer is "behind" it
clicks "Catch up", as :data:`_CLICK` does."""


def _behind(room: follow_store.Room, page: str) -> bool:
    """Whether page ``page`` must catch up with ``room`` (:func:`follow_http.behind`)."""
    shown = _shown(page)
    return shown is None or follow_http.behind(room, shown)


@st.fragment(run_every=POLL_S)
def _poll(room_code: str, page: str) -> None:
    """Read the room; when the lecturer's step or reveal differs from this page's, click
    "Catch up". Not a rerun from here: a run this timer's fragment starts for the whole page
    lost the page's own part in the browser (its elements were dropped with the fragment's)."""
    try:
        room = follow_store.room(room_code)
    except lesson.LessonError:
        room = None  # the catch-up says why
    if room is None or _behind(room, page):
        st.html(_CLICK % time.monotonic_ns(), unsafe_allow_javascript=True)


def poll(page: str) -> None:
    """A follower's watch on the room, drawn first on every page (``page``), so that it has
    one place on all of them: a fragment's timer that fired as the page changed ran on the new
    page with the old page's position and blanked it in the browser ("Bad delta path index",
    measured by ``bench/bench_follow.py`` at steps that open another page). Served by
    ``app_server.py``, the page asks the server over HTTP (:mod:`dpui.kit.follow_http`);
    otherwise a fragment reads the room every :data:`POLL_S` seconds (:func:`_poll`)."""
    room_code = code()
    if room_code is None or paused():
        return
    with st.container(key="dp-follow-poll"):
        if not follow_http.served():
            _poll(room_code, page)
            return
        shown = _shown(page)
        if shown is None:
            st.html(_CLICK % time.monotonic_ns(), unsafe_allow_javascript=True)
            return
        st.html(
            _WATCH % (html.escape(room_code), html.escape(shown.query())),
            unsafe_allow_javascript=True,
        )


def _catch_up(page: str) -> None:
    """On page ``page``, open the lecturer's step as the room has it (its lesson again, if
    the lecturer edited it); stop following, saying why, when the room is gone."""
    found = code()
    if found is None:
        return
    try:
        room = follow_store.room(found)
        if room.lesson != st.session_state.get(_JOINED):  # the lecturer edited the lesson
            known = st.session_state.get(_KNOWN)
            assert isinstance(known, dict)  # set by join, with the room's code
            lesson_steps.put(lesson.from_json(lesson_store.get(room.lesson), known))
            st.session_state[_JOINED] = room.lesson
    except lesson.LessonError as err:
        _leave(f"{err}")
        return
    if _behind(room, page):
        _open(room)


def bar(page: str) -> None:
    """The step bar of page ``page``: a follower's (the lecturer's step, Stop following or
    Follow again) or, for everyone else, the presenter's; the lecturer's step is written to
    the class's room."""
    if (said := notice()) is not None:
        st.warning(said, icon=":material/sync_problem:")
    room_code = code()
    if room_code is None:
        lesson_steps.bar(page)
        _publish()
        return
    at = lesson_steps.position()
    box = st.container(key="dp-lesson-bar", gap="small")
    row = box.container(horizontal=True, vertical_alignment="center", gap="small")
    if paused():
        row.button(
            "Follow the lecturer again",
            icon=":material/sync:",
            type="primary",
            key="_follow_again",
            on_click=_again,
            help="Back to the step the lecturer shows now.",
        )
        row.html(
            lesson_steps.STEP_CSS
            + lesson_steps.inert("You are exploring on your own.", "dp-lesson-note"),
            width="content",
        )
        row.button("Leave the class", type="tertiary", key="_follow_leave", on_click=_leave)
        return
    if at is None:
        return
    step = lesson_steps.current().steps[at]
    row.markdown(
        f"**Following the lecturer · step {at + 1} of {len(lesson_steps.current().steps)}**",
        width="content",
    )
    row.html(lesson_steps.STEP_CSS + lesson_steps.inert(step.title, "dp-lesson-title"))
    row.button(
        "Catch up",
        icon=":material/sync:",
        type="tertiary",
        key="_follow_sync",
        on_click=_catch_up,
        args=(page,),
        help="Open the step the lecturer shows now (your page does this by itself about "
        "once a second).",
    )
    row.button(
        "Stop following",
        icon=":material/explore:",
        type="tertiary",
        key="_follow_stop",
        on_click=_pause,
        help="Explore on your own; Follow again brings back the lecturer's step.",
    )
    if step.page != page:
        box.caption(
            "This page is not the step's: following brings you back to it within a second "
            "(Stop following to explore other pages)."
        )
    if step.note:
        box.html(lesson_steps.inert(step.note, "dp-lesson-note"))
    if not lesson_steps.revealed(at):
        box.markdown(
            ":material/psychology: **Predict first.** What will the figure show? It appears "
            "when the lecturer reveals it."
        )
    elif step.answer:
        box.html(lesson_steps.inert(step.answer, "dp-lesson-answer"))
