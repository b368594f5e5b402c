"""Central-DP mechanisms: Laplace for numeric vector queries, exponential for selection.

Each sampler ships with its closed-form accuracy next to it: the textbook
bounds (Dwork & Roth, thms. 3.8 and 3.11, examined by Wang &
Kang) and the exact probabilities of the same events, so that the bounds'
slack can be shown rather than asserted.
"""

from dpcore.mechanisms.exponential import (
    exponential_accuracy_bound,
    exponential_accuracy_bounds,
    exponential_expected_loss,
    exponential_log_probabilities,
    exponential_log_weights,
    exponential_probabilities,
    exponential_tail_probability,
    exponential_threshold,
    exponential_utility_distribution,
    sample_categorical,
    sample_exponential,
)
from dpcore.mechanisms.laplace import (
    laplace_confidence_intervals,
    laplace_expected_max_error,
    laplace_max_error_bound,
    laplace_max_error_exact,
    laplace_max_error_tail,
    laplace_mechanism,
    laplace_scale,
    laplace_variance,
    simulate_laplace_max_error,
)
from dpcore.mechanisms.score_table import ScoreTable, ScoreTableError, parse_score_table

__all__ = [
    "ScoreTable",
    "ScoreTableError",
    "exponential_accuracy_bound",
    "exponential_accuracy_bounds",
    "exponential_expected_loss",
    "exponential_log_probabilities",
    "exponential_log_weights",
    "exponential_probabilities",
    "exponential_tail_probability",
    "exponential_threshold",
    "exponential_utility_distribution",
    "laplace_confidence_intervals",
    "laplace_expected_max_error",
    "laplace_max_error_bound",
    "laplace_max_error_exact",
    "laplace_max_error_tail",
    "laplace_mechanism",
    "laplace_scale",
    "laplace_variance",
    "parse_score_table",
    "sample_categorical",
    "sample_exponential",
    "simulate_laplace_max_error",
]
