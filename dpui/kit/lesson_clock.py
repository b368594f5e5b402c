"""A presented lesson's clock: the time spent on the step and on the lesson against their
budgets (each step's ``minutes``; the lesson's budget is their sum).

Quiet on purpose: whole minutes, as small text under the step's number in the step bar ("3 of
5 min, lesson 12 of 50 min": the step's, then the lesson's), and a step or lesson over its
budget says "over" in words besides its colour.
The server writes the text at each run (Next, Reveal); between runs a small script of ours
counts on from the elapsed seconds the server wrote, checking every 15 s and changing the
text only when a minute has passed (no screen-reader announcement, no animation, no rerun).

The clock starts when the lesson is presented (:func:`start_lesson`) and each step's when it
opens (:func:`start_step`, also when ← comes back to it).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpui.kit import lesson

_LESSON_T0, _STEP_T0 = "_lesson.clock", "_lesson.step_clock"

CLOCK_CSS = (
    # presenting enlarges every paragraph of the page (!important): this one stays small
    "<style>[data-testid=stMainBlockContainer] p.dp-lesson-clock{margin:0;line-height:1.2;"
    "font-size:.8rem !important;color:#31333f;white-space:nowrap}"
    ".dp-lesson-clock .dp-over{color:#a4161a;font-weight:600}</style>"
)

# our own fixed script (no user text reaches it): count the minutes on from the seconds the
# server wrote, every 15 s, touching the text only when it changes; one timer per tab
_TICK = """<script>
(() => {
  const t0 = performance.now();
  clearInterval(window.__dpClock);
  const tick = () => document.querySelectorAll('.dp-lesson-clock [data-s]').forEach((e) => {
    const m = Math.floor((Number(e.dataset.s) + (performance.now() - t0) / 1000) / 60);
    const over = m > Number(e.dataset.budget);
    const text = m + ' of ' + e.dataset.budget + ' min' + (over ? ' (over)' : '');
    if (e.textContent !== text) e.textContent = text;
    e.classList.toggle('dp-over', over);
  });
  window.__dpClock = setInterval(tick, 15000);
})();
</script>"""


def start_lesson() -> None:
    """The lesson is presented from now (its clock starts at 0)."""
    st.session_state[_LESSON_T0] = time.monotonic()


def start_step() -> None:
    """A step opens now (its clock starts at 0)."""
    st.session_state[_STEP_T0] = time.monotonic()


def _elapsed(key: str) -> float:
    """Seconds since the stamp ``key`` (0 when there is none)."""
    t0 = st.session_state.get(key)
    return max(time.monotonic() - t0, 0.0) if isinstance(t0, float) else 0.0


def budget(steps: Sequence[lesson.Step]) -> float:
    """The lesson's time budget: the sum of its steps' minutes (0: none has one)."""
    return math.fsum(step.minutes for step in steps)


def _part(name: str, seconds: float, minutes: float) -> str:
    """``name`` and its elapsed whole minutes against ``minutes``, as HTML (the script counts
    on from ``seconds``)."""
    spent = math.floor(seconds / 60)
    over = spent > minutes
    return (
        f'{name}<span data-s="{seconds:.1f}" data-budget="{minutes:g}"'
        + (' class="dp-over"' if over else "")
        + f">{spent} of {minutes:g} min{' (over)' if over else ''}</span>"
    )


def text(step_s: float, step_min: float, lesson_s: float, lesson_min: float) -> str:
    """The clock as HTML: the step's elapsed whole minutes against its budget, then the
    lesson's; a part without a budget (0 minutes) is left out, and "" when both are.

    Parameters
    ----------
    step_s, lesson_s : float
        Seconds spent on the step and on the lesson.
    step_min, lesson_min : float
        Their budgets in minutes (0: none).

    Returns
    -------
    str
        ``<p class="dp-lesson-clock">3 of 5 min, lesson 12 of 50 min</p>`` (the step's, then
        the lesson's), with " (over)" after a part over its budget.
    """
    parts = [
        _part(name, seconds, minutes)
        for name, seconds, minutes in (("", step_s, step_min), ("lesson ", lesson_s, lesson_min))
        if minutes > 0
    ]
    if not parts:
        return ""
    return f'<p class="dp-lesson-clock">{", ".join(parts)}</p>'


def show(where: DeltaGenerator, steps: Sequence[lesson.Step], at: int) -> None:
    """The clock of step ``at`` of ``steps`` in ``where`` (nothing when the lesson has no time
    budget)."""
    shown = text(_elapsed(_STEP_T0), steps[at].minutes, _elapsed(_LESSON_T0), budget(steps))
    if shown:
        where.html(CLOCK_CSS + shown + _TICK, width="content", unsafe_allow_javascript=True)
