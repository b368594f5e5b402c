"""Real browser: a replica of ``dp-explorer serve`` that dies loses no student's view.

Two students open the same link (non-default settings and a pinned view A) through HAProxy;
the cookie-less first visits land on different replicas. The first student's replica is
killed (SIGKILL). Streamlit's frontend notices the closed websocket and reconnects by itself;
HAProxy finds the cookie's replica gone and sends the browser to the other one
(``option redispatch``). That replica has a new, empty session for it, and Streamlit's
frontend only keeps the old page on screen: a setting changed there did nothing (measured
before :mod:`dpui.serve.reconnect`). The page's script reloads it on the new replica, and
the link (settings and pin) draws the same view, live: a new seed redraws its charts. The
other student's page is not disturbed.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from dpui.serve import haproxy
from tests.browser.settle import settle
from tests.served_class import needs_haproxy, serve_class, started_at, still_running

LINK = "laplace?lap_source=gapminder&lap_show=noise&eps=0.1&pin=eps%3D1"
"""The bundled lesson's Laplace step: ε = 0.1 beside a pinned ε = 1."""

RELOAD_S = 5.0
"""The failover's own part: the page is loaded again on the other replica within 5 s of the
kill (measured 1.8 s at load average 16, 3.6 s at 18: Streamlit's frontend notices the
closed websocket, pings the server, reconnects through HAProxy, and the page's script
reloads it)."""

DRAW_SLACK = 3.0
"""Drawing the reloaded view may take this many times a plain load of the same link on the
same replica, measured in the test just before the kill, plus a second. The issue's target
(the view again within 5 s of the kill) is the sum; on this 2-core machine shared with other
test runs (load average 16) a plain load of this link alone took 7.4 s, so the draw is held
to the machine's current speed rather than to a fixed time. 3, not 1.5: the killed replica
restarts 5 s after the kill, and its start (Streamlit's imports, seconds of CPU) competes
with the redraw on the two cores (a full suite run measured the redraw at 2.6 times the
plain load)."""

STATES = """(() => {
  window.__dpStates = [];
  const look = () => {
    const app = document.querySelector('[data-testid=stApp]');
    if (!app) return;
    const state = app.dataset.testConnectionState + '/' + app.dataset.testScriptState;
    if (window.__dpStates.at(-1) !== state) window.__dpStates.push(state);
  };
  const watch = () => new MutationObserver(look).observe(document, {
    subtree: true, childList: true, attributes: true });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();
})();"""
"""Init script: ``window.__dpStates`` lists the app's connection/script states in order."""

RELOADED = "() => window.__dpBeforeKill === undefined"
"""Whether the page was loaded again since the test marked it (``window.__dpBeforeKill``)."""

VIEW = """() => [location.href, document.querySelector('[data-testid=stMain]').innerText,
  ...[...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
     .map(gd => JSON.stringify(gd.data))]"""
"""What a student sees: the link, the page's text and every chart's data."""

CHANGED = f"before => ({VIEW})().slice(2).some((data, i) => data !== before[i + 2])"
"""Whether any chart's data differs from ``before`` (a ``VIEW`` read earlier)."""

pytestmark = needs_haproxy


@pytest.fixture
def forget_replicas(browser):
    """The shared browser context, without HAProxy's cookies once the test is done."""
    yield browser
    browser.clear_cookies(name=haproxy.COOKIE)


@pytest.mark.browser
def test_a_killed_replicas_student_gets_the_same_view_live_on_another_replica(forget_replicas):
    browser = forget_replicas
    with serve_class(2) as served:
        students = []
        # two hosts for one loopback server: two cookie jars in one browser context, each
        # sent to its own replica (a page's first requests go out in parallel before any
        # cookie is set, so leastconn alone may put both on one replica, and did under load;
        # the serve command's tests check how cookie-less clients are spread)
        port = served.url.rsplit(":", 1)[1]
        for host, replica in (("127.0.0.1", "r1"), ("localhost", "r2")):
            browser.add_cookies(
                [{"name": haproxy.COOKIE, "value": replica, "url": f"http://{host}:{port}/"}]
            )
        for host in ("127.0.0.1", "localhost"):
            page = browser.new_page()
            page.add_init_script(STATES)
            page.goto(f"{served.url.replace('127.0.0.1', host)}/{LINK}")
            settle(page)
            [replica] = [
                c["value"]
                for c in browser.cookies(page.url)
                if c["name"] == haproxy.COOKIE and c["domain"] == host
            ]
            students.append((page, replica, page.evaluate(VIEW)))
        (a, replica_a, view_a), (b, replica_b, view_b) = students
        assert {replica_a, replica_b} == {"r1", "r2"}
        assert "pin=" in view_a[0] and "eps=0.1" in view_a[0] and len(view_a) > 3
        # a plain load of the link on the replica that will remain, for comparison
        loading = time.monotonic()
        b.reload()
        settle(b)
        plain = time.monotonic() - loading
        assert b.evaluate(VIEW) == view_b
        mark = b.evaluate("window.__dpStates.length")
        for page in (a, b):
            page.evaluate("window.__dpBeforeKill = true")

        killed = time.monotonic()
        os.kill(served.replicas[replica_a], signal.SIGKILL)
        a.wait_for_function(RELOADED, polling=50, timeout=10_000)
        reloaded = time.monotonic() - killed
        # the wait scales with this machine's own plain load (measured above): the assertion
        # below, not a fixed timeout, decides whether the redraw was slow
        settle(a, limit_s=max(10.0, 2 * (DRAW_SLACK * plain + 1)))
        again = time.monotonic() - killed
        assert reloaded <= RELOAD_S
        assert again - reloaded <= DRAW_SLACK * plain + 1, (reloaded, again, plain)
        assert a.evaluate(VIEW) == view_a
        moved = [c["value"] for c in browser.cookies(a.url) if c["name"] == haproxy.COOKIE]
        assert moved == [replica_b]
        # and it is live on its new replica: a new seed redraws the charts
        a.get_by_text("Settings", exact=True).first.click()
        seed = a.get_by_label("Noise seed", exact=True).first
        seed.fill("5")
        seed.press("Enter")
        a.wait_for_function(CHANGED, arg=view_a, timeout=30_000)

        # the other student's page was neither reloaded nor disconnected, and did not rerun
        assert b.evaluate("window.__dpBeforeKill") is True
        assert b.evaluate("(mark) => window.__dpStates.slice(mark)", mark) == []
        assert b.evaluate(VIEW) == view_b
        for page in (a, b):
            page.close()

        started = started_at(served.children())
        served.process.send_signal(signal.SIGTERM)
        served.process.communicate(timeout=30)
        assert served.process.returncode == 0
        assert still_running(started) == []
    print(f"reloaded {reloaded:.2f} s after the kill, the view drawn again {again:.2f} s after it")
    print(f"a plain load of the link on the same replica: {plain:.2f} s")
