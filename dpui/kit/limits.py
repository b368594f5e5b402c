"""Work limits, the gate: what one request may cost, estimated before it runs.

One Streamlit server serves a whole class from one process, so a single link
must not occupy it for minutes or fill its memory. Every page's expensive
computation first asks :func:`allow` (the page runner does it with the page's
``cost``) with a :class:`Cost` estimated from its parameters by a cost model that
lives beside the computation it estimates (``page_cost`` in the feature packages);
above the limit the page shows a message saying what was limited, the estimate,
and how to run it bigger, and skips the computation.

The limits are environment variables, read at each check (Streamlit's own
config file has no place for application settings):

``DP_EXPLORER_WORK_SECONDS`` (default 5)
    estimated seconds of one core for one computation;
``DP_EXPLORER_MEMORY_MB`` (default 600)
    its estimated peak memory;
``DP_EXPLORER_CACHE_MB`` (default 600)
    the total size of the big arrays kept between reruns by the
    :func:`dpui.kit.byte_cache.cache_by_bytes` caches together (trees, releases,
    key-value datasets, prepared algorithms);
``DP_EXPLORER_REQUEST_SECONDS`` (default 120)
    estimated seconds of a search a user starts with a button (:func:`allow_requested`):
    it shows progress, runs once and is then kept for every session, so it may take
    longer than a page's rerun, but never without bound.

The cost models are linear in the work (bins, pairs, users x repetitions, ...)
with constants measured once (November 2026) by timing the dpcore calls of this
repository on the 2-core development server, itself shared with other jobs (peak
memory by ``tracemalloc``), and rounded up; they are estimates, good to a factor
of about two, which is what a limit needs. Recalibrate them when dpcore gets faster.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

import streamlit as st

P = ParamSpec("P")
R = TypeVar("R")

SECONDS_VARIABLE = "DP_EXPLORER_WORK_SECONDS"
MEMORY_VARIABLE = "DP_EXPLORER_MEMORY_MB"
CACHE_VARIABLE = "DP_EXPLORER_CACHE_MB"
REQUEST_VARIABLE = "DP_EXPLORER_REQUEST_SECONDS"
DEFAULTS = {
    SECONDS_VARIABLE: 5.0,
    MEMORY_VARIABLE: 600.0,
    CACHE_VARIABLE: 600.0,
    REQUEST_VARIABLE: 120.0,
}
MB = 1e6


@dataclass(frozen=True)
class Cost:
    """Estimated single-core seconds and peak memory (MB) of one computation; the sum of
    two steps run one after the other adds the seconds and keeps the larger peak."""

    seconds: float
    megabytes: float

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.seconds + other.seconds, max(self.megabytes, other.megabytes))


@dataclass(frozen=True)
class Limits:
    seconds: float
    megabytes: float
    cache_megabytes: float


def _env(name: str) -> float:
    raw = os.environ.get(name, "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULTS[name]
    return value if value > 0 else DEFAULTS[name]


def current() -> Limits:
    """The limits set by the environment (defaults for unset or invalid values)."""
    return Limits(_env(SECONDS_VARIABLE), _env(MEMORY_VARIABLE), _env(CACHE_VARIABLE))


def refusal(what: str, cost: Cost, *, smaller: str, library: str, limits: Limits) -> str | None:
    """The message refusing ``what`` when ``cost`` exceeds ``limits``, else None.

    ``smaller`` says which inputs to reduce; ``library`` names the dpcore call that
    runs the same computation without any limit.
    """
    over = []
    if cost.seconds > limits.seconds:
        over.append(f"about {cost.seconds:,.0f} s of computing (limit {limits.seconds:g} s)")
    if cost.megabytes > limits.megabytes:
        over.append(f"about {cost.megabytes:,.0f} MB of memory (limit {limits.megabytes:g} MB)")
    if not over:
        return None
    return (
        f"**Not computed: {what} would take {' and '.join(over)}.** This server is shared, so "
        f"one request is limited. To stay within the limit, {smaller}. {_bigger(library)}"
    )


def _bigger(library: str) -> str:
    return (
        f"To run it bigger, call `{library}` from Python, or start your own server with larger "
        f"limits, e.g. `{SECONDS_VARIABLE}=600 {MEMORY_VARIABLE}=16000 "
        "streamlit run app_server.py` (see 'Serving a class' in the README)."
    )


def allow_requested(what: str, cost: Cost, *, smaller: str, library: str) -> bool:
    """:func:`allow` for a search started by a button: its seconds are held to
    ``DP_EXPLORER_REQUEST_SECONDS`` instead of the per-rerun limit."""
    limits = current()
    limits = Limits(_env(REQUEST_VARIABLE), limits.megabytes, limits.cache_megabytes)
    message = refusal(what, cost, smaller=smaller, library=library, limits=limits)
    if message is None:
        return True
    st.warning(
        message.replace(SECONDS_VARIABLE, REQUEST_VARIABLE), icon=":material/hourglass_disabled:"
    )
    return False


def allow_or_offer(what: str, cost: Cost, *, key: Hashable, smaller: str, library: str) -> bool:
    """True when ``what`` may run in this rerun: within the per-change limit, or asked for
    by this session's click for exactly these parameters (``key``) and within the limit of
    a requested run (``DP_EXPLORER_REQUEST_SECONDS``).

    Otherwise it says why it did not run and, when a requested run may take that long,
    offers a button that runs it (with the page's own progress display); False until then.
    The click is remembered per session and per ``key``, so the next reruns with the same
    parameters keep the full result (computed once, then cached by the page).
    """
    requested = st.session_state.setdefault(_REQUESTED, set())
    if key in requested:
        return allow_requested(what, cost, smaller=smaller, library=library)
    limits = current()
    if refusal(what, cost, smaller=smaller, library=library, limits=limits) is None:
        return True
    on_request = Limits(_env(REQUEST_VARIABLE), limits.megabytes, limits.cache_megabytes)
    if refusal(what, cost, smaller=smaller, library=library, limits=on_request) is not None:
        return allow(what, cost, smaller=smaller, library=library)  # refused: says why
    seconds = f"{cost.seconds:,.0f}" if cost.seconds >= 10 else f"{cost.seconds:.2g}"
    text, button = st.columns([3, 1], vertical_alignment="center")
    text.info(
        f"**Not run yet: {what} would take about {seconds} s**, more than the "
        f"{limits.seconds:g} s a change may take on this shared server. Run it on request, "
        f"or {smaller}.",
        icon=":material/hourglass_top:",
    )
    button.button(
        f"Run it (about {seconds} s)",
        icon=":material/play_arrow:",
        key=f"_run.{hash(key)}",
        on_click=requested.add,
        args=(key,),
    )
    return False


_REQUESTED = "_limits.requested"


def requested() -> frozenset[Hashable]:
    """The keys of this session's "Run it" clicks (see :func:`allow_or_offer`)."""
    return frozenset(st.session_state.get(_REQUESTED, ()))


def within(cost: Cost, *, on_request: bool = False) -> bool:
    """Whether ``cost`` fits the per-change limits, or (``on_request``) those of a run the
    user asked for (``DP_EXPLORER_REQUEST_SECONDS``); draws nothing."""
    limits = current()
    seconds = _env(REQUEST_VARIABLE) if on_request else limits.seconds
    return cost.seconds <= seconds and cost.megabytes <= limits.megabytes


def allow(what: str, cost: Cost, *, smaller: str, library: str) -> bool:
    """True when ``cost`` is within the current limits; otherwise show why, return False."""
    message = refusal(what, cost, smaller=smaller, library=library, limits=current())
    if message is None:
        return True
    st.warning(message, icon=":material/hourglass_disabled:")
    return False


def largest_within(sizes: Iterable[int], cost: Callable[[int], Cost]) -> int | None:
    """The largest of ``sizes`` whose ``cost`` is within the current limits (None if none is)."""
    limits = current()
    fitting = [
        s
        for s in sizes
        if cost(s).seconds <= limits.seconds and cost(s).megabytes <= limits.megabytes
    ]
    return max(fitting, default=None)


def scaled_down(what: str, *, library: str) -> None:
    """Say that ``what`` was reduced to fit the limits, and how to run the full size."""
    st.info(
        f"**Reduced by this server's work limit: {what}.** {_bigger(library)}",
        icon=":material/hourglass_bottom:",
    )
