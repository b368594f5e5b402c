"""The one list of pages, in navigation order: the router (``app.py``) and the Overview read
it; each page is declared once, in its feature's package."""

from __future__ import annotations

from dpui.algorithms.page import PAGE as WHICH_ALGORITHM
from dpui.audit.page import PAGE as AUDIT
from dpui.errors.analysis_page import PAGE as ERROR_ANALYSIS
from dpui.errors.matrix_page import PAGE as MATRIX_PRIVELET
from dpui.kit.page import Page
from dpui.ldp.page import PAGE as KV_LDP
from dpui.ldp_ranges.page import PAGE as LDP_RANGES
from dpui.meaning.page import PAGE as EPSILON
from dpui.mechanisms.exponential_page import PAGE as EXPONENTIAL
from dpui.mechanisms.laplace_page import PAGE as LAPLACE
from dpui.papers.page import PAGE as PAPER_EXPERIMENTS
from dpui.reference.glossary_page import PAGE as GLOSSARY
from dpui.reference.home_page import PAGE as HOME
from dpui.reference.lesson_page import PAGE as LESSON
from dpui.reference.references_page import PAGE as REFERENCES
from dpui.spatial.page import PAGE as SPATIAL
from dpui.tree.page import PAGE as TREE_BUDGETS

PAGES: tuple[Page, ...] = (
    HOME,
    EPSILON,
    AUDIT,
    TREE_BUDGETS,
    ERROR_ANALYSIS,
    MATRIX_PRIVELET,
    SPATIAL,
    PAPER_EXPERIMENTS,
    WHICH_ALGORITHM,
    LAPLACE,
    EXPONENTIAL,
    KV_LDP,
    LDP_RANGES,
    GLOSSARY,
    REFERENCES,
    LESSON,
)

GROUPS: tuple[str, ...] = (
    "Start",
    "Central DP: histograms",
    "Central DP: mechanisms",
    "Local DP",
    "Reference",
)
