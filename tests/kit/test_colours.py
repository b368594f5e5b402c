"""Colour: every palette stays distinguishable under simulated colour-vision deficiency, chart
text has 4.5:1 contrast (presentation mode too), and no series differs by colour alone."""

import itertools

import numpy as np
import plotly.graph_objects as go
import pytest
from colorspacious import cspace_convert

from dpui.errors import figures as error_figures
from dpui.kit import chart_style, present
from dpui.meaning import figures as meaning_figures
from dpui.mechanisms import figures as mechanism_figures
from dpui.tree import figures as tree_figures
from dpui.tree import range_figures

PALETTES = {
    "chart_style.OKABE_ITO (the colorway)": chart_style.OKABE_ITO,
    "errors": error_figures.PALETTE,
    "mechanisms": (
        mechanism_figures.TRUE_COLOUR,
        mechanism_figures.NOISY_COLOUR,
        mechanism_figures.BOUND_COLOUR,
        mechanism_figures.EXACT_COLOUR,
        mechanism_figures.SIMULATED_COLOUR,
        mechanism_figures.MEAN_COLOUR,
    ),
    "tree series": tree_figures.SERIES_COLOURS,
    "tree range": tuple(range_figures.COLOURS.values()),
    "tree range methods": tuple(range_figures.METHOD_COLOURS.values()),
    "meaning": (meaning_figures.D_STYLE["color"], meaning_figures.NEIGHBOUR_STYLE["color"]),
}
DEFICIENCIES = ("protanomaly", "deuteranomaly", "tritanomaly")
MIN_DELTA_E = 9.0
"""Smallest CAM02-UCS distance allowed between two series colours of one palette, with full
dichromacy simulated (Machado et al. 2009, severity 100). Measured: Okabe-Ito 11.0 (its
orange and purple under tritanopia), the range methods' green and grey 9.8 (deuteranopia);
Streamlit's default colorway, used before, had 3.1 (blue and violet under deuteranopia)."""


def _rgb(colour: str) -> np.ndarray:
    h = colour.lstrip("#")
    return np.array([int(h[i : i + 2], 16) for i in (0, 2, 4)]) / 255


def smallest_difference(palette, deficiency):
    """The smallest CAM02-UCS ΔE between two colours of ``palette`` as seen with
    ``deficiency`` (None: normal vision), and that pair."""
    cvd = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
    seen = {
        c: cspace_convert(
            np.clip(cspace_convert(_rgb(c), cvd, "sRGB1"), 0, 1) if deficiency else _rgb(c),
            "sRGB1",
            "CAM02-UCS",
        )
        for c in palette
    }
    return min(
        (float(np.linalg.norm(seen[a] - seen[b])), a, b)
        for a, b in itertools.combinations(palette, 2)
    )


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
@pytest.mark.parametrize("name", PALETTES)
def test_palette_colours_stay_apart_under_colour_vision_deficiency(name, deficiency):
    delta, a, b = smallest_difference(PALETTES[name], deficiency)
    assert delta >= MIN_DELTA_E, f"{name}: {a} and {b} are {delta:.1f} apart with {deficiency}"


def test_the_simulation_finds_a_confusable_pair():
    # red and green of equal lightness: the textbook deuteranope confusion
    assert smallest_difference(("#d62728", "#2ca02c"), None)[0] > 30
    assert smallest_difference(("#d62728", "#7f7f00"), "deuteranomaly")[0] < MIN_DELTA_E


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two sRGB colours."""

    def luminance(colour: str) -> float:
        c = _rgb(colour)
        c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(c @ [0.2126, 0.7152, 0.0722])

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_formula():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def _text_colours(fig: go.Figure) -> set[str]:
    layout = fig.layout
    colours = {layout.font.color, layout.title.font.color, layout.legend.font.color}
    colours |= {layout.legend.title.font.color, layout.hoverlabel.font.color}
    for axis in ("xaxis", "yaxis"):
        colours |= {layout[axis].tickfont.color, layout[axis].title.font.color}
    return colours


@pytest.mark.parametrize("presenting", [False, True])
def test_chart_text_has_at_least_4_5_to_1_contrast(presenting):
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], name="a"))
    fig.update_layout(title="t", xaxis_title="x", yaxis_title="y")
    styled = chart_style.apply(present.stamp(present.style(fig, presenting=presenting), {"n": 4}))
    colours = _text_colours(styled)
    assert None not in colours
    for colour in colours:
        assert contrast(colour, chart_style.PAPER) >= 4.5, colour
    # the settings stamp under the x axis
    assert "color:#666" in styled.layout.xaxis.title.text
    assert contrast("#666666", chart_style.PAPER) >= 4.5


def test_no_two_series_differ_by_colour_alone():
    fig = go.Figure(
        [
            go.Scatter(x=[1, 2], y=[1, 2], name="a"),
            go.Scatter(x=[1, 2], y=[2, 3], name="b"),
            go.Scatter(x=[1, 2], y=[2, 3], name="c", line_dash="dot"),  # set: kept
            go.Scatter(x=[1], y=[1], mode="markers", name="p"),
            go.Scatter(x=[1], y=[2], mode="markers", name="q"),
            go.Bar(x=[1], y=[1], name="u"),
            go.Bar(x=[1], y=[2], name="v"),
        ]
    )
    chart_style.apply(fig)
    dashes = [t.line.dash for t in fig.data if t.type == "scatter" and t.mode is None]
    assert dashes == ["solid", "dash", "dot"]
    symbols = [t.marker.symbol for t in fig.data if t.type == "scatter" and t.mode == "markers"]
    assert len(set(symbols)) == 2 and None not in symbols
    patterns = [t.marker.pattern.shape for t in fig.data if t.type == "bar"]
    assert len(set(patterns)) == 2 and None not in patterns
    # one series alone keeps its plain look
    single = chart_style.apply(go.Figure(go.Scatter(x=[1], y=[1])))
    assert single.data[0].line.dash is None
