"""The Paper experiments page, declared."""

from dpui.kit.page import Page

PAGE = Page(
    key="paper_experiments",
    title="Paper experiments",
    icon=":material/science:",
    group="Central DP: histograms",
    blurb=(
        "The papers' sweeps reproduced exactly: Privelet's Table 2 (eq. 16 vs eq. 17 vs "
        "simulation), LUE-DPTree's error vs range length, and error vs fan-out for three budget"
        " rules."
    ),
    notice=(
        "The papers' own sweeps, recomputed: the exact closed forms (lines) run through the "
        "simulations (points), so each published table can be checked number by number."
    ),
    caption=(
        "Tables and figures of the papers behind this tool, reproduced with exact closed forms "
        "(lines) beside simulations (points with 95% intervals). The errors of these linear, "
        "unbiased mechanisms do not depend on the data, so simulations release all-zero "
        "histograms. Teaching and exploration tool: numpy's generator is not a hardened noise "
        "source."
    ),
)
