"""The one list of pages: the router (``app.py``) and the home page both read it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    path: str
    title: str
    icon: str
    section: str
    blurb: str


PAGES: tuple[PageInfo, ...] = (
    PageInfo(
        "pages/home.py",
        "Overview",
        ":material/home:",
        "Start",
        "What DP Explorer is for, and the dataset and epsilon the other pages share.",
    ),
    PageInfo(
        "pages/tree_budgets.py",
        "Tree & budgets",
        ":material/account_tree:",
        "Central DP: histograms",
        "Build an interval tree over a histogram; see each node's coverage probability, "
        "privacy budget and noise, and the BLUE-consistent release.",
    ),
    PageInfo(
        "pages/error_analysis.py",
        "Error analysis",
        ":material/query_stats:",
        "Central DP: histograms",
        "Exact closed-form errors of every algorithm (Dwork, trees raw and BLUE, Privelet) "
        "beside simulations with confidence intervals, and the O(lb³N) accuracy index.",
    ),
    PageInfo(
        "pages/matrix_privelet.py",
        "Matrix mechanism / Privelet",
        ":material/grid_on:",
        "Central DP: histograms",
        "Privelet's Haar strategy and reconstruction matrices, the covariance B Bᵀ, and one "
        "range's error by the seed's algorithm 3, a sub-matrix sum and simulation.",
    ),
    PageInfo(
        "pages/paper_experiments.py",
        "Paper experiments",
        ":material/science:",
        "Central DP: histograms",
        "The papers' sweeps reproduced exactly: Privelet's Table 2 (eq. 16 vs eq. 17 vs "
        "simulation), LUE-DPTree's error vs range length, and error vs fan-out for three "
        "budget rules.",
    ),
    PageInfo(
        "pages/laplace.py",
        "Laplace mechanism",
        ":material/bar_chart:",
        "Central DP: mechanisms",
        "Add Laplace noise to a real histogram (gapminder populations); compare the textbook "
        "max-error bound ln(k/δ)·Δf/ε with the exact width and a simulation.",
    ),
    PageInfo(
        "pages/exponential.py",
        "Exponential mechanism",
        ":material/casino:",
        "Central DP: mechanisms",
        "Pick the best candidate privately: exact output probabilities, an animated run of "
        "repeated draws, and the accuracy bound vs the exact probability (which can be >1).",
    ),
    PageInfo(
        "pages/kv_ldp.py",
        "Key-value LDP",
        ":material/key:",
        "Local DP",
        "HISKV (reconstructed) against PCKV, PrivKV, KVUE/KVOH, Harmony and SUE: accuracy vs "
        "ε and top-t, the truncation-length and value/key budget trade-offs, exact privacy checks.",
    ),
)

SECTIONS: tuple[str, ...] = (
    "Start",
    "Central DP: histograms",
    "Central DP: mechanisms",
    "Local DP",
)
