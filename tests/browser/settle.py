"""Waiting for the served app by its own events, not by sleeping.

Streamlit marks its root element with the script's state (``data-test-script-state``:
``initial`` before the first run, ``running``, ``notRunning``) and the connection's
(``data-test-connection-state``). A page has settled when its script is not running, the
session is connected, no skeleton or spinner is left, every Plotly chart has drawn its SVG,
and nothing in the page has changed for a short debounce (``QUIET_MS``): Plotly draws after
Streamlit hands it the figure and may resize once to its container, both after the script
has finished. The debounce is measured from the last DOM change or chart resize reported by
a MutationObserver (``CLOCK``, installed in every page of the browser context), so an idle
page passes it at once instead of waiting out a fixed quiet window.
"""

from __future__ import annotations

from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

QUIET_MS = 250
"""Time without a DOM change or chart resize that counts as settled (milliseconds)."""

CLOCK = """(() => {
  window.__dpChanged = performance.now();
  const tick = () => { window.__dpChanged = performance.now(); };
  const watch = () => new MutationObserver(tick).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();"""
"""Init script: ``window.__dpChanged`` is the time of the page's last DOM change."""

SETTLED = """(quiet) => {
  const app = document.querySelector('[data-testid=stApp]');
  if (!app || app.dataset.testScriptState !== 'notRunning'
      || app.dataset.testConnectionState !== 'CONNECTED') return false;
  if (document.querySelector('[data-testid=stSkeleton], [data-testid=stSpinner]')) return false;
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  if (charts.some(c => !c.querySelector('.js-plotly-plot .main-svg'))) return false;
  const sizes = charts.map(c => {
    const r = c.getBoundingClientRect();
    return r.width + 'x' + r.height;
  }).join();
  if (sizes !== window.__dpSizes) {
    window.__dpSizes = sizes;
    window.__dpChanged = performance.now();
  }
  return performance.now() - (window.__dpChanged ?? 0) >= quiet;
}"""


def settle(page: Page, *, limit_s: float = 90.0) -> None:
    """Wait until the app in ``page`` has finished its run and drawn it (see the module).

    Parameters
    ----------
    page : playwright.sync_api.Page
        A page of a context with ``CLOCK`` installed, showing the served app.
    limit_s : float
        Fail (an AssertionError saying what was still unsettled) if the page has not
        settled within this time.
    """
    try:
        page.wait_for_function(SETTLED, arg=QUIET_MS, polling=100, timeout=limit_s * 1000)
    except PlaywrightTimeoutError:
        left = unsettled(page)
        raise AssertionError(f"{page.url} did not settle in {limit_s:g} s: {left}") from None


STATE = """() => {
  const app = document.querySelector('[data-testid=stApp]');
  const charts = [...document.querySelectorAll('[data-testid=stPlotlyChart]')];
  return {
    script: app ? app.dataset.testScriptState : 'no app',
    connection: app ? app.dataset.testConnectionState : 'no app',
    busy: document.querySelectorAll('[data-testid=stSkeleton], [data-testid=stSpinner]').length,
    undrawn: charts.filter(c => !c.querySelector('.js-plotly-plot .main-svg')).length,
    changed_ms_ago: Math.round(performance.now() - (window.__dpChanged ?? 0)),
  };
}"""


def unsettled(page: Page) -> dict[str, object]:
    """What keeps ``page`` from settling: the script's and connection's states, skeletons and
    spinners left, charts not drawn, and the time since the last DOM change."""
    state: dict[str, object] = page.evaluate(STATE)
    return state
