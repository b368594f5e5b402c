"""The one owner of session and URL state.

Widgets are keyed by their parameter's name. On a page's first run in a
session, :func:`load` seeds ``st.session_state`` from the query string
(validated by :mod:`dpui.params`, invalid values replaced by defaults with a
visible notice); after the widgets, :func:`save` writes the current values back
to the URL so that a copied link reproduces the view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from dpui import params as codec


def load(params: Sequence[codec.Param]) -> None:
    """Seed missing widget values from the URL (or defaults); warn about bad values."""
    missing = [p for p in params if p.name not in st.session_state]
    if not missing:
        return
    raw = {key: st.query_params[key] for key in st.query_params}
    values, notices = codec.decode(missing, raw)
    for name, value in values.items():
        st.session_state[name] = value
    for notice in notices:
        st.warning(notice, icon=":material/link_off:")


def save(params: Sequence[codec.Param]) -> None:
    """Mirror the current widget values into the query string."""
    current = {p.name: st.session_state[p.name] for p in params if p.name in st.session_state}
    encoded = codec.encode(params, current)
    for key, value in encoded.items():
        if st.query_params.get(key) != value:
            st.query_params[key] = value


def get(param: codec.Param) -> Any:
    """The widget value of ``param``, or its default when the widget is not on screen."""
    return st.session_state.get(param.name, param.default)
