"""Ranges a user types as a workload (``1-100, 50-60, 200-300``): parsed, checked, bounded.

Bins are 1-based here, as the pages show them; the library's workload string is 0-based
(:func:`dpcore.hist.workload.parse_workload`). The list lives in the URL, so it is capped at
:data:`MAX_TYPED_RANGES` ranges and :data:`MAX_CHARS` characters.
"""

from __future__ import annotations

import re

MAX_TYPED_RANGES = 100
"""Most ranges a typed list may hold (keeps links short; the library allows more)."""
MAX_CHARS = 2_000
"""Longest typed list: 100 ranges of 7-digit bins with separators."""

_ITEM = re.compile(r"^(\d+)(?:\s*[-–]\s*(\d+))?$")


def to_workload(text: str, n: int) -> str:
    """The library workload string of a typed list of 1-based inclusive ranges.

    Ranges are separated by commas, semicolons or new lines; ``a-b`` or one bin ``a``.

    >>> to_workload("1-100, 50-60; 7", 200)
    'ranges:0-99,49-59,6-6'

    Raises
    ------
    ValueError
        Saying which item is wrong and what is accepted.
    """
    items = [item.strip() for item in re.split(r"[,;\n]", text) if item.strip()]
    if not items:
        raise ValueError("type at least one range, e.g. 1-100, 50-60, 200-300")
    if len(items) > MAX_TYPED_RANGES:
        raise ValueError(f"{len(items):,} ranges typed; at most {MAX_TYPED_RANGES} fit in a link")
    pairs = []
    for item in items:
        match = _ITEM.match(item)
        if match is None:
            raise ValueError(f"'{item[:40]}' is not a range; write first-last, e.g. 50-60")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if not 1 <= first <= last <= n:
            raise ValueError(
                f"range {first}-{last} must satisfy 1 <= first <= last <= {n:,} (the bins)"
            )
        pairs.append(f"{first - 1}-{last - 1}")
    return "ranges:" + ",".join(pairs)
