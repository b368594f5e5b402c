"""Laplace mechanism: true vs noisy counts, the noise, and the max-error bound vs the truth."""

from dpui.kit.page import run
from dpui.mechanisms.laplace_page import PAGE

run(PAGE)
