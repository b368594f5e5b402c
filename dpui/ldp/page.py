"""The Key-value LDP page, declared."""

from dpui.kit.page import Page

PAGE = Page(
    key="kv_ldp",
    title="Key-value LDP",
    icon=":material/key:",
    group="Local DP",
    blurb=(
        "HISKV (reconstructed) against PCKV, PrivKV, KVUE/KVOH, Harmony and SUE: accuracy vs ε "
        "and top-t, the truncation-length and value/key budget trade-offs, exact privacy "
        "checks."
    ),
    notice=(
        "Under [local DP](glossary#ldp) every user randomises their own pairs, so errors are "
        "far larger than in central DP; the mechanisms differ mostly in how they split ε "
        "between key and value and how they handle users with many pairs."
    ),
    caption=(
        "Local differential privacy for key-value data: each user holds a set of ⟨key, value⟩ "
        "pairs and reports one randomized pair; the collector estimates every key's frequency "
        "and mean. Teaching and exploration tool: numpy's generator is not a hardened noise "
        "source."
    ),
)
