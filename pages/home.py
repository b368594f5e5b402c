"""Overview: what DP Explorer is for, one line per page, and the shared dataset."""

from dpui import registry
from dpui.kit.page import run
from dpui.reference.home_page import listing

run(listing(registry.PAGES))
