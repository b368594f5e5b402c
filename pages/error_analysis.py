"""Error analysis: exact closed-form errors beside simulations, for every histogram algorithm."""

from dpui.errors.analysis_page import PAGE
from dpui.kit.page import run

run(PAGE)
