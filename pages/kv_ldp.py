"""Key-value LDP: HISKV (reconstructed) and the mechanisms it is compared with."""

from dpui.kit.page import run
from dpui.ldp.page import PAGE

run(PAGE)
