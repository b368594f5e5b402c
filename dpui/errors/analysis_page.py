"""The Error analysis page, declared."""

from dpui.kit.page import Page

PAGE = Page(
    key="error_analysis",
    title="Error analysis",
    icon=":material/query_stats:",
    group="Central DP: histograms",
    blurb=(
        "Exact closed-form errors of every algorithm (Dwork, trees raw and BLUE, Privelet) "
        "beside simulations with confidence intervals, and the O(lb³N) accuracy index."
    ),
    notice=(
        "The closed-form lines run through the simulated 95% intervals, so every algorithm's "
        "[MSE](glossary#mse) is known exactly without simulating; compare how fast each one "
        "grows with the range length, N and 1/ε²."
    ),
    caption=(
        "Exact mean squared errors of range queries (lines) beside simulations of the real "
        "release pipelines (points with 95% intervals). Teaching and exploration tool: numpy's "
        "generator is not a hardened noise source."
    ),
)
