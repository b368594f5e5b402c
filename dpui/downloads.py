"""The one way pages offer results as CSV files."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st


def csv_button(label: str, data: pd.DataFrame | str, file_name: str, *, where: Any = st) -> None:
    """A download button for ``data`` (a table, or CSV text already made) in container ``where``."""
    text = data.to_csv(index=False) if isinstance(data, pd.DataFrame) else data
    where.download_button(
        label, text, file_name=file_name, mime="text/csv", icon=":material/download:"
    )
