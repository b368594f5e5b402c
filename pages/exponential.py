"""Exponential mechanism: exact output probabilities, an animated run, and the accuracy bound."""

from dpui.kit.page import run
from dpui.mechanisms.exponential_page import PAGE

run(PAGE)
