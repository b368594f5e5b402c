"""Which algorithm for my data? DPBench's comparison on the sidebar's histogram."""

from dpui.algorithms.page import PAGE
from dpui.kit.page import run

run(PAGE)
