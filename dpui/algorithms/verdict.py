"""The ranking of "Which algorithm for my data?" in words: a winner only when the trials can
tell it apart, otherwise the algorithms within noise of each other, named as a tie."""

from __future__ import annotations

import math

import pandas as pd

from dpui.algorithms.racing import Compared

WHY = (
    " A data-dependent method pays part of ε to learn the data's shape; with few "
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


def unsure(table: pd.DataFrame) -> bool:
    """Whether the ranking has an algorithm measured by one trial only (no interval)."""
    return bool(table["half width"].isna().any())


def trials_behind(table: pd.DataFrame, listed: list[str]) -> str:
    """How many trials are behind the means of ``listed`` (exact values need none).

    >>> t = pd.DataFrame({"trials": [0, 12, 3]}, index=["Identity", "HB", "DAWA"])
    >>> trials_behind(t, ["Identity", "HB"]), trials_behind(t, ["HB", "DAWA"])
    ('12 trials', '3 to 12 trials')
    """
    counts = sorted({int(k) for k in table.loc[listed, "trials"] if k > 0})
    if not counts:
        return "exact values"
    if len(counts) == 1:
        return f"{counts[0]} trial{'s' * (counts[0] > 1)}"
    return f"{counts[0]} to {counts[-1]} trials"


def verdict(table: pd.DataFrame) -> str:
    """The leader of ``table`` (:func:`dpui.algorithms.compare.summary`, best first) in words:
    the winner with its probability of being best when no other algorithm is within noise of
    it, the tie otherwise, and the best of the other family.

    Parameters
    ----------
    table : pandas.DataFrame
        The ranking, with columns "half width", "trials", "probability best",
        "within noise", "data-dependent" and "regret".

    Returns
    -------
    str
        Markdown.
    """
    best = str(table.index[0])
    dependent = bool(table["data-dependent"].iloc[0])
    if unsure(table):
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
                f"overlap {best}'s, or none of them is best with 95% probability alone, so "
                f"{trials_behind(table, near)} cannot tell which is best (probability best: "
                f"{', '.join(f'{n} {percent(chance[n])}' for n in near)}). "
                "More trials (a fixed number, in the settings) narrow the intervals; if they "
                "still overlap, these algorithms are that close at this N."
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
    with its 95% interval or "exactly".

    >>> t = pd.DataFrame({"mean": [2e-4, 3e-4], "half width": [0.0, 1e-4],
    ...                   "how": ["exact", "mean of 3 trials"]}, index=["Identity", "HB"])
    >>> records(t, "Identity", 50_000), records(t, "HB", 50_000)
    ('exactly 10', '15 (95% interval 10 to 20)')
    """
    row = table.loc[name]
    value = f"{row['mean'] * scale:,.3g}"
    if row["how"] == "exact":
        return f"exactly {value}"
    if pd.isna(row["half width"]):
        return f"{value} (one trial)"
    low = max(row["mean"] - row["half width"], 0.0) * scale
    high = (row["mean"] + row["half width"]) * scale
    return f"{value} (95% interval {low:,.3g} to {high:,.3g})"


def how_sure(table: pd.DataFrame, near: list[str]) -> str:
    """How sure the recommendation is: the leader's probability of being best, and what
    stands behind the values of ``near`` (the leader and those within noise of it).

    >>> t = pd.DataFrame({"probability best": [0.97, 0.03], "trials": [12, 3]},
    ...                  index=["HB", "DAWA"])
    >>> how_sure(t, ["HB"])
    'probability best 97%, from 12 trials'
    """
    best = near[0]
    chance = float(table["probability best"].loc[best])
    behind = trials_behind(table, near)
    if math.isnan(chance):
        return f"from {behind}"
    return f"probability best {percent(chance)}, from {behind}"


def card(table: pd.DataFrame, s: Compared) -> str:
    """The recommendation: the algorithm to use (or those within noise of each other), its
    expected error in records per query on the setting's workload at its scale and ε, and
    why, from the records per bin.

    Parameters
    ----------
    table : pandas.DataFrame
        The ranking (:func:`dpui.algorithms.compare.summary`), best first.
    s : Compared
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
        head += f", within noise of each other; lowest so far {best} ({how_sure(table, near)})"
    elif unsure(table):
        head += " (lowest in one trial: choose 2 or more trials to know how sure)"
    else:
        head += f" ({how_sure(table, near)})"
    unit = s.unit()
    errors = "\n".join(f"- {n}: {records(table, n, s.scale)}" for n in near)
    queries = s.query_count()
    total = float(table["mean"].loc[best]) * s.scale * queries
    per_bin = f"With {rounded(s.scale / s.domain)} {unit} per {s.cell}"
    kinds = set(table.loc[near, "data-dependent"])
    if len(kinds) > 1:
        why = (
            f"{per_bin}, both kinds are within noise: learning the data's shape neither "
            "clearly pays nor clearly costs at this N."
        )
    elif kinds == {True}:
        why = (
            f"{per_bin}, noise is large next to the counts: spending part of ε to learn the "
            "data's shape pays at this N."
        )
    else:
        why = (
            f"{per_bin}, noise is small next to the counts: the shape is cheap to describe "
            "with noise, so spending ε to learn it does not pay at this N."
        )
    return (
        f"**Recommendation** at {s.scale_words()}, ε = {s.eps:g}, on {s.workload_words()}: "
        f"{head}.\n\n"
        f"Expected error in **{unit} per query**:\n\n{errors}\n\n"
        f"Over the workload's {queries:,} queries, {best}'s errors add up to about "
        f"{rounded(total)} {unit}. These numbers hold for this N and ε only.\n\n"
        f"**Why:** {why}"
    )


def rounded(value: float) -> str:
    """``value`` to three significant digits, written out with thousands separators.

    >>> rounded(38412.7), rounded(7.0912), rounded(1.23e9)
    ('38,400', '7.09', '1,230,000,000')
    """
    if abs(value) < 100:
        return f"{value:.3g}"
    return f"{float(f'{value:.3g}'):,.0f}"
