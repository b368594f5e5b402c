"""A downloaded slide carries its chart's text alternative (issue 28): the file that Plotly's
camera button saves, rewritten in the page by ``dpui/kit/slide_alt.js``.

The oracle is the page itself: the text alternative a screen reader reads after the chart
(the ``[data-dp-alt-for]`` element's textContent) and the title Plotly draws on it. The PNG is
checked by re-parsing its chunks (every CRC, and the pixel data still inflates to IHDR's size),
not by trusting a decoder.
"""

from __future__ import annotations

import struct
import zlib
from xml.etree import ElementTree

import pytest

from tests.browser.settle import settle

SVG = "{http://www.w3.org/2000/svg}"
KEY = "lap_bars"  # the Laplace page's first chart
NAME = f"dp-explorer-{KEY}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # PNG colour type -> samples per pixel


def chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC of type and data (PNG spec, section 5.3)."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """``png``'s chunks as (type, data), each CRC checked; raises AssertionError on a bad file."""
    assert png[:8] == PNG_SIGNATURE
    out, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert len(data) == length, kind
        assert zlib.crc32(kind + data) == crc, f"bad CRC in {kind!r}"
        out.append((kind, data))
        at += 12 + length
    assert out[0][0] == b"IHDR" and out[-1][0] == b"IEND"
    return out


def itxt(data: bytes) -> tuple[str, str]:
    """An uncompressed iTXt chunk's (keyword, text)."""
    keyword, rest = data.split(b"\0", 1)
    flag, method, rest = rest[0], rest[1], rest[2:]
    assert (flag, method) == (0, 0), "compressed iTXt"
    _language, _translated, text = rest.split(b"\0", 2)
    return keyword.decode("latin-1"), text.decode("utf-8")


def test_chunks_and_itxt_read_a_png_written_here():
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    text = "Description\0\0\0\0\0ε ≥ 1 & <x>".encode()
    made = [(b"IHDR", ihdr), (b"iTXt", text), (b"IDAT", zlib.compress(b"\0\0")), (b"IEND", b"")]
    png = PNG_SIGNATURE + b"".join(chunk(k, d) for k, d in made)
    parsed = chunks(png)
    assert [k for k, _ in parsed] == [b"IHDR", b"iTXt", b"IDAT", b"IEND"]
    assert itxt(parsed[1][1]) == ("Description", "ε ≥ 1 & <x>")
    broken = bytearray(png)
    broken[-20] ^= 1  # a byte of IDAT
    with pytest.raises(AssertionError, match="bad CRC"):
        chunks(bytes(broken))


def download(server: str, browser, fmt: str) -> tuple[bytes, str, str, str]:
    """The Laplace page's first chart downloaded as ``fmt`` through Plotly's camera button:
    the file, its suggested name, and the page's text alternative and title of the chart."""
    page = browser.new_page()
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server}/laplace?export={fmt}", wait_until="domcontentloaded")
    settle(page)
    source = page.locator(f'[data-dp-alt-for="{NAME}"]')
    assert source.count() == 1
    alt = source.evaluate("el => el.textContent")
    chart = page.locator(f".st-key-{KEY} .js-plotly-plot")
    title = chart.locator(".g-gtitle .gtitle").first.evaluate("el => el.textContent")
    chart.hover()
    with page.expect_download(timeout=30_000) as started:
        chart.locator('.modebar-btn[data-title^="Download plot"]').click()
    got = started.value
    data = got.path().read_bytes()
    page.close()
    return data, got.suggested_filename, alt, " ".join(title.split())


@pytest.mark.browser
def test_a_downloaded_svg_slide_has_the_charts_title_and_text_alternative(server, browser):
    data, name, alt, title = download(server, browser, "svg")
    assert name == f"{NAME}.svg"
    assert alt.startswith("Chart: ") and title
    root = ElementTree.fromstring(data)
    assert root.tag == f"{SVG}svg"
    assert (root.get("width"), root.get("height")) == ("1280", "720")
    first, second = list(root)[:2]
    assert (first.tag, second.tag) == (f"{SVG}title", f"{SVG}desc")
    assert first.text == title
    assert second.text == alt
    assert root.get("role") == "img"
    assert root.get("aria-labelledby", "").split() == [first.get("id"), second.get("id")]
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert root.find(f".//{SVG}g") is not None  # the chart itself is still there


@pytest.mark.browser
def test_a_downloaded_png_slide_has_the_text_alternative_in_itxt(server, browser):
    data, name, alt, title = download(server, browser, "png")
    assert name == f"{NAME}.png"
    assert alt.startswith("Chart: ") and title
    parsed = chunks(data)
    kinds = [k for k, _ in parsed]
    first_idat = kinds.index(b"IDAT")
    texts = dict(itxt(d) for k, d in parsed[:first_idat] if k == b"iTXt")
    assert texts == {"Title": title, "Description": alt}
    width, height, depth, colour = struct.unpack(">IIBB", parsed[0][1][:10])
    assert (width, height) == (1920, 1080)
    # the image is intact: its pixel data inflates to one filter byte plus a row per line
    pixels = zlib.decompress(b"".join(d for k, d in parsed if k == b"IDAT"))
    assert depth == 8 and len(pixels) == height * (1 + width * CHANNELS[colour])


# Plotly's download as filesaver.js does it: an object URL of the blob, a synchronous click on
# an anchor with a download name, the URL revoked right after
PLOTLY_FLOW = """([name, bytes, type]) => {
  const blob = new Blob([new Uint8Array(bytes)], {type});
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  document.body.removeChild(a);
  URL.revokeObjectURL(url);
}"""
DESCRIBE = """([base, title, text]) => {
  const p = document.createElement('p');
  p.setAttribute('data-dp-alt-for', base);
  p.setAttribute('data-dp-alt-title', title);
  p.textContent = text;
  document.body.appendChild(p);
}"""
HOSTILE = 'x < y & z "q" ]]> <script>alert(1)</script> ε ≥ 1\x01'
TINY_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5"/></svg>'


def tiny_png() -> bytes:
    ihdr = struct.pack(">IIBBBBB", 2, 1, 8, 0, 0, 0, 0)  # 2x1 grey
    idat = zlib.compress(b"\0\x10\xf0")
    return PNG_SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


@pytest.mark.browser
def test_hostile_text_is_escaped_and_anything_else_downloads_unchanged(server, tab):
    """The rewrite on files made here: text with markup and an XML-illegal control character
    (dropped), a PNG whose other chunks must stay byte for byte, and the fallbacks: a file
    that is not what its name says, a name not ours, a chart with no text on the page."""
    page = tab
    page.goto(f"{server}/glossary", wait_until="domcontentloaded")
    settle(page)
    assert page.evaluate("window.dpSlideAltInstalled") is True
    page.evaluate(DESCRIBE, ["dp-explorer-test", "T & <b>x</b>", HOSTILE])

    def saved(name: str, data: bytes, kind: str) -> bytes:
        with page.expect_download(timeout=30_000) as started:
            page.evaluate(PLOTLY_FLOW, [name, list(data), kind])
        assert started.value.suggested_filename == name
        return started.value.path().read_bytes()

    svg = ElementTree.fromstring(saved("dp-explorer-test.svg", TINY_SVG, "image/svg+xml"))
    title, desc, rect = list(svg)
    assert (title.text, desc.text) == ("T & <b>x</b>", HOSTILE.replace("\x01", ""))
    assert rect.tag == f"{SVG}rect" and rect.get("width") == "5"
    assert svg.get("aria-labelledby").split() == [title.get("id"), desc.get("id")]

    png = tiny_png()
    out = saved("dp-explorer-test.png", png, "image/png")
    parsed = chunks(out)
    assert [k for k, _ in parsed] == [b"IHDR", b"iTXt", b"iTXt", b"IDAT", b"IEND"]
    assert dict(itxt(d) for k, d in parsed if k == b"iTXt") == {
        "Title": "T & <b>x</b>",
        "Description": HOSTILE.replace("\x01", ""),
    }
    inserted = sum(12 + len(d) for k, d in parsed if k == b"iTXt")
    assert out[:33] + out[33 + inserted :] == png  # signature and IHDR, then the rest as made

    for name, data, kind in [
        ("dp-explorer-test.svg", b"not an svg <", "image/svg+xml"),
        ("dp-explorer-test.png", b"not a png", "image/png"),
        ("other.svg", TINY_SVG, "image/svg+xml"),
        ("dp-explorer-missing.png", png, "image/png"),
    ]:
        assert saved(name, data, kind) == data, name
