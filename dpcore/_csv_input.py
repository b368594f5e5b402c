"""Reading an uploaded CSV/TSV file, shared by the 1-D (:mod:`dpcore.histogram`) and the 2-D
(:mod:`dpcore.spatial.grid_data`) parsers: the checks before any parsing, a reader with the
delimiter of the first non-blank line, and the note saying how the first row was read."""

from __future__ import annotations

import _csv
import csv
import io
import re


def normalised(data: bytes, *, max_bytes: int, accepted: str) -> bytes:
    """``data`` with ``\\n`` line ends, once it is within ``max_bytes`` and has no NUL byte.

    Parameters
    ----------
    data : bytes
        The file's content.
    max_bytes : int
        The largest size accepted.
    accepted : str
        What the parser accepts (ends the message about a binary file).

    Returns
    -------
    bytes
        The content, ``\\r\\n`` and ``\\r`` replaced by ``\\n``.

    Raises
    ------
    ValueError
        Saying the size or that the file looks binary.
    """
    if len(data) > max_bytes:
        raise ValueError(
            f"The file is {len(data) / 2**20:.1f} MiB; at most {max_bytes / 2**20:.0f} MiB "
            "is accepted."
        )
    if b"\x00" in data:
        raise ValueError(f"The file looks binary (it contains NUL bytes). {accepted}")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def reader(data: bytes) -> _csv.Reader:
    """A CSV reader of ``data`` (UTF-8, a BOM dropped), separated by the first of tab,
    semicolon and comma found in its first non-blank line (comma if none)."""
    first_ink = re.search(rb"\S", data)
    start = 0 if first_ink is None else data.rfind(b"\n", 0, first_ink.start()) + 1
    end = data.find(b"\n", start)
    first_line = data[start : end if end >= 0 else len(data)]
    delimiter = next((d for d in ("\t", ";", ",") if d.encode() in first_line), ",")
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
    return csv.reader(text, delimiter=delimiter)


def header_note(cells: list[str], is_header: bool) -> str:
    """How the first row was read, quoting (the start of) its first eight cells.

    >>> header_note(["a", "1"], False)
    'No header: the first row (a, 1) was read as data.'
    """
    shown = ", ".join(cell[:40] for cell in cells[:8])
    if is_header:
        return f"First row read as a header: {shown}."
    return f"No header: the first row ({shown}) was read as data."
