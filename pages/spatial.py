"""Spatial data: a 2-D histogram on a region tree, its release, a rectangle, exact errors."""

from dpui.kit.page import run
from dpui.spatial.page import PAGE

run(PAGE)
