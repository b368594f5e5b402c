"""DP Explorer: router and frame. Pages live in ``pages/``; the list is ``dpui.registry``.

The shared sidebar (dataset, epsilon) is drawn by each page through
``dpui.kit.sidebar.shared_controls()``, so that every page also runs on its own.
"""

from pathlib import Path

import streamlit as st

from dpui import registry

# shipped with the app: a Material icon name would be fetched from a font CDN (fails offline)
ICON = Path(__file__).resolve().parent / "assets" / "favicon.svg"

st.set_page_config(page_title="DP Explorer", page_icon=str(ICON), layout="wide")

sections: dict[str, list[st.Page]] = {}
for info in registry.PAGES:
    page = st.Page(
        info.path, title=info.title, icon=info.icon, default=info.path.endswith("home.py")
    )
    sections.setdefault(info.section, []).append(page)

navigation = st.navigation({name: sections[name] for name in registry.SECTIONS if name in sections})
navigation.run()
