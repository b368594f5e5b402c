"""Shipped p-Identity strategies: the optimiser's output for the sizes the app offers, precomputed.

:func:`dpcore.hist.pidentity.optimise` takes about 2 s per start at n = 1,024 (2 starts) and
18 s at 4,096 (1 start) on an idle core: 300 projected L-BFGS iterations of ``O(n p^2)``
each, still lowering the loss by about 0.4 % over the last 50 (so fewer iterations would
give a worse strategy, not the same one). For the bin counts a user gets from the app's own
choices (its bundled datasets and default sizes, :data:`SHIPPED_BINS`) the strategies are
optimised once, with the optimiser's default arguments, and shipped in
``pidentity_strategies.npz`` beside this module.

The file holds only what defines each strategy: its free rows ``Θ`` (float64, exactly as
the optimiser returned them) and the arguments that produced them (``p``, ``starts``,
``max_iter``, ``seed``; the workload is always all ranges, ``"uniform"``). The loss
``tr(G (A^T A)^{-1})``, the sensitivity and every error are computed from ``Θ`` when a
strategy is loaded; no error number is stored. Regenerate the file with :func:`write`
(``python -m dpcore.hist.pidentity_store``, about a minute) after changing the optimiser or
its defaults: :func:`load` serves a strategy only if it was made with the defaults in force.

McKenna, Miklau, Hay, Machanavajjhala, "Optimizing error of high-dimensional statistical
queries under differential privacy", VLDB 2018 (HDMM).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from dpcore.hist import pidentity
from dpcore.hist.workload import parse_workload

STORE = Path(__file__).with_name("pidentity_strategies.npz")
"""The shipped file (package data)."""
SHIPPED_BINS = (16, 142, 1024, 4096)
"""Bin counts shipped: the app's bundled datasets up to :data:`pidentity.MAX_BINS` bins
(16, 142 countries, 1,024 and 4,096 bins; 1,024 is also the default size of its fixed-range
view)."""
WORKLOAD = "uniform"
"""The workload every shipped strategy is optimised for: all ``n (n + 1) / 2`` ranges."""
SEED = 0
"""Seed of the random starts (:func:`dpcore.hist.pidentity.optimise`'s default)."""


def settings(n: int) -> tuple[int, int, int, int]:
    """The optimiser's arguments ``(p, starts, max_iter, seed)`` for ``n`` bins, its defaults.

    Parameters
    ----------
    n : int
        Number of bins.

    Returns
    -------
    tuple of int
        ``(default_rows(n), default_starts(n), pidentity.MAX_ITER, SEED)``.
    """
    return pidentity.default_rows(n), pidentity.default_starts(n), pidentity.MAX_ITER, SEED


def write(path: Path = STORE, bins: tuple[int, ...] = SHIPPED_BINS) -> None:
    """Optimise a strategy for each of ``bins`` with the default arguments and save them.

    Parameters
    ----------
    path : pathlib.Path, default STORE
        Where to write the ``.npz`` file.
    bins : tuple of int, default SHIPPED_BINS
        The bin counts, each in ``[2, pidentity.MAX_BINS]``.

    Raises
    ------
    ValueError
        If a bin count is outside ``[2, pidentity.MAX_BINS]``.
    """
    arrays: dict[str, np.ndarray] = {}
    for n in bins:
        p, starts, max_iter, seed = settings(n)
        found = pidentity.optimise(n, WORKLOAD, p=p, starts=starts, max_iter=max_iter, seed=seed)
        arrays[f"theta_{n}"] = found.theta
        arrays[f"settings_{n}"] = np.array(settings(n), dtype=np.int64)
    with path.open("wb") as out:
        # numpy types **kwds as if one could be its allow_pickle flag
        np.savez_compressed(out, **arrays)  # type: ignore[arg-type]


def stored_bins(path: Path = STORE) -> tuple[int, ...]:
    """The bin counts ``path`` holds a strategy for, ascending.

    Parameters
    ----------
    path : pathlib.Path, default STORE
        A file :func:`write` made.

    Returns
    -------
    tuple of int
        The bin counts.
    """
    with np.load(path) as stored:
        names = list(stored)
    return tuple(sorted(int(k.removeprefix("theta_")) for k in names if k.startswith("theta_")))


def load(n: int, path: Path = STORE) -> pidentity.PIdentityStrategy | None:
    """The shipped strategy for ``n`` bins, its loss computed from its ``Θ``; ``None`` when
    ``path`` has none for ``n`` or it was made with other arguments than :func:`settings`.

    Parameters
    ----------
    n : int
        Number of bins.
    path : pathlib.Path, default STORE
        A file :func:`write` made.

    Returns
    -------
    PIdentityStrategy or None
        The strategy for the uniform workload, as :func:`dpcore.hist.pidentity.optimise`
        returned it with :func:`settings`.
    """
    with np.load(path) as stored:
        if f"theta_{n}" not in stored:
            return None
        made_with = tuple(int(v) for v in stored[f"settings_{n}"])
        theta = np.asarray(stored[f"theta_{n}"], dtype=np.float64)
    if made_with != settings(n) or theta.shape != (settings(n)[0], n):
        return None
    load = parse_workload(WORKLOAD, n)
    with threadpool_limits(limits=1, user_api="blas"):  # 0.05 s at n = 4,096, 0.3 s threaded
        loss = pidentity.loss_and_gradient(theta, load).loss
    return pidentity.PIdentityStrategy(theta, load, loss)


if __name__ == "__main__":
    write()
