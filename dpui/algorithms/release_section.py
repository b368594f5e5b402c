"""The "One release vs its input" section of "Which algorithm for my data?", declared once
for 1-D and 2-D data: the algorithm chosen first, its estimate through the work gate (the
run is never unbounded), then the drawing."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

import streamlit as st

from dpui.kit import state
from dpui.kit.page import Estimate, Section
from dpui.kit.params import ChoiceParam

T = TypeVar("T", bound=Hashable)


def release_section(
    draw: Callable[[T], None],
    *,
    names: tuple[str, ...],
    param: ChoiceParam,
    cost: Callable[[T, str], Estimate],
) -> Section[T]:
    """The section drawing one release of the algorithm chosen among ``names`` (kept in
    ``param``), gated by ``cost(setting, algorithm)``.

    Parameters
    ----------
    draw : callable
        Draws the release from the page's checked setting (the choice read from ``param``).
    names : tuple of str
        The algorithms offered.
    param : ChoiceParam
        The choice's parameter (in the link).
    cost : callable
        The estimate of one run of an algorithm on a setting.

    Returns
    -------
    Section
    """

    def choose(s: T) -> None:
        st.selectbox("Algorithm", names, key=param.name)

    return Section(
        "One release vs its input",
        draw,
        cost=lambda s: cost(s, str(state.get(param))),
        controls=choose,
    )
