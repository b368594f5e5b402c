"""The "Which algorithm for my data?" page: every algorithm of :mod:`dpcore.algorithms` on
inputs sampled from the sidebar's histogram as DPBench samples them, ranked by error."""
