"""DP Explorer: router and frame. Every page is declared once (``dpui.registry``) and drawn by
the runner (``dpui.kit.page.run``) from its script ``pages/<key>.py``.

The shared sidebar (dataset, epsilon) is drawn by the runner on every page, so that every
page also runs on its own. The navigation is drawn here, as links
(:func:`dpui.kit.navigation.links`): Streamlit's own sidebar menu is hidden because its markup
fails WCAG 2.1 (see that module).
"""

from pathlib import Path

import streamlit as st

from dpui import registry
from dpui.kit import lesson_steps
from dpui.kit import navigation as links

# shipped with the app: a Material icon name would be fetched from a font CDN (fails offline)
ICON = Path(__file__).resolve().parent / "assets" / "favicon.svg"

st.set_page_config(page_title="DP Explorer", page_icon=str(ICON), layout="wide")

groups: dict[str, list[st.Page]] = {}
for page in registry.PAGES:
    groups.setdefault(page.group, []).append(
        st.Page(page.path, title=page.title, icon=page.icon, default=page is registry.PAGES[0])
    )
sections = {name: groups[name] for name in registry.GROUPS if name in groups}
navigation = st.navigation(sections, position="hidden")
lesson_steps.switch(navigation.url_path)  # a step a click asked for: before anything is drawn
links.links(sections)
navigation.run()
