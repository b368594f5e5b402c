"""Choosing the event to audit on a training split of the runs.

The ε bound of :mod:`dpcore.audit.bounds` holds for an event fixed before the counts are
seen. The event is therefore chosen on training runs only and counted on fresh held-out
runs (sample splitting, as StatDP — Ding et al., CCS 2018 — and DP-Sniper — Bichsel et
al., IEEE S&P 2021 — do); any search over the training runs is free.

Every output is first reduced to a number, its *score*, and the event is
``score >= t`` or ``score < t``, favouring ``D`` or ``D'``:

* discrete outputs: the score of an output is its smoothed training log-ratio
  ``ln P^(o | D) - ln P^(o | D')``, so the events are the sets of outputs the training
  runs found most (or least) favourable to ``D``;
* scalar outputs: the value itself (thresholds at training quantiles), and also the
  training log-ratio of its quantile bin (for non-monotone likelihood ratios);
* vector outputs: a caller's ``score`` or, by default, Fisher's linear discriminant
  ``w·y`` with ``w = (Σ + λI)^{-1} (μ_D - μ_{D'})`` learned on the training runs, then as a
  scalar.

The training runs are split again: the first half fits the scores (log-ratios, the
discriminant), the second half picks the score and cut whose bound *would* be largest on
the held-out runs, planning with the held-out run counts and the second half's
proportions (so rare events pay for their wide intervals, as the Clopper–Pearson bound
will make them, and a score that overfits its half is not favoured).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpcore.audit.bounds import clopper_pearson, epsilon_lower_bound
from dpcore.audit.outputs import Outputs

Score = Callable[[NDArray[np.float64]], Any]
"""``score(outputs)`` -> one number per output row."""

_QUANTILES = 256  # thresholds tried on a scalar score
_BINS = 64  # most quantile bins of the binned log-ratio score
_PER_BIN = 50  # training runs per bin at least


@dataclass(frozen=True)
class Event:
    """An event fixed on the training runs: ``score(o) >= threshold`` (or ``<``).

    Attributes
    ----------
    score : callable
        Maps outputs (as in :class:`dpcore.audit.outputs.Outputs`) to float64 scores.
    threshold : float
        The cut.
    above : bool
        The event is ``score >= threshold`` (True) or ``score < threshold`` (False).
    favours_d : bool
        The event is more likely on ``D`` (True) or on ``D'`` (False).
    description : str
        The event in words.
    """

    score: Callable[[NDArray[Any]], NDArray[np.float64]]
    threshold: float
    above: bool
    favours_d: bool
    description: str

    def contains(self, outputs: NDArray[Any]) -> NDArray[np.bool_]:
        """Whether each output is in the event."""
        s = self.score(outputs)
        return s >= self.threshold if self.above else s < self.threshold


@dataclass(frozen=True)
class _Family:
    """One score on the training runs, and how to describe a cut of it."""

    score: Callable[[NDArray[Any]], NDArray[np.float64]]
    cuts: NDArray[np.float64]
    describe: Callable[[float, bool], str]


def choose(
    train: Outputs,
    *,
    holdout_d: int,
    holdout_d_prime: int,
    alpha: float,
    delta: float,
    score: Score | None,
) -> Event:
    """The event with the largest planned held-out bound, from training runs only.

    Parameters
    ----------
    train : Outputs
        The training runs of both sides.
    holdout_d, holdout_d_prime : int
        Held-out runs per side (for planning).
    alpha, delta : float
        The audit's ``1 - confidence`` and δ.
    score : callable or None
        The caller's score for vector outputs; ``None`` learns a linear discriminant.

    Returns
    -------
    Event
        The chosen event (with its direction).

    Raises
    ------
    ValueError
        If ``score`` does not return one finite number per output.
    """
    half, half_prime = (train.d.shape[0] + 1) // 2, (train.d_prime.shape[0] + 1) // 2
    fit = Outputs(train.kind, train.d[:half], train.d_prime[:half_prime], train.values)
    select_d, select_dp = train.d[half:], train.d_prime[half_prime:]
    best: tuple[float, Event] | None = None
    for family in _families(fit, score):
        n, n_prime = select_d.shape[0], select_dp.shape[0]
        sorted_d, sorted_dp = np.sort(family.score(select_d)), np.sort(family.score(select_dp))
        at_least_d = n - np.searchsorted(sorted_d, family.cuts, side="left")
        at_least_dp = n_prime - np.searchsorted(sorted_dp, family.cuts, side="left")
        for above in (True, False):
            in_d = at_least_d if above else n - at_least_d
            in_dp = at_least_dp if above else n_prime - at_least_dp
            for favours_d in (True, False):
                planned = _planned(
                    in_d, n, holdout_d, in_dp, n_prime, holdout_d_prime,
                    favours_d, alpha, delta,
                )  # fmt: skip
                i = int(np.argmax(planned))
                if best is None or planned[i] > best[0]:
                    cut = float(family.cuts[i])
                    side = "D" if favours_d else "D'"
                    text = f"{family.describe(cut, above)}, more likely on {side}"
                    event = Event(family.score, cut, above, favours_d, text)
                    best = (float(planned[i]), event)
    assert best is not None
    return best[1]


def _planned(
    in_d: NDArray[np.int64],
    n: int,
    holdout: int,
    in_dp: NDArray[np.int64],
    n_prime: int,
    holdout_prime: int,
    favours_d: bool,
    alpha: float,
    delta: float,
) -> NDArray[np.float64]:
    """The bound each cut would give on the held-out runs if their shares were the
    pessimistic ends of the selection runs' own intervals (at ``alpha``).

    Taking the pessimistic ends, not the plain shares, damps the winner's curse: among
    hundreds of cuts the one with the luckiest selection counts would otherwise win, most
    often a rare event whose share is known only roughly.
    """
    if not favours_d:
        in_d, n, holdout, in_dp, n_prime, holdout_prime = (
            in_dp, n_prime, holdout_prime, in_d, n, holdout
        )  # fmt: skip
    low, _ = clopper_pearson(in_d, n, alpha / 2)
    _, high = clopper_pearson(in_dp, n_prime, alpha / 2)
    planned = epsilon_lower_bound(
        low * holdout, holdout, high * holdout_prime, holdout_prime, alpha=alpha, delta=delta
    )
    return np.where(np.isnan(planned), -np.inf, planned)


def _families(train: Outputs, score: Score | None) -> list[_Family]:
    if train.kind == "discrete":
        labels = train.values.shape[0]
        ratio = _log_ratio(train.d, train.d_prime, labels)
        return [_label_family(train.values, ratio)]
    if train.kind == "scalar":
        return _scalar_families(train.d, train.d_prime, _identity, "output")
    project, name = _projection(train, score)
    return _scalar_families(project(train.d), project(train.d_prime), project, name)


def _log_ratio(d: NDArray[np.int64], d_prime: NDArray[np.int64], size: int) -> NDArray[np.float64]:
    """Smoothed ``ln P^(o | D) - ln P^(o | D')`` (add 1/2 to every count)."""
    counts = np.bincount(d, minlength=size) + 0.5
    counts_prime = np.bincount(d_prime, minlength=size) + 0.5
    return np.asarray(
        np.log(counts / counts.sum()) - np.log(counts_prime / counts_prime.sum()), np.float64
    )


def _identity(o: NDArray[Any]) -> NDArray[np.float64]:
    return np.asarray(o, dtype=np.float64)


def _label_family(values: NDArray[Any], ratio: NDArray[np.float64]) -> _Family:
    def score(o: NDArray[Any]) -> NDArray[np.float64]:
        return np.asarray(ratio[o], dtype=np.float64)

    def describe(cut: float, above: bool) -> str:
        chosen = np.flatnonzero(ratio >= cut if above else ratio < cut)
        shown = ", ".join(_show(values[i]) for i in chosen[:4])
        more = f" and {chosen.size - 4} more" if chosen.size > 4 else ""
        return f"output in {{{shown}{more}}} ({chosen.size} of {ratio.size} outputs seen)"

    return _Family(score, np.unique(ratio), describe)


def _show(value: Any) -> str:
    return str(value.tolist()) if isinstance(value, np.ndarray) else str(int(value))


def _scalar_families(
    s: NDArray[np.float64],
    s_prime: NDArray[np.float64],
    score: Callable[[NDArray[Any]], NDArray[np.float64]],
    name: str,
) -> list[_Family]:
    pooled = np.concatenate([s, s_prime])
    cuts = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, _QUANTILES + 1)[1:-1]))
    families = [_Family(score, cuts, lambda c, up: f"{name} {'>=' if up else '<'} {c:.4g}")]
    bins = min(_BINS, pooled.size // _PER_BIN)
    if bins >= 3:
        edges = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, bins + 1)[1:-1]))
        where, where_prime = (np.searchsorted(edges, x, side="right") for x in (s, s_prime))
        ratio = _log_ratio(where, where_prime, edges.size + 1)

        def binned(o: NDArray[Any]) -> NDArray[np.float64]:
            return ratio[np.searchsorted(edges, score(o), side="right")]

        def describe(cut: float, above: bool) -> str:
            chosen = int(np.count_nonzero(ratio >= cut if above else ratio < cut))
            return f"{name} in {chosen} of {ratio.size} intervals chosen on the training runs"

        families.append(_Family(binned, np.unique(ratio), describe))
    return families


def _projection(
    train: Outputs, score: Score | None
) -> tuple[Callable[[NDArray[Any]], NDArray[np.float64]], str]:
    if score is not None:
        user = score

        def checked(o: NDArray[Any]) -> NDArray[np.float64]:
            try:
                s = np.asarray(user(o), dtype=np.float64)
            except (TypeError, ValueError) as error:
                raise ValueError(f"score must return one number per output: {error}") from error
            if s.shape != (o.shape[0],) or not np.isfinite(s).all():
                raise ValueError(
                    f"score must return {o.shape[0]} finite numbers, got shape {s.shape}"
                )
            return s

        return checked, "score(output)"
    both = np.concatenate([train.d, train.d_prime])
    centred = np.concatenate(
        [train.d - train.d.mean(axis=0), train.d_prime - train.d_prime.mean(axis=0)]
    )
    cov = centred.T @ centred / max(both.shape[0] - 2, 1)
    ridge = 1e-9 * float(np.trace(cov)) / cov.shape[0] + 1e-300
    w = np.linalg.solve(cov + ridge * np.eye(cov.shape[0]), train.d.mean(0) - train.d_prime.mean(0))
    shown = ", ".join(f"{x:.3g}" for x in w[:6]) + (", ..." if w.size > 6 else "")
    return (lambda o: np.asarray(o @ w, np.float64)), f"w·output (w = [{shown}])"
