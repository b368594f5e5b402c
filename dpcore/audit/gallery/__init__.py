"""Mechanisms with known ε to audit: published buggy ones and this product's own.

Every :class:`Entry` has a name, a claimed ε (and δ), its true ε where known, a sampler
for each of two neighbouring inputs, whether it is buggy (true ε above the claim), a
one-line description and, where the output distribution is finite and known, its exact
law (:class:`ExactLaw`, whose ``epsilon`` is the exact ε between the two inputs).
Factories take the claimed ε and, for the product's mechanisms, ``stated_sensitivity``:
a deliberately broken calibration (noise for a sensitivity below the true one).
:mod:`~dpcore.audit.gallery.releases` runs every histogram-release algorithm of the product
on neighbouring histograms, :mod:`~dpcore.audit.gallery.ldp_ranges` the range-query
mechanisms under local DP; the catalogue holds those cheap enough for the Audit page.
Sources: Bichsel et al. ("DP-Sniper", IEEE S&P 2021), Ding et al. (StatDP, CCS 2018),
Lyu, Su, Li (PVLDB 2017), Balcer & Vadhan (2017), Erlingsson, Pihur, Korolova (RAPPOR,
CCS 2014).
"""

from dpcore.audit.gallery import ldp_ranges
from dpcore.audit.gallery.central import (
    exponential,
    floating_point_laplace,
    gaussian,
    geometric,
    histogram,
    laplace,
    noisy_max_exponential_value,
    noisy_max_value,
    report_noisy_max,
    tree_release,
    truncated_geometric,
)
from dpcore.audit.gallery.entry import Entry, ExactLaw
from dpcore.audit.gallery.local import (
    grr,
    harmony_entry,
    hiskv_entry,
    hiskv_printed,
    kv_sue_entry,
    kvoh_entry,
    kvue_entry,
    pckv_grr,
    pckv_ue,
    privkv_entry,
    privkvm_entry,
    randomized_response,
    sue,
)
from dpcore.audit.gallery.rappor import rappor
from dpcore.audit.gallery.releases import efpa_phase_kept, region_tree
from dpcore.audit.gallery.sparse_vector import svt1, svt2, svt3, svt4, svt5, svt6


def catalogue() -> tuple[Entry, ...]:
    """Every gallery entry at its default settings: correct mechanisms first, then the buggy.

    Returns
    -------
    tuple of Entry
        Names are unique.

    Examples
    --------
    >>> [e.name for e in catalogue() if e.buggy][:2]
    ['Truncated geometric, ε0 = 0.1', 'Histogram, noise scale inverted']
    """
    correct = (
        laplace(), geometric(), gaussian(), exponential(), report_noisy_max(), histogram(),
        tree_release(), region_tree(), truncated_geometric(0.5), svt1(), svt2(),
        randomized_response(), grr(), sue(), ldp_ranges.hierarchy(), ldp_ranges.haar(),
        hiskv_entry(), pckv_grr(), pckv_ue(), kvue_entry(), kvoh_entry(), privkv_entry(),
        privkvm_entry(), kv_sue_entry(), harmony_entry(), rappor(),
    )  # fmt: skip
    buggy = (
        truncated_geometric(0.1), histogram(0.5, inverted=True), noisy_max_value(),
        noisy_max_exponential_value(), region_tree(levels_ignored=True),
        ldp_ranges.hierarchy("grr", levels="split", levels_ignored=True), svt3(), svt4(),
        svt5(), svt6(), hiskv_printed(), efpa_phase_kept(), floating_point_laplace(),
    )  # fmt: skip
    return correct + buggy


__all__ = [
    "Entry",
    "ExactLaw",
    "catalogue",
    "efpa_phase_kept",
    "exponential",
    "floating_point_laplace",
    "gaussian",
    "geometric",
    "grr",
    "harmony_entry",
    "hiskv_entry",
    "hiskv_printed",
    "histogram",
    "kv_sue_entry",
    "kvoh_entry",
    "kvue_entry",
    "laplace",
    "ldp_ranges",
    "noisy_max_exponential_value",
    "noisy_max_value",
    "pckv_grr",
    "pckv_ue",
    "privkv_entry",
    "privkvm_entry",
    "randomized_response",
    "rappor",
    "region_tree",
    "report_noisy_max",
    "sue",
    "svt1",
    "svt2",
    "svt3",
    "svt4",
    "svt5",
    "svt6",
    "tree_release",
    "truncated_geometric",
]
