"""The optimised strategy (HDMM p-Identity) as a reference line in the Error analysis views
drawn for one n: computed once on request (with its own, larger work limit), then drawn
beside the algorithms."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore.hist import empirical, pidentity, pidentity_store
from dpui.errors.settings import EPSILONS
from dpui.errors.simulation import length_queries
from dpui.kit import limits, slow

PIDENTITY_LABEL = "optimised strategy (HDMM p-Identity)"
PIDENTITY_MAX_BINS = pidentity.MAX_BINS
PIDENTITY_HELP = (
    "A linear strategy (HDMM's p-Identity: every bin and n/16 weighted sums; McKenna, Miklau, "
    "Hay and Machanavajjhala, VLDB 2018) optimised numerically to minimise the expected total "
    "squared error of all n(n+1)/2 ranges, each equally likely, at sensitivity 1: a reference "
    "line showing how far each tree is from it. Shipped precomputed for n = "
    + ", ".join(f"{n:,}" for n in pidentity_store.SHIPPED_BINS)
    + " (the bundled datasets' sizes): added at once. Other n are optimised on request, with a "
    f"progress bar: seconds up to n = 1,024, longer beyond; limit {pidentity.MAX_BINS:,} bins."
)
PIDENTITY_VIEWS = ("length", "fixed", "epsilon")
"""Views drawn for one n, where the optimised strategy can be added as a reference."""


def pidentity_strategy(n: int) -> pidentity.PIdentityStrategy | None:
    """The p-Identity strategy for ``n`` bins (uniform workload) if it has been computed."""
    found: pidentity.PIdentityStrategy | None = slow.done("pidentity", n)
    return found


def optimise_pidentity(n: int) -> pidentity.PIdentityStrategy | None:
    """The p-Identity strategy for ``n`` bins, kept once found: the shipped one for the app's
    own sizes (:mod:`dpcore.hist.pidentity_store`, no search), else optimised now with a
    progress bar; None (with the reason shown) when that search is over the work limit."""
    shipped = pidentity_store.load(n) if n in pidentity_store.SHIPPED_BINS else None
    if shipped is not None:
        kept: pidentity.PIdentityStrategy = slow.run(
            "pidentity", n, lambda progress: shipped, f"Loading the strategy for n = {n:,}…"
        )
        return kept
    rows, starts = pidentity.default_rows(n), pidentity.default_starts(n)
    if not limits.allow_requested(
        f"optimising the p-Identity strategy for {n:,} bins (p = {rows}, {starts} start(s))",
        search_cost(n, rows, starts, pidentity.MAX_ITER),
        smaller="use a histogram with fewer bins",
        library="dpcore.hist.pidentity.optimise",
    ):
        return None

    def compute(progress: slow.Progress) -> pidentity.PIdentityStrategy:
        return pidentity.optimise(n, progress=progress)

    text = f"Optimising the p-Identity strategy for n = {n:,} (p = {pidentity.default_rows(n)})…"
    found: pidentity.PIdentityStrategy = slow.run("pidentity", n, compute, text)
    return found


def pidentity_rows(
    view: str,
    strategy: pidentity.PIdentityStrategy,
    eps: float,
    per_length: int = 0,
    count: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """The optimised strategy's exact errors in the table layout of ``view`` (no simulation).

    Uses the same random ranges as the algorithms' cells (same seeds).
    """
    n = strategy.n
    if view == "length":
        lengths, a, b = length_queries(n, per_length, seed)
        exact = pidentity.range_errors(strategy, eps, a, b)
        return pd.DataFrame(
            {
                "algorithm": PIDENTITY_LABEL,
                "range length": lengths,
                "exact": [float(exact[(b - a + 1) == x].mean()) for x in lengths],
                "exact, all ranges of this length": pidentity.length_errors(strategy, eps, lengths),
                "empirical": np.nan,
                "ci": np.nan,
            }
        )
    if view == "fixed":
        a, b = empirical.random_ranges(n, count, np.random.default_rng([seed, 0]))
        order = np.lexsort((b, a))
        a, b = a[order], b[order]
        return pd.DataFrame(
            {
                "algorithm": PIDENTITY_LABEL,
                "range #": np.arange(1, a.size + 1),
                "l": a + 1,
                "r": b + 1,
                "exact": pidentity.range_errors(strategy, eps, a, b),
                "empirical": np.nan,
                "ci": np.nan,
            }
        )
    if view == "epsilon":
        return pd.DataFrame(
            {
                "algorithm": PIDENTITY_LABEL,
                "epsilon": EPSILONS,
                "exact": [strategy.expected_error(e) for e in EPSILONS],
                "empirical": np.nan,
                "ci": np.nan,
            }
        )
    raise ValueError(f"the optimised strategy is drawn in views {', '.join(PIDENTITY_VIEWS)}")


def pidentity_n(view: str, hist_n: int, fixed_n: int) -> int | None:
    """The ``n`` of the optimised-strategy reference in ``view`` (``None``: not drawn there)."""
    return {"length": hist_n, "epsilon": hist_n, "fixed": fixed_n}.get(view)


def with_pidentity(
    table: pd.DataFrame,
    view: str,
    strategy: pidentity.PIdentityStrategy | None,
    eps: float,
    per_length: int,
    count: int,
    seed: int,
) -> pd.DataFrame:
    """``table`` with the optimised strategy's rows appended (unchanged if ``strategy`` is None)."""
    if strategy is None:
        return table
    rows = pidentity_rows(view, strategy, eps, per_length, count, seed)
    return pd.concat([table, rows], ignore_index=True)


def search_cost(n: int, rows: int, starts: int, iterations: int) -> limits.Cost:
    """The p-Identity optimiser: one loss and gradient costs about 0.12 s at n = 4,096 with
    p = 128 (O(n p^2)), and the search runs ``iterations`` of them per start, keeping about
    a dozen arrays of ``n p`` numbers (the L-BFGS history). Each iteration also costs about
    0.3 ms whatever its size (the line search and bookkeeping: 0.18 s for n = 64, where the
    loss itself takes 2 µs; ``bench/bench_costs.py``)."""
    step = 0.12 * (n / 4096) * (rows / 128) ** 2 + 0.3e-3
    return limits.Cost(starts * iterations * step, n * rows * 8 * 12 / limits.MB)
