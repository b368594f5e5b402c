"""The mechanisms the "Audit a mechanism" page offers: the audit gallery, one entry per
mechanism, each built at the claimed ε the page is given.

:func:`dpcore.audit.gallery.catalogue` lists the gallery at fixed claims; the page instead
runs each mechanism at the sidebar's ε, so every choice here is a factory of the gallery
with the claim its catalogue entry uses (the "Use ε = ..." button of the page), the largest
claim it is built for, and its measured cost per run (for the work limit).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from dpcore.audit import gallery
from dpcore.audit.gallery import Entry, ldp_ranges
from dpcore.ldp.ranges.oracles import MIN_EPS

MAX_CLAIM = 10.0
"""The largest claimed ε any mechanism is built at: beyond it the exact laws of the local
mechanisms underflow (a correct mechanism would show an infinite "exact ε"), and HISKV
accepts no more."""


@dataclass(frozen=True)
class Mechanism:
    """One choice of the page.

    Attributes
    ----------
    label : str
        Its name in the menu.
    build : callable
        ``build(claimed ε) -> Entry``.
    claim : float
        The claimed ε of its catalogue entry (where a known bug shows, for the buggy ones).
    known_bug : bool
        Whether its catalogue entry is buggy (its true ε above that claim).
    ns_per_run : float
        CPU nanoseconds of a whole audit per run on each input (both inputs' sampling, the
        event's choice and the count), measured at a million runs (November 2026), rounded up.
    bytes_per_run : float
        Peak memory of an audit per run on each input (``tracemalloc``), rounded up.
    max_claim : float
        The largest claimed ε it is built at.
    min_claim : float
        The smallest claimed ε it is built at (0: any positive ε).
    """

    label: str
    build: Callable[[float], Entry]
    claim: float = 1.0
    known_bug: bool = False
    ns_per_run: float = 500.0
    bytes_per_run: float = 150.0
    max_claim: float = MAX_CLAIM
    min_claim: float = 0.0


def _randomized_response(eps: float) -> Entry:
    """Randomized response keeping the bit with probability ``e^ε / (1 + e^ε)`` (claim ε)."""
    return gallery.randomized_response(1.0 / (1.0 + math.exp(-eps)))


RAPPOR_CLAIM = 8.0 * math.log(0.525 / 0.475)
"""One-time RAPPOR's claim at DP-Sniper's ``f = 0.95`` and 4 hashes: ``2h ln((1 - f/2)/(f/2))``."""


def _rappor(eps: float) -> Entry:
    """One-time RAPPOR (4 hashes) with ``f`` such that ``2h ln((1 - f/2)/(f/2))`` is ε."""
    return gallery.rappor(2.0 / (1.0 + math.exp(eps / 8.0)), hashes=4)


def _inverted(eps: float) -> Entry:
    return gallery.histogram(eps, inverted=True)


def _levels_ignored(eps: float) -> Entry:
    return gallery.region_tree(eps, levels_ignored=True)


def _ldp_tree(eps: float) -> Entry:
    return ldp_ranges.hierarchy(eps=eps)


def _ldp_levels_ignored(eps: float) -> Entry:
    return ldp_ranges.hierarchy("grr", eps, levels="split", levels_ignored=True)


MECHANISMS: dict[str, Mechanism] = {
    "laplace": Mechanism("Laplace (count)", gallery.laplace, ns_per_run=250, bytes_per_run=40),
    "geometric": Mechanism("Geometric (count)", gallery.geometric, ns_per_run=450),
    "gaussian": Mechanism(
        "Gaussian (count, δ = 1e-5)", gallery.gaussian, ns_per_run=250, bytes_per_run=40
    ),
    "exponential": Mechanism("Exponential mechanism", gallery.exponential, ns_per_run=450),
    "noisy_max": Mechanism("Report noisy max", gallery.report_noisy_max, ns_per_run=500),
    "histogram": Mechanism("Laplace histogram (5 bins)", gallery.histogram, ns_per_run=750),
    "tree": Mechanism(
        "Tree release (16 bins)", gallery.tree_release, ns_per_run=1300, bytes_per_run=300
    ),
    "region_tree": Mechanism(
        "Region-tree release (4 x 4 grid)", gallery.region_tree, ns_per_run=2500
    ),
    "svt1": Mechanism("Sparse vector SVT1", gallery.svt1, ns_per_run=2000, bytes_per_run=600),
    "svt2": Mechanism("Sparse vector SVT2", gallery.svt2, ns_per_run=3000, bytes_per_run=600),
    "ldp_tree": Mechanism(
        "LDP range query, hierarchical (8 items, OUE)",
        _ldp_tree,
        min_claim=MIN_EPS,
        ns_per_run=3500,
        bytes_per_run=600,
    ),
    "ldp_haar": Mechanism(
        "LDP range query, Haar (8 items)",
        ldp_ranges.haar,
        min_claim=MIN_EPS,
        ns_per_run=900,
        bytes_per_run=250,
    ),
    "rr": Mechanism("Randomized response", _randomized_response, claim=math.log(3.0)),
    "grr": Mechanism("GRR (4 items)", gallery.grr, ns_per_run=300),
    "sue": Mechanism("SUE (4 bits)", gallery.sue, ns_per_run=900, bytes_per_run=300),
    "hiskv": Mechanism("HISKV (reconstructed)", gallery.hiskv_entry, ns_per_run=450),
    "pckv_grr": Mechanism("PCKV-GRR", gallery.pckv_grr, ns_per_run=550),
    "pckv_ue": Mechanism("PCKV-UE", gallery.pckv_ue, ns_per_run=900),
    "kvue": Mechanism("KVUE", gallery.kvue_entry, ns_per_run=350),
    "kvoh": Mechanism("KVOH", gallery.kvoh_entry, ns_per_run=550),
    "privkv": Mechanism("PrivKV", gallery.privkv_entry, ns_per_run=450),
    "harmony": Mechanism("Harmony", gallery.harmony_entry, ns_per_run=350),
    "privkvm": Mechanism("PrivKVM (3 rounds)", gallery.privkvm_entry, ns_per_run=950),
    "kv_sue": Mechanism("SUE (key-value)", gallery.kv_sue_entry, ns_per_run=300),
    "rappor": Mechanism(
        "One-time RAPPOR (20 bits, 4 hashes)",
        _rappor,
        claim=RAPPOR_CLAIM,
        ns_per_run=1200,
        bytes_per_run=600,
    ),
    "truncated_geometric": Mechanism(
        "Truncated geometric (Balcer–Vadhan)",
        gallery.truncated_geometric,
        claim=0.1,
        known_bug=True,
        ns_per_run=450,
        max_claim=1.9,  # k = ceil(ln(2/ε)) is at least 1 only below 2
    ),
    "hist_inverted": Mechanism(
        "Histogram, noise scale inverted", _inverted, claim=0.5, known_bug=True, ns_per_run=750
    ),
    "noisy_max_value": Mechanism(
        "Noisy max returning the value", gallery.noisy_max_value, known_bug=True, ns_per_run=550
    ),
    "noisy_max_exp_value": Mechanism(
        "Noisy max, exponential noise, returning the value",
        gallery.noisy_max_exponential_value,
        known_bug=True,
        ns_per_run=400,
    ),
    "region_tree_levels": Mechanism(
        "Region-tree release, budget per level ignoring the levels",
        _levels_ignored,
        known_bug=True,
        ns_per_run=2500,
    ),
    "ldp_tree_levels": Mechanism(
        "LDP range query, every level at the whole ε",
        _ldp_levels_ignored,
        known_bug=True,
        min_claim=MIN_EPS,
        ns_per_run=900,
        bytes_per_run=250,
        max_claim=MAX_CLAIM / 3,  # three levels at ε each: a user spends 3ε, at most 10
    ),
    "svt3": Mechanism(
        "Sparse vector SVT3", gallery.svt3, known_bug=True, ns_per_run=2400, bytes_per_run=600
    ),
    "svt4": Mechanism(
        "Sparse vector SVT4", gallery.svt4, known_bug=True, ns_per_run=2400, bytes_per_run=600
    ),
    "svt5": Mechanism(
        "Sparse vector SVT5", gallery.svt5, known_bug=True, ns_per_run=650, bytes_per_run=200
    ),
    "svt6": Mechanism(
        "Sparse vector SVT6", gallery.svt6, known_bug=True, ns_per_run=3000, bytes_per_run=600
    ),
    "hiskv_printed": Mechanism(
        "HISKV as printed", gallery.hiskv_printed, known_bug=True, ns_per_run=450
    ),
    "efpa_dpcomp": Mechanism(
        "EFPA as DPComp runs it (phase kept)",
        gallery.efpa_phase_kept,
        known_bug=True,
        ns_per_run=2000,
        bytes_per_run=300,
    ),
    "fp_laplace": Mechanism(
        "Floating-point Laplace (this product's own)",
        gallery.floating_point_laplace,
        known_bug=True,
        ns_per_run=150,
        bytes_per_run=40,
    ),
}
"""Key (in the link) -> mechanism: correct ones first, then those with a known bug."""

EXHIBIT = "fp_laplace"
"""This product's own Laplace mechanism, leaking through floating-point rounding."""


def label(key: str) -> str:
    """The menu's text for ``key``: its name, and "known bug" for the buggy ones."""
    mechanism = MECHANISMS[key]
    return mechanism.label + (" — known bug" if mechanism.known_bug else "")
