"""References: every paper the pages cite, numbered as the ``[n]`` links in the prose."""

import streamlit as st

from dpui.kit import present
from dpui.reference import references

present.header("pages/references.py", "References", charts=False)
for n, ref in enumerate(references.REFERENCES, start=1):
    st.subheader(f"[{n}] {ref.short}", anchor=references.anchor(ref.key))
    st.markdown(f"{ref.text()}  \n*Used for:* {ref.used_for}")
