"""Support for the overview page: its prose and the dataset preview figure."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go

from dpcore.histogram import Histogram
from dpui.tree_figures import histogram_comparison

ASSETS = Path(__file__).resolve().parent.parent / "assets"


def intro() -> str:
    return (ASSETS / "home.md").read_text(encoding="utf-8")


def preview(hist: Histogram) -> go.Figure:
    return histogram_comparison({hist.name: hist.counts}, hist.labels)
