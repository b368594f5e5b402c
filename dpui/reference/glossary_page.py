"""The Glossary page: one paragraph per term the pages use."""

import streamlit as st

from dpui.kit import anchors, references
from dpui.kit.page import Page, View
from dpui.reference import glossary


def body(view: View | None) -> None:
    """Every term, with an anchor that the pages' links open."""
    for term in glossary.TERMS:
        st.header(term.name, anchor=term.key)
        st.markdown(references.resolve(term.definition))
    anchors.scroll_to_entry({term.key for term in glossary.TERMS})


PAGE = Page(
    key="glossary",
    title="Glossary",
    icon=":material/menu_book:",
    group="Reference",
    blurb=(
        "One paragraph per term: ε, sensitivity, coverage probability, budget allocation, BLUE "
        "/ consistency, MSE, workload, canonical decomposition, LDP and more."
    ),
    notice=(
        "Each term the pages use is defined here in one paragraph; the pages link to it where "
        "they first use a term."
    ),
    charts=False,
    data="",
    body=body,
)
