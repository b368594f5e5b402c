"""References: every paper the pages cite, numbered as the ``[n]`` links in the prose."""

from dpui.kit.page import run
from dpui.reference.references_page import PAGE

run(PAGE)
