"""Overview: what DP Explorer is for, one line per page, and the shared dataset."""

import streamlit as st

from dpui import registry
from dpui.kit import examples, present, sidebar
from dpui.reference import home as home_view

present.header("pages/home.py", "DP Explorer")
st.markdown(home_view.intro())

st.subheader("Pages")
st.markdown(
    "\n".join(
        f"- {info.icon} **{info.title}** — {info.blurb}"
        for info in registry.PAGES
        if info.path != "pages/home.py"
    )
)

st.subheader("The shared dataset and ε")
sidebar.shared_controls()
hist = sidebar.current_histogram()
st.markdown(
    f"Every page uses the dataset and ε chosen in the sidebar: now **{hist.name}** "
    f"({hist.n_bins:,} bins, total {hist.total:,.0f}) at **ε = {sidebar.current_epsilon():g}**."
)
if hist.name in examples.DESCRIPTIONS:
    st.caption(examples.DESCRIPTIONS[hist.name])
present.show_chart(
    home_view.preview(hist),
    {"dataset": hist.name, "n": hist.n_bins},
    key="preview",
)
with st.expander("Bundled examples"):
    st.table({"name": list(examples.DESCRIPTIONS), "what": list(examples.DESCRIPTIONS.values())})
