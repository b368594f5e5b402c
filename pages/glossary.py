"""Glossary: one paragraph per term the pages use."""

import streamlit as st

from dpui.kit import present
from dpui.reference import glossary, references

present.header("pages/glossary.py", "Glossary", charts=False)
for term in glossary.TERMS:
    st.subheader(term.name, anchor=term.key)
    st.markdown(references.resolve(term.definition))
