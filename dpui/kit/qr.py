"""QR codes of the app's links: in a popover for one phone, full screen for a hall.

A code is made on request (a button), not on every rerun: making it and sending it as an
image cost each change about 20 ms and a request. Students open what they scan in normal
(interactive) mode: a link's ``present`` setting is left out of its code. When the app is
served on loopback (``localhost``, ``127.0.0.1``) no phone can open its links, and the code
says so with how to serve on the network.
"""

from __future__ import annotations

import base64
import html
import io
import ipaddress
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import segno
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpui.kit import untrusted

_FULL = "_qr_full_screen"
HALL_PIXELS = 600
"""Side of a full-screen code, in CSS pixels: scannable from the back of a lecture hall."""
MAX_VERSION = 10
"""The densest code shown full screen (57 x 57 modules, about 10 px a module at 600 px)."""
SERVE_ON_NETWORK = (
    "This address works only on this computer: phones in the room cannot open it. Serve the "
    "app on the network (`dp-explorer serve`, or `streamlit run app_server.py --server.address "
    "0.0.0.0`) and open it at this computer's network address (such as "
    "`http://192.168.1.20:8501`) before showing the code."
)


def for_students(url: str, drop: str = "present") -> str:
    """``url`` without its ``drop`` query parameter (students open it interactive)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != drop]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))


def on_loopback(url: str) -> bool:
    """Whether ``url``'s host is this computer only (``localhost`` or a loopback address).

    >>> on_loopback("http://localhost:8501/tree_budgets"), on_loopback("http://[::1]:8501/")
    (True, True)
    >>> on_loopback("http://192.168.1.20:8501/"), on_loopback("https://dp.example.org/")
    (False, False)
    """
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def make(url: str) -> segno.QRCode | None:
    """``url``'s QR code at error correction level M, or None when it is too long for one
    (about 2,330 characters)."""
    try:
        return segno.make(url, error="m", micro=False)
    except segno.DataOverflowError:
        return None


def png(code: segno.QRCode, pixels: int) -> bytes:
    """``code`` as a PNG at least ``pixels`` wide (a whole number of pixels per module, a
    two-module quiet zone)."""
    modules = code.symbol_size(scale=1, border=2)[0]
    out = io.BytesIO()  # st.html drops inline SVG; segno writes PNG itself (no Pillow)
    code.save(out, kind="png", scale=max(1, -(-pixels // modules)), border=2)
    return out.getvalue()


def too_long(url: str) -> str:
    return (
        f"This link is {len(url):,} characters long, too long for a QR code (one holds about "
        "2,300). Copy the link instead (Copy link in the toolbar), or shorten the settings "
        "that hold text."
    )


def popover(where: DeltaGenerator, url: str, what: str, key: str = "_qr") -> None:
    """A "QR code" popover in ``where``: ``url``'s code on request, and a button showing it
    full screen. ``what`` names what the link opens ("this view"); ``key`` prefixes the
    widgets' keys."""
    # keyed: it stays open when a rerun draws other elements above it
    box = where.popover("QR code", type="tertiary", icon=":material/qr_code_2:", key=key)
    if not box.button(f"Show the QR code of {what}", key=f"{key}_show"):
        return
    url = for_students(url)
    code = make(url)
    if code is None:
        box.warning(too_long(url), icon=":material/qr_code_2:")
        return
    box.image(png(code, 160), caption=f"{what[0].upper()}{what[1:]} as a QR code")
    box.caption(f"Scan to open {what}: {untrusted.markdown(url, 200)}")
    if on_loopback(url):
        box.warning(SERVE_ON_NETWORK, icon=":material/wifi_off:")
    box.button(
        "Full screen, for the room",
        key=f"{key}_full",
        icon=":material/fullscreen:",
        on_click=full_screen,
        args=(url, what),
    )


def full_screen(url: str, what: str) -> None:
    """Ask for ``url``'s code over the whole window (drawn by :func:`overlay`)."""
    st.session_state[_FULL] = (url, what)


def close() -> None:
    st.session_state.pop(_FULL, None)


def overlay() -> None:
    """The code asked for with :func:`full_screen`, over the whole window: at least
    :data:`HALL_PIXELS` high at 1280x720, with a Close button (Esc does not reach it: the
    button is the first thing keyboard focus meets)."""
    asked = st.session_state.get(_FULL)
    if asked is None:
        return
    url, what = asked
    code = make(url)
    if code is None or int(code.version) > MAX_VERSION:
        close()
        dense = "This link makes a code too dense to scan from afar."
        st.warning(
            f"{too_long(url) if code is None else dense} A lesson has a short link (Lesson "
            "page, Save).",
            icon=":material/qr_code_2:",
        )
        return
    image = base64.b64encode(png(code, HALL_PIXELS)).decode("ascii")
    note = SERVE_ON_NETWORK.replace("`", "") if on_loopback(url) else url
    st.html(
        '<div class="dp-qr-full" role="dialog" aria-label="QR code">'
        f'<img src="data:image/png;base64,{image}" alt="QR code of {html.escape(what)}: '
        f'{html.escape(url)}"><p>{html.escape(note)}</p></div>'
    )
    st.container(key="dp-qr-close").button(
        "Close the QR code", icon=":material/close:", on_click=close, type="primary"
    )
