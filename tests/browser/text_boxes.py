"""Text that prints over other text in a page's charts: titles, legend entries, axis titles,
tick labels, annotations and colour-bar titles, compared by their rendered boxes (issue 35:
"no title, legend, axis title or tick label overlaps another")."""

from __future__ import annotations

from typing import Any

_OVERLAPS = r"""() => {
  const kindOf = (e) => {
    const own = e.getAttribute('class') || '';
    const up = (e.parentNode && e.parentNode.getAttribute &&
      e.parentNode.getAttribute('class')) || '';
    if (/(^| )gtitle( |$)/.test(own)) return 'title';
    if (/(^| )legendtext( |$)/.test(own)) return 'legend';
    if (/(^| )x\d*title( |$)/.test(own)) return 'xtitle';
    if (/(^| )y\d*title( |$)/.test(own)) return 'ytitle';
    if (/(^| )x\d*tick( |$)/.test(up)) return 'xtick';
    if (/(^| )y\d*tick( |$)/.test(up)) return 'ytick';
    if (/(^| )annotation-text( |$)/.test(own)) return 'annotation';
    if (/cbtitle/.test(own) || /cbtitle/.test(up)) return 'cbtitle';
    return null;
  };
  const spaced = new Set(['xtick', 'ytick', 'legend']);  // Plotly spaces these itself
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
"""Pairs of text boxes of one chart overlapping by more than 2 px both ways (tick labels of
one axis, and legend entries, among themselves excepted: Plotly spaces those)."""


def overlapping_text(page: Any) -> list[list[Any]]:
    """``[chart, kind, text, kind, text, width, height]`` for every overlapping pair of text
    boxes in the page's Plotly charts (an empty list when none)."""
    found: list[list[Any]] = page.evaluate(_OVERLAPS)
    return found
