"""dpcore: numerics for differentially private histogram publishing.

Interval trees and their budgets (:mod:`dpcore.hist.tree`, :mod:`dpcore.hist.coverage`,
:mod:`dpcore.hist.budget`), the Laplace release and BLUE consistency
(:mod:`dpcore.hist.release`, :mod:`dpcore.hist.consistency`), range queries
(:mod:`dpcore.hist.queries`), histogram input (:mod:`dpcore.histogram`).
Pure numpy; no UI code. Noise comes from an injected ``numpy.random.Generator``:
fine for teaching and exploration, not a hardened noise source for real releases.
"""
