"""The What ε means page, declared: the example of a page on the runner (see the README's
"Adding a page")."""

from __future__ import annotations

import math
from collections.abc import Callable

import streamlit as st

from dpcore.meaning.neighbours import Neighbours
from dpui.kit import present, references, sidebar, state
from dpui.kit.page import Page, View
from dpui.meaning import neighbours as nbv
from dpui.meaning import parts, sections
from dpui.reference import glossary


def switch() -> None:
    """The part switch, with the page's content above its settings: in view while presenting
    and on a phone (where the sidebar is hidden), and usable when a part refuses its inputs."""
    present.section_choice("Part", parts.PART, parts.PARTS)


def controls() -> None:
    """The chosen part's settings."""
    CONTROLS[str(state.get(parts.PART))]()


def body(view: View | None) -> None:
    """The chosen part's chart, what to notice, numbers and second chart or table."""
    assert view is not None
    BODIES[str(state.get(parts.PART))](view)


def neighbours_controls() -> None:
    """The bin, the mechanism (and δ for Gaussian noise) and the simulation."""
    n = sidebar.current_histogram().n_bins
    c1, c2, c3 = st.columns([1, 1.6, 1])
    c1.number_input(
        "Bin (0 = the largest)",
        nbv.BIN.lo,
        min(nbv.BIN.hi, max(n, int(state.get(nbv.BIN)))),
        key=nbv.BIN.name,
        help=f"The bin Alice is counted in, 1 to {n:,}; 0 picks the bin with the most people.",
    )
    c2.radio(
        "Mechanism",
        tuple(nbv.MECHANISM_NAMES),
        format_func=nbv.MECHANISM_NAMES.__getitem__,
        key=nbv.MECHANISM.name,
    )
    if state.get(nbv.MECHANISM) == "gaussian":
        c2.number_input(
            "δ (Gaussian only)",
            nbv.DELTA.lo,
            nbv.DELTA.hi,
            format="%g",
            key=nbv.DELTA.name,
            help="The chance of a loss beyond ε allowed by (ε, δ)-DP; smaller δ, more noise.",
        )
    c3.number_input(
        "Simulated releases", nbv.RELEASES.lo, nbv.RELEASES.hi, step=1000, key=nbv.RELEASES.name
    )
    c3.number_input("Seed", nbv.SEED.lo, nbv.SEED.hi, key=nbv.SEED.name)


def neighbours_body(view: View) -> None:
    """The chart with its formulas, the key numbers, and what they mean in words."""
    nb: Neighbours = view.detail
    left, right = present.columns([2, 1])
    present.show_chart(view.figure, view.stamp, key="nb_chart", where=left)
    sections.notice(
        "with Laplace or geometric noise the [privacy loss](glossary#privacy-loss) is flat at "
        "±ε away from the two counts, so no output, however extreme, tells D from D′ by more "
        "than the odds e^ε [@dwork-roth-2014]; Gaussian noise lets it exceed ε on a tail "
        "[@balle-wang-2018]."
    )
    with right:
        st.latex(r"e^{-\varepsilon} \le \frac{\Pr[M(D) = o]}{\Pr[M(D') = o]} \le e^{\varepsilon}")
        st.latex(r"L(o) = \ln \frac{p(o \mid D)}{p(o \mid D')}")
        if nb.mechanism == "gaussian":
            st.latex(
                r"\delta = \Phi\Big(\tfrac{\Delta}{2\sigma}"
                r" - \tfrac{\varepsilon\sigma}{\Delta}\Big)"
            )
            st.latex(
                r"\qquad - e^{\varepsilon}\,\Phi\Big(-\tfrac{\Delta}{2\sigma}"
                r" - \tfrac{\varepsilon\sigma}{\Delta}\Big)"
            )
        st.markdown(words(nb))
    m = st.columns(4)
    m[0].metric("ε (sidebar)", f"{nb.eps:g}", help="Smaller ε: more private, more noise.")
    m[1].metric("Odds bound e^ε", f"{view.numbers['odds bound e^ε']:.4g}")
    m[2].metric("Noise scale", f"{view.numbers['noise scale (b, σ or Δ/ε)']:.4g}")
    m[3].metric("P[loss > ε]", f"{nb.exceeds():.3g}", help="0 for Laplace and geometric noise.")
    present.prose(references.prose("meaning.md"))


def words(nb: Neighbours) -> str:
    """What this ε means for this bin, in one paragraph."""
    odds = f"{math.exp(nb.eps):.3g}"
    text = (
        f"Whatever the output, seeing it makes 'Alice is in the data' at most **{odds}** times "
        "more (or less) likely than before: the loss stays between −ε and ε. "
    )
    if nb.mechanism == "gaussian":
        text = (
            f"Gaussian noise cannot keep that promise everywhere: with probability "
            f"**{nb.exceeds():.3g}** one release's loss exceeds ε (shaded), which "
            f"{glossary.link('approximate-dp', '(ε, δ)-DP')} allows at δ = {nb.delta:g}. "
        )
    return text + f"See {glossary.link('privacy-loss', 'privacy loss')}."


CONTROLS: dict[str, Callable[[], None]] = {
    "neighbours": neighbours_controls,
    "attacker": sections.attacker_controls,
    "composition": sections.composition_controls,
    "reconstruction": sections.reconstruction_controls,
}
BODIES: dict[str, Callable[[View], None]] = {
    "neighbours": neighbours_body,
    "attacker": sections.attacker_body,
    "composition": sections.composition_body,
    "reconstruction": sections.reconstruction_body,
}

PAGE = Page(
    key="epsilon",
    title="What ε means",
    icon=":material/balance:",
    group="Central DP: histograms",
    blurb=(
        "The definition drawn: one bin released on two neighbouring datasets and the privacy "
        "loss between them; the attacker's view (membership tests, posterior odds); "
        "composition; and reconstruction from too many accurate answers."
    ),
    notice=(
        "Whatever the part, ε caps one thing: how much one person's presence can change the "
        "odds of any output, by at most e^ε [@dwork-roth-2014]; each part says under its chart "
        "what to notice in it."
    ),
    caption=(
        "D is the sidebar's histogram; its neighbour D′ is D without one person (Alice) in the "
        "chosen bin. Four parts (switch above the settings): neighbours, the attacker's view, "
        "composition and reconstruction; exact curves with seeded simulations over them. "
        "Teaching and exploration tool: numpy's generator is not a hardened noise "
        "source."
    ),
    params=parts.PARAMS,
    pinned=parts.PINNED,
    switch=switch,
    controls=controls,
    cost=parts.cost,
    view=parts.view,
    shared_view=True,
    body=body,
)
