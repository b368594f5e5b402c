"""Range queries under local DP: flat oracles, hierarchical histograms and HaarHRR."""

from dpui.kit.page import run
from dpui.ldp_ranges.page import PAGE

run(PAGE)
