"""The "Range queries under local DP" page's parameters, cached computations, cost and view.

N users hold values drawn from the sidebar histogram's shape (one multinomial draw, seeded:
the population); each method's collection is simulated in aggregate
(:mod:`dpcore.ldp.ranges.simulate`: 10^8 users cost what 10^3 do) and its exact closed form
(:mod:`dpcore.ldp.ranges`) is evaluated on the same ranges. Quantity everywhere: the variance
of a range's estimated *fraction* of users (fraction², unitless; times N² in users²).

Estimand: all N users' histogram, for the simulation and for the lines of flat and the trees
(with levels sampled the trees' lines add the exact term of the random split into equal level
groups, :func:`dpcore.ldp.ranges.sampling_variance`, and the simulation draws that split;
HaarHRR's line adds the exact term of each user's independent choice of level,
:func:`dpcore.ldp.ranges.haar_sampling_variance`, as its simulation draws it). AHEAD (fan-out
2, Norm-Sub per level) is simulated only: its tree depends on the data and the noise, so it
has no closed form. HaarHRR and AHEAD need a domain that is a power of 2: another domain is
padded with empty items (stated on the page). The sections below the main chart
are in :mod:`dpui.ldp_ranges.sections`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from numpy.typing import NDArray

from dpcore.hist.tree import kary_tree
from dpcore.ldp import ranges
from dpcore.ldp.ranges.oracles import MIN_EPS
from dpcore.ldp.ranges.variance import Consistency, used_nodes
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, Refused, View
from dpui.kit.params import BoolParam, ChoiceParam, IntParam
from dpui.kit.sidebar import EPSILON
from dpui.ldp_ranges import figures

FloatArray = NDArray[np.float64]

MAX_EPS = 10.0
"""Largest ε of the library's range-query oracles (above, e^ε overflows their probabilities'
useful precision); the sidebar's larger values are clamped, and the page says so."""
MAX_DOMAIN = 2**16
"""Largest domain the page draws: its closed forms with the data terms are dense in
ranges x nodes, and one simulated collection of every method is ~0.3 s at 2^16 items."""
CELLS = 2**22
PARTITION_CELLS = 2**21
"""Ranges x levels x items per block of the level groups' term (~50 MB at its peak)."""
"""Ranges x tree nodes evaluated at most (the starts per length shrink to stay within)."""
MAX_STARTS = 16
SIMULATION_SECONDS = 1.0
"""Estimated seconds of simulation a change may take: the collections asked for beyond it
are not simulated (the page says so)."""
LENGTHS = 18
"""Range lengths evaluated, log-spaced from 1 to the domain."""

USERS = IntParam("lr_users", 100_000, 1, 100_000_000)
FANOUT = IntParam("lr_fanout", 4, 2, 32)
ORACLES = {"oue": "OUE", "olh": "OLH", "hrr": "HRR"}
ORACLE = ChoiceParam("lr_oracle", "oue", tuple(ORACLES))
LEVELS = {"sample": "sampled (each user reports one level at ε)", "split": "ε split over levels"}
LEVEL_MODE = ChoiceParam("lr_levels", "sample", tuple(LEVELS))
REPS = IntParam("lr_reps", 20, 0, 200)
SEED = IntParam("lr_seed", 0, 0, 2**31 - 1)
NORM_SUB = BoolParam("lr_normsub", False)
"""Norm-Sub on the simulated flat and tree estimates (biased: the lines stay unbiased)."""
PARAMS = (USERS, FANOUT, ORACLE, LEVEL_MODE, REPS, SEED, NORM_SUB)
PINNED = (*PARAMS, EPSILON)
"""A view: the population, the tree, its oracle and levels, the simulation and the shared ε."""

CLOSED = ("flat", "raw", "blue", "haar")
"""The methods with closed forms (a line each)."""
METHODS = (*CLOSED, "ahead")
AHEAD_FANOUT = 2
"""AHEAD's fan-out on the page: the authors' default (on the padded domain, a power of 2)."""


def method_names(oracle: str, fanout: int) -> dict[str, str]:
    """Legend names of the five methods."""
    fo = ORACLES[oracle]
    return {
        "flat": f"flat {fo}",
        "raw": f"HH{fanout} {fo}, raw",
        "blue": f"HH{fanout} {fo} + BLUE",
        "haar": "HaarHRR",
        "ahead": f"AHEAD (B = {AHEAD_FANOUT}), simulated only",
    }


@dataclass(frozen=True)
class Setting:
    """The checked inputs every part of the page is computed from (hashable)."""

    name: str
    counts: tuple[float, ...]
    users: int
    fanout: int
    oracle: str
    levels: str
    reps: int
    seed: int
    eps: float
    sidebar_eps: float
    asked: int = 0
    """The collections asked for; ``reps`` those simulated (:func:`affordable_reps`)."""
    normalise: bool = False
    """Norm-Sub on the simulated flat estimates and on each tree level's."""

    @property
    def domain(self) -> int:
        return len(self.counts)

    @property
    def padded(self) -> int:
        """HaarHRR's domain: the next power of 2 (the domain itself when it is one)."""
        return 1 << (self.domain - 1).bit_length()

    @property
    def shape(self) -> FloatArray:
        c = np.asarray(self.counts, dtype=np.float64)
        return np.asarray(c / c.sum(), dtype=np.float64)

    def names(self) -> dict[str, str]:
        return method_names(self.oracle, self.fanout)

    def stamp(self) -> dict[str, Any]:
        return {
            "data": self.name,
            "N": f"{self.users:,}",
            "ε": self.eps,
            "B": self.fanout,
            "oracle": ORACLES[self.oracle],
            "levels": self.levels,
            "reps": self.reps,
            "seed": self.seed,
            "Norm-Sub": "on" if self.normalise else "off",
        }


def tree_levels(domain: int, fanout: int) -> int:
    """``h``: levels below the root of the ``fanout``-ary tree over ``domain`` items."""
    return kary_tree(domain, fanout).height - 1


def tree_nodes(domain: int, fanout: int) -> int:
    """Nodes of the ``fanout``-ary tree over ``domain`` items (without building it)."""
    nodes, width = 1, domain
    while width > 1:
        nodes += width
        width = -(-width // fanout)
    return nodes


def setting(inputs: Inputs) -> Setting:
    """The view's checked setting; :class:`Refused` with the reason when it cannot be drawn."""
    hist = inputs.hist
    d = hist.n_bins
    users, fanout = int(inputs[USERS]), int(inputs[FANOUT])
    sidebar_eps = float(inputs[EPSILON])
    if d < 2:
        raise Refused(f"'{hist.name}' has {d} bin; ranges need a domain of at least 2 bins.")
    if d > MAX_DOMAIN:
        raise Refused(
            f"'{hist.name}' has {d:,} bins; this page draws domains of up to {MAX_DOMAIN:,} "
            "(its exact variances with the data terms are dense in ranges x tree nodes). "
            "Choose a smaller dataset, or upload the histogram with fewer, wider bins. "
            "`dpcore.ldp.ranges` computes the averages at up to 4,194,304 bins."
        )
    if not hist.counts.sum() > 0:
        raise Refused(f"'{hist.name}' is all zeros: there is no shape to draw users from.")
    if fanout > d:
        raise Refused(f"Fan-out B = {fanout} is more than the domain's {d} bins: choose B ≤ {d}.")
    s = Setting(
        hist.name,
        tuple(float(c) for c in hist.counts),
        users,
        fanout,
        str(inputs[ORACLE]),
        str(inputs[LEVEL_MODE]),
        int(inputs[REPS]),
        int(inputs[SEED]),
        min(max(sidebar_eps, MIN_EPS), MAX_EPS),
        sidebar_eps,
        normalise=bool(inputs[NORM_SUB]),
    )
    asked = s.reps
    reps = affordable_reps(d, fanout, s.padded, s.oracle, asked, s.levels, s.normalise)
    s = replace(s, reps=reps, asked=asked)
    need = max(tree_levels(d, fanout) if s.levels == "sample" else 1, s.padded.bit_length() - 1)
    if users < need:
        tree = tree_levels(d, fanout)
        sampled = f"its {tree} levels" if s.levels == "sample" else "its levels (ε split: 1)"
        raise Refused(
            f"N = {users:,} user{'s' if users != 1 else ''} cannot fill the levels: a level "
            "that users are sampled into needs at least one of them, and here the tree has "
            f"{sampled} and HaarHRR (always sampled) {s.padded.bit_length() - 1}. "
            f"Choose N ≥ {need}; your other settings are kept."
        )
    return s


# --- the ranges evaluated --------------------------------------------------------------------


def evaluated_ranges(domain: int, fanout: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Range starts and ends: :data:`LENGTHS` log-spaced lengths, each at up to
    :data:`MAX_STARTS` evenly spaced starts (fewer on big trees, within :data:`CELLS`)."""
    lengths = np.unique(np.round(np.geomspace(1, domain, LENGTHS)).astype(np.int64))
    starts = max(1, min(MAX_STARTS, CELLS // (lengths.size * tree_nodes(domain, fanout))))
    first, last = [], []
    for r in lengths:
        at = np.unique(np.round(np.linspace(0, domain - r, min(starts, domain - r + 1))))
        first.append(at.astype(np.int64))
        last.append(at.astype(np.int64) + r - 1)
    return np.concatenate(first), np.concatenate(last)


def starts_per_length(domain: int, fanout: int) -> int:
    lengths = np.unique(np.round(np.geomspace(1, domain, LENGTHS)).astype(np.int64))
    return max(1, min(MAX_STARTS, CELLS // (lengths.size * tree_nodes(domain, fanout))))


def plan_of(s: Setting) -> ranges.LdpTree:
    return ranges.ldp_tree(
        s.domain, s.fanout, eps=s.eps, users=s.users, oracle=s.oracle,
        levels=s.levels,  # type: ignore[arg-type]
    )  # fmt: skip


def population(s: Setting) -> NDArray[np.int64]:
    """The N users' histogram, drawn once from the sidebar histogram's shape (seeded)."""
    return ranges.draw_histogram(s.shape, s.users, rng=np.random.default_rng([s.seed, 1]))


def _padded(values: NDArray[Any], size: int) -> NDArray[Any]:
    return np.concatenate([values, np.zeros(size - values.size, dtype=values.dtype)])


def closed_forms(s: Setting, pop: NDArray[np.int64], first: Any, last: Any) -> dict[str, Any]:
    """Each method's exact variance of every range (data terms of the population ``pop``),
    against all N users: with levels sampled, the random partition into level groups adds
    :func:`dpcore.ldp.ranges.sampling_variance` to the trees, and each user's independent
    choice of level :func:`dpcore.ldp.ranges.haar_sampling_variance` to HaarHRR. AHEAD has
    none: NaN."""
    f = pop / pop.sum()
    plan = plan_of(s)
    kw = {"frequencies": f}
    out = {
        "flat": ranges.flat_range_variance(
            s.oracle, eps=s.eps, users=s.users, a=first, b=last, domain=s.domain, **kw
        ),
        "raw": ranges.tree_range_variance(plan, first, last, consistency="none", **kw),
        "blue": ranges.tree_range_variance(plan, first, last, consistency="blue", **kw),
        "haar": ranges.haar_range_variance(
            s.padded, s.eps, s.users, first, last, frequencies=_padded(f, s.padded)
        )
        + ranges.haar_sampling_variance(
            s.padded, s.eps, s.users, first, last, frequencies=_padded(f, s.padded)
        ),
        "ahead": np.full(np.shape(first), np.nan),
    }
    if s.levels == "sample":
        pairs: tuple[tuple[str, Consistency], ...] = (("raw", "none"), ("blue", "blue"))
        for m, consistency in pairs:
            out[m] = out[m] + _partition_term(plan, first, last, f, consistency)
    return out


def _partition_term(
    plan: ranges.LdpTree, first: Any, last: Any, f: FloatArray, consistency: Consistency
) -> FloatArray:
    """:func:`dpcore.ldp.ranges.sampling_variance` in blocks of ranges (its memory is
    ranges x levels x items)."""
    step = max(1, PARTITION_CELLS // (plan.levels * plan.tree.n_bins))
    blocks = [
        ranges.sampling_variance(
            plan,
            first[i : i + step],
            last[i : i + step],
            frequencies=f,
            consistency=consistency,
        )
        for i in range(0, len(first), step)
    ]
    return np.concatenate(blocks)


def prefix_answers(leaves: FloatArray, first: Any, last: Any) -> FloatArray:
    sums = np.concatenate(([0.0], np.cumsum(leaves)))
    return np.asarray(sums[last + 1] - sums[first])


def one_collection(s: Setting, pop: NDArray[np.int64], rng: np.random.Generator) -> dict[str, Any]:
    """One simulated collection of every method: the flat and Haar leaves, the tree's raw
    node estimates and its BLUE leaves, AHEAD's release (on the padded domain)."""
    plan = plan_of(s)
    flat = ranges.simulate_flat(s.oracle, pop, s.eps, rng=rng, normalise=s.normalise)
    nodes = ranges.simulate_tree(plan, pop, rng=rng, groups="partition", normalise=s.normalise)
    blue = ranges.blue_smoother(plan).apply(nodes)[plan.tree.leaf_of_bin]
    coefficients = ranges.simulate_haar(_padded(pop, s.padded), s.eps, rng=rng)
    haar = ranges.haar_leaves(coefficients, s.padded)[: s.domain]
    ahead = ranges.simulate_ahead(_padded(pop, s.padded), s.eps, rng=rng, fanout=AHEAD_FANOUT)
    return {"flat": flat, "raw": nodes, "blue": blue, "haar": haar, "ahead": ahead}


@dataclass(frozen=True)
class Curves:
    """Error vs range length: per method and length, the closed form's mean over the ranges
    evaluated, and the simulated mean squared error with its 95% interval."""

    table: pd.DataFrame
    starts: int
    averages: dict[str, float]
    """Noise-only closed-form average over all D(D+1)/2 ranges, per method of :data:`CLOSED`."""


@st.cache_data(max_entries=32, show_spinner="Computing the exact variances and simulating…")
def curves(s: Setting) -> Curves:
    """The main view's numbers (closed forms; ``s.reps`` simulated collections)."""
    pop = population(s)
    truth = pop / pop.sum()
    first, last = evaluated_ranges(s.domain, s.fanout)
    exact = closed_forms(s, pop, first, last)
    true_answers = prefix_answers(truth, first, last)
    plan = plan_of(s)
    weights = used_nodes(plan, first, last).astype(np.float64) if s.reps else None
    squared = {m: np.zeros((s.reps, first.size)) for m in METHODS}
    rng = np.random.default_rng([s.seed, 2])
    for rep in range(s.reps):
        got = one_collection(s, pop, rng)
        assert weights is not None
        answers = {m: prefix_answers(got[m], first, last) for m in ("flat", "blue", "haar")}
        answers["raw"] = weights @ got["raw"]
        answers["ahead"] = ranges.ahead_answers(got["ahead"], first, last)
        for m in METHODS:
            squared[m][rep] = (answers[m] - true_answers) ** 2
    lengths = last - first + 1
    rows = []
    for m in METHODS if s.reps else CLOSED:  # AHEAD: simulated only
        for r in np.unique(lengths):
            at = lengths == r
            row = {"method": m, "length": int(r), "closed": float(exact[m][at].mean())}
            if s.reps:
                per_rep = squared[m][:, at].mean(axis=1)
                mean = float(per_rep.mean())
                half = 1.96 * float(per_rep.std(ddof=1)) / math.sqrt(s.reps) if s.reps > 1 else 0.0
                row |= {"simulated": mean, "lo": max(mean - half, 0.0), "hi": mean + half}
            rows.append(row)
    averages = {
        "flat": ranges.average_variance(
            f"flat-{s.oracle}", domain=s.domain, eps=s.eps, users=s.users
        ),
        "raw": ranges.tree_average_variance(plan, consistency="none"),
        "blue": ranges.tree_average_variance(plan, consistency="blue"),
        "haar": ranges.haar_average_variance(s.padded, s.eps, s.users),
    }
    return Curves(pd.DataFrame(rows), starts_per_length(s.domain, s.fanout), averages)


# --- cost ----------------------------------------------------------------------------------


def page_cost(
    domain: int,
    fanout: int,
    reps: int,
    padded: int,
    oracle: str = "oue",
    levels: str = "sample",
    normalise: bool = False,
) -> limits.Cost:
    """The main view: the closed forms on the evaluated ranges (dense in ranges x nodes:
    90 ns per cell, plus 1.2 µs per item and tree level; with levels sampled, the level
    groups' term, 50 ns per range, level and item; HaarHRR's groups' term, 0.01 s and 40 ns
    per item and level of its padded domain) and ``reps`` collections of the five methods
    (per collection 40 ns per item and tree level, 20 ns more with levels sampled (the random
    partition), 110 ns per item and level of HaarHRR's padded domain, 20 ns per range and
    node for the raw tree's answers, 1.5 ms per tree level with HRR, whose aggregate draw
    works per occupied node, for AHEAD 80 ns per item and level of the padded domain and
    0.2 ms per level, and with Norm-Sub 200 ns per item: 60 ns per item sorted, the flat
    estimates and the tree's levels), plus 0.12 s for the frame and the figure; memory 24
    bytes per cell and 50 MB for the groups' term. Fitted (non-negative least squares,
    relative) on 42 settings, D = 256..65,536, B = 2..16, each oracle, both level modes,
    0..20 collections, CPU time with cold caches, November 2026
    (``bench/bench_ldp_ranges_page.py`` prints estimate beside measured): mostly within
    0.75-1.3x of the measure; 0.23 s measured at 1,024 bins, B = 4, 20 collections. The
    coefficients of HaarHRR's term, AHEAD and Norm-Sub were measured alone (N = 10^5 and
    10^8, D = 256..65,536) and added, not refitted."""
    nodes = tree_nodes(domain, fanout)
    h = max(1, tree_levels(domain, fanout))
    lengths = np.unique(np.round(np.geomspace(1, domain, LENGTHS))).size
    evaluated = lengths * starts_per_length(domain, fanout)
    cells = evaluated * nodes
    sampled = levels == "sample"
    haar_levels = padded.bit_length() - 1
    per_rep = (
        domain * h * (40e-9 + 20e-9 * sampled)
        + padded * padded.bit_length() * 110e-9
        + cells * 20e-9
        + (h * 1.5e-3 if oracle == "hrr" else 0.0)
        + haar_levels * (padded * 80e-9 + 0.2e-3)  # AHEAD, B = 2 on the padded domain
        + domain * 200e-9 * normalise
    )
    seconds = 0.12 + cells * 90e-9 + domain * h * 1.2e-6 + reps * per_rep
    seconds += 0.01 + padded * haar_levels * 40e-9  # HaarHRR's level groups' term
    seconds += evaluated * h * domain * 50e-9 * sampled
    megabytes = (5e6 + cells * 24 + domain * h * 16 + 50e6 * sampled) / limits.MB
    return limits.Cost(seconds, megabytes)


def affordable_reps(
    domain: int,
    fanout: int,
    padded: int,
    oracle: str,
    asked: int,
    levels: str = "sample",
    normalise: bool = False,
) -> int:
    """The collections simulated: those ``asked`` for, as many as fit in
    :data:`SIMULATION_SECONDS` by :func:`page_cost` (at least one when any is asked for)."""
    if asked <= 0:
        return 0
    one = page_cost(domain, fanout, 1, padded, oracle, levels, normalise).seconds
    per_rep = one - page_cost(domain, fanout, 0, padded, oracle, levels, normalise).seconds
    return max(1, min(asked, int(SIMULATION_SECONDS // per_rep)))


def cost(inputs: Inputs) -> Estimate | None:
    """What the main view set by ``inputs`` is estimated to cost (None when refused)."""
    try:
        s = setting(inputs)
    except Refused:
        return None
    return Estimate(
        f"{s.reps} simulated collections of {s.users:,} users over {s.domain:,} bins",
        page_cost(s.domain, s.fanout, s.reps, s.padded, s.oracle, s.levels, s.normalise),
        smaller="lower Simulation repetitions (0: closed forms only), or use fewer bins",
        library="dpcore.ldp.ranges.simulate_tree",
    )


# --- the view --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Detail:
    setting: Setting
    curves: Curves


GENERIC = {"flat": "flat", "raw": "HH_B raw", "blue": "HH_B + BLUE", "haar": "HaarHRR"}
"""Method names of the key numbers, alike in A and B whatever their fan-out and oracle."""


def key_numbers(s: Setting, c: Curves) -> dict[str, float]:
    """The numbers a comparison puts side by side: the setting, and every method's exact
    average over all ranges (noise only, fraction²)."""
    numbers = {
        "users N": float(s.users),
        "domain D": float(s.domain),
        "fan-out B": float(s.fanout),
        "ε used": s.eps,
        "collections simulated": float(s.reps),
    }
    for m in CLOSED:
        numbers[f"{GENERIC[m]}: average variance, all ranges"] = c.averages[m]
    return numbers


def view(inputs: Inputs) -> View:
    """Error vs range length, one line per method (exact) and the simulated means."""
    s = setting(inputs)
    try:
        c = curves(s)
    except ValueError as err:  # a bound the checks above missed: said, never a traceback
        raise Refused(f"Not computed at these settings: {err}") from None
    figure = figures.error_vs_length(c.table, s.names(), domain=s.domain)
    described = (
        f"'{s.name}', N = {s.users:,}, ε = {s.eps:g}, B = {s.fanout}, {ORACLES[s.oracle]}, "
        f"levels {s.levels}, {s.reps} collections, seed {s.seed}"
    )
    return View(
        described,
        figure,
        s.stamp(),
        key_numbers(s, c),
        detail=Detail(s, c),
        share="xy",
        kind="length",
        note="Averages are exact and noise only; the chart's markers are simulated.",
    )


def eps_note(s: Setting) -> str | None:
    """Why the ε used differs from the sidebar's, or None."""
    if s.sidebar_eps > MAX_EPS:
        return (
            f"This page uses ε = {MAX_EPS:g}, not the sidebar's {s.sidebar_eps:g}: the local "
            f"oracles' probabilities are too close to 0 and 1 above {MAX_EPS:g} for the "
            "arithmetic to be meaningful."
        )
    if s.sidebar_eps < MIN_EPS:
        return (
            f"This page uses ε = {MIN_EPS:g}, not the sidebar's {s.sidebar_eps:g}: below it "
            "the oracles' p − q is lost to rounding."
        )
    return None
