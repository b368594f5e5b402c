"""Audit a mechanism: a lower bound on ε from its runs, against the claimed and the true ε."""

from dpui.audit.page import PAGE
from dpui.kit.page import run

run(PAGE)
