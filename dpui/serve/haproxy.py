"""HAProxy in front of the replicas: its configuration, written and checked.

Stickiness is by a cookie HAProxy inserts (``SERVERID``, naming the replica), not by the
client's address: a lecture hall reaches the server from one NAT address, and hashing it
would send the whole class to one replica. A browser without the cookie goes to the replica
with the fewest connections (each open tab holds one websocket), so the cookie-less first
requests of a class are spread; a browser whose replica is down (health check on
``/_stcore/health``, or a refused connection) is sent to another one (``option redispatch``)
and gets that one's cookie. ``timeout tunnel`` bounds an idle websocket, not the HTTP
timeouts.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dpui.serve.errors import ServeError

COOKIE = "SERVERID"
"""The name of the cookie that keeps a browser on its replica."""

HEALTH = "/_stcore/health"
"""Streamlit's health endpoint: 200 and ``ok`` once the server is ready."""

INSTALL = "apt-get install haproxy"
"""How to install HAProxy on Debian or Ubuntu (the command line says it when it is missing)."""


@dataclass(frozen=True)
class Backend:
    """One replica as HAProxy sees it: ``name`` (also the cookie's value) at ``host:port``."""

    name: str
    host: str
    port: int


def config(backends: Sequence[Backend], *, host: str, port: int) -> str:
    """HAProxy's configuration: listen on ``host:port``, spread browsers over ``backends``.

    Parameters
    ----------
    backends : sequence of Backend
        The replicas, local or remote; each name must be unique (it is the cookie's value).
    host : str
        The address to listen on (``0.0.0.0`` for every interface).
    port : int
        The port to listen on.

    Returns
    -------
    str
        The configuration file's text.

    Raises
    ------
    ValueError
        If ``backends`` is empty or two of them share a name.
    """
    names = [b.name for b in backends]
    if not names or len(set(names)) != len(names):
        raise ValueError(f"backends need distinct names, got {names}")
    servers = "\n".join(f"    server {b.name} {b.host}:{b.port} cookie {b.name}" for b in backends)
    return f"""\
# written by dp-explorer serve
global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 60s
    timeout http-request 10s
    timeout queue 30s
    # an open websocket (one per tab) idles for a lecture's length at most
    timeout tunnel 2h
    timeout client-fin 5s
    # a browser whose replica is gone goes to another one at the first retry (a retry on
    # the same server would wait a second first), also when the replica died while it was
    # answering (an empty response or a 502)
    option redispatch 1
    retries 2
    retry-on all-retryable-errors

frontend class
    bind {host}:{port}
    default_backend replicas

backend replicas
    balance leastconn
    # not HttpOnly: the page reads it to notice that it moved to another replica
    cookie {COOKIE} insert indirect nocache attr SameSite=Lax
    option httpchk
    http-check send meth GET uri {HEALTH}
    http-check expect status 200
    # down after three failed checks a second apart, each allowed 5 s to answer (a busy
    # replica on a loaded machine answered later than 1 s, was marked down, and its
    # browsers' cookies were moved to another one). A replica marked down keeps its open
    # websockets: a class arriving at once keeps a replica's event loop from answering for
    # longer than that, and closing its sessions then lost every student on it
    # (bench/bench_class.py: 120 students, the whole lesson, one replica). A killed replica
    # refuses connections: its browsers are redispatched at once, without waiting for the
    # checks; a hung one keeps its students until it is restarted.
    timeout check 5s
    default-server check inter 1s fall 3 rise 2
{servers}
"""


def executable() -> str:
    """The path of the ``haproxy`` program.

    Returns
    -------
    str
        Where ``haproxy`` is on the ``PATH`` (or in ``/usr/sbin``, where Debian puts it).

    Raises
    ------
    ServeError
        If it is not installed; the message says how to install it.
    """
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise ServeError(
            f"HAProxy is not installed; it is the load balancer in front of the replicas. "
            f"Install it with `{INSTALL}` (Debian's package; `sudo` when not root)"
        )
    return found


def write(text: str, folder: Path, haproxy: str) -> Path:
    """Write the configuration ``text`` as ``folder/haproxy.cfg`` and check it.

    Parameters
    ----------
    text : str
        The configuration (:func:`config`).
    folder : pathlib.Path
        An existing folder.
    haproxy : str
        The ``haproxy`` program (:func:`executable`).

    Returns
    -------
    pathlib.Path
        The configuration file.

    Raises
    ------
    ServeError
        If ``haproxy -c`` refuses the configuration; the message carries its output.
    """
    path = folder / "haproxy.cfg"
    path.write_text(text, encoding="utf-8")
    checked = subprocess.run(
        [haproxy, "-c", "-q", "-f", str(path)], capture_output=True, text=True, check=False
    )
    if checked.returncode != 0:
        said = (checked.stderr or checked.stdout).strip()
        raise ServeError(f"HAProxy refused its configuration ({path}):\n{said}")
    return path
