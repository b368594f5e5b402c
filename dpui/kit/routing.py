"""Keep direct links on the router's navigation.

Streamlit starts every server in its legacy "pages folder" mode when a
``pages/`` directory sits beside the entrypoint, and leaves it only when
``st.navigation`` first runs. Until then a direct link such as ``/laplace``
runs ``pages/laplace.py`` on its own: flat file-name navigation, no sections,
no page config. Every page calls :func:`leave_pages_folder_mode` first; in that
legacy mode it switches the flag off and reruns, so ``app.py`` routes the link.
(The flag is Streamlit-internal; the browser test guards this behaviour.)

Why a patch: Streamlit 1.67 sets ``PagesManager.uses_pages_directory`` from the mere existence
of ``pages/`` beside the entry point (``PagesManager.__init__``) and offers no configuration
option, ``st.navigation`` argument or ``st.Page`` form that turns it off before the first
script run; the product's layout keeps the ``pages/`` folder, so the flag is reset here.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def leave_pages_folder_mode() -> None:
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
