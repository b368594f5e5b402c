"""The one list of pages: the router (``app.py``) and the home page both read it."""

from __future__ import annotations

from dataclasses import dataclass

from dpui.reference import references


@dataclass(frozen=True)
class PageInfo:
    path: str
    title: str
    icon: str
    section: str
    blurb: str
    notice: str = ""
    """One sentence: what to notice on the page (markdown; may cite ``[@<key>]``)."""


PAGES: tuple[PageInfo, ...] = (
    PageInfo(
        "pages/home.py",
        "Overview",
        ":material/home:",
        "Start",
        "What DP Explorer is for, and the dataset and epsilon the other pages share.",
        "Every page reads the dataset and ε chosen in the sidebar, so change them here and "
        "the other pages follow.",
    ),
    PageInfo(
        "pages/tree_budgets.py",
        "Tree & budgets",
        ":material/account_tree:",
        "Central DP: histograms",
        "Build an interval tree over a histogram; see each node's coverage probability, "
        "privacy budget and noise, and the BLUE-consistent release.",
        "Nodes that many range queries use (a high [coverage "
        "probability](glossary#coverage) p_x) get more of the [budget ε](glossary#epsilon) "
        "under the per-node allocation, which lowers the expected error of the raw tree; "
        "[BLUE consistency](glossary#blue) then lowers every allocation's error further, and "
        "after BLUE other budgets are best (the allocations optimal after consistency).",
    ),
    PageInfo(
        "pages/error_analysis.py",
        "Error analysis",
        ":material/query_stats:",
        "Central DP: histograms",
        "Exact closed-form errors of every algorithm (Dwork, trees raw and BLUE, Privelet) "
        "beside simulations with confidence intervals, and the O(lb³N) accuracy index.",
        "The closed-form lines run through the simulated 95% intervals, so every "
        "algorithm's [MSE](glossary#mse) is known exactly without simulating; compare how "
        "fast each one grows with the range length, N and 1/ε².",
    ),
    PageInfo(
        "pages/matrix_privelet.py",
        "Matrix mechanism / Privelet",
        ":material/grid_on:",
        "Central DP: histograms",
        "Privelet's Haar strategy and reconstruction matrices, the covariance B Bᵀ, and one "
        "range's error three ways: the closed form, a sub-matrix sum of B Bᵀ, and simulation.",
        "A range's error is the sum of a whole block of B Bᵀ, covariances included: for "
        "Privelet the diagonal alone (the bins' own variances) is wrong for every range longer "
        "than one bin except the two middle bins [N/2, N/2+1], whose covariance is 0 [@wu-2018].",
    ),
    PageInfo(
        "pages/paper_experiments.py",
        "Paper experiments",
        ":material/science:",
        "Central DP: histograms",
        "The papers' sweeps reproduced exactly: Privelet's Table 2 (eq. 16 vs eq. 17 vs "
        "simulation), LUE-DPTree's error vs range length, and error vs fan-out for three "
        "budget rules.",
        "The papers' own sweeps, recomputed: the exact closed forms (lines) run through the "
        "simulations (points), so each published table can be checked number by number.",
    ),
    PageInfo(
        "pages/laplace.py",
        "Laplace mechanism",
        ":material/bar_chart:",
        "Central DP: mechanisms",
        "Add Laplace noise to a real histogram (gapminder populations); compare the textbook "
        "max-error bound ln(k/δ)·Δf/ε with the exact width and a simulation.",
        "For small δ the textbook bound ln(k/δ)·Δf/ε is almost the exact width, so noise "
        "that stays inside it in one release is what the bound predicts, not a sign that it "
        "is loose.",
    ),
    PageInfo(
        "pages/exponential.py",
        "Exponential mechanism",
        ":material/casino:",
        "Central DP: mechanisms",
        "Pick the best candidate privately: exact output probabilities, an animated run of "
        "repeated draws, and the accuracy bound vs the exact probability (which can be >1).",
        "The best candidate is the most likely output but never certain: as ε shrinks its "
        "probability falls towards 1/|R|, and repeated draws settle onto the exact "
        "probabilities.",
    ),
    PageInfo(
        "pages/kv_ldp.py",
        "Key-value LDP",
        ":material/key:",
        "Local DP",
        "HISKV (reconstructed) against PCKV, PrivKV, KVUE/KVOH, Harmony and SUE: accuracy vs "
        "ε and top-t, the truncation-length and value/key budget trade-offs, exact privacy checks.",
        "Under [local DP](glossary#ldp) every user randomises their own pairs, so errors "
        "are far larger than in central DP; the mechanisms differ mostly in how they split "
        "ε between key and value and how they handle users with many pairs.",
    ),
    PageInfo(
        "pages/glossary.py",
        "Glossary",
        ":material/menu_book:",
        "Reference",
        "One paragraph per term: ε, sensitivity, coverage probability, budget allocation, "
        "BLUE / consistency, MSE, workload, canonical decomposition, LDP and more.",
        "Each term the pages use is defined here in one paragraph; the pages link to it "
        "where they first use a term.",
    ),
    PageInfo(
        "pages/references.py",
        "References",
        ":material/format_quote:",
        "Reference",
        "The papers every [n] in the text links to: authors, title, venue, year.",
        "Every [n] in the pages' text links here; the Chinese sources are given as printed "
        "in the available copies, with English titles in brackets.",
    ),
)


def what_to_notice(path: str) -> str:
    """The "What to notice" sentence of the page at ``path``, citations resolved."""
    info = next(info for info in PAGES if info.path == path)
    return references.resolve(f"**What to notice:** {info.notice}")


SECTIONS: tuple[str, ...] = (
    "Start",
    "Central DP: histograms",
    "Central DP: mechanisms",
    "Local DP",
    "Reference",
)
