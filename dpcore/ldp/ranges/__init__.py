"""Range queries under local DP: flat oracles, hierarchical histograms HH_B, HaarHRR, AHEAD.

Each method ships its estimator, its exact closed-form variances (one range, the average over
all ranges or prefixes, with and without consistency, noise only or with the data terms) and
two simulations -- every user drawn, or each aggregate drawn from its exact law. Cormode,
Kulkarni, Srivastava, "Answering range queries under local differential privacy", PVLDB
12(10), 2019; restated with worked values in the team's notes on LDP range queries. AHEAD
(Du et al., CCS 2021) adapts the tree to the data: simulated only, its error has no closed
form.
"""

from dpcore.ldp.ranges.ahead import (
    AheadRelease,
    ahead_answers,
    ahead_node_values,
    ahead_threshold,
    simulate_ahead,
)
from dpcore.ldp.ranges.consistency import authors_consistency, blue_smoother, norm_sub
from dpcore.ldp.ranges.haar import (
    coefficient_fractions,
    haar_average_variance,
    haar_leaves,
    haar_range_variance,
)
from dpcore.ldp.ranges.hierarchy import LdpTree, ldp_tree, node_estimates, node_variances
from dpcore.ldp.ranges.oracles import ORACLES, covariance_factors, estimate, noise_constant
from dpcore.ldp.ranges.population import (
    haar_sampling_variance,
    partition_groups,
    sampling_variance,
)
from dpcore.ldp.ranges.simulate import draw_histogram, simulate_flat, simulate_haar, simulate_tree
from dpcore.ldp.ranges.summary import METHODS, average_variance, optimal_fanout
from dpcore.ldp.ranges.variance import (
    flat_average_variance,
    flat_range_variance,
    tree_average_variance,
    tree_range_variance,
)

__all__ = [
    "METHODS",
    "ORACLES",
    "AheadRelease",
    "LdpTree",
    "ahead_answers",
    "ahead_node_values",
    "ahead_threshold",
    "authors_consistency",
    "average_variance",
    "blue_smoother",
    "coefficient_fractions",
    "covariance_factors",
    "draw_histogram",
    "estimate",
    "flat_average_variance",
    "flat_range_variance",
    "haar_average_variance",
    "haar_leaves",
    "haar_range_variance",
    "haar_sampling_variance",
    "ldp_tree",
    "node_estimates",
    "node_variances",
    "noise_constant",
    "norm_sub",
    "optimal_fanout",
    "partition_groups",
    "sampling_variance",
    "simulate_ahead",
    "simulate_flat",
    "simulate_haar",
    "simulate_tree",
    "tree_average_variance",
    "tree_range_variance",
]
