"""Bundled example histograms: synthetic CSVs in ``assets/examples`` and gapminder populations."""

from __future__ import annotations

from pathlib import Path

import plotly.express as px
import streamlit as st

from dpcore.histogram import Histogram, from_counts, parse_histogram

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "assets" / "examples"

GAPMINDER = "gapminder-pop-2007"
DESCRIPTIONS = {
    "teaching-16": "16 bins of small counts (synthetic), readable node by node",
    "bimodal-1024": "two bumps over 1,024 bins (synthetic, 50,000 people)",
    "zipf-4096": "heavy-tailed sorted counts over 4,096 bins (synthetic)",
    "spiky-65536": "65,536 bins, mostly zero with 300 spikes (synthetic)",
    GAPMINDER: "population of 142 countries in 2007, in thousands (gapminder, ships with plotly)",
}
NAMES: tuple[str, ...] = tuple(DESCRIPTIONS)
DEFAULT = "bimodal-1024"


@st.cache_resource(show_spinner=False)
def load(name: str) -> Histogram:
    """The bundled histogram ``name`` (one of :data:`NAMES`); shared and never mutated."""
    if name == GAPMINDER:
        table = px.data.gapminder()
        year = table[table["year"] == 2007].sort_values("country")
        thousands = (year["pop"] / 1000).round()
        return from_counts(thousands.to_numpy(), GAPMINDER, tuple(year["country"]))
    return parse_histogram((EXAMPLES_DIR / f"{name}.csv").read_bytes(), name=name)
