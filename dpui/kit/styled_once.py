"""A chart styled once for every session that draws the same figure.

Drawing a chart styles it first (honest ticks, projector sizes, the settings stamp, the
house look, room for tick labels, plain lists for Plotly: :func:`dpui.kit.present.show_chart`),
9–16 ms of CPU a chart on the bundled lesson's pages, a sixth to a third of what a student's
page run costs the server. Thirty students opening one step draw thirty identical figures:
the styled figure, its text alternative and its title are kept, shared by every session, under
a digest of the figure's content (its JSON with sorted keys, 0.03 ms to make) with whether it
is presented and its settings. A figure that many sessions draw (:func:`shared`: a shared
view's, :mod:`dpui.kit.shared_views`, or a kept chart's) is styled on a copy; any other is
styled in place, sparing the copy (8–10 ms a chart). A kept figure is never changed
afterwards: Streamlit copies it (``to_dict``) to send it.
"""

from __future__ import annotations

import copy
import hashlib
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import plotly.graph_objects as go
from plotly.utils import PlotlyJSONEncoder

from dpui.kit import byte_cache

ENTRIES = 48
"""Styled figures kept (a lesson of ten steps draws about twenty, each presented or not). A
figure holds at most ``plot_once.MAX_LISTED`` numbers as lists (about 2 MB), so 48 stay
under 100 MB; most are a few kilobytes."""


@dataclass(frozen=True)
class Styled:
    """A chart ready to draw: the styled figure, its text alternative and its plain title."""

    figure: go.Figure
    summary: str
    title: str


Style = Callable[[go.Figure, Mapping[str, Any], bool], Styled]
"""Styles a figure in place for (settings, presenting) and describes it."""


def styled(fig: go.Figure, settings: Mapping[str, Any], presenting: bool, style: Style) -> Styled:
    """``style`` applied to ``fig`` (to a copy when ``fig`` is :func:`shared`) for
    ``settings`` and ``presenting``, or what it returned for an identical figure with the
    same settings and presentation (then ``fig`` is left unchanged).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure as its page built it.
    settings : Mapping[str, Any]
        The settings it is stamped with.
    presenting : bool
        Whether it is drawn for a projector.
    style : callable
        The styling (pure: it reads nothing but its arguments).

    Returns
    -------
    Styled
        The styled figure (shared: not to be changed), its text alternative and title.
    """
    stamp = repr(sorted((str(k), repr(v)) for k, v in settings.items()))
    return _kept(digest(fig), stamp, presenting, _fig=fig, _settings=settings, _style=style)


def shared(fig: go.Figure) -> go.Figure:
    """Mark ``fig`` as drawn by many sessions (a shared view's, or a kept chart's): it is
    never styled in place, a copy is. Returns ``fig``."""
    _SHARED[id(fig)] = fig
    return fig


def is_shared(fig: go.Figure) -> bool:
    """Whether ``fig`` was marked by :func:`shared`."""
    return _SHARED.get(id(fig)) is fig


_SHARED: weakref.WeakValueDictionary[int, go.Figure] = weakref.WeakValueDictionary()
"""The shared figures alive, by identity (a figure is not hashable)."""


def copy_of(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` that leaves ``fig`` as it is: ``go.Figure(fig)`` moves each trace's
    ``type`` to the end of the original's properties, which another session reading a shared
    figure at that moment would see half done (measured: a class of followers drew
    "Bad property path" errors).

    ``fig`` was validated when it was built, so its copy is made without validating it again
    (0.8 ms instead of 8.5 ms for three traces of 40 bars: most of it the default template;
    the first validated copy in a process also imported Plotly's trace classes, 0.1–0.4 s
    while a class waited for one kept comparison); the copy validates what is set on it
    afterwards, like any figure."""
    copied = go.Figure(
        {
            "data": copy.deepcopy(fig._data),
            "layout": copy.deepcopy(fig._layout),
            "frames": copy.deepcopy([frame._props for frame in fig._frame_objs]),
            "_grid_ref": fig._grid_ref,  # make_subplots' rows and columns
            "_grid_str": fig._grid_str,
        },
        _validate=False,
    )
    copied._validate = True
    for part in (copied._layout_obj, *copied._data_objs, *copied._frame_objs):
        _validating(part)
    return copied


def _validating(obj: Any) -> None:
    """Validation on again for ``obj`` and every part of it built so far (Plotly builds the
    others on first use, validating)."""
    obj._validate = True
    for child in obj._compound_props.values():
        _validating(child)
    for children in obj._compound_array_props.values():
        for child in children:
            _validating(child)


def digest(fig: go.Figure) -> str:
    """A digest of ``fig``'s content (its JSON with sorted keys and every number of its
    arrays): the same for equal figures whatever the order of their properties (Plotly
    writes a trace's properties in the order they were set)."""
    # Plotly's own dicts, read as they are: ``to_dict`` would deep-copy them and turn every
    # array into base64 text first (20 times as long on the Laplace chart: 0.59 ms, measured)
    content = {
        "data": fig._data,
        "layout": fig._layout,
        "frames": [frame._props for frame in fig._frame_objs],
    }
    canonical = orjson.dumps(
        content,
        option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY,
        default=_listed,
    )
    return hashlib.blake2b(canonical, digest_size=16).hexdigest()


def _listed(value: Any) -> Any:
    """What orjson cannot write itself: arrays of objects (text labels) as lists, anything
    else as Plotly writes it."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    return _PLOTLY.default(value)


_PLOTLY = PlotlyJSONEncoder()


@byte_cache.cache_by_bytes(max_entries=ENTRIES)
def _kept(
    content: str,
    stamp: str,
    presenting: bool,
    *,
    _fig: go.Figure,
    _settings: Mapping[str, Any],
    _style: Style,
) -> Styled:
    shown = _style(copy_of(_fig) if is_shared(_fig) else _fig, _settings, presenting)
    shown.figure.__class__ = _Sent  # the same figure, its sent form made once
    return shown


class _Sent(go.Figure):  # type: ignore[misc]  # plotly has no type hints
    """A kept styled figure, whose dict (what Streamlit sends: ``to_dict``, a deep copy with
    every numeric array written as base64, 0.4–2 ms a chart and most of ``st.plotly_chart``'s
    cost) is made once for every session drawing it, and again only if the figure changed
    (its digest, 0.03 ms, tells). Streamlit only reads the dict."""

    def to_dict(self) -> dict[str, Any]:
        now = digest(self)
        sent: tuple[str, dict[str, Any]] | None = self.__dict__.get("_sent")
        if sent is None or sent[0] != now:
            sent = (now, super().to_dict())
            self._sent = sent
        return sent[1]
