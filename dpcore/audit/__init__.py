"""Empirical privacy auditing: lower bounds on ε from runs of a mechanism, and exact ε.

:func:`lower_bound` audits any mechanism given as two samplers on neighbouring inputs
(:mod:`dpcore.audit.auditor`); :mod:`dpcore.audit.bounds` holds the Clopper–Pearson
arithmetic, :mod:`dpcore.audit.statdp` StatDP's hypothesis test, :mod:`dpcore.audit.one_run`
the one-run bound, :mod:`dpcore.audit.exact` the exact ε of finite mechanisms, and
:mod:`dpcore.audit.gallery` correct and buggy mechanisms with their true ε.
"""

from dpcore.audit.auditor import Audit, Counts, lower_bound

__all__ = ["Audit", "Counts", "lower_bound"]
