"""The page's side of failover: reload when the session came back on another replica.

When a replica dies, Streamlit's frontend reconnects by itself and HAProxy sends it to
another replica (:mod:`dpui.serve.haproxy`). The page still shows the old view, but the new
replica has a new, empty session that never ran the script: it ignores the old page's
fragment reruns, so the next setting a student changes does nothing (measured with
Streamlit 1.67). The page's state is in its link, so a reload on the new replica draws the
same view, live. This script, sent with every page (:mod:`dpui.kit.present`'s toolbar),
reloads the page once the connection is back if HAProxy's cookie names another replica than
the one that served the page. Without HAProxy there is no such cookie and it does nothing.
"""

from __future__ import annotations

import json

from dpui.serve.haproxy import COOKIE

# our own fixed script (no user input); it installs itself once per page load
SCRIPT = """<script>
(() => {
  if (window.__dpReconnect) return;
  window.__dpReconnect = true;
  const name = NAME;
  const replica = () => document.cookie.split('; ').find(c => c.startsWith(name + '='));
  const served = replica();
  const app = document.querySelector('[data-testid=stApp]');
  if (!served || !app) return;
  let lost = false;
  new MutationObserver(() => {
    if (app.dataset.testConnectionState !== 'CONNECTED') lost = true;
    else if (lost && replica() !== served) location.reload();
    else lost = false;
  }).observe(app, {attributes: true, attributeFilter: ['data-test-connection-state']});
})();
</script>
""".replace("NAME", json.dumps(COOKIE))
