"""Sections a link or a lesson step can open a page at: headings with their own anchors, and
scrolling to one once it is drawn.

A page draws such a heading with :func:`heading`; the runner starts each run's list afresh
(:func:`forget_headings`), so that a lesson step can tell whether its page still draws the
section it names (:func:`headings_drawn`) before it scrolls there (:func:`scroll_to`).
"""

from __future__ import annotations

import json
from collections.abc import Collection

import streamlit as st

from dpui.kit import references

_HEADINGS = "_anchors.headings"

# our own fixed script (the id is checked by the caller against the page's own entries, a
# selector is our own constant, so no user text reaches it): scroll to the entry once it is
# drawn, then hold it there while the page's script runs and until it has stayed put for
# 2 s (at most 120 s) while the page around it may still grow (on a loaded machine it
# drifted out of view after a fixed 3 s hold; and a page still streaming results is too
# short to scroll its figure up to the bar), unless the user scrolls first; with a sticky
# bar (a CSS selector, or null), the entry lands under it
_SCROLL_TO = """
<script>
(() => {
  const below = %s;
  let tries = 0, held = 0, still = 0, user = false;
  const events = ['wheel', 'touchstart', 'keydown', 'mousedown'];
  const stop = () => { user = true; };
  const running = () =>
    document.querySelector('[data-testid=stApp]')?.dataset.testScriptState === 'running';
  events.forEach(e => addEventListener(e, stop, {capture: true, once: true}));
  const go = () => {
    const target = user ? null : %s;
    if (target) {
      const bar = below && document.querySelector(below);
      const offset = bar ? Math.max(bar.getBoundingClientRect().bottom, 0) : 0;
      if (bar) target.style.scrollMarginTop = offset + 'px';
      if (Math.abs(target.getBoundingClientRect().top - offset) > 2) {
        target.scrollIntoView({block: 'start'});
        still = 0;
      } else {
        still++;
      }
      // held while the script runs, then until the target has stayed put for 2 s
      if ((still < 20 || running()) && held++ < 1200) return setTimeout(go, 100);
    } else if (!user && tries++ < 100) return setTimeout(go, 100);
    events.forEach(e => removeEventListener(e, stop, {capture: true}));
  };
  go();
})();
</script>
"""


def scroll_to_entry(ids: Collection[str]) -> None:
    """Scroll to the entry the link names (``?entry=<id>``, :data:`references.ENTRY`) when it
    is one of ``ids``; links made before entries had this parameter open at the top."""
    wanted = st.query_params.get(references.ENTRY)
    if wanted is not None and wanted in ids:
        scroll_to(wanted)


def scroll_to(anchor: str, *, below: str | None = None) -> None:
    """Scroll to the element whose id is ``anchor`` (a heading's anchor, checked by the caller
    against the page's own), once it is drawn; under the sticky bar matched by the CSS
    selector ``below``, if any (our own constant, never user text)."""
    found = f"document.getElementById({json.dumps(anchor)})"
    st.html(_SCROLL_TO % (json.dumps(below), found), unsafe_allow_javascript=True)


def scroll_to_first(selector: str, *, below: str | None = None) -> None:
    """Scroll to the first element matching the CSS ``selector`` (our own constant, never
    user text) once it is drawn, as :func:`scroll_to` does."""
    found = f"document.querySelector({json.dumps(selector)})"
    st.html(_SCROLL_TO % (json.dumps(below), found), unsafe_allow_javascript=True)


def heading(text: str, anchor: str) -> None:
    """A section's heading with its own ``anchor``, which a lesson step may scroll to
    (:func:`headings_drawn` lists those of this run)."""
    st.header(text, anchor=anchor)
    drawn = st.session_state.get(_HEADINGS)
    st.session_state[_HEADINGS] = (drawn if isinstance(drawn, frozenset) else frozenset()) | {
        anchor
    }


def forget_headings() -> None:
    """Start a run's list of :func:`heading` anchors afresh (the runner, before the view)."""
    st.session_state.pop(_HEADINGS, None)


def headings_drawn() -> frozenset[str]:
    """The anchors of the headings :func:`heading` drew since :func:`forget_headings`."""
    drawn = st.session_state.get(_HEADINGS)
    return drawn if isinstance(drawn, frozenset) else frozenset()
