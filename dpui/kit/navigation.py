"""The app's navigation as plain links in the sidebar, one group per section.

Why not Streamlit's own menu: ``st.navigation(position="sidebar")`` (Streamlit 1.67) draws its
sections as ``<ul data-testid="stSidebarNavItems">`` whose direct children are ``<div>``s
holding each section's ``<li>``s, which fails axe-core's ``list`` and ``listitem`` rules
(WCAG 2.1 SC 1.3.1, serious) on every page. The router (``app.py``) therefore hides that menu
(``position="hidden"``) and draws the same pages here with ``st.page_link``, which renders one
ordinary link each, keyboard-focusable and marked ``aria-current`` on the page shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st
from streamlit.navigation.page import StreamlitPage


def links(sections: Mapping[str, Sequence[StreamlitPage]]) -> None:
    """Each section's name (plain text, not a heading: the sidebar comes before the page's
    title in the document, so a heading here would put the outline out of order), then a link
    per page."""
    with st.sidebar.container(key="dp-nav", gap="small"):
        for name, pages in sections.items():
            st.markdown(f'<p class="dp-nav-section">{name}</p>', unsafe_allow_html=True)
            for page in pages:
                st.page_link(page, label=page.title, icon=page.icon or None)
        st.divider()
