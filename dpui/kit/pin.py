"""Pin and compare: keep one view's settings as baseline A, show the current view B beside it.

A page passes the parameters that define its view (its own and the shared ε; the
dataset stays the current one). "Pin this view" stores their current values; from
then on the page draws its main figure and key numbers for both A and B. The pinned
values travel in the URL as one parameter (``pin``, itself a query string), so a
pinned comparison is shareable; they are validated like any link value.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from pandas.io.formats.style import Styler
from streamlit.delta_generator import DeltaGenerator

from dpui.kit import byte_cache, plot_axes, present, state, styled_once
from dpui.kit import params as codec

URL_KEY = "pin"


def _key(page: str) -> str:
    return f"_pin.{page}"


def _pin(page: str, params: Sequence[codec.Param]) -> None:
    st.session_state[_key(page)] = {p.name: state.get(p) for p in params}


def _unpin(page: str) -> None:
    st.session_state[_key(page)] = None


def forget(page: str) -> None:
    """Drop ``page``'s pin, so that its next :func:`controls` takes the pin from the link."""
    st.session_state.pop(_key(page), None)


def pinned(page: str) -> bool:
    """Whether ``page`` shows a pinned view A now (after :func:`controls` ran)."""
    return st.session_state.get(_key(page)) is not None


def describe(values: Mapping[str, Any]) -> str:
    """The pinned settings as ``name=value`` pairs (what the URL would say)."""
    return ", ".join(
        f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}"
        for name, value in values.items()
    )


def controls(
    page: str, params: Sequence[codec.Param], *, where: DeltaGenerator | None = None
) -> dict[str, Any] | None:
    """The "Pin this view" / "Unpin" button, in ``where`` (e.g. the page's toolbar, so that
    it costs the figure no room) or here; returns the pinned settings A, or None.

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
    pinned = st.session_state.get(key)
    if pinned is None:
        (where or st).button(
            "Pin this view",
            icon=":material/push_pin:",
            on_click=_pin,
            args=(page, params),
            help="Keep these settings as baseline A; change any setting to compare B with A.",
        )
        if URL_KEY in st.query_params:
            del st.query_params[URL_KEY]
        return None
    (where or st).button("Unpin", icon=":material/close:", on_click=_unpin, args=(page,))
    st.caption(
        "**A** is the pinned view, **B** the one set now: change any setting to compare. "
        "The page's link keeps both."
    )
    encoded = urlencode(codec.encode(params, pinned))
    if st.query_params.get(URL_KEY) != encoded:
        st.query_params[URL_KEY] = encoded
    return dict(pinned)


def side_by_side(
    a: tuple[str, go.Figure, Mapping[str, Any]],
    b: tuple[str, go.Figure, Mapping[str, Any]],
    *,
    key: str,
    share: str = "y",
) -> None:
    """Views A and B, each ``(settings in words, figure, stamp settings)``, in two columns on
    the same axes: every axis letter in ``share`` ("y", "xy") gets one range fitting both
    figures' data, so that a taller bar is a larger number."""
    figs = _on_shared_axes(
        styled_once.digest(a[1]), styled_once.digest(b[1]), share, _a=a[1], _b=b[1]
    )
    cols = st.columns(2)
    for col, label, (text, _, settings), fig in zip(
        cols, ("A (pinned)", "B (current)"), (a, b), figs, strict=True
    ):
        col.markdown(f"**{label}:** {text}")
        present.show_chart(fig, settings, key=f"{key}_{label[0]}", where=col, alt=f"{label}.")


@byte_cache.cache_by_bytes(max_entries=16)
def _on_shared_axes(
    a_digest: str, b_digest: str, share: str, *, _a: go.Figure, _b: go.Figure
) -> tuple[go.Figure, go.Figure]:
    """Copies of figures ``_a`` and ``_b`` (of those digests) with one range on each axis
    letter in ``share``: kept for every session comparing the same two figures (never
    changed afterwards: marked shared, they are styled on copies)."""
    figs = (styled_once.copy_of(_a), styled_once.copy_of(_b))
    for letter in share:
        layouts = [f.layout.to_plotly_json() for f in figs]
        named = {k for lay in layouts for k in lay if k.startswith(letter + "axis")}
        for axis in named | {letter + "axis"}:
            shared = shared_range(figs, axis)
            if shared is not None:
                for f in figs:
                    f.layout[axis].range = shared
                    f.layout[axis].autorange = False
    return styled_once.shared(figs[0]), styled_once.shared(figs[1])


def shared_range(figs: Sequence[go.Figure], axis: str) -> list[float] | None:
    """One range for layout axis ``axis`` that shows every figure's data (in log10 units for a
    log axis, as Plotly wants), error bars included; None when the figures have no data there."""
    log = any(f.layout[axis].type == "log" for f in figs)
    values = np.concatenate([_extent(f, axis) for f in figs])
    values = values[np.isfinite(values) & ((values > 0) if log else True)]
    if values.size == 0:
        return None
    lo, hi = float(values.min()), float(values.max())
    if log:
        lo, hi = np.log10(lo), np.log10(hi)
        pad = 0.05 * max(hi - lo, 1.0)
        return [lo - pad, hi + pad]
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    pad = 0.12 * (hi - lo or 1.0)  # room for bar labels drawn outside
    return [lo - pad if lo < 0 else lo, hi + pad if hi > 0 else hi]


def _extent(fig: go.Figure, axis: str) -> np.ndarray:
    """The numeric values the traces put on layout axis ``axis``, with their error bars."""
    letter = axis[0]
    out = [np.empty(0)]
    for trace, v in plot_axes.axis_traces(fig, axis):
        out.append(v)
        bars = getattr(trace, f"error_{letter}", None)
        if bars is not None and bars.array is not None:
            plus = np.asarray(bars.array, dtype=float)
            minus = plus if bars.arrayminus is None else np.asarray(bars.arrayminus, dtype=float)
            if plus.shape == v.shape and minus.shape == v.shape:
                out += [v + plus, v - minus]
    return np.concatenate(out)


def show_table(a: Mapping[str, float], b: Mapping[str, float]) -> None:
    """:func:`compare_table` drawn with four significant digits; a number only one view has
    shows as a dash in the other."""
    numbers: list[Hashable] = ["A (pinned)", "B (current)"]
    # Styler itself, not DataFrame.style: that looks for jinja2 through the import system at
    # every call, under its lock, which a class of followers drawing the table at once queued on
    styled = Styler(compare_table(a, b)).format("{:,.4g}", subset=numbers, na_rep="—")
    st.dataframe(styled, hide_index=True)


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
