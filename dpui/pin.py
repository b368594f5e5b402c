"""Pin and compare: keep one view's settings as baseline A, show the current view B beside it.

A page passes the parameters that define its view (its own and the shared ε; the
dataset stays the current one). "Pin this view" stores their current values; from
then on the page draws its main figure and key numbers for both A and B. The pinned
values travel in the URL as one parameter (``pin``, itself a query string), so a
pinned comparison is shareable; they are validated like any link value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

import numpy as np
import pandas as pd
import streamlit as st

from dpui import params as codec

URL_KEY = "pin"


def _key(page: str) -> str:
    return f"_pin.{page}"


def _pin(page: str, params: Sequence[codec.Param]) -> None:
    st.session_state[_key(page)] = {p.name: st.session_state[p.name] for p in params}


def _unpin(page: str) -> None:
    st.session_state[_key(page)] = None


def describe(values: Mapping[str, Any]) -> str:
    """The pinned settings as ``name=value`` pairs (what the URL would say)."""
    return ", ".join(
        f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}"
        for name, value in values.items()
    )


def controls(page: str, params: Sequence[codec.Param]) -> dict[str, Any] | None:
    """The "Pin this view" / "Unpin" button; returns the pinned settings A, or None.

    Call after the page's widgets (the current values of ``params`` are in the
    session). On a page's first run the pin comes from the URL, if it has one;
    invalid values in it fall back to defaults with a notice.
    """
    key = _key(page)
    if key not in st.session_state:
        raw = st.query_params.get(URL_KEY)
        pinned = None
        if raw:
            values, notices = codec.decode(params, dict(parse_qsl(raw)))
            for notice in notices:
                st.warning(f"Pinned view: {notice}", icon=":material/link_off:")
            pinned = values
        st.session_state[key] = pinned
    pinned = st.session_state[key]
    if pinned is None:
        st.button(
            "Pin this view",
            icon=":material/push_pin:",
            on_click=_pin,
            args=(page, params),
            help="Keep these settings as baseline A; change any setting to compare B with A.",
        )
        if URL_KEY in st.query_params:
            del st.query_params[URL_KEY]
        return None
    left, right = st.columns([1, 4], vertical_alignment="center")
    left.button("Unpin", icon=":material/close:", on_click=_unpin, args=(page,))
    right.caption(
        "**A** is the pinned view, **B** the one set now: change any setting to compare. "
        "The page's link keeps both."
    )
    encoded = urlencode(codec.encode(params, pinned))
    if st.query_params.get(URL_KEY) != encoded:
        st.query_params[URL_KEY] = encoded
    return dict(pinned)


def current(params: Sequence[codec.Param]) -> dict[str, Any]:
    """The values of ``params`` set now (view B)."""
    return {p.name: st.session_state[p.name] for p in params}


def show_table(a: Mapping[str, float], b: Mapping[str, float]) -> None:
    """:func:`compare_table` drawn with four significant digits."""
    st.dataframe(
        compare_table(a, b),
        hide_index=True,
        column_config={
            c: st.column_config.NumberColumn(format="%.4g") for c in ("A (pinned)", "B (current)")
        },
    )


def compare_table(a: Mapping[str, float], b: Mapping[str, float]) -> pd.DataFrame:
    """Key numbers of A and B side by side, with the ratio B/A (— where undefined, and a
    quantity only one view has is NaN in the other)."""
    names = list(a) + [k for k in b if k not in a]
    va = np.array([a.get(k, np.nan) for k in names], dtype=float)
    vb = np.array([b.get(k, np.nan) for k in names], dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where((va != 0) & np.isfinite(va) & np.isfinite(vb), vb / va, np.nan)
    return pd.DataFrame(
        {
            "quantity": names,
            "A (pinned)": va,
            "B (current)": vb,
            "B / A": [f"{r:.3g}" if np.isfinite(r) else "—" for r in ratio],
        }
    )
