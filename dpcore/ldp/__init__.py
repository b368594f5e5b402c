"""Local differential privacy for key-value data.

Each mechanism is a client-side perturbation, vectorized over all users, and a
server-side estimator of per-key frequencies and means; each exposes its
perturbation probabilities so that :mod:`dpcore.ldp.privacy` can check its
privacy claim exactly. HISKV (Zhang et al.) is a reconstruction: the paper's
formulas were lost, see :mod:`dpcore.ldp.hiskv`.
"""
