"""Typed page parameters and their query-string codec.

A page declares its settings as a tuple of ``Param`` objects. The codec parses
raw query-string values, validates and clamps them, and reports every value it
had to replace, so a copied link reproduces a view and a bad link degrades to
defaults with a visible notice. This module is pure (no Streamlit); the
session/URL glue is in :mod:`dpui.kit.state`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from dpui.kit import untrusted


class Param(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def default(self) -> Any: ...

    def parse(self, raw: str) -> Any:
        """Return the value encoded by ``raw``; raise ``ValueError`` saying what is accepted."""
        ...

    def encode(self, value: Any) -> str: ...


@dataclass(frozen=True)
class IntParam:
    name: str
    default: int
    lo: int
    hi: int
    also: int | None = None
    """One more accepted value outside ``[lo, hi]`` that means something of its own (the page
    says what, e.g. 0: the data's own size), or None."""

    def parse(self, raw: str) -> int:
        """The whole number ``raw``, in ``[lo, hi]`` or equal to ``also``.

        >>> IntParam("n", 0, 100, 1000, also=0).parse("50")
        Traceback (most recent call last):
        ...
        ValueError: 50 is outside [100, 1000] and is not 0
        """
        either = "" if self.also is None else f"{self.also} or "
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"expected {either}a whole number in [{self.lo}, {self.hi}]") from None
        if value != self.also and not self.lo <= value <= self.hi:
            neither = "" if self.also is None else f" and is not {self.also}"
            raise ValueError(f"{value} is outside [{self.lo}, {self.hi}]{neither}")
        return value

    def encode(self, value: Any) -> str:
        return str(int(value))


@dataclass(frozen=True)
class FloatParam:
    name: str
    default: float
    lo: float
    hi: float

    def parse(self, raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"expected a number in [{self.lo:g}, {self.hi:g}]") from None
        if not math.isfinite(value) or not self.lo <= value <= self.hi:
            raise ValueError(f"{value:g} is outside [{self.lo:g}, {self.hi:g}]")
        return value

    def encode(self, value: Any) -> str:
        """The shortest text that parses back to exactly ``value`` (a link reproduces the
        view: ``:g`` would turn 0.1234567 into 0.123457).

        >>> FloatParam("b", 1.0, 0.0, 1e9).encode(123456789.0)
        '123456789'
        """
        text = repr(float(value))
        return text[:-2] if text.endswith(".0") else text


@dataclass(frozen=True)
class ChoiceParam:
    name: str
    default: str
    options: tuple[str, ...]

    def parse(self, raw: str) -> str:
        if raw not in self.options:
            raise ValueError(f"expected one of: {', '.join(self.options)}")
        return raw

    def encode(self, value: Any) -> str:
        return str(value)


@dataclass(frozen=True)
class TextParam:
    """Free text of at most ``max_chars`` characters that the text widgets can hold (valid
    Unicode: :func:`dpui.kit.untrusted.unfit_text`); the page validates its content."""

    name: str
    default: str
    max_chars: int

    def parse(self, raw: str) -> str:
        if len(raw) > self.max_chars:
            raise ValueError(f"expected at most {self.max_chars:,} characters")
        if unfit := untrusted.unfit_text(raw, self.max_chars):
            raise ValueError(unfit)
        return raw

    def encode(self, value: Any) -> str:
        return str(value)


@dataclass(frozen=True)
class BoolParam:
    name: str
    default: bool

    def parse(self, raw: str) -> bool:
        lowered = raw.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false")

    def encode(self, value: Any) -> str:
        return "true" if value else "false"


@dataclass(frozen=True)
class RangeParam:
    """A closed integer interval ``(first, last)`` inside ``[lo, hi]``, written ``first-last``."""

    name: str
    default: tuple[int, int]
    lo: int
    hi: int

    def parse(self, raw: str) -> tuple[int, int]:
        try:
            first, last = (int(part) for part in raw.split("-"))
        except ValueError:
            raise ValueError(
                f"expected first-last, two whole numbers in [{self.lo}, {self.hi}]"
            ) from None
        if not self.lo <= first <= last <= self.hi:
            raise ValueError(f"expected {self.lo} <= first <= last <= {self.hi}")
        return first, last

    def encode(self, value: Any) -> str:
        first, last = value
        return f"{int(first)}-{int(last)}"


def decode(params: Sequence[Param], raw: Mapping[str, str]) -> tuple[dict[str, Any], list[str]]:
    """Values for ``params`` from a query mapping, and a notice per replaced value.

    Missing keys take the default silently; invalid ones take the default and
    produce a notice naming the parameter, the bad value and what is accepted. The
    notice is markdown: the value is inline code, cut (:func:`dpui.kit.untrusted.markdown`),
    so a link cannot put its own links, images or pages of text into the app's warning.

    >>> decode([IntParam("k", 2, 2, 20)], {"k": "99"})
    ({'k': 2}, ['Ignored `k=99` in the link (99 is outside [2, 20]); using 2.'])
    """
    values: dict[str, Any] = {}
    notices: list[str] = []
    for param in params:
        if param.name not in raw:
            values[param.name] = param.default
            continue
        try:
            values[param.name] = param.parse(raw[param.name])
        except ValueError as err:
            values[param.name] = param.default
            notices.append(
                f"Ignored {untrusted.markdown(f'{param.name}={raw[param.name]}')} in the link "
                f"({err}); "
                f"using {param.encode(param.default)}."
            )
    return values, notices


def encode(params: Sequence[Param], values: Mapping[str, Any]) -> dict[str, str]:
    """The query mapping that :func:`decode` turns back into ``values``."""
    return {p.name: p.encode(values[p.name]) for p in params if p.name in values}
