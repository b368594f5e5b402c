"""One student's browser tab without the browser: Streamlit's websocket protocol.

What the browser does, from the installed Streamlit's frontend and server (1.67): it loads
the page over HTTP (where HAProxy sets its ``SERVERID`` cookie), opens a websocket on
``/_stcore/stream`` with the subprotocol ``streamlit`` and that cookie, and sends a
``BackMsg`` whose ``rerun_script`` is a ``ClientState``: the link's query string (without
``?``), its page name (the path under the app's root, ``""`` for the default page), no widget
state, no cached message hashes (a first visit), and the browser's context (the page's URL,
which the QR codes read). The server answers with ``ForwardMsg``s: ``new_session`` when the
script starts, a ``delta`` per element (a figure is a ``delta.new_element.plotly_chart``),
and ``script_finished`` with a status. Following a link inside the app (a lesson's Next) is
the same ``rerun_script`` on the same websocket.

A link is taken as failed, with :class:`LinkError`, when the script raises (an
``exception`` element, or a compile error), the page does not exist (``page_not_found``:
the server then draws the default page instead), the script finishes without a figure, the
connection closes, or nothing finishes within the timeout: never a hang.
"""

from __future__ import annotations

import time
import urllib.request
from dataclasses import dataclass
from http.cookiejar import CookieJar

import websocket
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

STREAM = "/_stcore/stream"
"""Streamlit's websocket endpoint."""

SUBPROTOCOL = "streamlit"


class LinkError(Exception):
    """A link that did not give its figure: the script raised, the page does not exist, it
    drew no figure, the connection closed, or the timeout passed."""


@dataclass(frozen=True)
class Opened:
    """A link opened: when its ``rerun_script`` was sent, when its first figure arrived and
    when its script finished (``time.monotonic()`` stamps), its figures and the bytes
    received for it."""

    link: str
    sent: float
    figure: float
    finished: float
    figures: int
    received: int


def split(link: str) -> tuple[str, str]:
    """A link relative to the app's root (``tree_budgets?tb_tree=2``) as the page name and
    the query string of its ``rerun_script``."""
    page, _, query = link.partition("?")
    return page.strip("/"), query


class Tab:
    """A browser tab on the app at ``url``, speaking its websocket protocol.

    Parameters
    ----------
    url : str
        The app's root, e.g. ``http://127.0.0.1:8501``.
    timeout : float
        Seconds a link may take to finish (also bounds connecting).
    cookie : str, optional
        A cookie the tab has already, e.g. ``SERVERID=r2`` to reach HAProxy's replica r2.
    """

    def __init__(self, url: str, *, timeout: float = 60.0, cookie: str | None = None) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.cookie = cookie
        self.cookies = CookieJar()
        self.socket: websocket.WebSocket | None = None

    def connect(self, link: str) -> None:
        """Load ``link``'s page over HTTP (keeping the cookies set, such as HAProxy's) and
        open the websocket with them, as a browser does before its first run.

        Parameters
        ----------
        link : str
            The link to load, relative to the app's root.

        Raises
        ------
        LinkError
            If the page does not load or the websocket does not open.
        """
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        given = {"Cookie": self.cookie} if self.cookie else {}
        try:
            request = urllib.request.Request(f"{self.url}/{link}", headers=given)
            with opener.open(request, timeout=self.timeout) as response:
                response.read()
            kept = [f"{c.name}={c.value}" for c in self.cookies]
            cookie = "; ".join([*given.values(), *kept])
            ws_url = "ws" + self.url.removeprefix("http") + STREAM
            self.socket = websocket.create_connection(
                ws_url, subprotocols=[SUBPROTOCOL], cookie=cookie or None, timeout=self.timeout
            )
        except (OSError, websocket.WebSocketException) as error:
            raise LinkError(f"{link}: could not connect ({error})") from error

    def open(self, link: str) -> Opened:
        """Run ``link``'s page and wait for its first figure and for its script to finish.

        Parameters
        ----------
        link : str
            A link relative to the app's root, e.g. ``epsilon?eps=1``.

        Returns
        -------
        Opened
            When the figure arrived and the script finished.

        Raises
        ------
        LinkError
            See the module's docstring.
        """
        if self.socket is None:
            self.connect(link)
        assert self.socket is not None
        page, query = split(link)
        message = BackMsg()
        state = message.rerun_script
        state.query_string = query
        state.page_name = page
        state.context_info.url = f"{self.url}/{link}"
        state.context_info.timezone = "UTC"
        state.context_info.locale = "en-US"
        sent = time.monotonic()
        self.socket.send_binary(message.SerializeToString())
        return self._receive(link, sent)

    def _receive(self, link: str, sent: float) -> Opened:
        """Read ``ForwardMsg``s until ``link``'s script finishes (see :meth:`open`)."""
        assert self.socket is not None
        deadline = sent + self.timeout
        figure: float | None = None
        figures = received = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LinkError(f"{link}: not finished within {self.timeout:g} s")
            self.socket.settimeout(left)
            try:
                data = self.socket.recv()
            except websocket.WebSocketTimeoutException:
                continue
            except (OSError, websocket.WebSocketException) as error:
                raise LinkError(f"{link}: connection lost ({error})") from error
            if not data:
                raise LinkError(f"{link}: the server closed the connection")
            received += len(data)
            msg = ForwardMsg()
            msg.ParseFromString(data)
            kind = msg.WhichOneof("type")
            if kind == "page_not_found":
                raise LinkError(f"{link}: page not found")
            if kind == "session_event" and msg.session_event.HasField(
                "script_compilation_exception"
            ):
                exception = msg.session_event.script_compilation_exception
                raise LinkError(f"{link}: {exception.type}: {exception.message}")
            if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                element = msg.delta.new_element
                if element.WhichOneof("type") == "exception":
                    raise LinkError(
                        f"{link}: {element.exception.type}: {element.exception.message}"
                    )
                if element.WhichOneof("type") == "plotly_chart":
                    figures += 1
                    figure = figure or time.monotonic()
            if (
                kind == "script_finished"
                and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
            ):
                if figure is None:
                    raise LinkError(f"{link}: the script finished without a figure")
                return Opened(link, sent, figure, time.monotonic(), figures, received)

    def close(self) -> None:
        """Close the websocket (the server keeps the session for its disconnect TTL)."""
        if self.socket is not None:
            self.socket.close()
            self.socket = None
