"""Glossary: one paragraph per term the pages use."""

import streamlit as st

from dpui import glossary, references, registry

st.title("Glossary")
st.markdown(registry.what_to_notice("pages/glossary.py"))
for term in glossary.TERMS:
    st.subheader(term.name, anchor=term.key)
    st.markdown(references.resolve(term.definition))
