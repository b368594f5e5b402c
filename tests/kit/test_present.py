"""Presentation mode, export stamp and chart legibility, tested on the figure factories' output."""

import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import tree
from dpui.algorithms import figures as algorithm_figures
from dpui.errors import figures as errors_figures
from dpui.kit import legend_rows, plot_axes, present
from dpui.ldp import figures as ldp_figures
from dpui.mechanisms import figures as mechanisms_figures
from dpui.tree import figures as tree_figures


def _error_table(n_algorithms: int) -> pd.DataFrame:
    lengths = 2.0 ** np.arange(6)
    return pd.DataFrame(
        {
            "algorithm": np.repeat([f"Algo {i} (variant, BLUE)" for i in range(n_algorithms)], 6),
            "range length": np.tile(lengths, n_algorithms),
            "exact": np.tile(2 * lengths, n_algorithms),
            "empirical": np.tile(2.1 * lengths, n_algorithms),
            "ci": 0.1,
        }
    )


def test_error_legend_has_one_entry_per_algorithm_in_rows_between_title_and_plot() -> None:
    fig = errors_figures.exact_vs_empirical(
        _error_table(7), x="range length", title="MSE", x_title="L"
    )
    shown = [t for t in fig.data if t.showlegend is not False]
    assert len(shown) == 7  # the simulated points share their algorithm's entry
    assert {t.legendgroup for t in fig.data} == {t.legendgroup for t in shown}
    assert "simulated" in fig.layout.title.subtitle.text
    styled = present.style(fig, presenting=False)
    legend, title = styled.layout.legend, styled.layout.title
    # in rows (they wrap to a phone's width), pinned under the title and subtitle, in pixels
    # from the top; a container-placed legend pushes the plot down, so nothing overlaps
    assert legend.orientation == "h" and legend.yref == "container" == title.yref
    height = styled.layout.height
    # the legend's rows at a phone's width: seven entries of two lines ("Algo 0", "(variant,
    # BLUE)"), two to a row (each 0.55 em a character plus its symbol: 149 px of 300), each
    # row two lines of 1.4 em and a 3-px gap
    assert height == pytest.approx(450 + 4 * (2 * 1.4 * 12 + 3))
    top_of_legend = (1 - legend.y) * height
    assert top_of_legend == pytest.approx(legend_rows.TOP_PX + legend_rows.heading_px(styled))
    assert (1 - title.y) * height == pytest.approx(legend_rows.TOP_PX)


def test_presenting_puts_the_legend_under_the_enlarged_title_and_subtitle() -> None:
    """Issue 22 (6): on a projector the title and subtitle grow, and a fixed allowance put
    the legend over the subtitle. The legend starts below both at their presented sizes
    (1.4 line heights each)."""
    fig = errors_figures.exact_vs_empirical(
        _error_table(5), x="range length", title="MSE", x_title="L"
    )
    styled = present.style(fig, presenting=True)
    title, font = styled.layout.title, styled.layout.font.size
    assert title.font.size > 16 and font > 12  # enlarged
    needed = 1.4 * title.font.size + 1.4 * (title.subtitle.font.size or font)
    top_of_legend = (1 - styled.layout.legend.y) * styled.layout.height
    assert top_of_legend >= legend_rows.TOP_PX + needed


def test_a_presented_legend_of_many_rows_stays_beside_the_plot() -> None:
    """Issue 35: on a projector Error analysis' five two-line entries took two rows (100 px)
    above a 171-px plot; beside it they take a share of the width instead."""
    names = [f"Method {i}<br>({'a long description of the method ' * 2})" for i in range(5)]
    fig = go.Figure([go.Scatter(y=[1, 2], name=name) for name in names])
    styled = present.style(fig, presenting=True)
    assert styled.layout.legend.orientation is None and styled.layout.legend.y is None
    assert styled.layout.height == present.PRESENT_HEIGHT  # no rows added
    # one line an entry: five of two lines ran past the plot, and the legend scrolled
    assert [t.name for t in styled.data] == [f"Method {i}" for i in range(5)]
    assert [t.name for t in fig.data] == names  # the figure given is not changed


def test_a_presented_legend_too_tall_to_stand_beside_the_plot_goes_on_top() -> None:
    """Beside the plot, Key-value LDP's nine entries ran past its height and the legend
    scrolled "central DP (Laplace)", the entry a lesson step names, out of view."""
    names = [f"Method {i}<br>({'a long description of the method ' * 2})" for i in range(9)]
    fig = go.Figure([go.Scatter(y=[1, 2], name=name) for name in names])
    styled = present.style(fig, presenting=True)
    assert 9 * (1.4 * present.PRESENT_TICK_FONT + 3) > legend_rows.BESIDE_HEIGHT_PX
    assert styled.layout.legend.orientation == "h"
    assert styled.layout.height == present.PRESENT_HEIGHT + legend_rows.PRESENT_LEGEND_PX


def test_a_phones_legend_rows_are_counted_from_its_entries_and_title() -> None:
    """Issue 35: Key-value LDP's nine entries beside the legend's title took one row each
    on a phone (181 px), and 12 px an entry left its plot 150 px of a 517-px chart."""
    names = ["central DP (Laplace)"] + [f"mechanism {i}" for i in range(8)]
    fig = go.Figure([go.Scatter(y=[1, 2], name=name) for name in names])
    fig.update_layout(legend_title_text="mechanism")
    styled = present.style(fig, presenting=False)
    # the widest entry (20 characters at 0.55 em of 12 px, and a 50-px symbol: 182 px) does
    # not fit twice beside the title (9 characters and 10 px) in 300 px: one row each, of one
    # line of 1.4 em and a 3-px gap
    assert 0.55 * 12 * 20 + 50 > (300 - (0.55 * 12 * 9 + 10)) / 2
    assert styled.layout.height == pytest.approx(450 + 9 * (1.4 * 12 + 3))


def test_a_presented_title_gets_room_for_its_enlarged_size() -> None:
    """Issue 35: a figure's own 40-px top margin cut the top of its title at the projector's
    24 px."""
    fig = mechanisms_figures.probabilities_vs_frequencies(
        ("a", "b"), np.array([0.5, 0.5]), np.array([4, 6]), 10
    )
    assert fig.layout.margin.t is not None
    styled = present.style(fig, presenting=True)
    title = styled.layout.title
    needed = 1.4 * title.font.size + 6 + 1.4 * (title.subtitle.font.size or styled.layout.font.size)
    assert styled.layout.margin.t >= needed


def test_long_entry_names_under_the_laplace_bars_are_cut_short() -> None:
    """Issue 35: written upright under 40 bars, "Central African Republic" took 230 px of a
    505-px projected chart and left the noise panel 45 px high."""
    names = ("Central African Republic", "Bosnia and Herzegovina", "Chad")
    values = np.array([1.0, 2.0, 3.0])
    fig = mechanisms_figures.true_vs_noisy(names, values, values + 1)
    shown = list(fig.data[0].x)
    assert shown[2] == "Chad"
    assert all(len(name) <= mechanisms_figures.LABEL_CHARS for name in shown)
    assert shown[0].startswith("Central Afri") and shown[0].endswith("…")


def test_a_legend_placed_by_its_figure_stays_where_it_is() -> None:
    fig = go.Figure([go.Scatter(y=[1, 2], name="a"), go.Scatter(y=[2, 1], name="b")])
    fig.update_layout(legend={"orientation": "h", "y": 1.1})
    styled = present.style(fig, presenting=False)
    assert styled.layout.legend.y == 1.1 and styled.layout.height is None
    single = present.style(go.Figure(go.Scatter(y=[1], name="a")), presenting=False)
    assert single.layout.legend.orientation is None  # one entry: no legend rows to make


def test_log_ticks_are_decades_or_plain_numbers() -> None:
    assert present.log_ticks(1e-4, 1e1)["dtick"] == 1  # six decades labelled
    assert present.log_ticks(1e-7, 1.0)["dtick"] == 2  # eight: every other one
    assert present.log_ticks(1e-12, 1e3)["dtick"] == 3
    narrow = present.log_ticks(0.4, 3.2)
    assert narrow["ticktext"] == ["0.5", "1", "2"]
    assert all(0.4 <= v <= 3.2 for v in narrow["tickvals"])


def test_style_removes_si_prefixes_and_ticks_log_axes() -> None:
    fig = go.Figure(go.Scatter(x=[1e-6, 1e-4], y=[0.4, 3.2]))
    fig.update_yaxes(type="log")
    out = present.style(fig, presenting=False)
    assert out.layout.xaxis.exponentformat == "none"  # 0.0001, never '100µ'
    assert out.layout.yaxis.exponentformat == "power"
    assert list(out.layout.yaxis.ticktext) == ["0.5", "1", "2"]
    assert fig.layout.xaxis.exponentformat is None  # the input is not changed


def test_kv_eps_axis_is_ticked_at_the_grid() -> None:
    grid = [0.4, 0.8, 1.6, 3.2]
    summary = pd.DataFrame(
        {
            "mechanism": "A",
            "eps": grid,
            "t": 20,
            "mse_freq": [1.0, 0.5, 0.2, 0.1],
            "mse_freq_lo": np.nan,
            "mse_freq_hi": np.nan,
        }
    )
    fig = ldp_figures.error_vs_eps(summary, "mse_freq", 20)
    assert list(fig.layout.xaxis.tickvals) == grid
    assert list(fig.layout.xaxis.ticktext) == ["0.4", "0.8", "1.6", "3.2"]


def test_presenting_enlarges_fonts_and_lines() -> None:
    fig = errors_figures.exact_vs_empirical(
        _error_table(2), x="range length", title="MSE", x_title="L"
    )
    out = present.style(fig, presenting=True)
    assert out.layout.xaxis.title.font.size >= 18 and out.layout.yaxis.tickfont.size >= 18
    lines = [t for t in out.data if "lines" in (t.mode or "")]
    assert lines and all(t.line.width >= present.PRESENT_LINE for t in lines)


def test_stamp_names_every_setting_under_the_lowest_x_axis() -> None:
    settings = {"dataset": "zipf-4096", "n": 4096, "ε": 0.5, "tree": "16-ary", "seed": 3}
    fig = mechanisms_figures.true_vs_noisy(("a", "b"), np.array([1.0, 2.0]), np.array([1.5, 2.5]))
    out = present.stamp(fig, settings)
    text = out.layout.xaxis2.title.text  # the noise panel is the lower one
    for part in ("dataset: zipf-4096", "n = 4,096", "ε = 0.5", "tree: 16-ary", "seed: 3"):
        assert part in text
    assert not out.layout.xaxis.title.text


def test_stamp_on_a_figure_without_axes_is_an_annotation() -> None:
    t = tree.kary_tree(16, 2)
    nodes = tree_figures.visible_nodes(t, 0, 15)
    fig = tree_figures.tree_icicle(
        t, nodes, 0, 15, np.arange(t.size, dtype=float), "c", {"p": np.ones(t.size)}
    )
    out = present.stamp(fig, {"n": 16})
    assert out.layout.annotations[-1].text.endswith("n = 16</span>")


def test_a_stamp_under_an_axis_free_figure_stays_below_it_when_presenting() -> None:
    """Issue 22 (6): presenting enlarged the figure's font, and with it the stamp's line
    height, so its first line ran over the tree's leaf row. The annotation's own font is
    the stamp's, and the room below the plot holds every line at 1.3 times that size."""
    t = tree.kary_tree(16, 2)
    nodes = tree_figures.visible_nodes(t, 0, 15)
    fig = tree_figures.tree_icicle(
        t, nodes, 0, 15, np.arange(t.size, dtype=float), "c", {"p": np.ones(t.size)}
    )
    settings = {"dataset": "bimodal-1024", "tree": "a long description " * 4, "seed": 3}
    out = present.style(present.stamp(fig, settings), presenting=True)
    note = out.layout.annotations[-1]
    lines = note.text.count("<br>") + 1
    assert lines >= 2 and note.font.size == present.STAMP_FONT
    assert out.layout.margin.b >= lines * present.STAMP_FONT * 1.3


def test_the_icicle_colour_bar_is_wider_than_its_title_on_a_phone() -> None:
    """Issue 22 (6): the bar was a fraction of the plot (about 110 px on a phone), and its
    title, centred over it, ran off the left edge. It is now a fixed width in pixels, wider
    than its title at the projector's font (about 0.55 em per character)."""
    t = tree.kary_tree(16, 2)
    nodes = tree_figures.visible_nodes(t, 0, 15)
    label = "coverage probability p_x"
    fig = tree_figures.tree_icicle(
        t, nodes, 0, 15, np.arange(t.size, dtype=float), label, {"p": np.ones(t.size)}
    )
    bar = fig.data[0].marker.colorbar
    assert bar.lenmode == "pixels"
    assert bar.len >= 0.55 * present.PRESENT_AXIS_FONT * len(label)


def test_icicle_constant_colour_is_one_value_and_narrow_nodes_lose_borders() -> None:
    t = tree.kary_tree(1024, 2)
    nodes = tree_figures.visible_nodes(t, 0, 1023)
    fig = tree_figures.tree_icicle(
        t, nodes, 0, 1023, np.full(t.size, 28.3), "noise std", {"p": np.ones(t.size)}
    )
    assert fig.data[0].marker.showscale is False
    assert "28.3" in fig.layout.title.text
    widths = np.asarray(fig.data[0].marker.line.width)
    node_px = (t.hi[nodes] - t.lo[nodes] + 1) / 1024 * tree_figures.CHART_PX
    assert np.all(widths[node_px < tree_figures.MIN_BORDERED_PX] == 0)
    assert np.all(widths[node_px >= tree_figures.MIN_BORDERED_PX] > 0)
    varied = tree_figures.tree_icicle(
        t, nodes, 0, 1023, np.arange(t.size, dtype=float), "p", {"p": np.ones(t.size)}
    )
    assert varied.data[0].marker.showscale is True


def test_histogram_zoom_numbers_bins_from_the_window_and_uses_three_colours() -> None:
    counts = np.arange(100.0)
    fig = tree_figures.histogram_comparison(
        {"true": counts, "noisy": counts + 1, "consistent": counts}, None, first=401
    )
    assert fig.data[0].x[0] == 401
    assert len({t.line.color for t in fig.data}) == 3


def test_laplace_noise_is_drawn_on_its_own_axis() -> None:
    true = np.array([1e6, 2e6, 3e6])
    fig = mechanisms_figures.true_vs_noisy(("a", "b", "c"), true, true + np.array([0.5, -1.0, 2.0]))
    noise = next(t for t in fig.data if t.name == "noise")
    np.testing.assert_allclose(noise.y, [0.5, -1.0, 2.0])
    assert noise.yaxis == "y2"


@pytest.mark.parametrize("value", [1.0, 2.0])
def test_laplace_sensitivity_text_follows_delta_f(value: float) -> None:
    from dpui.mechanisms import laplace as mechanisms_laplace

    text = mechanisms_laplace.sensitivity_text(value, gapminder=False)
    assert ("Here Δf = 2" in text) == (value == 2.0)
    assert "country" not in text


def test_presentation_mode_from_the_link_collapses_prose_and_stacks_columns() -> None:
    at = AppTest.from_file("../../pages/laplace.py", default_timeout=60)
    at.query_params["present"] = "1"
    at.run()
    assert not at.exception
    assert at.toggle(key=present.PRESENT.name).value is True
    assert any(e.label == "Explanation" for e in at.expander)
    plain = AppTest.from_file("../../pages/laplace.py", default_timeout=60).run()
    assert not any(e.label == "Explanation" for e in plain.expander)
    assert len(at.columns) < len(plain.columns)  # figures full width, text below


def test_export_format_switch_reaches_the_chart_config() -> None:
    at = AppTest.from_file("../../pages/home.py", default_timeout=60).run()
    at.segmented_control(key=present.EXPORT.name).set_value("svg").run()
    assert not at.exception
    assert at.query_params["export"] == "svg"


def test_icicle_stops_before_a_level_of_sub_pixel_nodes() -> None:
    t = tree.kary_tree(1024, 2)
    nodes = tree_figures.visible_nodes(t, 0, 1023)
    per_level = np.bincount(t.depth[nodes])
    assert per_level.max() <= tree_figures.MAX_LEVEL_NODES
    assert len(per_level) < t.height  # the caption then says deeper levels are not drawn
    zoomed = tree_figures.visible_nodes(t, 0, 63)
    assert t.depth[zoomed].max() == t.height - 1  # zoomed in, the leaves are drawn


def test_a_long_stamp_wraps_at_its_separators() -> None:
    text = present.settings_text({f"setting{i}": "value" * 3 for i in range(6)})
    fig = present.stamp(go.Figure(go.Scatter(x=[1], y=[1])), {"s": text})
    lines = fig.layout.xaxis.title.text.split("<br>")
    assert len(lines) > 1
    assert all(len(line) < present.STAMP_WIDTH + 60 for line in lines)  # + the span markup


def test_tables_show_missing_values_as_a_dash() -> None:
    at = AppTest.from_file("../../pages/matrix_privelet.py", default_timeout=60).run()
    table = at.dataframe[0].value
    assert (table["95% CI ±"].iloc[:3] == "—").all()
    assert float(table["95% CI ±"].iloc[3]) > 0  # the simulation's interval is kept


def test_unselecting_the_download_format_falls_back_to_png() -> None:
    at = AppTest.from_file("../../pages/home.py", default_timeout=60).run()
    at.segmented_control(key=present.EXPORT.name).set_value(None).run()
    assert not at.exception
    at.run()
    assert not at.exception and at.segmented_control(key=present.EXPORT.name).value == "png"


def test_pages_without_charts_have_no_download_format() -> None:
    at = AppTest.from_file("../../pages/glossary.py", default_timeout=60).run()
    assert not at.exception and not at.segmented_control


def test_reserved_margins_widen_and_never_narrow():
    """Left: y tick labels ('12,345') and title; bottom: x ticks and a two-line title; a
    margin already wider is kept; a heatmap gets room for its colour bar's labels."""
    fig = go.Figure(go.Bar(x=[1, 2], y=[0.0, 12_345.0]))
    fig.update_layout(margin={"l": 10, "b": 10, "r": 10}, yaxis_title="count")
    fig.update_xaxes(title_text="bin<br>n = 2")
    plot_axes.reserve_margins(fig)
    digits = plot_axes.DIGIT_EM * plot_axes.TICK_FONT * len("12,345")
    assert fig.layout.margin.l >= digits + plot_axes.LINE_EM * plot_axes.TITLE_FONT
    assert fig.layout.margin.b >= 3 * plot_axes.LINE_EM * plot_axes.TICK_FONT
    assert fig.layout.margin.r == 10  # no colour bar
    wide = go.Figure(go.Bar(x=[1, 2], y=[1.0, 2.0]))
    wide.update_layout(margin={"l": 300, "b": 300})
    plot_axes.reserve_margins(wide)
    assert (wide.layout.margin.l, wide.layout.margin.b) == (300, 300)
    heat = go.Figure(go.Heatmap(z=[[-0.25, 1.0], [3.5, 0.0]]))
    heat.update_layout(margin={"r": 10})
    plot_axes.reserve_margins(heat)
    assert heat.layout.margin.r >= plot_axes.COLOUR_BAR_PX + 4 * plot_axes.DIGIT_EM * 12


def test_a_title_over_a_top_colour_bar_gets_its_own_room_at_the_top():
    """Issue 35: the custom tree's icicle (a colour bar above the plot) with a title: the title
    was cut 42 px at a projector's top. The top margin holds the bar and the title, the
    title pinned to the figure's top; without a title the bar's room alone is kept."""
    t = tree.kary_tree(4, 2)
    nodes = np.arange(t.size)
    coloured = np.linspace(0.1, 0.3, t.size)
    fig = tree_figures.tree_icicle(t, nodes, 0, 3, coloured, "p_x", {"p_x": coloured})
    assert fig.data[0].marker.colorbar.y < 1  # where Plotly would lift the title
    plot_axes.reserve_margins(fig)
    assert fig.layout.margin.t == plot_axes.TOP_COLOUR_BAR_PX
    fig.update_layout(title="Your tree")
    plot_axes.reserve_margins(fig)
    title_px = legend_rows.heading_px(fig)
    assert fig.layout.margin.t >= plot_axes.TOP_COLOUR_BAR_PX + legend_rows.TOP_PX + title_px
    assert (fig.layout.title.yref, fig.layout.title.yanchor) == ("container", "top")
    assert fig.layout.title.y * fig.layout.height == pytest.approx(
        fig.layout.height - legend_rows.TOP_PX
    )


def test_category_axes_are_left_to_plotly():
    """Names cannot be measured here: no margin is reserved for them."""
    fig = go.Figure(go.Bar(x=["Bosnia and Herzegovina", "Chad"], y=["a", "b"]))
    fig.update_layout(margin={"l": 10, "b": 10})
    plot_axes.reserve_margins(fig)
    assert (fig.layout.margin.l, fig.layout.margin.b) == (10, 10)


class _Markup(HTMLParser):
    """Each element's tag, attributes and text, as a browser's parser would read them."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None], list[str]]] = []
        self._open: list[list[str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs), []))
        self._open.append(self.elements[-1][2])

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1].append(data)


def _parsed(body: str) -> list[tuple[str, dict[str, str | None], list[str]]]:
    markup = _Markup()
    markup.feed(body)
    return markup.elements


def _chart_with_a_hostile_title() -> None:
    import plotly.graph_objects as go

    from dpui.kit import present

    fig = go.Figure(go.Bar(x=["a"], y=[1]), layout_title_text='Say "hi" <b>&</b> <i>bye</i>')
    present.show_chart(fig, {}, key="k_1", alt='A "finding" <img src=x>.')


def test_a_charts_text_alternative_names_its_download_and_title_as_inert_text() -> None:
    """slide_alt.js finds a chart's text by its download's name and reads its title from an
    attribute: both must survive quotes and markup in a title as text, never as markup."""
    at = AppTest.from_function(_chart_with_a_hostile_title).run()
    assert not at.exception
    (html_element,) = at.get("html")
    described = [e for e in _parsed(html_element.proto.body) if "data-dp-alt-for" in e[1]]
    assert len(described) == 1
    tag, attrs, text = described[0]
    assert tag == "p" and attrs["class"] == "dp-sr-only"
    assert attrs["data-dp-alt-for"] == "dp-explorer-k_1"  # Plotly's file name, less its suffix
    assert attrs["data-dp-alt-title"] == 'Say "hi" & bye'
    assert "".join(text).startswith('A "finding" <img src=x>. Chart: Say "hi" & bye.')


def test_the_frames_scripts_survive_streamlits_sanitizer() -> None:
    """Streamlit's DOMPurify drops a script whose text has '<' before a letter, '/' or '!' (its
    mXSS guard), comments included: every script of the frame (copy link, focusable
    scrollers, the slide export's alt text) must have none."""
    at = AppTest.from_file("../../pages/glossary.py", default_timeout=60).run()
    bodies = [e.proto.body for e in at.get("html")]
    parsed = [element for body in bodies for element in _parsed(body)]
    scripts = ["".join(text) for tag, _, text in parsed if tag == "script"]
    assert any("dpSlideAltInstalled" in s for s in scripts)
    assert any("dp-copy-link" in s for s in scripts)
    assert [s[:60] for s in scripts if re.search(r"<[/\w!]", s)] == []


@pytest.mark.parametrize(("extra", "too_long"), [(10, False), (3000, True)])
def test_the_qr_code_of_a_link_too_long_for_one_says_so_instead_of_failing(extra, too_long):
    """A link over about 2,330 characters raised segno's DataOverflowError (issue 37, M4)."""
    at = AppTest.from_file("../../pages/laplace.py", default_timeout=120)
    at.query_params["note"] = "x" * extra  # a setting the page does not read stays in its link
    at.run()
    at.button(key="_qr_show").click().run()
    assert not at.exception, at.exception
    said = [w.value for w in at.warning if "too long for a QR code" in w.value]
    assert bool(said) == too_long
    drawn = any("Scan to open this view" in c.value for c in at.caption)
    assert drawn != too_long  # the code is drawn exactly when it fits
    if too_long:
        length = int(re.search(r"link is ([\d,]+) characters", said[0])[1].replace(",", ""))
        assert extra < length < extra + 600  # the address and the page's own settings


def _ranking(algorithms: int) -> go.Figure:
    table = pd.DataFrame(
        {
            "mean": np.linspace(0.1, 1.0, algorithms),
            "half width": 0.05,
            "how": "mean of 3 trials",
            "closed form": np.nan,
            "data-dependent": True,
        },
        index=[f"Algorithm {i}" for i in range(algorithms)],
    )
    return algorithm_figures.ranking(table)


def test_a_presented_ranking_gives_each_name_a_rows_height_up_to_what_a_projector_holds():
    """13 algorithms in a 480-px presented ranking had 12 px each and their names printed
    over each other: a category axis now gets ``PRESENT_ROW_PX`` a name, the chart growing
    from ``PRESENT_HEIGHT`` to at most ``PRESENT_MAX_HEIGHT`` (and a presented legend's
    rows); a numeric axis keeps ``PRESENT_HEIGHT``."""
    assert present.PRESENT_ROW_PX >= 1.3 * present.PRESENT_TICK_FONT  # a label and a gap
    few = present.style(_ranking(3), presenting=True)
    assert few.layout.height == present.PRESENT_HEIGHT
    ten = present.style(_ranking(10), presenting=True)
    assert ten.layout.height == 10 * present.PRESENT_ROW_PX + present.PRESENT_CHROME_PX
    many = present.style(_ranking(13), presenting=True)
    assert many.layout.height == present.PRESENT_MAX_HEIGHT
    numeric = present.style(go.Figure(go.Scatter(x=[1, 2], y=[3, 4])), presenting=True)
    assert numeric.layout.height == present.PRESENT_HEIGHT
    assert _ranking(13).layout.height == present.style(_ranking(13), presenting=False).layout.height


def test_a_presented_stamp_wraps_at_the_projectors_width():
    """Wrapped for a phone, Which algorithm's stamp took five lines of a presented chart,
    each at the 20-px axis title's line height: presenting wraps it at
    ``PRESENT_STAMP_WIDTH`` characters."""
    settings = {f"setting{i}": "value" * 3 for i in range(6)}  # 6 x 26 characters
    shown = present._style(go.Figure(go.Scatter(x=[1], y=[1])), settings, False).figure
    presented = present._style(go.Figure(go.Scatter(x=[1], y=[1])), settings, True).figure
    assert shown.layout.xaxis.title.text.count("<br>") + 1 == 6  # one setting a line
    assert presented.layout.xaxis.title.text.count("<br>") + 1 == 2  # three a line
