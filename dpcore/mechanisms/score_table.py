"""Candidates and scores typed by a user, validated before the exponential mechanism sees them.

Every problem raises :class:`ScoreTableError` with a message naming the row and
what is accepted; nothing else escapes :func:`parse_score_table`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray


class ScoreTableError(ValueError):
    """A candidate/score table was rejected; the message says which row and why."""


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Unique candidate names and their finite scores, in table order.

    Attributes
    ----------
    names : tuple of str
        Candidate names, stripped and unique.
    scores : ndarray of float64, shape (len(names),)
        Their scores, finite, with ``max - min`` finite too.
    """

    names: tuple[str, ...]
    scores: NDArray[np.float64]


def parse_score_table(names: Sequence[object], scores: Sequence[object]) -> ScoreTable:
    """Validate two parallel columns (as typed in a table) into a :class:`ScoreTable`.

    Rows where both cells are blank are skipped (a freshly added row). Names
    are stripped; scores may be numbers or numeric text such as ``"1e12"``.

    Parameters
    ----------
    names : sequence
        Candidate name cells; ``None``, NaN and ``pandas.NA`` count as blank.
    scores : sequence
        Score cells, numbers or numeric text, parallel to ``names``.

    Returns
    -------
    ScoreTable
        The kept rows, in table order.

    Raises
    ------
    ScoreTableError
        If the columns differ in length, no row remains, a name or score is blank, a
        score is not a number or not finite, a name appears twice, or the scores span
        more than float64's range.

    Examples
    --------
    >>> parse_score_table(["a", "b", None], ["3", 4.5, None]).scores
    array([3. , 4.5])
    >>> parse_score_table(["a", "a"], [1, 2])
    Traceback (most recent call last):
    ...
    dpcore.mechanisms.score_table.ScoreTableError: Candidate 'a' appears in rows 1 and 2; \
candidate names must be unique.
    """
    if len(names) != len(scores):
        raise ScoreTableError("The name and score columns have different lengths.")
    kept_names: list[str] = []
    kept_scores: list[float] = []
    first_row: dict[str, int] = {}
    for row, (raw_name, raw_score) in enumerate(zip(names, scores, strict=True), start=1):
        name, score_text = _cell_text(raw_name), _cell_text(raw_score)
        if not name and not score_text:
            continue
        if not name:
            raise ScoreTableError(f"Row {row} has a score but no candidate name.")
        if not score_text:
            raise ScoreTableError(f"Row {row} ('{name}') has no score; enter a number.")
        try:
            score = float(score_text)
        except ValueError:
            raise ScoreTableError(
                f"Row {row} ('{name}'): '{score_text[:40]}' is not a number; scores must be "
                "numeric (e.g. 42, -3.5 or 1e6)."
            ) from None
        if not math.isfinite(score):
            raise ScoreTableError(
                f"Row {row} ('{name}'): the score {score_text} is not finite; scores must be "
                "finite numbers."
            )
        if name in first_row:
            raise ScoreTableError(
                f"Candidate '{name}' appears in rows {first_row[name]} and {row}; candidate "
                "names must be unique."
            )
        first_row[name] = row
        kept_names.append(name)
        kept_scores.append(score)
    if not kept_names:
        raise ScoreTableError("The table is empty: add at least one candidate and its score.")
    if not math.isfinite(max(kept_scores) - min(kept_scores)):
        raise ScoreTableError(
            "The highest and lowest scores differ by more than 1.7e308, beyond floating-point "
            "range; keep the scores within a range of 1e308."
        )
    return ScoreTable(tuple(kept_names), np.array(kept_scores, dtype=np.float64))


def _cell_text(cell: object) -> str:
    """A cell as stripped text; None, NaN and pandas' NA (empty editor cells) are blank."""
    if isinstance(cell, str):
        return cell.strip()
    if cell is None or cell is pd.NA or (isinstance(cell, float) and math.isnan(cell)):
        return ""
    return str(cell).strip()
