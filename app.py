"""DP Explorer: router and frame. Pages live in ``pages/``; the list is ``dpui.registry``.

The shared sidebar (dataset, epsilon) is drawn by each page through
``dpui.sidebar.shared_controls()``, so that every page also runs on its own.
"""

import streamlit as st

from dpui import registry

st.set_page_config(page_title="DP Explorer", page_icon=":material/shield_lock:", layout="wide")

sections: dict[str, list[st.Page]] = {}
for info in registry.PAGES:
    page = st.Page(
        info.path, title=info.title, icon=info.icon, default=info.path.endswith("home.py")
    )
    sections.setdefault(info.section, []).append(page)

navigation = st.navigation({name: sections[name] for name in registry.SECTIONS if name in sections})
navigation.run()
