"""Central-DP mechanisms of this product on neighbouring inputs, correct and broken.

Each factory returns a :class:`~dpcore.audit.gallery.entry.Entry` whose samplers call the
product's own code (:mod:`dpcore.mechanisms.laplace`, :mod:`dpcore.mechanisms.exponential`,
:mod:`dpcore.hist.release`, :mod:`dpcore.meaning.neighbours` for the Gaussian's σ). The
keyword ``stated_sensitivity`` calibrates the noise as if the sensitivity were that value
while the inputs still differ by 1: below 1 it is the classic bug (noise scale too small,
true ε = claimed / stated_sensitivity). Report noisy max and its value-returning variants
follow the gallery of Bichsel et al. ("DP-Sniper", IEEE S&P 2021) and Ding et al.
(StatDP, CCS 2018); the truncated geometric is Balcer & Vadhan's Alg. 4.8
("Differential privacy on finite computers", 2017).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dpcore import _validate
from dpcore.audit.gallery.entry import Entry, ExactLaw, integers, make
from dpcore.audit.outputs import Sampler
from dpcore.hist import budget, release, tree
from dpcore.meaning.composition import gaussian_epsilon
from dpcore.meaning.neighbours import gaussian_sigma
from dpcore.mechanisms import (
    exponential_probabilities,
    laplace_mechanism,
    sample_categorical,
    sample_exponential,
)


def _stated(value: float) -> float:
    return _validate.positive("stated_sensitivity", value)


def laplace(eps: float = 1.0, *, stated_sensitivity: float = 1.0) -> Entry:
    """A count released with :func:`~dpcore.mechanisms.laplace_mechanism`: 1 against 0.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    stated_sensitivity : float, default 1
        The sensitivity the noise is calibrated to (the true one is 1).

    Returns
    -------
    Entry
        True ε ``eps / stated_sensitivity`` (the ratio of the two densities is exactly
        that for outputs above 1).
    """
    stated = _stated(stated_sensitivity)

    def count(value: float) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            truth = np.full(size, value)
            return laplace_mechanism(truth, eps=eps, sensitivity=stated, rng=rng)

        return sample

    return make(
        "Laplace", eps, eps / stated, (count(1.0), count(0.0)),
        f"count + Lap({stated:g}/ε): true count 1 against 0", "count ±1",
    )  # fmt: skip


def floating_point_laplace(eps: float = 1.0) -> Entry:
    """BUG in every float64 Laplace sampler, this product's included (Mironov, CCS 2012).

    :func:`~dpcore.mechanisms.laplace_mechanism` on a count of 1 against 0 at scale 1.
    On ``D`` an output ``y`` in ``(-1/2, 1/2)`` is ``1 + L`` with ``L`` in
    ``(-3/2, -1/2)``, computed exactly (Sterbenz), so it is a multiple of ``2^-53``; on
    ``D'`` it is ``L`` itself, usually on a finer grid. The event "``|y| < 1/2`` and ``y``
    not a multiple of ``2^-53``" is impossible on ``D`` and has probability about 0.39 on
    ``D'``: ε is infinite. Outputs are 1-wide rows so that the audit can be given that
    event as its ``score``. Snapping the output to a coarse grid (Mironov's fix) removes it.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε (the noise scale is ``1/eps``; the grid argument above is for 1).

    Returns
    -------
    Entry
        True ε infinite, with the revealing ``score``.
    """

    def count(value: float) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            y = laplace_mechanism(np.full(size, value), eps=eps, sensitivity=1.0, rng=rng)
            return y[:, None]

        return sample

    def off_grid(rows: NDArray[np.float64]) -> NDArray[np.float64]:
        y = rows[:, 0]
        scaled = np.ldexp(y, 53)
        return np.asarray((np.abs(y) < 0.5) & (scaled != np.round(scaled)), dtype=np.float64)

    return make(
        "Floating-point Laplace", eps, math.inf, (count(1.0), count(0.0)),
        "dpcore's Laplace mechanism in float64: count 1 against 0, the output's last bits "
        "audited", "count ±1", score=off_grid,
    )  # fmt: skip


def geometric(eps: float = 1.0, *, stated_sensitivity: float = 1.0) -> Entry:
    """The two-sided geometric mechanism on a count, 1 against 0 (integer outputs).

    ``count + G1 - G2`` with ``G1, G2`` geometric of success probability ``1 - e^{-ε}`` has
    :math:`P[z] \\propto e^{-\\varepsilon |z - \\text{count}|}` (Ghosh, Roughgarden,
    Sundararajan 2009), so the ratio of neighbours' probabilities is ``e^{±ε}`` everywhere.

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    stated_sensitivity : float, default 1
        The sensitivity the noise is calibrated to (the true one is 1).

    Returns
    -------
    Entry
        True ε ``eps / stated_sensitivity``.
    """
    stated = _stated(stated_sensitivity)
    keep = -math.expm1(-_validate.positive("eps", eps) / stated)

    def count(value: int) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.int64]:
            noise = rng.geometric(keep, size) - rng.geometric(keep, size)
            return np.asarray(value + noise, dtype=np.int64)

        return sample

    return make(
        "Geometric", eps, eps / stated, (count(1), count(0)),
        "count + two-sided geometric noise: true count 1 against 0", "count ±1",
    )  # fmt: skip


def gaussian(eps: float = 1.0, delta: float = 1e-5, *, stated_sensitivity: float = 1.0) -> Entry:
    """The Gaussian mechanism, σ from the exact analytic calibration, 1 against 0.

    σ is :func:`~dpcore.meaning.neighbours.gaussian_sigma` (Balle & Wang 2018) for
    ``(eps, delta)`` and the stated sensitivity; the true ε at ``delta`` is
    :func:`~dpcore.meaning.composition.gaussian_epsilon` of that σ at sensitivity 1.

    Parameters
    ----------
    eps, delta : float
        The claimed (ε, δ).
    stated_sensitivity : float, default 1
        The sensitivity σ is calibrated to (the true one is 1).

    Returns
    -------
    Entry
        An (ε, δ) entry (audit it with ``delta=entry.claimed_delta``).
    """
    stated = _stated(stated_sensitivity)
    sigma = gaussian_sigma(eps, delta, stated)

    def count(value: float) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            return value + rng.normal(0.0, sigma, size)

        return sample

    return make(
        "Gaussian", eps, gaussian_epsilon(sigma, delta), (count(1.0), count(0.0)),
        f"count + N(0, σ²), σ = {sigma:.3g}: true count 1 against 0", "count ±1",
        delta=delta,
    )  # fmt: skip


def exponential(eps: float = 1.0, candidates: int = 8, *, stated_sensitivity: float = 1.0) -> Entry:
    """:func:`~dpcore.mechanisms.sample_exponential` on the worst neighbouring scores.

    Scores ``(1, 0, ..., 0)`` against ``(0, 1, ..., 1)`` (each moves by the sensitivity 1):
    candidate 0 gains ``e^{ε/2}`` in weight and the normaliser loses up to ``e^{ε/2}``, so
    this pair's exact ε approaches ε as the candidates grow (Dwork & Roth, thm. 3.10).

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    candidates : int, default 8
        Number of candidates, at least 2.
    stated_sensitivity : float, default 1
        The score sensitivity the mechanism is told (the true one is 1).

    Returns
    -------
    Entry
        True ε: this pair's exact ε (the largest of any neighbouring scores with this many
        candidates).
    """
    stated = _stated(stated_sensitivity)
    k = _validate.whole("candidates", candidates, lower=2)
    scores = np.zeros(k)
    scores[0] = 1.0
    scores_prime = 1.0 - scores

    def run(u: NDArray[np.float64]) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.intp]:
            return sample_exponential(u, eps, stated, size=size, rng=rng)

        return sample

    law = ExactLaw(
        exponential_probabilities(scores, eps, stated),
        exponential_probabilities(scores_prime, eps, stated),
        integers,
    )
    return make(
        "Exponential mechanism", eps, law.epsilon, (run(scores), run(scores_prime)),
        f"{k} candidates, scores (1, 0, ..., 0) against (0, 1, ..., 1)", "scores ±1 each",
        law=law,
    )  # fmt: skip


def _noisy(a: NDArray[np.float64], eps0: float, stated: float) -> Sampler:
    """``size`` rows of ``a + Lap(2 stated / eps0)`` through the product's Laplace mechanism."""

    def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
        rows = np.broadcast_to(a, (size, a.size))
        return laplace_mechanism(rows, eps=eps0, sensitivity=2.0 * stated, rng=rng)

    return sample


def report_noisy_max(
    eps0: float = 1.0, queries: int = 5, *, stated_sensitivity: float = 1.0
) -> Entry:
    """Report noisy max: ``argmax_i (a_i + Lap(2/eps0))`` (ReportNoisyMax1 / noisy_max_v1a).

    Inputs ``(1, 0, ..., 0)`` against ``(0, 1, ..., 1)``: every query answer moves by 1.

    Parameters
    ----------
    eps0 : float, default 1
        The claimed ε.
    queries : int, default 5
        Number of queries, at least 2.
    stated_sensitivity : float, default 1
        The sensitivity the noise is calibrated to (the true one is 1).

    Returns
    -------
    Entry
        True ε ``eps0 / stated_sensitivity`` (the proved bound).
    """
    stated = _stated(stated_sensitivity)
    a = np.zeros(_validate.whole("queries", queries, lower=2))
    a[0] = 1.0

    def argmax(noisy: Sampler) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.int64]:
            return np.asarray(np.argmax(noisy(size, rng), axis=1), dtype=np.int64)

        return sample

    return make(
        "Report noisy max", eps0, eps0 / stated,
        (argmax(_noisy(a, eps0, stated)), argmax(_noisy(1.0 - a, eps0, stated))),
        f"argmax of {a.size} answers + Lap(2/ε): (1, 0, ...) against (0, 1, ...)",
        "every answer ±1",
    )  # fmt: skip


def noisy_max_value(eps0: float = 1.0, queries: int = 5) -> Entry:
    """BUG: report noisy max returning the noisy maximum itself (ReportNoisyMax3).

    ``max_i (a_i + Lap(2/eps0))`` on ``(1, ..., 1)`` against ``(0, ..., 0)``: releasing the
    whole noisy vector costs ``L eps0 / 2``, and for outputs below 1 the ratio of the two
    densities is exactly ``e^{L eps0 / 2}`` (every noise value sits in the left branch).

    Parameters
    ----------
    eps0 : float, default 1
        The claimed ε.
    queries : int, default 5
        Number of queries ``L``, at least 2.

    Returns
    -------
    Entry
        True ε ``L eps0 / 2``.
    """
    ones = np.ones(_validate.whole("queries", queries, lower=2))

    def top(noisy: Sampler) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            return np.asarray(noisy(size, rng).max(axis=1), dtype=np.float64)

        return sample

    return make(
        "Noisy max returning the value", eps0, ones.size * eps0 / 2,
        (top(_noisy(ones, eps0, 1.0)), top(_noisy(0.0 * ones, eps0, 1.0))),
        f"max of {ones.size} answers + Lap(2/ε): all 1 against all 0", "every answer ±1",
    )  # fmt: skip


def noisy_max_exponential_value(eps0: float = 1.0, queries: int = 5) -> Entry:
    """BUG: ``max_i (a_i + Exp(2/eps0))`` (ReportNoisyMax4): one-sided noise, value released.

    On ``(1, ..., 1)`` the output is never below 1; on ``(0, ..., 0)`` it is with
    probability ``(1 - e^{-eps0/2})^L`` (0.0094 at ``eps0 = 1``, ``L = 5``): ε is infinite.

    Parameters
    ----------
    eps0 : float, default 1
        The claimed ε.
    queries : int, default 5
        Number of queries ``L``, at least 2.

    Returns
    -------
    Entry
        True ε infinite.
    """
    length = _validate.whole("queries", queries, lower=2)
    scale = 2.0 / _validate.positive("eps0", eps0)

    def top(value: float) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            return np.asarray(value + rng.exponential(scale, (size, length)).max(axis=1))

        return sample

    return make(
        "Noisy max, exponential noise, returning the value", eps0, math.inf,
        (top(1.0), top(0.0)),
        f"max of {length} answers + Exp(2/ε): all 1 against all 0", "every answer ±1",
    )  # fmt: skip


def histogram(eps0: float = 1.0, bins: int = 5, *, inverted: bool = False) -> Entry:
    """A Laplace histogram (NoisyHist1), or with the noise scale inverted (NoisyHist2).

    Counts ``(1, ..., 1)`` against ``(0, 1, ..., 1)``, every bin released with
    :func:`~dpcore.mechanisms.laplace_mechanism` at scale ``1/eps0`` — or, the bug, at
    scale ``eps0`` (true ε ``1/eps0``: invisible at ``eps0 = 1``, doubled at 0.5).

    Parameters
    ----------
    eps0 : float, default 1
        The claimed ε.
    bins : int, default 5
        Number of bins, at least 1 (vector outputs).
    inverted : bool, default False
        Release at scale ``eps0`` instead of ``1/eps0``.

    Returns
    -------
    Entry
        True ε ``eps0``, or ``1/eps0`` when inverted.
    """
    eps0 = _validate.positive("eps0", eps0)
    counts = np.ones(_validate.whole("bins", bins))
    neighbour = counts.copy()
    neighbour[0] = 0.0
    run_eps = 1.0 / eps0 if inverted else eps0

    def hist(values: NDArray[np.float64]) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            rows = np.broadcast_to(values, (size, values.size))
            return laplace_mechanism(rows, eps=run_eps, sensitivity=1.0, rng=rng)

        return sample

    return make(
        "Histogram, noise scale inverted" if inverted else "Laplace histogram",
        eps0, run_eps, (hist(counts), hist(neighbour)),
        f"{counts.size} counts + Lap({'ε' if inverted else '1/ε'}): one count 1 against 0",
        "one count ±1",
    )  # fmt: skip


def tree_release(
    eps: float = 1.0, bins: int = 16, fanout: int = 2, *, stated_sensitivity: float = 1.0
) -> Entry:
    """A hierarchical release (:func:`~dpcore.hist.release.release_sums`) of a histogram and
    of its neighbour with one more record in the most exposed bin.

    Budgets are :func:`~dpcore.hist.budget.uniform_budgets` over a complete ``fanout``-ary
    tree; the bin whose root-to-leaf path spends the most budget changes, and the outputs
    are the noisy counts of the nodes on that path (every other node has the same law on
    both inputs, independent of these).

    Parameters
    ----------
    eps : float, default 1
        The claimed ε.
    bins, fanout : int
        Tree shape (:func:`~dpcore.hist.tree.kary_tree`).
    stated_sensitivity : float, default 1
        Budgets are multiplied by ``1 / stated_sensitivity`` (the true sensitivity is 1).

    Returns
    -------
    Entry
        True ε :func:`~dpcore.hist.budget.release_epsilon` of the budgets used; its
        ``score`` is the exact log density ratio of the two inputs' outputs.
    """
    stated = _stated(stated_sensitivity)
    t = tree.kary_tree(bins, fanout)
    budgets = budget.uniform_budgets(t, eps) / stated
    exposure = budget.path_sums(t, budgets)
    leaf = int(np.flatnonzero(t.is_leaf)[np.argmax(exposure[t.is_leaf])])
    path = np.flatnonzero((t.lo <= t.lo[leaf]) & (t.hi >= t.lo[leaf]) & (budgets > 0))
    counts = np.full(bins, 5.0)
    neighbour = counts.copy()
    neighbour[t.lo[leaf]] += 1.0

    def run(histogram: NDArray[np.float64]) -> Sampler:
        sums = release.node_sums(t, histogram)[path]

        def sample(size: int, rng: np.random.Generator) -> NDArray[np.float64]:
            noisy = release.release_sums(np.tile(sums, size), np.tile(budgets[path], size), rng)
            return noisy.reshape(size, path.size)

        return sample

    scale = budgets[path]
    shift = release.node_sums(t, neighbour)[path], release.node_sums(t, counts)[path]

    def log_ratio(rows: NDArray[np.float64]) -> NDArray[np.float64]:
        """ln p_D(y) - ln p_D'(y) of the Laplace noise, rounded to 1e-9 so that float
        rounding's last bits (see :func:`floating_point_laplace`) carry no signal."""
        gap = np.abs(rows - shift[1]) - np.abs(rows - shift[0])
        return np.asarray(np.round(gap @ scale, 9), dtype=np.float64)

    return make(
        "Tree release", eps, budget.release_epsilon(t, budgets), (run(neighbour), run(counts)),
        f"{bins} bins, fanout {fanout}, uniform budgets: the {path.size} counts covering bin "
        f"{int(t.lo[leaf])}, which holds one more record on D",
        "one record added", score=log_ratio,
    )  # fmt: skip


def truncated_geometric(eps0: float = 0.1, people: int = 5) -> Entry:
    """Balcer & Vadhan's truncated geometric on a count of ``people`` (their Alg. 4.8).

    With ``k = ceil(ln(2/eps0))`` and ``d = (2^{k+1} + 1)(2^k + 1)^{n-1}``, the output
    ``z`` of a count ``c`` has CDF ``F(z)/d``:
    ``F(z) = 2^{k(c-z)} (2^k + 1)^{n-(c-z)}`` for ``z < c``,
    ``F(z) = d - 2^{k(z-c+1)} (2^k + 1)^{n-1-(z-c)}`` for ``c <= z < n``, ``F(n) = d``
    (exact Python integers). Its true ε is ``ln(1 + 2^{-k})``: 0.1178 at ``eps0 = 0.1``,
    18 % over the claim. The pair of neighbouring counts with the largest exact ε is used.

    Parameters
    ----------
    eps0 : float, default 0.1
        The claimed ε.
    people : int, default 5
        ``n``; counts are ``0..n``.

    Returns
    -------
    Entry
        The exact law on the worst neighbouring counts ``c, c + 1``.
    """
    n = _validate.whole("people", people)
    pmfs = [_geometric_pmf(c, n, eps0) for c in range(n + 1)]
    worst = max(range(n), key=lambda c: ExactLaw(pmfs[c], pmfs[c + 1], integers).epsilon)
    law = ExactLaw(pmfs[worst], pmfs[worst + 1], integers)

    def run(pmf: NDArray[np.float64]) -> Sampler:
        def sample(size: int, rng: np.random.Generator) -> NDArray[np.intp]:
            return sample_categorical(pmf, size=size, rng=rng)

        return sample

    return make(
        f"Truncated geometric, ε0 = {eps0:g}", eps0, law.epsilon,
        (run(law.pmf_d), run(law.pmf_d_prime)),
        f"count of {n} people, k = {_geometric_k(eps0)}: count {worst} against {worst + 1}",
        "count ±1", law=law,
    )  # fmt: skip


def _geometric_k(eps0: float) -> int:
    return math.ceil(math.log(2.0 / _validate.positive("eps0", eps0)))


def _geometric_pmf(c: int, n: int, eps0: float) -> NDArray[np.float64]:
    k = _geometric_k(eps0)
    d = int((2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1))

    def cdf(z: int) -> int:
        if z < c:
            return int(2 ** (k * (c - z)) * (2**k + 1) ** (n - (c - z)))
        if z < n:
            return int(d - 2 ** (k * (z - c + 1)) * (2**k + 1) ** (n - 1 - (z - c)))
        return d

    steps = [cdf(0)] + [cdf(z) - cdf(z - 1) for z in range(1, n + 1)]
    return np.array([s / d for s in steps], dtype=np.float64)
