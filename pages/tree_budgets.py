"""Tree & budgets: an interval tree over the histogram, its coverage, budgets, noise and BLUE."""

from dpui.kit.page import run
from dpui.tree.page import PAGE

run(PAGE)
