"""Validation of the candidate/score table typed on the exponential-mechanism page."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dpcore.mechanisms import ScoreTable, ScoreTableError, parse_score_table


def test_accepts_numbers_and_numeric_text_and_skips_blank_rows():
    table = parse_score_table([" Football ", "Tennis", None, ""], ["30", 8, None, "  "])
    assert isinstance(table, ScoreTable)
    assert table.names == ("Football", "Tennis")
    np.testing.assert_array_equal(table.scores, [30.0, 8.0])


def test_accepts_editor_columns_with_pandas_missing_values():
    frame = pd.DataFrame({"candidate": ["a", "b", pd.NA], "score": ["1e12", "-2.5", None]})
    table = parse_score_table(list(frame["candidate"]), list(frame["score"]))
    np.testing.assert_array_equal(table.scores, [1e12, -2.5])


@pytest.mark.parametrize(
    ("names", "scores", "message"),
    [
        ([], [], "empty"),
        ([None, ""], [None, math.nan], "empty"),
        (["a", "b"], ["1", "lots"], r"Row 2 \('b'\): 'lots' is not a number"),
        (["a", "b"], ["1", None], r"Row 2 \('b'\) has no score"),
        (["a", None], ["1", "2"], "Row 2 has a score but no candidate name"),
        (["a", "b", "a"], [1, 2, 3], "Candidate 'a' appears in rows 1 and 3"),
        (["a", " a "], [1, 2], "appears in rows 1 and 2"),
        (["a"], ["inf"], "not finite"),
        (["a"], [math.inf], "not finite"),
        (["a"], ["nan"], "not finite"),
        (["a", "b"], [1], "different lengths"),
    ],
)
def test_rejects_bad_tables_with_a_clear_message(names, scores, message):
    with pytest.raises(ScoreTableError, match=message):
        parse_score_table(names, scores)


def test_error_is_a_value_error():
    assert issubclass(ScoreTableError, ValueError)
