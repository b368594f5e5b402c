"""The Overview: what DP Explorer is for, one line per page, and the shared dataset."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import streamlit as st

from dpui.kit import examples, present, sidebar
from dpui.kit.page import Page, View
from dpui.reference import home as home_view

PAGE = Page(
    key="home",
    title="Overview",
    heading="DP Explorer",
    icon=":material/home:",
    group="Start",
    blurb="What DP Explorer is for, and the dataset and epsilon the other pages share.",
    notice=(
        "Every page reads the dataset and ε chosen in the sidebar, so change them here and the "
        "other pages follow."
    ),
)


def listing(pages: Sequence[Page]) -> Page:
    """The Overview, listing ``pages`` (the registry, which lists the Overview itself)."""

    def body(view: View | None) -> None:
        st.markdown(home_view.intro())

        st.header("Pages")
        st.markdown(
            "\n".join(
                f"- {page.icon} **{page.title}** — {page.blurb}"
                for page in pages
                if page.key != PAGE.key
            )
        )

        st.header("The shared dataset and ε")
        hist = sidebar.current_histogram()
        st.markdown(
            f"Every page uses the dataset and ε chosen in the sidebar: now **{hist.name}** "
            f"({hist.n_bins:,} bins, total {hist.total:,.0f}) at "
            f"**ε = {sidebar.current_epsilon():g}**."
        )
        if hist.name in examples.DESCRIPTIONS:
            st.caption(examples.DESCRIPTIONS[hist.name])
        present.show_chart(
            home_view.preview(hist),
            {"dataset": hist.name, "n": hist.n_bins},
            key="preview",
        )
        with st.expander("Bundled examples"):
            st.table(
                {"name": list(examples.DESCRIPTIONS), "what": list(examples.DESCRIPTIONS.values())}
            )

    return replace(PAGE, body=body)
