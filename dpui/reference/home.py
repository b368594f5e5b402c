"""Support for the overview page: its prose and the dataset preview figure."""

from __future__ import annotations

import plotly.graph_objects as go

from dpcore.histogram import Histogram
from dpui.kit import references
from dpui.tree.figures import histogram_comparison


def intro() -> str:
    return references.prose("home.md")


def preview(hist: Histogram) -> go.Figure:
    return histogram_comparison({hist.name: hist.counts}, hist.labels)
