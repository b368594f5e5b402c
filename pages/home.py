"""Overview: what DP Explorer is for, one line per page, and the shared dataset."""

import streamlit as st

from dpui import examples, home_view, registry, sidebar

st.title("DP Explorer")
st.markdown(registry.what_to_notice("pages/home.py"))
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
st.plotly_chart(home_view.preview(hist), key="preview")
with st.expander("Bundled examples"):
    st.table({"name": list(examples.DESCRIPTIONS), "what": list(examples.DESCRIPTIONS.values())})
