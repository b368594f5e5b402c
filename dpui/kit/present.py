"""Presentation mode and slide-ready export: the one place every page draws its frame and charts.

A page opens with :func:`header` (title, its "What to notice" sentence, and a toolbar:
presentation toggle kept in the URL as ``present=1``, chart download format, "Copy link"),
draws every chart with :func:`show_chart` and its long prose with :func:`prose`.
Presenting means larger chart fonts (axis labels >= 18 px), thicker lines, prose
collapsed and figures full width (:func:`columns` stacks side-by-side blocks).
Every chart downloads through Plotly's own client-side button at slide resolution with
the settings that produced it stamped on the figure and its text alternative written into the
file (``slide_alt.js``).

:func:`style` and :func:`stamp` are pure figure functions (tested without Streamlit).
"""

from __future__ import annotations

import html
import importlib.resources
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import urlencode, urlsplit, urlunsplit

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpui.kit import (
    chart_style,
    chart_text,
    legend_rows,
    plot_axes,
    plot_once,
    qr,
    references,
    state,
    styled_once,
)
from dpui.kit.params import BoolParam, ChoiceParam
from dpui.serve import reconnect

PRESENT = BoolParam("present", False)
EXPORT = ChoiceParam("export", "png", ("png", "svg"))
PARAMS = (PRESENT, EXPORT)

# slide export: laid out at 1280x720 CSS px, PNG rendered at 1.5x = 1920x1080 px
SLIDE_WIDTH, SLIDE_HEIGHT, PNG_SCALE = 1280, 720, 1.5
PRESENT_AXIS_FONT, PRESENT_TICK_FONT, PRESENT_LINE, PRESENT_HEIGHT = 20, 18, 4.0, 480
KEEP_HEIGHT = {"dp": "keep height"}
"""A figure's ``layout.meta`` when its height is computed from its content (a row per
method, a panel per part): presenting keeps it (squeezed to one projector height its rows
and labels print over each other); such a figure is never a page's main figure."""
TICK_ROOM_PX = 12
"""Room between a presented title and the plot: half of the top tick label, which is centred
on the plot's top edge, and a gap (a subtitle printed over the y axis' top label)."""
STAMP_FONT, STAMP_WIDTH = 11, 44
"""The settings stamp's font size and the characters of its lines: at about 7 px a character,
44 fit under the 200-px plot of Spatial data's heatmap on a 390-px phone (60 ran 27 px past
the chart's edge)."""
PRESENT_STAMP_WIDTH = 160
"""The stamp's characters per line while presenting: a projector's chart is 1,120 px wide
(about 900 px for 160 characters), and each line takes one of the 20-px axis title's (26 px):
wrapped for a phone, Which algorithm's stamp took 5 lines, 130 px of a 480-px chart."""
PRESENT_ROW_PX, PRESENT_MAX_HEIGHT = 26, 520
"""While presenting, each name on a chart's category axis gets this many pixels of the plot
(an 18-px label and a gap; 13 algorithms in Which algorithm's 480-px ranking had 12 px each,
their names printed over each other), the chart growing up to 520 px: with a presented
legend's rows (``legend_rows.PRESENT_LEGEND_PX``) 560 px, the projector's 720 less the page's
title and toolbar above the chart (157 px)."""
PRESENT_CHROME_PX = 230
"""A presented chart's pixels outside its plot but legend rows: title, ticks, stamp."""
TABLE_HELP = "The chart's text alternative and its data as a table, for screen readers and copying."

_CSS = """
<style>
/* lead with the figure: less empty space above the title, a compact title */
[data-testid="stMainBlockContainer"] { padding-top: 4rem; }
h1 { font-size: 2.1rem !important; padding-top: 0 !important; }
h2 { font-size: 1.45rem !important; }
h3 { font-size: 1.3rem !important; }
[data-testid="stMetricValue"] { font-size: 1.6rem; }
/* WCAG 2.1 AA. Streamlit 1.67 draws captions in the text colour at opacity 0.6 (#828180, 3.9:1
   on white, below SC 1.4.3's 4.5:1): ours are opaque grey at 6:1. A visible focus ring on
   every control (SC 2.4.7): Streamlit removes the outline of several widgets. */
[data-testid="stCaptionContainer"] { opacity: 1 !important; color: #5f6270 !important; }
:focus-visible { outline: 3px solid #1c64f2 !important; outline-offset: 2px !important; }
.dp-nav-section { margin: 0.6rem 0 0 0 !important; font-weight: 600; color: #31333f; }
/* read by screen readers, not drawn (the chart's text alternative) */
.dp-sr-only { position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
/* a QR code over the whole window, for a hall (dpui.kit.qr.overlay) */
.dp-qr-full { position: fixed; inset: 0; z-index: 2147483000; background: #fff; display: flex;
  flex-direction: column; align-items: center; justify-content: center; }
.dp-qr-full img { height: min(88vh, 92vw); width: auto; image-rendering: pixelated; }
.dp-qr-full p { margin: 0.3rem 1rem; text-align: center; max-width: 60rem; }
.st-key-dp-qr-close { position: fixed !important; top: 1rem; right: 1rem; z-index: 2147483001;
  width: auto !important; }
.dp-chart-table { border-collapse: collapse; font-size: 0.85rem; margin-top: 0.5rem; }
.dp-chart-table caption { text-align: left; font-weight: 600; }
.dp-chart-table th, .dp-chart-table td { padding: 0.1rem 0.6rem; text-align: right;
  border-bottom: 1px solid #e6eaf1; }
/* prefers-reduced-motion (SC 2.3.3): no transitions or animations, and the exponential
   mechanism's runs are shown all at once (its Play button, which reveals them batch by batch,
   is hidden) */
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation-duration: 0s !important; animation-iteration-count: 1
    !important; transition-duration: 0s !important; scroll-behavior: auto !important; }
  .st-key-exp_play { display: none !important; }
}
/* phones: the Plotly toolbar would cover titles and legends; formulas wrap */
@media (max-width: 640px) {
  .modebar-container { display: none !important; }
  .katex-display { overflow-x: auto; overflow-y: hidden; }
}
</style>
"""

# larger text everywhere while presenting; the sidebar stays (dataset and eps live there)
# presenting: the figure on the projector, nothing else in the way. The sidebar and the
# settings are hidden (the link keeps every setting; leave presentation mode to change them),
# the frame is compact, body text large, and figures sized to fit 1280x720 under the title
_CSS_PRESENT = """
<style>
[data-testid="stMainBlockContainer"] { max-width: 100% !important; padding-top: 1.2rem !important;
  padding-bottom: 1rem !important; }
[data-testid="stMainBlockContainer"] p, [data-testid="stMainBlockContainer"] li {
  font-size: 1.2rem !important; }
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], .st-key-dp-settings, .st-key-dp-data-line,
[class*="st-key-dp-aside"], .st-key-export {
  display: none !important; }
h1 { font-size: 1.7rem !important; margin-bottom: 0 !important; }
h2, h3 { font-size: 1.3rem !important; padding: 0.2rem 0 !important; }
[data-testid="stHeader"] { height: 0 !important; min-height: 0 !important; }
</style>
"""

# our own fixed script (no user input): copy the page's current address, falling back to a
# selection copy where the clipboard API is refused (plain http on a classroom network).
# Streamlit strips event attributes such as onclick from st.html, but runs its <script>
# (unsafe_allow_javascript), so the script attaches the listener, once per button.
_COPY_LINK = """
<button class="dp-copy-link" type="button" title="Copy this page's link, with its settings">Copy
 link</button>
<script>
document.querySelectorAll('.dp-copy-link').forEach((b) => {
  if (b.dataset.ready) return;
  b.dataset.ready = '1';
  b.addEventListener('click', () => {
    const url = window.location.href;
    const done = () => {
      b.textContent = 'Link copied';
      setTimeout(() => { b.textContent = 'Copy link'; }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(url).then(done);
    } else {
      const t = document.createElement('textarea');
      t.value = url;
      document.body.appendChild(t);
      t.select();
      document.execCommand('copy');
      t.remove();
      done();
    }
  });
});
</script>
<style>.dp-copy-link{border:1px solid rgba(49,51,63,.3);border-radius:.5rem;background:white;
 padding:.3rem .8rem;cursor:pointer;font:inherit}.dp-copy-link:hover{border-color:#ff4b4b}
 .dp-copy-link:focus-visible{outline:2px solid #1c64f2;outline-offset:2px}</style>
"""


# our own fixed script, once per browser tab: a formula wider than its column scrolls
# (Streamlit's KaTeX CSS), and a scrolling region must be reachable by keyboard (WCAG 2.1
# SC 2.1.1, axe-core's scrollable-region-focusable), so each such formula gets tabindex=0
_FOCUSABLE_SCROLLERS = """
<script>
if (!window.dpScrollersWatched) {
  window.dpScrollersWatched = true;
  const mark = () => document.querySelectorAll('.katex-display:not([tabindex])').forEach((el) => {
    if (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight) {
      el.setAttribute('tabindex', '0');
      el.setAttribute('role', 'group');
      el.setAttribute('aria-label', 'formula (scrolls sideways)');
    }
  });
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    setTimeout(() => { queued = false; mark(); }, 200);
  }).observe(document.body, {childList: true, subtree: true});
  window.addEventListener('resize', mark);
  mark();
}
</script>
"""

# our own fixed script, once per browser tab: a chart's download (Plotly's camera button) gets
# the chart's title and text alternative written into the file (an SVG's <title> and <desc>, a
# PNG's iTXt chunks); read from the element of that name that show_chart writes under the chart
_SLIDE_ALT = (
    "<script>\n"
    + importlib.resources.files("dpui.kit").joinpath("slide_alt.js").read_text(encoding="utf-8")
    + "</script>\n"
)


def page_url(key: str) -> str:
    """The address of page ``key`` with the settings now in its link, as the browser shows it
    (the host from the session's own address)."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    query = urlencode(st.query_params.to_dict())
    path = "/" if key == "home" else f"/{key}"
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def qr_code(where: DeltaGenerator, key: str) -> None:
    """A "QR code" popover in the toolbar: the page's link with its settings, for phones
    (:mod:`dpui.kit.qr`)."""
    qr.popover(where, page_url(key), "this view")


def presenting() -> bool:
    return bool(state.get(PRESENT))


class Framed(Protocol):
    """What :func:`header` needs of a page (a :class:`dpui.kit.page.Page`)."""

    @property
    def title(self) -> str: ...
    @property
    def notice(self) -> str: ...
    @property
    def caption(self) -> str: ...
    @property
    def data(self) -> str: ...
    @property
    def charts(self) -> bool: ...
    @property
    def heading(self) -> str: ...


def what_to_notice(notice: str) -> str:
    """A page's "What to notice" sentence as shown, citations resolved."""
    return references.resolve(f"**What to notice:** {notice}")


def header(page: Framed) -> DeltaGenerator:
    """The page's frame: title, what to notice, which data it shows when not the sidebar's,
    and the toolbar (presentation mode, chart download format, copy link, the page's caption
    in an "About this page" popover). Returns the toolbar, so that the runner can add its own
    buttons to it (such as "Pin this view")."""
    st.html(_CSS)
    state.load(PARAMS)
    if st.session_state.get(EXPORT.name) is None:  # a segmented control can be unselected
        st.session_state[EXPORT.name] = EXPORT.default
    if presenting():
        st.html(_CSS_PRESENT)
    st.title(page.heading or page.title)
    if page.notice and not presenting():
        st.markdown(what_to_notice(page.notice))
    if page.data:
        st.container(key="dp-data-line").caption(f"**Data:** {page.data}")
    bar = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    bar.toggle(
        "Presentation mode",
        key=PRESENT.name,
        help="Large chart fonts, thick lines, figures full width, explanations collapsed. "
        "Kept in the link (present=1).",
    )
    if page.charts:
        bar.segmented_control(
            "Chart download",
            EXPORT.options,
            format_func=str.upper,
            key=EXPORT.name,
            label_visibility="collapsed",
            help="Format of each chart's camera button (top right of the chart): PNG at "
            f"{SLIDE_WIDTH * PNG_SCALE:.0f}x{SLIDE_HEIGHT * PNG_SCALE:.0f} px or SVG, "
            "with the settings stamped on the figure.",
        )
    with bar:
        # one element with the other scripts: each st.html is a block of its own, and
        # another above the figure would push it off a 720p projector
        st.html(
            _COPY_LINK + _FOCUSABLE_SCROLLERS + _SLIDE_ALT + reconnect.SCRIPT,
            width="content",
            unsafe_allow_javascript=True,
        )
    if page.notice and presenting():  # one click away: the figure fits a 720p projector
        bar.popover("What to notice", type="tertiary", icon=":material/lightbulb:").markdown(
            what_to_notice(page.notice)
        )
    if page.caption:  # one click away, so that the figure fits above the fold
        about = bar.popover("About this page", type="tertiary", icon=":material/info:")
        about.caption(page.caption)
    state.save(PARAMS)
    return bar


def aside(name: str) -> DeltaGenerator:
    """A container for notes beside the page's figure that presentation mode hides (the
    figure fits the projector; the notes stay on the page outside it)."""
    return st.container(key=f"dp-aside-{name}")


def settings_panel(*, expanded: bool = False) -> DeltaGenerator:
    """The page's controls, collapsible so that the figure shows without scrolling at
    1280x720; the figure's stamp names the current settings while it is closed."""
    return st.container(key="dp-settings").expander(
        "Settings", expanded=expanded, icon=":material/tune:"
    )


def prose(markdown: str, *, label: str = "Explanation") -> None:
    """Long teaching text: shown, or collapsed into an expander while presenting."""
    if presenting():
        st.expander(label).markdown(markdown)
    else:
        st.markdown(markdown)


def columns(spec: Sequence[float]) -> list[DeltaGenerator]:
    """``st.columns(spec)``, or the same blocks stacked full width while presenting."""
    if presenting():
        return [st.container() for _ in spec]
    return list(st.columns(spec))


def section_choice(label: str, param: ChoiceParam, names: Mapping[str, str]) -> str:
    """A one-row choice of the part of the page shown below its main figure, kept in the link
    (``param`` must be loaded like the page's other parameters). Only the chosen part is
    computed and drawn: every chart the browser redraws costs it tenths of a second."""
    chosen = st.segmented_control(
        label,
        tuple(names),
        key=param.name,
        required=True,
        format_func=names.__getitem__,
        help="One part of the page at a time: only the chosen one is computed and drawn.",
    )
    state.save((param,))
    return str(chosen)


def _dash_missing(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def table(data: pd.DataFrame, *, where: DeltaGenerator | None = None, **kwargs: Any) -> None:
    """A results table: missing values as an em dash (Streamlit writes 'None'; a column with
    gaps becomes text for that), and each column wide enough for its header and values, so
    that no header is cut with an ellipsis."""
    shown = data.copy()
    for column in shown.columns:
        if shown[column].isna().any():
            shown[column] = shown[column].map(_dash_missing)

    def width(column: Any) -> int:
        cells = shown[column].head(200).map(lambda v: f"{v:,.4g}" if isinstance(v, float) else v)
        longest = max([len(str(column)), *(len(str(v)) for v in cells)])
        return min(7 * longest + 28, 420)

    config = {str(c): st.column_config.Column(width=width(c)) for c in shown.columns}
    (where or st).dataframe(shown, hide_index=True, column_config=config, **kwargs)


def show_chart(
    fig: go.Figure,
    settings: Mapping[str, Any],
    *,
    key: str,
    where: DeltaGenerator | None = None,
    alt: str = "",
    **events: Any,
) -> None:
    """Draw ``fig`` styled for the screen or the projector, stamped with ``settings``, with
    Plotly's download button set to the chosen slide format; ``events`` (``on_select``,
    ``selection_mode``) go to ``st.plotly_chart``. ``fig`` is styled once for every session
    drawing an identical figure (:mod:`dpui.kit.styled_once`): in place, or on a copy when it
    is shared by many sessions.

    Under the chart, its text alternative (:mod:`dpui.kit.chart_text`; ``alt``, the page's
    own finding in words, first): read by screen readers right after the chart, written into
    the downloaded slide (``slide_alt.js`` finds it by the download's file name), and shown
    with the chart's data as an HTML table when its "Chart data as a table" switch is on."""
    shown = styled_once.styled(fig, settings, presenting(), _style)
    fmt = state.get(EXPORT) or EXPORT.default
    filename = f"dp-explorer-{key}"
    config = {
        "displaylogo": False,
        "toImageButtonOptions": {
            "format": fmt,
            "filename": filename,
            "width": SLIDE_WIDTH,
            "height": SLIDE_HEIGHT,
            "scale": PNG_SCALE if fmt == "png" else 1,
        },
    }
    text = " ".join(part for part in (alt, shown.summary) if part)
    box = (where or st).container()  # one element: ``where`` may be an st.empty slot
    box.plotly_chart(shown.figure, key=key, config=config, theme=None, **events)
    # Plotly's SVG has no role or name, and Streamlit keeps no attributes we could add to its
    # chart element: the description is the next thing a screen reader reads. The same
    # paragraph names the download it describes and the chart's title, for the slide export's
    # script (_SLIDE_ALT), which reads them as text (textContent), never as markup.
    box.html(
        f'<p class="dp-sr-only" data-dp-alt-for="{html.escape(filename)}" '
        f'data-dp-alt-title="{html.escape(shown.title)}">{html.escape(text)}</p>'
    )
    # The data table only on request: up to 200 rows per chart in the page would be DOM the
    # browser rebuilds on every rerun (on the Tree page, 2,600 of its 6,000 elements).
    if box.toggle("Chart data as a table", key=f"_table_{key}", help=TABLE_HELP):
        box.html(
            "<p><strong>Text alternative</strong> (also in the downloaded slide: an SVG's "
            f"description, a PNG's Description text): {html.escape(text)}</p>"
            f"{chart_text.html_table(shown.figure, shown.title or 'Chart data')}"
        )


def _style(fig: go.Figure, settings: Mapping[str, Any], presenting: bool) -> styled_once.Styled:
    """``fig`` styled in place (copying a figure re-validates every value, a tenth of a second
    on a big tree) for the screen or the projector and stamped, described for screen readers."""
    width = PRESENT_STAMP_WIDTH if presenting else STAMP_WIDTH
    fig = chart_style.apply(_add_stamp(_restyle(fig, presenting=presenting), settings, width))
    plot_axes.reserve_margins(fig)
    plot_once.prepare(fig)
    return styled_once.Styled(fig, chart_text.summary(fig), chart_text.plain(fig.layout.title.text))


def _wrap(text: str, width: int) -> list[str]:
    """``text`` split at its ' · ' separators (and inside a long item at ', ') into lines of
    at most ``width`` characters where it can, so that a stamp fits a half-width chart."""
    words: list[str] = []
    for part in text.split(" · "):
        pieces = part.split(", ") if len(part) > width else [part]
        words += [p + "," for p in pieces[:-1]] + pieces[-1:]
    lines: list[str] = []
    for word in words:
        sep = " " if lines and lines[-1].endswith(",") else " · "
        if lines and len(lines[-1]) + len(sep) + len(word) <= width:
            lines[-1] += sep + word
        else:
            lines.append(word)
    return lines


def settings_text(settings: Mapping[str, Any]) -> str:
    """One line naming every setting: ``dataset: zipf-4096 · n = 4,096 · ε = 1``."""
    parts = []
    for name, value in settings.items():
        if value is None or value == "":
            continue
        if isinstance(value, bool):
            shown = "yes" if value else "no"
        elif isinstance(value, int | np.integer):
            shown = f"{int(value):,}"
        elif isinstance(value, float | np.floating):
            shown = f"{float(value):.4g}"
        else:
            shown = str(value)
        sep = " = " if len(name) <= 2 else ": "
        parts.append(f"{name}{sep}{shown}")
    return " · ".join(parts)


def stamp(fig: go.Figure, settings: Mapping[str, Any]) -> go.Figure:
    """A copy of ``fig`` stamped with ``settings`` (see :func:`_add_stamp`)."""
    return _add_stamp(styled_once.copy_of(fig), settings)


def _add_stamp(out: go.Figure, settings: Mapping[str, Any], width: int = STAMP_WIDTH) -> go.Figure:
    """``out`` with ``settings`` written small under it (in place), so that a downloaded image
    says how it was made: as a last line of the lowest x-axis title (axis titles get their
    own room, so it never covers tick labels), or at the bottom of an axis-free figure; in
    lines of at most ``width`` characters where the settings allow."""
    text = settings_text(settings)
    if not text:
        return out
    parts = _wrap(text, width)
    line = "<br>".join(  # the settings' text as text: a name such as <a href=...> stays inert
        f'<span style="font-size:{STAMP_FONT}px;color:#666">{html.escape(part, quote=False)}</span>'
        for part in parts
    )
    axis = plot_axes.bottom_xaxis(out)
    if axis is not None:
        title = out.layout[axis].title.text
        out.layout[axis].title.text = f"{title}<br>{line}" if title else line
        return out
    margin_b = (out.layout.margin.b if out.layout.margin.b is not None else 60) + round(
        len(parts) * STAMP_FONT * 1.4  # every wrapped line gets its own room below the plot
    )
    out.update_layout(margin_b=margin_b)
    out.add_annotation(
        text=line,
        xref="paper",
        yref="paper",
        x=0,
        y=0,
        yshift=-margin_b + 2,  # from the plot's bottom edge down to the figure's
        xanchor="left",
        yanchor="bottom",
        align="left",
        showarrow=False,
        font={"size": STAMP_FONT},  # the line height; presenting enlarges the figure's font
        name="settings",
    )
    return out


def _axis_values(fig: go.Figure, axis: str) -> np.ndarray:
    """Every finite positive value the traces put on layout axis ``axis`` ('xaxis', 'yaxis2')."""
    values = [v[np.isfinite(v) & (v > 0)] for _, v in plot_axes.axis_traces(fig, axis)]
    return np.concatenate(values) if values else np.empty(0)


def log_ticks(lo: float, hi: float) -> dict[str, Any]:
    """Tick settings for a log axis over [lo, hi]: decades (10^k) when it spans one or more,
    fewer past six labels (every other one up to ten decades: 8 printed over each other),
    else 1-2-5 steps labelled as plain numbers (never Plotly's bare '4 5 6 ... 1 2 3')."""
    if hi / lo >= 10:
        step = max(1, math.ceil(math.ceil(math.log10(hi / lo)) / 5))
        return {"dtick": step, "exponentformat": "power", "minor": {"showgrid": False}}
    vals = [
        m * 10.0**k
        for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1)
        for m in (1, 2, 5)
    ]
    inside = [v for v in vals if lo <= v <= hi]
    if len(inside) < 2:  # a very narrow span: its ends
        inside = [lo, hi]
    return {"tickvals": inside, "ticktext": [f"{v:.3g}" for v in inside]}


def style(fig: go.Figure, *, presenting: bool) -> go.Figure:
    """A copy of ``fig`` styled by :func:`_restyle`."""
    return _restyle(styled_once.copy_of(fig), presenting=presenting)


def _restyle(out: go.Figure, *, presenting: bool) -> go.Figure:
    """``out`` with honest tick labels (in place), and projector sizes while ``presenting``.

    Plotly's default writes SI prefixes ('100µ' for a probability, '2M' for a count): linear
    axes here show plain numbers with thousands separators, log axes powers of ten, and log
    axes without explicit ticks get :func:`log_ticks` over the data they show. Every axis
    makes room for its tick labels (no cut country names).
    """
    names = {k for k in out.layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))}
    for axis in sorted(names | {"xaxis", "yaxis"}):
        ax = out.layout[axis]
        if ax.exponentformat is None:
            ax.exponentformat = "power" if ax.type == "log" else "none"
        if ax.type != "log" and ax.separatethousands is None:
            ax.separatethousands = True
        if ax.automargin is None:
            ax.automargin = True
        if ax.type == "log" and ax.tickvals is None and ax.dtick is None:
            values = _axis_values(out, axis)
            if values.size:
                ax.update(log_ticks(float(values.min()), float(values.max())))
    if presenting:  # one height that fits a 720p projector under the title (legend rows add)
        out.update_layout(font_size=PRESENT_TICK_FONT, legend_font_size=PRESENT_TICK_FONT)
        if out.layout.meta != KEEP_HEIGHT:
            rows = plot_axes.category_rows(out)
            out.update_layout(
                height=min(
                    PRESENT_MAX_HEIGHT,
                    max(PRESENT_HEIGHT, rows * PRESENT_ROW_PX + PRESENT_CHROME_PX),
                )
            )
        out.update_xaxes(title_font_size=PRESENT_AXIS_FONT, tickfont_size=PRESENT_TICK_FONT)
        out.update_yaxes(title_font_size=PRESENT_AXIS_FONT, tickfont_size=PRESENT_TICK_FONT)
        if out.layout.title.text:
            out.update_layout(title_font_size=PRESENT_AXIS_FONT + 4)
            # room for the enlarged title and subtitle: a figure's own top margin was made
            # for their normal sizes (a projector cut the top of a title by 4 px)
            top = out.layout.margin.t
            needed = math.ceil(legend_rows.TOP_PX + legend_rows.heading_px(out) + TICK_ROOM_PX)
            if top is not None and top < needed:  # the title pinned to the top, the plot below
                height = out.layout.height or 450
                out.update_layout(
                    margin_t=needed,
                    title=legend_rows.pinned_title(height),
                )
        for trace in out.data:
            if trace.type in ("scatter", "scattergl") and "lines" in (trace.mode or "lines"):
                width = trace.line.width or 2
                trace.line.width = max(PRESENT_LINE, 2 * width)
            if trace.type in ("scatter", "scattergl") and "markers" in (trace.mode or ""):
                trace.marker.size = max(10, 1.5 * (trace.marker.size or 6))
    legend_rows.place_on_top(out, grow=not presenting)
    return out
