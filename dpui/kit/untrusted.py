"""Showing text that came from a link or an upload, so that it can only ever be text.

Streamlit renders every message (``st.warning``, ``st.caption``, ...) as markdown:
a value such as ``[Your session expired](http://attacker)`` from a query string
would become a clickable link inside the app's own warning, and
``![x](http://attacker/p.png)`` would make the browser fetch a remote image.
Plotly renders a subset of HTML in labels (``<a href=...>``, ``<b>``). Every value
echoed from a link or a file goes through :func:`markdown` (a code span: inert) or
:func:`plot_label` (HTML entities) first, line breaks flattened and long values cut.
This module is pure (no Streamlit).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Sequence

MARKDOWN_LIMIT = 80
"""Characters of an untrusted value shown in a message before it is cut."""
LABEL_LIMIT = 40
"""Characters of an untrusted label shown in a chart before it is cut."""

_BREAKS = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")


def shorten(value: object, limit: int) -> str:
    """``value`` as one line of at most ``limit`` characters (an ellipsis marks a cut).

    >>> shorten("a" * 10, 5)
    'aaaa…'
    """
    text = _BREAKS.sub(" ", encodable(str(value)))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def encodable(text: str) -> str:
    """``text`` with every code point that UTF-8 cannot encode (a lone surrogate, which a
    JSON ``\\ud800`` escape makes) written as its escape, so that a message echoing it can be
    sent to the browser.

    >>> encodable("a\\ud800b")
    'a\\\\ud800b'
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def unfit_text(text: str, limit: int) -> str | None:
    """Why ``text`` (a value a user supplied: a title, a note, a link's setting) cannot be held
    by the app's widgets and messages, or None when it can: it must be at most ``limit``
    characters and valid Unicode text (UTF-8 encodable: no lone surrogate), which is what
    Streamlit sends to the browser.

    Parameters
    ----------
    text : str
        The value.
    limit : int
        The most characters accepted.

    Returns
    -------
    str or None
        The reason, naming the first bad character and what is accepted.

    >>> unfit_text("ok", 5) is None
    True
    >>> unfit_text("ab\\udc80", 5)
    'character 3 is U+DC80, a lone surrogate, not a character; only valid Unicode text is accepted'
    """
    if len(text) > limit:
        return f"it has {len(text):,} characters; at most {limit:,} are accepted"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return (
            f"character {err.start + 1:,} is U+{ord(text[err.start]):04X}, a lone surrogate, not "
            "a character; only valid Unicode text is accepted"
        )
    return None


def markdown(value: object, limit: int = MARKDOWN_LIMIT) -> str:
    """``value`` as literal text inside a line of Streamlit markdown: one line, shortened, and
    set as inline code, where markdown forms nothing: no link, autolink (``www.``, e-mail,
    ``http://``, which backslash escapes do not stop), image, HTML, emphasis, directive or math.

    The code span's fence is one backtick longer than the longest run inside the value, and
    a value starting or ending with a backtick, or with a space at both ends, is padded with a
    space at each end (CommonMark strips one).

    >>> print(markdown("[a](b)"))
    `[a](b)`
    >>> print(markdown("a `b` c"))
    ``a `b` c``
    """
    text = shorten(value, limit) or " "
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    edges = text[0] + text[-1]
    # CommonMark strips one space from each end when both are spaces: pad so none is lost
    pad = " " if "`" in edges or (edges == "  " and text.strip(" ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def plot_label(value: object, limit: int = LABEL_LIMIT) -> str:
    """``value`` as literal text in a Plotly label: shortened, ``& < >`` as entities
    (Plotly shows entities as the characters and parses tags only from raw ``<``).

    >>> plot_label('<a href="http://x">y</a>')
    '&lt;a href="http://x"&gt;y&lt;/a&gt;'
    """
    return html.escape(shorten(value, limit), quote=False)


def plot_labels(values: Sequence[object], limit: int = LABEL_LIMIT) -> list[str]:
    """:func:`plot_label` of each value, kept distinct: labels that the cut would merge
    (one category, one bar) get their 1-based position appended.

    >>> plot_labels(["a" * 50 + "x", "a" * 50 + "y", "<b>"], limit=5)
    ['aaaa… (1)', 'aaaa… (2)', '&lt;b&gt;']
    """
    shown = [plot_label(v, limit) for v in values]
    if len(set(shown)) == len(shown):
        return shown
    seen = Counter(shown)
    return [f"{s} ({i + 1})" if seen[s] > 1 else s for i, s in enumerate(shown)]


def file_name(name: str, limit: int = 60) -> str:
    """An uploaded file's name reduced to letters, digits, ``. - _`` and spaces, with no
    ``www.`` (which markdown would make a link), so that it can be shown anywhere (messages,
    captions, chart legends) as it is.

    >>> file_name("![x](http://a/p.png).csv")
    'x_http_a_p.png_.csv'
    >>> file_name("www.evil.example.csv")
    'www_evil.example.csv'
    """
    kept = re.sub(r"[^\w.\- ]+", "_", shorten(name, limit)).strip("_ ")
    kept = re.sub(r"(?i)\bwww\.", lambda m: m.group(0)[:3] + "_", kept)
    return kept or "upload"


def wrong_file_type(name: str, accepted: Sequence[str]) -> str | None:
    """Why ``name`` is not one of the ``accepted`` extensions, or None when it is.

    Uploaders take any file and call this, so that a rejected type is a message that says
    what is accepted (Streamlit's own type filter only shows a red icon, reason on hover).

    >>> wrong_file_type("photo.PNG", ("csv", "tsv"))
    'photo.PNG is not a .csv or .tsv file; upload a .csv or .tsv text file.'
    >>> wrong_file_type("data.TSV", ("csv", "tsv")) is None
    True
    """
    if "." in name and name.rsplit(".", 1)[1].lower() in accepted:
        return None
    kinds = " or ".join(f".{ext}" for ext in accepted)
    return f"{file_name(name)} is not a {kinds} file; upload a {kinds} text file."
