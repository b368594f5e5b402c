"""A black-box privacy audit: a lower bound on ε from runs of a mechanism on two neighbours.

:func:`lower_bound` draws ``samples`` outputs on each neighbour, chooses an event on a
training share of them (:mod:`dpcore.audit.events`), and bounds ε on the rest
(:mod:`dpcore.audit.bounds`). The choice sees only training runs, so the confidence is
spent once, on the held-out counts (sample splitting; no Bonferroni correction is needed).

A bound above the claimed ε proves a violation at that confidence; a bound below it
proves nothing: rare events escape any finite sample, and mechanisms can be built to
defeat black-box auditors (Jagielski, Ullman, Oprea, NeurIPS 2020; Nasr et al., IEEE S&P
2021; Bichsel et al., "DP-Sniper", IEEE S&P 2021).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpcore import _validate
from dpcore.audit.bounds import epsilon_lower_bound, point_estimate
from dpcore.audit.events import Score, choose
from dpcore.audit.outputs import Outputs, Sampler, combine, draw

TRAIN_SHARE = 0.3
"""Share of each side's runs used to choose the event; the rest bound ε."""


@dataclass(frozen=True)
class Counts:
    """The held-out runs that landed in the event.

    Attributes
    ----------
    hits_d, runs_d : int
        Held-out runs on ``D`` in the event, and held-out runs on ``D``.
    hits_d_prime, runs_d_prime : int
        The same on ``D'``.
    """

    hits_d: int
    runs_d: int
    hits_d_prime: int
    runs_d_prime: int


@dataclass(frozen=True)
class Audit:
    """The result of :func:`lower_bound`.

    Attributes
    ----------
    epsilon : float
        The lower bound on ε (0.0 when the held-out runs show no evidence).
    event : str
        The event, in words, and which neighbour it favours.
    counts : Counts
        The held-out counts the bound comes from.
    point_estimate : float
        ``ln(k/n) - ln(k'/n')`` on the held-out runs, favoured side first: shown beside the
        bound, never in its place (``inf`` when the other side never hit the event,
        negative when the held-out runs contradict the choice, NaN when neither hit it).
    confidence : float
        The confidence of the bound.
    delta : float
        The δ the bound allows.
    training_runs : int
        Runs per side spent on choosing the event.
    """

    epsilon: float
    event: str
    counts: Counts
    point_estimate: float
    confidence: float
    delta: float
    training_runs: int


def lower_bound(
    sample_d: Sampler,
    sample_d_prime: Sampler,
    *,
    samples: int,
    confidence: float = 0.95,
    delta: float = 0.0,
    score: Score | None = None,
    rng: np.random.Generator,
) -> Audit:
    """A lower bound on the ε of a mechanism, valid with probability ``confidence``.

    Each sampler is called once for ``samples`` outputs. The first ``30 %`` of each side's
    runs choose an event ``S`` and its direction (:func:`dpcore.audit.events.choose`); on
    the other runs, with ``k`` of ``n`` on the favoured side and ``k'`` of ``n'`` on the
    other in ``S``,

    .. math:: \\varepsilon_{LB} = \\max\\Big(0,\\ \\ln\\frac{p_{lo}(k, n) - \\delta}
              {p_{hi}(k', n')}\\Big)

    with one-sided Clopper–Pearson bounds at ``(1 - confidence)/2`` each. For an
    (ε, δ)-DP mechanism :math:`P[\\varepsilon_{LB} > \\varepsilon] \\le 1 - \\text{confidence}`.

    Parameters
    ----------
    sample_d, sample_d_prime : callable
        ``sample(size, rng)`` returns ``size`` outputs of the mechanism on ``D`` (``D'``):
        a 1-D array of numbers, a 2-D array with one output per row, or integers for
        discrete outputs (each distinct value or row is one output).
    samples : int
        Outputs drawn on each side, at least 3.
    confidence : float, default 0.95
        In ``(0, 1)``.
    delta : float, default 0
        The δ of the claim being audited, in ``[0, 1)``.
    score : callable, optional
        For vector outputs, ``score(rows) -> one number per row`` to threshold (e.g. a known
        log density ratio); ``None`` learns a linear discriminant on the training runs.
        Ignored for scalar and discrete outputs.
    rng : numpy.random.Generator
        Passed to the samplers.

    Returns
    -------
    Audit
        The bound, the event, the held-out counts and the point estimate.

    Raises
    ------
    TypeError
        If a sampler or ``score`` is not callable, a sampler returns something that is
        not numbers, ``rng`` is not a Generator, or ``confidence``/``delta`` is not a number.
    ValueError
        If a sampler raises or returns the wrong shape or a NaN, the two samplers differ in
        kind or width, ``score`` returns the wrong shape, ``confidence`` is not in ``(0, 1)``,
        ``delta`` not in ``[0, 1)``, or ``samples`` is too few for any bound above 0.

    Examples
    --------
    Randomized response on one bit, keeping it with probability 3/4 (ε = ln 3 = 1.0986):

    >>> def rr(bit):
    ...     return lambda size, rng: np.where(rng.random(size) < 0.75, bit, 1 - bit)
    >>> audit = lower_bound(rr(1), rr(0), samples=20_000, rng=np.random.default_rng(0))
    >>> 0.9 < audit.epsilon <= math.log(3)
    True
    """
    confidence = _validate.fraction("confidence", confidence)
    delta = _validate.fraction("delta", delta, open_low=False)
    rng = _validate.generator("rng", rng)
    if score is not None and not callable(score):
        raise TypeError(f"score must be callable (rows -> one number each), got {type(score)}")
    samples = _validate.whole("samples", samples, lower=3)
    alpha = 1.0 - confidence
    train = max(2, round(TRAIN_SHARE * samples))  # one run to fit, one to select
    holdout = samples - train
    if _best_possible(holdout, alpha, delta) <= 0.0:
        raise ValueError(
            f"samples = {samples} is too few: {holdout} held-out runs per side cannot bound ε "
            f"above 0 at confidence {confidence:g} and delta {delta:g}"
        )
    outputs = combine(
        draw("sample_d", sample_d, samples, rng),
        draw("sample_d_prime", sample_d_prime, samples, rng),
    )
    event = choose(
        _part(outputs, slice(0, train)),
        holdout_d=holdout,
        holdout_d_prime=holdout,
        alpha=alpha,
        delta=delta,
        score=score,
    )
    held = _part(outputs, slice(train, samples))
    in_d = int(np.count_nonzero(event.contains(held.d)))
    in_dp = int(np.count_nonzero(event.contains(held.d_prime)))
    counts = Counts(in_d, holdout, in_dp, holdout)
    # the bound's numerator is the side the event favours
    favoured, other = (in_d, in_dp) if event.favours_d else (in_dp, in_d)
    eps = float(epsilon_lower_bound(favoured, holdout, other, holdout, alpha=alpha, delta=delta))
    estimate = point_estimate(favoured, holdout, other, holdout)
    return Audit(
        epsilon=max(eps, 0.0) if not math.isnan(eps) else 0.0,
        event=event.description,
        counts=counts,
        point_estimate=estimate,
        confidence=confidence,
        delta=delta,
        training_runs=train,
    )


def _best_possible(holdout: int, alpha: float, delta: float) -> float:
    """The bound when every favoured run and no other run hits the event."""
    return float(epsilon_lower_bound(holdout, holdout, 0, holdout, alpha=alpha, delta=delta))


def _part(outputs: Outputs, rows: slice) -> Outputs:
    return Outputs(outputs.kind, outputs.d[rows], outputs.d_prime[rows], outputs.values)
