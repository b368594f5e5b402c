"""The Tree & budgets page, declared."""

from dpui.kit.page import Page

PAGE = Page(
    key="tree_budgets",
    title="Tree & budgets",
    icon=":material/account_tree:",
    group="Central DP: histograms",
    blurb=(
        "Build an interval tree over a histogram; see each node's coverage probability, privacy"
        " budget and noise, and the BLUE-consistent release."
    ),
    notice=(
        "Nodes that many range queries use (a high [coverage probability](glossary#coverage) "
        "p_x) get more of the [budget ε](glossary#epsilon) under the per-node allocation, which"
        " lowers the expected error of the raw tree; [BLUE consistency](glossary#blue) then "
        "lowers every allocation's error further, and after BLUE other budgets are best (the "
        "allocations optimal after consistency)."
    ),
    caption=(
        "Hierarchical (interval-tree) release of a histogram under ε-DP, with heteroscedastic "
        "budgets on any tree and BLUE consistency (LUE-DPTree). Teaching and exploration tool."
    ),
)
