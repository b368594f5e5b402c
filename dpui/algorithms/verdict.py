"""The ranking of "Which algorithm for my data?" in words: a winner only when the trials can
tell it apart, otherwise the algorithms within noise of each other, named as a tie."""

from __future__ import annotations

import pandas as pd

from dpui.algorithms.compare import WORKLOADS, Setting

WHY = (
    " A data-dependent method pays part of ε to learn the histogram's shape; with few "
    "records that shape is worth the price, with many the shape is cheap to describe "
    "with noise and the price is not."
)


def names(listed: list[str], word: str = "and") -> str:
    """``["A", "B", "C"]`` as "A, B and C" (or another ``word`` before the last).

    >>> names(["DAWA", "HB", "DPCube"]), names(["DAWA", "HB"], "or")
    ('DAWA, HB and DPCube', 'DAWA or HB')
    """
    return listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} {word} {listed[-1]}"


def percent(p: float) -> str:
    """A probability as a percentage that never rounds to a certainty it is not.

    >>> percent(1.0), percent(0.0), percent(0.4149)
    ('> 99.5%', '< 0.5%', '41%')
    """
    if p > 0.995:
        return "> 99.5%"
    if p < 0.005:
        return "< 0.5%"
    return f"{p:.0%}"


def family(dependent: bool) -> str:
    return "data-dependent" if dependent else "data-independent"


def verdict(table: pd.DataFrame, trials: int) -> str:
    """The leader of ``table`` (:func:`dpui.algorithms.compare.summary`, best first) in words:
    the winner with its probability of being best when no other algorithm is within noise of
    it, the tie otherwise, and the best of the other family.

    Parameters
    ----------
    table : pandas.DataFrame
        The ranking, with columns "how", "probability best", "within noise", "data-dependent"
        and "regret".
    trials : int
        Trials behind the means.

    Returns
    -------
    str
        Markdown.
    """
    best = str(table.index[0])
    dependent = bool(table["data-dependent"].iloc[0])
    if trials < 2 and not (table["how"] == "exact").all():
        text = (
            f"Lowest error in this one trial: **{best}** ({family(dependent)}). One trial "
            "gives no interval, so how sure that is cannot be said: choose 2 or more trials."
        )
    else:
        near = [str(name) for name in table.index[table["within noise"].to_numpy()]]
        chance = table["probability best"]
        if len(near) > 1:
            text = (
                f"**{names(near)} are within noise of each other**: their 95% intervals "
                f"overlap {best}'s, so {trials} trials cannot tell which is best "
                f"(probability best: {', '.join(f'{n} {percent(chance[n])}' for n in near)}). "
                "More trials narrow the intervals."
            )
        else:
            text = (
                f"Best here: **{best}** ({family(dependent)}), probability best "
                f"{percent(chance[best])}: its 95% interval overlaps no other's."
            )
    other = table[table["data-dependent"] != dependent]
    if not other.empty:
        text += (
            f" The best {family(not dependent)} one, **{other.index[0]}**, has "
            f"{other['regret'].iloc[0]:.2f}× its error."
        )
    return text + WHY


def records(table: pd.DataFrame, name: str, scale: int) -> str:
    """``name``'s expected error in records per query (the scaled error times the records),
    with its 95% interval or "exactly"."""
    row = table.loc[name]
    value = f"{row['mean'] * scale:,.3g}"
    if row["how"] == "exact":
        return f"exactly {value}"
    if pd.isna(row["half width"]):
        return f"{value} (one trial)"
    low = max(row["mean"] - row["half width"], 0.0) * scale
    high = (row["mean"] + row["half width"]) * scale
    return f"{value} (95% interval {low:,.3g} to {high:,.3g})"


def card(table: pd.DataFrame, s: Setting) -> str:
    """The recommendation: the algorithm to use (or those within noise of each other), its
    expected error in records per query on the setting's workload at its scale and ε, and
    why, from the records per bin.

    Parameters
    ----------
    table : pandas.DataFrame
        The ranking (:func:`dpui.algorithms.compare.summary`), best first.
    s : Setting
        Its setting.

    Returns
    -------
    str
        Markdown.
    """
    near = [str(n) for n in table.index[table["within noise"].to_numpy()]] or [str(table.index[0])]
    best = near[0]
    head = f"use **{best}**" if len(near) == 1 else f"use any of **{names(near, 'or')}**"
    if len(near) > 1:
        head += " (within noise of each other)"
    elif s.trials < 2 and not (table["how"] == "exact").all():
        head += " (lowest in one trial: choose 2 or more trials to know how sure)"
    errors = "; ".join(f"{n}: {records(table, n, s.scale)}" for n in near)
    per_bin = s.scale / s.domain
    kinds = set(table.loc[near, "data-dependent"])
    if len(kinds) > 1:
        why = (
            "Both kinds are within noise here: at this N, learning the histogram's shape "
            "neither clearly pays nor clearly costs."
        )
    elif kinds == {True}:
        why = (
            f"With {per_bin:,.3g} records per bin, noise is large next to the counts: "
            "spending part of ε to learn the histogram's shape pays at this N."
        )
    else:
        why = (
            f"With {per_bin:,.3g} records per bin, noise is small next to the counts: the "
            "shape is cheap to describe with noise, so spending ε to learn it does not pay."
        )
    return (
        f"Recommendation: {head}.\n\n"
        f"Expected error in **records per query** at {s.scale_words()} and ε = {s.eps:g}, "
        f"on {WORKLOADS[s.workload]}: {errors}.\n\n{why}"
    )
