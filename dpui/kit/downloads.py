"""The one way pages offer results as CSV files.

A table's CSV is written only when its button is clicked (Streamlit calls the
``data`` callable then, on its own thread), so a rerun never pays for a file
nobody downloads. Text cells are neutralised against spreadsheet formula
injection: a cell from an upload such as ``=HYPERLINK("http://attacker")`` would
otherwise run as a formula when the CSV is opened in a spreadsheet.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet read a text cell as a formula (OWASP)."""


def neutralised(value: Any) -> Any:
    """A text ``value`` starting like a formula gets a leading apostrophe, which spreadsheets
    show as text; anything else (numbers included, so -1.5 stays a number) is unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def safe_csv(table: pd.DataFrame) -> str:
    """``table`` as CSV with every text cell and column name :func:`neutralised`."""
    out = table.copy(deep=False)
    for column in out.select_dtypes(include=["object", "string", "category"]).columns:
        out[column] = out[column].astype(object).map(neutralised)
    out.columns = [neutralised(c) for c in out.columns]
    return out.to_csv(index=False)


def _made_csv(make: Callable[[], pd.DataFrame]) -> str:
    return safe_csv(make())


def csv_button(
    label: str,
    data: pd.DataFrame | Callable[[], pd.DataFrame] | str,
    file_name: str,
    *,
    where: Any = st,
) -> None:
    """A download button for ``data`` in container ``where``: a table, or a function making
    one (both written as :func:`safe_csv` when clicked), or numeric CSV text already made."""
    content: Any = data
    if isinstance(data, pd.DataFrame):
        content = partial(safe_csv, data)
    elif callable(data):
        content = partial(_made_csv, data)  # the table too is made on the click
    where.download_button(
        label, content, file_name=file_name, mime="text/csv", icon=":material/download:"
    )
