"""Glossary: one paragraph per term the pages use."""

from dpui.kit.page import run
from dpui.reference.glossary_page import PAGE

run(PAGE)
