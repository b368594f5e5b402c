"""A page is a declaration: a :class:`Page` spec and a pure ``view``; :func:`run` does the rest.

The runner draws the frame (title, "What to notice", toolbar, presentation mode, the shared
sidebar), loads the page's parameters from the link and saves them back, draws the page's
settings, applies the work limits to the page's cost estimate before calling its ``view``,
and compares a pinned view A with the current view B from two ``view`` results: the main
figures side by side on shared axes and the key numbers with their ratio. A page writes no
comparison, no limit check and no state code of its own; the part of a page below its main
view (sections, tables, prose) is its ``body``.

A page script is then two lines (``pages/<key>.py``)::

    from dpui.mechanisms.laplace_page import PAGE
    from dpui.kit.page import run

    run(PAGE)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpcore.histogram import Histogram
from dpui.kit import (
    anchors,
    lesson_follow,
    lesson_steps,
    limits,
    pin,
    present,
    qr,
    shared_views,
    sidebar,
    state,
    styled_once,
    untrusted,
)
from dpui.kit.params import ChoiceParam, Param

SIDEBAR_DATA = "the sidebar's dataset"


@dataclass(frozen=True)
class Inputs:
    """What a view is computed from: the page's parameter values (name -> value, the shared
    ε included) and the sidebar's histogram."""

    values: Mapping[str, Any]
    hist: Histogram
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Inputs of this session that no link carries (an edited table), from ``Page.extra``."""

    def __getitem__(self, param: Param) -> Any:
        return self.values[param.name]


@dataclass(frozen=True)
class Estimate:
    """A view's cost before it runs, with what :func:`dpui.kit.limits.allow` says when it is
    over the limit: what would be computed, which inputs to reduce, and the library call that
    runs it without a limit."""

    what: str
    cost: limits.Cost
    smaller: str
    library: str


@dataclass(frozen=True)
class View:
    """One view's result: its main figure (the one a pinned comparison draws twice), the
    settings stamped under it and described in words, its key numbers, and whatever else
    the page's body draws (``detail``)."""

    described: str
    figure: go.Figure
    stamp: Mapping[str, Any]
    numbers: Mapping[str, float]
    detail: Any = None
    share: str = "y"
    """The axes a comparison puts on one range ("y", "xy" or ""), when A and B are of one
    ``kind``."""
    kind: str = ""
    """What the figure plots; A and B of different kinds get axes of their own."""
    note: str = ""
    """A caption under the compared key numbers (what they assume)."""


class Refused(Exception):
    """Raised by a ``view`` when its inputs give nothing to show; the message, in words a user
    understands, says what to change (it is shown as inert text)."""


@dataclass(frozen=True)
class Page:
    """One page, declared once: the router, the Overview, the runner and the tests read it."""

    key: str
    """URL path; the script is ``pages/<key>.py``."""
    title: str
    icon: str
    group: str
    blurb: str
    """One line for the Overview's list of pages."""
    notice: str = ""
    """"What to notice" (markdown; may cite ``[@<key>]``)."""
    caption: str = ""
    """The "About this page" text in the toolbar."""
    data: str = SIDEBAR_DATA
    """The data the page shows: the sidebar's dataset, or which data it uses instead and why
    (said in the page's header)."""
    params: tuple[Param, ...] = ()
    pinned: tuple[Param, ...] = ()
    """The parameters that define a comparable view (the shared ε among them when the view
    reads it); empty for a page without pin and compare."""
    switch: Callable[[], None] | None = None
    """Draws the page's part switch (one of its parameters) with its content, above the
    settings (below the figure while presenting): in view on a projector and on a phone,
    where the sidebar is hidden."""
    controls: Callable[[], None] | None = None
    """Draws the settings widgets, keyed by their parameters' names."""
    cost: Callable[[Inputs], Estimate | None] = field(default=lambda inputs: None)
    view: Callable[[Inputs], View] | None = None
    body: Callable[[View | None], None] | None = None
    """Draws the page below the main view (given None for a page without a view)."""
    extra: Callable[[], Mapping[str, Any]] | None = None
    """This session's inputs that no link carries (:attr:`Inputs.extra`), read after the
    controls are drawn."""
    shared_view: bool = False
    """Whether ``view`` reads nothing but its inputs and draws nothing (no element, no
    session state), so that its result is computed once for every session with the same
    inputs (:mod:`dpui.kit.shared_views`)."""
    charts: bool = True
    heading: str = ""
    """The page's own title, when it differs from its name in the navigation."""

    @property
    def path(self) -> str:
        return f"pages/{self.key}.py"


def run(page: Page) -> None:
    """Draw ``page``: frame, settings, the current view B (and a pinned A beside it), body;
    while a lesson is presented, its step's settings, title, note and Next / Previous
    (:mod:`dpui.kit.lesson_steps`), and nothing of the view before a predict step's Reveal.

    The frame (title, toolbar, lesson bar, sidebar) is drawn once per full run; the rest runs
    as a fragment, so that changing one of the page's settings redraws only the page's part
    (the browser re-renders tenths of a second less per change). Widgets of the frame (ε,
    the dataset, presentation mode, a lesson's steps) rerun the whole page.
    """
    lesson_steps.arrive(page.key, page.params)  # may open another page: before any element
    lesson_follow.poll(page.key)
    toolbar = present.header(page)
    lesson_follow.bar(page.key)
    sidebar.shared_controls()
    _content(page, toolbar)


@st.fragment
def _content(page: Page, toolbar: DeltaGenerator) -> None:
    """The page's part of :func:`run`: its settings, the pin in the ``toolbar``, views A and
    B, the body."""
    if lesson_steps.asked():  # a button here asked for a lesson step: the frame opens it
        st.rerun()
    state.load(page.params)
    qr.overlay()
    # presenting, the switch goes below the figure, which fits a 720p projector under the title
    switch_below = page.switch is not None and present.presenting()
    if page.switch is not None and not switch_below:
        page.switch()
    if page.controls is not None:
        with present.settings_panel():
            page.controls()
    state.save(page.params)
    anchors.forget_headings()
    if page.view is None:
        lesson_steps.add_button(toolbar, page.key, page.title, page.params)
        present.qr_code(toolbar, page.key)
        if page.body is not None and not lesson_steps.hidden(page.key):
            page.body(None)
            lesson_steps.open_section(page.key)
        return
    current = _inputs(page, {})
    pinned = pin.controls(page.key, page.pinned, where=toolbar) if page.pinned else None
    lesson_steps.add_button(toolbar, page.key, page.title, page.params, page.pinned)
    present.qr_code(toolbar, page.key)
    if not lesson_steps.hidden(page.key):  # "predict, then reveal": nothing of the view yet
        _views(page, current, pinned)
    if switch_below and page.switch is not None:
        page.switch()
    lesson_steps.open_section(page.key)


def _views(page: Page, current: Inputs, pinned: Mapping[str, Any] | None) -> None:
    """The current view B (and a pinned A beside it), then the page's body."""
    main = st.container()  # a comparison goes above the page's own figure
    b = computed(page, current)
    if pinned is not None:
        a = computed(page, _inputs(page, pinned), pinned=True)
        if a is not None and b is not None:
            with main:
                compare(page, a, b)
    if b is None:
        return
    if page.body is not None:
        page.body(b)


def _inputs(page: Page, override: Mapping[str, Any]) -> Inputs:
    names = (*page.params, sidebar.EPSILON)
    values = {p.name: state.get(p) for p in names} | dict(override)
    extra = page.extra() if page.extra is not None else {}
    return Inputs(values, sidebar.current_histogram(), extra)


def computed(page: Page, inputs: Inputs, *, pinned: bool = False) -> View | None:
    """``page.view(inputs)`` when its estimate is within the limits; otherwise None, with the
    reason shown (about "Pinned view A" for ``pinned``)."""
    assert page.view is not None
    who = "Pinned view A: " if pinned else ""
    estimate = page.cost(inputs)
    if estimate is not None and not limits.allow(
        who + estimate.what, estimate.cost, smaller=estimate.smaller, library=estimate.library
    ):
        return None
    try:
        if page.shared_view and not inputs.extra:
            view = page.view
            kept = shared_views.view(
                page.key, dict(inputs.values), inputs.hist, lambda: view(inputs)
            )
            styled_once.shared(kept.figure)
            return kept
        return page.view(inputs)
    except Refused as why:
        st.warning(who + untrusted.markdown(str(why), 600), icon=":material/block:")
        return None


T = TypeVar("T", bound=Hashable)


def _within_the_pages_estimate(value: object) -> Estimate | None:
    return None


@dataclass(frozen=True)
class Section(Generic[T]):
    """One part of a page shown below its main view, one at a time (:func:`sections`): a
    title, its own widgets, the cost of what it computes, and what it draws."""

    title: str
    draw: Callable[[T], None]
    """Draws the section from the page's checked inputs (after the gate allowed it)."""
    cost: Callable[[T], Estimate | None] = _within_the_pages_estimate
    """Its estimate from the inputs and its widgets' values (None: nothing beyond what the
    page's own ``cost`` covered)."""
    controls: Callable[[T], None] | None = None
    """Its own widgets, drawn before the estimate (which may read them)."""


def sections(label: str, param: ChoiceParam, shown: Mapping[str, Section[T]], value: T) -> None:
    """The choice of the part shown below the main view, and that part: its heading and
    widgets, then its estimate through the work gate (the limits of the page's view; a run
    that takes longer is offered on request, see :func:`dpui.kit.limits.allow_or_offer`),
    and only then its computation.

    Parameters
    ----------
    label : str
        The choice's label.
    param : ChoiceParam
        The parameter keeping the choice in the link (one of ``shown``'s keys).
    shown : mapping
        Key -> :class:`Section`.
    value : hashable
        What every section is drawn from (the page's checked inputs).
    """
    chosen = present.section_choice(label, param, {k: s.title for k, s in shown.items()})
    section = shown[chosen]
    st.header(section.title)
    if section.controls is not None:
        section.controls(value)
    estimate = section.cost(value)
    if estimate is not None and not limits.allow_or_offer(
        estimate.what,
        estimate.cost,
        key=(param.name, chosen, estimate, value),
        smaller=estimate.smaller,
        library=estimate.library,
    ):
        return
    section.draw(value)


def compare(page: Page, a: View, b: View) -> None:
    """Views A and B: main figures side by side (on shared axes when they plot the same kind
    of view), then the key numbers with their ratio."""
    same = a.kind == b.kind
    pin.side_by_side(
        (a.described, a.figure, a.stamp),
        (b.described, b.figure, b.stamp),
        key=f"{page.key}_compare",
        share=a.share if same else "",
    )
    if not same:
        st.caption("A and B plot different views, so their axes are not shared.")
    pin.show_table(a.numbers, b.numbers)
    notes = dict.fromkeys(note for note in (a.note, b.note) if note)
    if notes:
        st.caption(" ".join(notes))
