"""The ranking of "Which algorithm for my data?", whatever the data's dimension: the table of
every algorithm's error with its interval and probability of being best, and the adaptive
trials that run more trials of the algorithms within noise of the leader.

Both the 1-D comparison (:mod:`dpui.algorithms.compare`) and the 2-D one
(:mod:`dpui.algorithms.map2d`) hand these functions their own runs, exact values and
control variates; the statistics are the same.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np
import pandas as pd
from scipy import stats

from dpcore.algorithms import ranking
from dpui.algorithms import figures
from dpui.kit.page import View

COLUMNS = ["algorithm", "trial", "error", "squared"]
"""One row per algorithm and trial: the scaled L1 error and the scaled squared error."""

FIRST_TRIALS = 3
"""Adaptive trials: every algorithm without an exact value runs this many first (the fewest
that give an interval with some width to compare: Student's t with 2 degrees of freedom)."""
MOST_TRIALS = 48
"""Adaptive trials: at most this many for any algorithm (rounds double the trials: 3, 6, 12,
24, 48, so the intervals are looked at no more than five times)."""
ADAPTIVE_SECONDS = 4.0
"""Adaptive trials: estimated seconds of one core (:func:`dpcore.algorithms.cost.run_seconds`)
the whole ranking may spend; the first round runs even when it alone costs more."""

Rows = list[tuple[str, int, float, float]]
"""Rows of :data:`COLUMNS`."""


class Compared(Protocol):
    """What the ranking's view and its recommendation say of a comparison's setting, 1-D
    (:class:`dpui.algorithms.compare.Setting`) or 2-D (:class:`dpui.algorithms.map2d.Setting2D`)."""

    @property
    def scale(self) -> int: ...
    @property
    def eps(self) -> float: ...
    @property
    def trials(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def own(self) -> bool: ...
    @property
    def domain(self) -> int:
        """Bins, or cells of a grid."""
        ...

    @property
    def cell(self) -> str:
        """What one of :attr:`domain` is called ("bin", "cell")."""
        ...

    def data_name(self) -> str: ...
    def domain_words(self) -> str: ...
    def unit(self) -> str: ...
    def scale_words(self) -> str: ...
    def query_count(self) -> int: ...
    def workload_words(self) -> str: ...


def sparse_note(s: Compared, example: str) -> str:
    """What a scale below the number of bins or cells means, with DPBench's ``example`` of
    such a setting ("" when the scale is not below it)."""
    if s.scale >= s.domain:
        return ""
    return (
        f"{s.scale:,} records over {s.domain:,} {s.cell}s: most {s.cell}s are empty. DPBench "
        f"includes such small scales ({example}); they are where learning the data's shape "
        "pays most."
    )


def ranked_view(s: Compared, table: pd.DataFrame, *, algorithms: str) -> View:
    """The page's main view of a ranking ``table`` (:func:`rank`) on setting ``s``: the
    ranking chart, its stamp, each algorithm's error as a key number; ``algorithms`` says
    which ("algorithms", "2-D algorithms")."""
    stamp = {
        "data": s.data_name(),
        "scale": f"{s.scale:,}" + (" (the data's N)" if s.own else " (what-if)"),
        "domain": s.domain_words(),
        "ε": s.eps,
        "workload": s.workload_words(),
        "trials": s.trials or "adaptive",
        "seed": s.seed,
    }
    near = [str(name) for name in table.index[table["within noise"].to_numpy()]]
    best = f"{' / '.join(near)} within noise" if len(near) > 1 else str(table.index[0])
    return View(
        described=(
            f"{len(table)} {algorithms} on samples of '{s.data_name()}' at {s.scale_words()}, "
            f"{s.domain_words()} {s.cell}s, ε = {s.eps:g}; best: {best}"
        ),
        figure=figures.ranking(table),
        stamp=stamp,
        numbers={f"{name} error": float(err) for name, err in table["mean"].items()},
        detail=(s, table),
        share="x",
        kind="ranking",
        note="Scaled average per-query L1 error (DPBench): |Wx − Wx̂|₁ / (queries × scale).",
    )


def adaptive_seconds(first: float) -> float:
    """The most an adaptive ranking spends (estimated seconds) when its first round of
    :data:`FIRST_TRIALS` costs ``first``: :data:`ADAPTIVE_SECONDS`, or the first round
    alone when it costs more."""
    return max(first, ADAPTIVE_SECONDS)


def race(
    names: tuple[str, ...],
    exact: Mapping[str, float],
    *,
    fixed: int,
    run: Callable[[tuple[str, ...], range], Rows],
    each: Callable[[tuple[str, ...]], float],
    ranked: Callable[[pd.DataFrame], pd.DataFrame],
) -> pd.DataFrame:
    """The trials of every algorithm of ``names`` not in ``exact``: ``fixed`` trials each,
    or (``fixed`` 0) adaptive: :data:`FIRST_TRIALS` trials each; then, round after round,
    those still within noise of the leader (exact values included) run as many trials
    again, until the leader is alone, :data:`MOST_TRIALS` is reached, or the next round
    would take the estimated work past :func:`adaptive_seconds` (a round that does not fit
    whole runs the trials that fit).

    Parameters
    ----------
    names : tuple of str
        The algorithms compared.
    exact : mapping of str to float
        The algorithms ranked at an exact expected error (never run).
    fixed : int
        Trials of each algorithm; 0: adaptive.
    run : callable
        ``run(algorithms, trials)``: the rows of :data:`COLUMNS` of those trials.
    each : callable
        ``each(algorithms)``: the estimated seconds of one trial of those algorithms.
    ranked : callable
        The table of :func:`rank` from a frame of rows.

    Returns
    -------
    pandas.DataFrame
        Every row run, columns :data:`COLUMNS`.
    """
    racing = tuple(name for name in names if name not in exact)
    if fixed:
        return pd.DataFrame(run(racing, range(fixed)), columns=COLUMNS)
    rows = run(racing, range(FIRST_TRIALS))
    spent = FIRST_TRIALS * each(racing)
    budget = adaptive_seconds(spent)
    done = FIRST_TRIALS
    while racing and done < MOST_TRIALS:
        table = ranked(pd.DataFrame(rows, columns=COLUMNS))
        near = table.index[table["within noise"].to_numpy()]
        racing = tuple(name for name in near if name not in exact)
        if len(near) < 2 or not racing:
            break
        one = each(racing)
        more = min(done, MOST_TRIALS - done, math.floor((budget - spent) / one))
        if more < 1:
            break
        rows += run(racing, range(done, done + more))
        spent += more * one
        done += more
    return pd.DataFrame(rows, columns=COLUMNS)


def rank(
    runs: pd.DataFrame,
    exact: Mapping[str, float],
    *,
    known: Callable[[str], float],
    closed: Callable[[str], float],
    dependent: Callable[[str], bool],
    seed: int,
) -> pd.DataFrame:
    """Per algorithm, best first: its exact expected error where there is one (``exact``;
    "how" says "exact"), else its mean error over the trials it ran with a 95% interval
    (Student t), corrected by its squared error as a control variate where its exact mean
    squared error is known (``known``, :func:`dpcore.algorithms.ranking.control_variate_mean`;
    at least 3 trials); the probability that it is best and whether it is within noise of
    the leader: its 95% interval overlaps the leader's, or it is among the fewest most
    probable algorithms that are best with 95% probability together
    (:mod:`dpcore.algorithms.ranking`; NaN and False when an algorithm has a single trial),
    rank, regret, whether it learns the data (``dependent``), and a closed form (``closed``,
    NaN where there is none).

    Parameters
    ----------
    runs : pandas.DataFrame
        Rows of :data:`COLUMNS`.
    exact : mapping of str to float
        Algorithm -> exact expected scaled error.
    known : callable
        Algorithm -> its exact expected scaled squared error, or NaN.
    closed : callable
        Algorithm -> its closed-form expected scaled error, or NaN.
    dependent : callable
        Algorithm -> whether it is data-dependent.
    seed : int
        Seed of the draws behind the probability of being best.

    Returns
    -------
    pandas.DataFrame
        Indexed by algorithm: rank, mean, half width, how, trials, probability best, within
        noise, closed form, data-dependent, regret.
    """
    rows = {
        name: _estimate(group, known(str(name)))
        for name, group in runs.groupby("algorithm", sort=False)
        if name not in exact
    }
    rows |= {name: (value, 0.0, 0, 0, "exact") for name, value in exact.items()}
    table = pd.DataFrame.from_dict(
        rows, orient="index", columns=["mean", "se", "trials", "dof", "how"]
    )
    table.index.name = "algorithm"
    table["closed form"] = [closed(str(name)) for name in table.index]
    table = table.sort_values("mean")
    measured = table["trials"] > 0
    if (table.loc[measured, "dof"] > 0).all():
        dof = np.maximum(table["dof"], 1)
        table["half width"] = np.where(measured, stats.t.ppf(0.975, dof) * table["se"], 0.0)
        rng = np.random.default_rng([seed, stream("probability best")])
        table["probability best"] = ranking.probability_best(
            table["mean"], table["se"], dof + 1, rng
        )
        overlap = ranking.within_noise(table["mean"], table["half width"])
        table["within noise"] = overlap | ranking.likely_best(table["probability best"])
    else:
        table["half width"] = np.where(measured, np.nan, 0.0)
        table["probability best"] = np.nan
        table["within noise"] = False
    table["data-dependent"] = [dependent(str(name)) for name in table.index]
    table["regret"] = table["mean"] / table["mean"].iloc[0]
    table.insert(0, "rank", range(1, len(table) + 1))
    columns = ["rank", "mean", "half width", "how", "trials", "probability best"]
    return table[[*columns, "within noise", "closed form", "data-dependent", "regret"]]


def stream(name: str) -> int:
    """A stable per-algorithm seed component (Python's ``hash`` of a str is salted)."""
    return zlib.crc32(name.encode())


def _estimate(trials: pd.DataFrame, known: float) -> tuple[float, float, int, int, str]:
    """One algorithm's mean error over its ``trials`` (rows of :data:`COLUMNS`), its
    standard error, the number of trials, the degrees of freedom and how it was made: the
    plain mean, or corrected by the squared error where its expectation ``known`` is a
    number."""
    k = len(trials)
    plain = f"mean of {k} trial{'s' * (k > 1)}"
    if k >= 3 and not math.isnan(known):
        mean, se, dof = ranking.control_variate_mean(trials["error"], trials["squared"], known)
        return mean, se, k, dof, f"{plain}, control variate"
    se = float(trials["error"].std(ddof=1)) / math.sqrt(k) if k > 1 else math.nan
    return float(trials["error"].mean()), se, k, k - 1, plain
