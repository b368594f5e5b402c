"""The Exponential mechanism page, declared."""

from dpui.kit.page import Page

PAGE = Page(
    key="exponential",
    title="Exponential mechanism",
    icon=":material/casino:",
    group="Central DP: mechanisms",
    blurb=(
        "Pick the best candidate privately: exact output probabilities, an animated run of "
        "repeated draws, and the accuracy bound vs the exact probability (which can be >1)."
    ),
    notice=(
        "The best candidate is the most likely output but never certain: as ε shrinks its "
        "probability falls towards 1/|R|, and repeated draws settle onto the exact "
        "probabilities."
    ),
    caption=(
        "Choose one candidate with probability ∝ exp(ε·score / 2Δu): the best is likely, every "
        "other candidate stays possible. Teaching and exploration tool: numpy's generator is "
        "not a hardened noise source."
    ),
)
