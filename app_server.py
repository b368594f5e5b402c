"""The app's server: Streamlit's, running ``app.py``, with the app's own HTTP route (a
follower's page asks it whether the lecturer moved: :mod:`dpui.kit.follow_http`).

``python -m streamlit run app_server.py`` serves the app (Streamlit finds ``app`` below and
runs it with the usual ``--server.*`` options); ``streamlit run app.py`` serves the same pages
without the route, and a follower's page then reads the room on a timer instead.
"""

import streamlit as st

from dpui.kit import follow_http

app = st.App("app.py", routes=follow_http.routes())
