"""The References page: every paper the pages cite."""

import streamlit as st

from dpui.kit import anchors, references
from dpui.kit.page import Page, View


def body(view: View | None) -> None:
    """Every reference, numbered as the ``[n]`` links in the prose."""
    for n, ref in enumerate(references.REFERENCES, start=1):
        st.header(f"[{n}] {ref.short}", anchor=references.anchor(ref.key))
        st.markdown(f"{ref.text()}  \n*Used for:* {ref.used_for}")
    anchors.scroll_to_entry({references.anchor(ref.key) for ref in references.REFERENCES})


PAGE = Page(
    key="references",
    title="References",
    icon=":material/format_quote:",
    group="Reference",
    blurb="The papers every [n] in the text links to: authors, title, venue, year.",
    notice=(
        "Every [n] in the pages' text links here; the Chinese sources are given as printed in "
        "the available copies, with English titles in brackets."
    ),
    charts=False,
    data="",
    body=body,
)
