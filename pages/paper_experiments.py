"""Paper experiments: the papers' tables and figures that need a sweep, reproduced exactly."""

from dpui.kit.page import run
from dpui.papers.page import PAGE

run(PAGE)
