"""The "Error vs scale" section of "Which algorithm for my data?", for 1-D and 2-D data alike:
every algorithm's mean error at every scale, where the crossover from data-dependent to
data-independent winners shows."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd
import streamlit as st

from dpui.algorithms import figures
from dpui.kit import downloads, present

TOP = 3
"""How many algorithms error vs scale highlights: the best at the ranking's scale."""


def draw(
    at: Callable[[int], pd.DataFrame],
    scales: tuple[int, ...],
    dependent: Mapping[str, bool],
    *,
    scale: int,
    own: int,
    own_label: str = "your data's N",
    what_if: bool,
    trials: int,
    stamp: Mapping[str, object],
    key: str,
) -> pd.DataFrame:
    """Run every algorithm at every scale, draw the lines and say the best per scale.

    Parameters
    ----------
    at : callable
        ``at(scale)``: the rows (algorithm, trial, error, ...) of every algorithm's trials at
        that scale (cached by the caller).
    scales : tuple of int
        The scales of the lines (the ranking's own is added).
    dependent : mapping of str to bool
        Algorithm -> whether it is data-dependent.
    scale : int
        The ranking's scale (its three best are highlighted).
    own : int
        The data's own number of records (marked when at least 1).
    own_label : str, default "your data's N"
        Its mark's label.
    what_if : bool
        Whether ``scale`` is a what-if (then marked as well).
    trials : int
        Trials per algorithm and scale (said under the chart).
    stamp : mapping
        The settings stamped under the chart.
    key : str
        The chart's key.

    Returns
    -------
    pandas.DataFrame
        The curves: algorithm, scale, mean.
    """
    rows = []
    progress = st.progress(0.0, text="Running every algorithm at every scale…")
    shown = sorted({*scales, scale})
    for i, each in enumerate(shown):
        means = at(each).groupby("algorithm", sort=False)["error"].mean()
        rows += [(name, each, float(err)) for name, err in means.items()]
        progress.progress((i + 1) / len(shown), text=f"Scale {each:,} done")
    progress.empty()
    curves = pd.DataFrame(rows, columns=["algorithm", "scale", "mean"])
    marks = {f"{own_label} = {own:,}": own} if own >= 1 else {}
    if what_if:
        marks[f"ranked above (what-if) = {scale:,}"] = scale
    at_scale = curves[curves["scale"] == scale].sort_values("mean")
    top = [str(name) for name in at_scale["algorithm"].head(TOP)]
    present.show_chart(
        figures.by_scale(curves, dict(dependent), marks, highlight=top), stamp, key=key
    )
    winners = curves.loc[curves.groupby("scale")["mean"].idxmin()]
    st.markdown(
        "Best per scale: "
        + ", ".join(
            f"{each:,}: **{name}**"
            for name, each in zip(winners["algorithm"], winners["scale"], strict=True)
        )
        + f". In colour: the {len(top)} best at the ranking's scale ({scale:,}), from "
        f"{trials} trials per point. The error is scaled by the number of records, "
        "so a curve that falls like "
        "1/scale adds noise that does not grow with the data (every data-independent "
        "algorithm); a data-dependent one also pays a bias that shrinks more slowly."
    )
    return curves


def exact_rows(exact: Mapping[str, float]) -> pd.DataFrame:
    """Rows of an algorithm ranked at an exact value, for :func:`draw`'s ``at``: one row per
    algorithm with that value as its error (the trials' frame never holds them)."""
    return pd.DataFrame(
        [(name, 0, value, value) for name, value in exact.items()],
        columns=["algorithm", "trial", "error", "squared"],
    )


def download(curves: pd.DataFrame, name: str) -> None:
    """The curves as a CSV download."""
    downloads.csv_button("Download the curves (CSV)", curves, name)
