"""The sidebar's epsilon entry: a number box plus a log-scale slider over the same value.

Epsilon spans seven decades (1e-5 .. 100): a linear slider cannot reach 1e-4 and a
number box alone makes it tedious to sweep. The slider shows ``log10 ε``; moving it
writes ``ε`` (3 significant digits) into the number box's state, and the box's value
positions the slider on the next run, so the one value in the URL is ``ε`` itself.
"""

from __future__ import annotations

import math

import streamlit as st

from dpui.kit import state
from dpui.kit.params import FloatParam

LOG_STEP = 0.05


def _log_key(param: FloatParam) -> str:
    return f"{param.name}_log10"


def _from_slider(param: FloatParam) -> None:
    value = float(f"{10.0 ** st.session_state.get(_log_key(param), 0.0):.3g}")
    st.session_state[param.name] = min(max(value, param.lo), param.hi)


def epsilon_controls(param: FloatParam, *, help: str) -> None:
    """Number input keyed ``param.name`` and a log10 slider kept in step with it."""
    st.number_input(
        "Privacy budget ε",
        min_value=param.lo,
        max_value=param.hi,
        step=0.1,
        format="%g",
        key=param.name,
        help=help + f" Accepted: {param.lo:g} to {param.hi:g}.",
    )
    lo, hi = math.log10(param.lo), math.log10(param.hi)
    eps = float(st.session_state.get(param.name, param.default))
    state.assign(_log_key(param), min(max(round(math.log10(eps), 2), lo), hi))
    st.slider(
        "log₁₀ ε",
        lo,
        hi,
        step=LOG_STEP,
        format="%.2f",
        key=_log_key(param),
        on_change=_from_slider,
        args=(param,),
        help="Drag on a log scale: −5 is ε = 0.00001, 0 is ε = 1, 2 is ε = 100.",
    )
    st.caption(plain_words(eps))


def plain_words(eps: float) -> str:
    """What this ε means, in one sentence: which end is more private, the odds bound, and the
    noise on one count (Laplace, sensitivity 1).

    >>> "at most ×2.72" in plain_words(1.0) and "±1.4 " in plain_words(1.0)
    True
    """
    odds = math.exp(eps)
    shown = f"{odds:.6g}" if odds < 1.01 else f"{odds:,.3g}" if odds < 1e6 else f"{odds:.2g}"
    return (
        "← more private · more accurate →. "
        f"At ε = {eps:g} one release changes the odds of anything about one person by at most "
        f"×{shown}, and one count gets noise of about ±{math.sqrt(2) / eps:,.2g} (standard "
        "deviation √2/ε)."
    )
