"""Text that prints over other text in a page's charts (titles, legend entries, axis titles,
tick labels, annotations, colour-bar titles and data labels, compared by their rendered
boxes), text cut
at a chart's edge, and plot areas under a stated minimum (issue 35: "no title, legend, axis
title or tick label overlaps another or is cut; no plot area smaller than a stated
minimum")."""

from __future__ import annotations

from typing import Any

_KIND = r"""(e) => {
    const own = e.getAttribute('class') || '';
    const up = (e.parentNode && e.parentNode.getAttribute &&
      e.parentNode.getAttribute('class')) || '';
    if (/(^| )gtitle(-subtitle)?( |$)/.test(own)) return 'title';
    if (/(^| )legendtext( |$)/.test(own)) return 'legend';
    if (/(^| )x\d*title( |$)/.test(own)) return 'xtitle';
    if (/(^| )y\d*title( |$)/.test(own)) return 'ytitle';
    if (/(^| )x\d*tick( |$)/.test(up)) return 'xtick';
    if (/(^| )y\d*tick( |$)/.test(up)) return 'ytick';
    if (/(^| )annotation-text( |$)/.test(own)) return 'annotation';
    if (/cbtitle/.test(own) || /cbtitle/.test(up)) return 'cbtitle';
    if (/(^| )bartext( |$)/.test(own) || /(^| )textpoint( |$)/.test(up)) return 'data';
    return null;
  }"""
"""The kind of a chart's text element (title, legend, axis title, tick, annotation, colour
bar title, a data point's label: a bar's value or a scatter point's text), or null for text
the checks leave alone (labels inside an icicle's boxes, which Plotly fits to them)."""

_OVERLAPS = r"""() => {
  const kindOf = KIND;
  const spaced = new Set(['xtick', 'legend']);
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((plot, p) => {
    const boxes = [];
    plot.querySelectorAll('text').forEach((e) => {
      const kind = kindOf(e);
      const r = e.getBoundingClientRect();
      const text = (e.textContent || '').trim();
      if (kind && text && r.width > 0 && r.height > 0) {
        boxes.push({kind, text: text.slice(0, 30), r});
      }
    });
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.kind === b.kind && spaced.has(a.kind)) continue;
        const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (w > 2 && h > 2) {
          out.push([p, a.kind, a.text, b.kind, b.text, Math.round(w), Math.round(h)]);
        }
      }
    }
  });
  return out;
}"""
"""Pairs of text boxes of one chart overlapping by more than 2 px both ways (x-axis tick
labels, and legend entries, among themselves excepted: Plotly spaces those). y-axis labels
are not: Plotly prints every name of a category axis (13 algorithms on a presented ranking
printed over each other), puts four or more ticks on any axis however short, and a figure's
own decades are all printed (8 on a presented panel, 4 px into each other)."""


_CUT = r"""() => {
  const kindOf = KIND;
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((plot, p) => {
    const svg = plot.querySelector('.main-svg');
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    plot.querySelectorAll('text').forEach((e) => {
      const kind = kindOf(e);
      const r = e.getBoundingClientRect();
      const text = (e.textContent || '').trim();
      if (!kind || !text || r.width === 0 || r.height === 0) return;
      const out_by = Math.max(box.left - r.left, r.right - box.right, box.top - r.top,
        r.bottom - box.bottom);
      if (out_by > 2) out.push([p, kind, text.slice(0, 30), Math.round(out_by)]);
    });
  });
  return out;
}"""
"""Text of a chart reaching more than 2 px past the chart's own box (cut by the page)."""


def overlapping_text(page: Any) -> list[list[Any]]:
    """``[chart, kind, text, kind, text, width, height]`` for every overlapping pair of text
    boxes in the page's Plotly charts (an empty list when none)."""
    found: list[list[Any]] = page.evaluate(_OVERLAPS.replace("KIND", _KIND))
    return found


def cut_text(page: Any) -> list[list[Any]]:
    """``[chart, kind, text, px]`` for every text box of the page's Plotly charts that reaches
    ``px`` (over 2) pixels past its chart's box, where the page cuts it (an empty list when
    none)."""
    found: list[list[Any]] = page.evaluate(_CUT.replace("KIND", _KIND))
    return found


MIN_PLOT_SHARE = 0.35
"""A chart's plot area (inside its margins: axes, legend and titles outside it) is at least
this share of the chart's height and of its width: a chart is drawn for its data, and its
text (title and subtitle, legend rows, tick labels, axis titles and the settings stamp a
slide carries, up to five small lines) may take up to two thirds of a side, no more. The
charts this caught held 26-33 % (Error analysis' legend and Key-value LDP's on a phone,
Laplace's upright country names on a projector, issue 35)."""
MIN_PLOT_PX = 120
"""...and at least this many pixels high and wide: below that a line's shape and a bar's
height are hard to read (120 px holds four or five labelled gridlines)."""
MIN_PANEL_PX = 60
"""Each panel of a chart of several (one subplot's drag area, Plotly's ``.nsewdrag``) at
least this many pixels high and wide: stacked panels share the plot area, and a panel under
60 px holds fewer than three tick labels."""

_AREAS = r"""([share, px, panel]) => {
  const out = [];
  document.querySelectorAll('.js-plotly-plot').forEach((gd, p) => {
    const fl = gd._fullLayout;
    if (!fl || !fl._size) return;
    const title = ((fl.title && fl.title.text) || '').slice(0, 40);
    const {w, h} = fl._size;
    if (h < Math.max(share * fl.height, px) || w < Math.max(share * fl.width, px)) {
      out.push([p, title, 'plot area', Math.round(w), Math.round(h), fl.width, fl.height]);
    }
    gd.querySelectorAll('.nsewdrag').forEach((r) => {
      const b = r.getBoundingClientRect();
      if (b.width < panel || b.height < panel) {
        out.push([p, title, 'panel', Math.round(b.width), Math.round(b.height)]);
      }
    });
  });
  return out;
}"""
"""Charts whose plot area, or one of whose panels, is under the minimum."""


def small_plot_areas(page: Any) -> list[list[Any]]:
    """``[chart, title, "plot area", w, h, chart w, chart h]`` for every chart whose plot
    area is under :data:`MIN_PLOT_SHARE` of its size or :data:`MIN_PLOT_PX`, and ``[chart,
    title, "panel", w, h]`` for every panel under :data:`MIN_PANEL_PX` (an empty list when
    none)."""
    found: list[list[Any]] = page.evaluate(_AREAS, [MIN_PLOT_SHARE, MIN_PLOT_PX, MIN_PANEL_PX])
    return found
