"""What ε means: one bin on two neighbouring datasets, and the privacy loss between them."""

from dpui.kit.page import run
from dpui.meaning.page import PAGE

run(PAGE)
