"""The one owner of session and URL state.

Widgets are keyed by their parameter's name. On a page's first run in a
session, :func:`load` seeds ``st.session_state`` from the query string
(validated by :mod:`dpui.kit.params`, invalid values replaced by defaults with a
visible notice); after the widgets, :func:`save` writes the current values back
to the URL so that a copied link reproduces the view, and keeps a copy that
survives switching pages.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dpui.kit import params as codec


def _kept(name: str) -> str:
    return f"_kept.{name}"


def _on(name: str) -> str:
    return f"_on.{name}"


def _page() -> str:
    """The script of the page this run draws (its hash)."""
    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx is not None else ""


def load(params: Sequence[codec.Param]) -> None:
    """Seed widget values: the current one, else one kept from an earlier visit, else the URL's,
    else the default.

    Streamlit does not carry a widget's value to another page even under the
    same key, and drops it after a run without the widget. Re-assigning the
    value before the widget is created makes it the new widget's value (the
    documented way to keep widget state across pages); :func:`save` keeps a
    copy for when the key is gone. A value is assigned only when the widget is
    new on this page: assigning it on every rerun sends it back to the browser
    as the widget's value, which undid the clicks made while the run was going
    (10 quick clicks on a number input's + counted 8).
    """
    fresh = []
    for param in params:
        if param.name in st.session_state:
            assign(param.name, st.session_state[param.name])
        elif _kept(param.name) in st.session_state:
            assign(param.name, st.session_state[_kept(param.name)])
        else:
            fresh.append(param)
    if not fresh:
        return
    raw = {key: st.query_params[key] for key in st.query_params}
    values, notices = codec.decode(fresh, raw)
    for name, value in values.items():
        assign(name, value)
    for notice in notices:
        st.warning(notice, icon=":material/link_off:")


def assign(name: str, value: Any) -> None:
    """Make ``value`` the value of widget ``name`` before it is drawn, when the widget is new
    on this page or shows another value; otherwise leave the widget's value alone (an
    assignment is sent to the browser and replaces what the user did meanwhile).

    Parameters
    ----------
    name : str
        The widget's key.
    value : Any
        The value it must show (the link's, a kept one, or a model's such as the lesson's).
    """
    page = _page()
    if (
        st.session_state.get(_on(name)) != page
        or name not in st.session_state
        or st.session_state[name] != value
    ):
        st.session_state[name] = value
    st.session_state[_on(name)] = page


def save(params: Sequence[codec.Param], *, in_url: Sequence[codec.Param] | None = None) -> None:
    """Keep the current widget values and mirror them (or those ``in_url``) into the URL."""
    current = {p.name: st.session_state[p.name] for p in params if p.name in st.session_state}
    for name, value in current.items():
        st.session_state[_kept(name)] = value
    encoded = codec.encode(params if in_url is None else in_url, current)
    for key, value in encoded.items():
        if st.query_params.get(key) != value:
            st.query_params[key] = value


def put(values: Mapping[str, Any]) -> None:
    """Set widget values (and the copies kept across pages) before their widgets are drawn:
    a link opened from inside the app (a lesson's step) replaces the values a page had."""
    for name, value in values.items():
        st.session_state[name] = value
        st.session_state[_kept(name)] = value


def forget(names: Iterable[str]) -> None:
    """Drop the values of widgets ``names``, so that their next :func:`load` reads the link."""
    for name in names:
        st.session_state.pop(name, None)
        st.session_state.pop(_kept(name), None)


def get(param: codec.Param) -> Any:
    """The widget value of ``param``, else the kept one, else its default."""
    return st.session_state.get(param.name, st.session_state.get(_kept(param.name), param.default))
