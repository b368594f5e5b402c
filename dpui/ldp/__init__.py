"""Key-value local DP: HISKV against the published mechanisms."""
