"""dpcore: numerics for differentially private histogram publishing.

Interval trees and their budgets (:mod:`dpcore.tree`, :mod:`dpcore.coverage`,
:mod:`dpcore.budget`), the Laplace release and BLUE consistency
(:mod:`dpcore.release`, :mod:`dpcore.consistency`), range queries
(:mod:`dpcore.queries`), histogram input (:mod:`dpcore.histogram`).
Pure numpy; no UI code. Noise comes from an injected ``numpy.random.Generator``:
fine for teaching and exploration, not a hardened noise source for real releases.
"""
