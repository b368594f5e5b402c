"""Benchmark: range queries under local DP (spec 07, issue 40), six tables.

(a) closed forms at D = 65,536, all ranges, per method (target <= 0.5 s each), against the
    baseline measured in the same run: every range enumerated (weights x covariance) at
    D = 256, scaled by ranges x nodes to D = 65,536;
(b) one simulated collection of 10^8 users at D = 4,096 drawn in aggregate, per method
    (target <= 0.5 s), against every user drawn at 10^5 users (OLH per user <= 2 s);
(c) the D = 256 values (units V/N) against the issue's numbers;
(d) the best fan-out under LDP (levels sampled or eps split) against central DP;
(e) AHEAD against HH_4 (exact BLUE) and HaarHRR on the bundled ``bimodal-1024`` shape:
    average squared error over all D(D+1)/2 ranges, simulated against the population, with
    HH_4's and HaarHRR's exact closed forms (data terms, plus the level groups' term) as the
    baseline in the same run -- AHEAD's error depends on the data: no closed form;
(f) Norm-Sub's effect (biased, no closed form) on flat OUE, HH_4 and AHEAD, by simulation.

Usage: ``python bench/bench_ldp_ranges.py [--quick]`` (``--quick``: one repeat per timing,
fewer draws in (e) and (f)).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from dpcore.hist import blue_error, budget, coverage
from dpcore.hist.tree import kary_tree
from dpcore.ldp import ranges
from dpcore.ldp.ranges.variance import all_range_sum

FANOUT = 4
ISSUE_256 = {2: (12.40, 14.15), 4: (11.80, 12.85), 16: (14.73, 15.02)}  # BLUE, authors' code


def _timed(fn: Callable[[], Any], repeats: int) -> tuple[Any, float]:
    best, out = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


def _kwargs(method: str) -> dict[str, Any]:
    return {"fanout": FANOUT} if method.startswith("hh-") else {}


def closed_forms(repeats: int) -> None:
    d, users = 65_536, 10**8
    print(f"(a) Closed forms, all D(D+1)/2 ranges, D = {d:,}, eps = 1, N = 10^8, hh: B = {FANOUT}")
    print(
        f"{'method':<10} {'consistency':<12} {'avg variance':>13} {'seconds':>8}  target <= 0.5 s"
    )
    for method in ranges.METHODS:
        for consistent in (False, True) if method.startswith("hh-") else (False,):
            closed_form = partial(
                ranges.average_variance,
                method,
                domain=d,
                eps=1.0,
                users=users,
                consistent=consistent,
                **_kwargs(method),
            )
            value, secs = _timed(closed_form, repeats)
            verdict = "ok" if secs <= 0.5 else "MISS"
            label = "BLUE" if consistent else "-"
            print(f"{method:<10} {label:<12} {value:>13.4e} {secs:>8.3f}  {verdict}")
    small = 256
    plan = ranges.ldp_tree(small, FANOUT, eps=1.0, users=users)
    a, b = np.triu_indices(small)
    enumerated, secs = _timed(lambda: ranges.tree_range_variance(plan, a, b).mean(), repeats)
    closed = ranges.tree_average_variance(plan)
    big = ranges.ldp_tree(d, FANOUT, eps=1.0, users=users).tree.size
    scale = (d * (d + 1) / 2 * big) / (a.size * plan.tree.size)
    print(
        f"baseline: every range enumerated at D = {small} (hh-oue, no consistency): {secs:.3f} s "
        f"for {a.size:,} ranges x {plan.tree.size} nodes; scaled to D = {d:,}: "
        f"~{secs * scale / 86400:,.0f} days. Its mean equals the closed form to "
        f"{abs(enumerated - closed) / closed:.1e}."
    )


def simulations(repeats: int) -> None:
    d, many, few = 4096, 10**8, 10**5
    rng = np.random.default_rng(40)
    weights = np.exp(-0.5 * ((np.arange(d) - 0.33 * d) / (d / 10)) ** 2) + 0.01
    hist_many = ranges.draw_histogram(weights, many, rng=rng)
    hist_few = ranges.draw_histogram(weights, few, rng=rng)
    print(f"\n(b) One collection, D = {d:,}, eps = 1, hh: B = {FANOUT} (levels sampled)")
    print(f"{'method':<10} {'10^8 aggregate s':>17} {'10^5 per user s':>16}  targets 0.5 s / 2 s")

    def run(method: str, hist: np.ndarray, per_user: bool) -> np.ndarray:
        family, oracle = method.split("-")
        if family == "flat":
            return ranges.simulate_flat(oracle, hist, 1.0, rng=rng, per_user=per_user)
        if family == "haar":
            return ranges.simulate_haar(hist, 1.0, rng=rng, per_user=per_user)
        plan = ranges.ldp_tree(d, FANOUT, eps=1.0, users=int(hist.sum()), oracle=oracle)
        return ranges.simulate_tree(plan, hist, rng=rng, per_user=per_user)

    for method in ranges.METHODS:
        _, fast = _timed(partial(run, method, hist_many, False), repeats)
        _, slow = _timed(partial(run, method, hist_few, True), 1)
        ok = fast <= 0.5 and ("olh" not in method or slow <= 2.0)
        note = "  (OLH aggregate: ideal random hash)" if "olh" in method else ""
        print(f"{method:<10} {fast:>17.3f} {slow:>16.3f}  {'ok' if ok else 'MISS'}{note}")


def headline() -> None:
    print("\n(c) D = 256, all ranges, noise only, units V/N (eps = 1): ours vs the issue")
    print(f"{'B':>3} {'none':>8} {'BLUE':>8} {'issue':>7} {'diff':>8} {'authors':>8} {'issue':>7}")
    users = 10**6
    unit = 4 * math.e / (math.e - 1) ** 2 / users
    for fanout, (blue_ref, authors_ref) in ISSUE_256.items():
        plan = ranges.ldp_tree(256, fanout, eps=1.0, users=users)
        none, blue, authors = (
            ranges.tree_average_variance(plan, consistency=c) / unit
            for c in ("none", "blue", "authors")
        )
        print(
            f"{fanout:>3} {none:>8.2f} {blue:>8.2f} {blue_ref:>7.2f} "
            f"{(blue - blue_ref) / blue_ref:>+8.2%} {authors:>8.2f} {authors_ref:>7.2f}"
        )
    grr_top = ("grr", "grr", "grr", "oue", "oue", "oue", "oue", "oue")  # K = 2, 4, 8 < 10.15
    for oracle, label in ((grr_top, "GRR at levels 1-3, OUE below"), ("oue", "OUE everywhere")):
        plan = ranges.ldp_tree(256, 2, eps=1.0, users=users, oracle=oracle)
        none, blue = (ranges.tree_average_variance(plan, consistency=c) / unit
                      for c in ("none", "blue"))  # fmt: skip
        print(f"B = 2, {label:<29}: none {none:6.2f}, consistent {blue:6.2f}")
    flat = ranges.average_variance("flat-oue", domain=256, eps=1.0, users=users) / unit
    haar = ranges.average_variance("haar-hrr", domain=256, eps=1.0, users=users)
    c2 = ((math.e + 1) / (math.e - 1)) ** 2 / users
    print(f"flat OUE {flat:.2f} (spec 86.0); HaarHRR {haar / c2:.3f} c^2/N (spec 9.571)")


def _central(d: int, fanout: int, eps: float) -> tuple[float, float]:
    """Uniform Laplace budgets: every level incl. the root, raw (Hay et al.'s boost without
    consistency); the root not released and least squares (H_b, Qardaji et al.)."""
    t = kary_tree(d, fanout)
    boost = budget.uniform_budgets(t, eps)
    raw = budget.raw_expected_error(coverage.coverage_probabilities(t), boost)
    h_b = budget.uniform_budgets(t, eps, measure_root=False)
    return raw, blue_error.blue_expected_error(t, h_b)


def fanouts() -> None:
    candidates = range(2, 21)
    print("\n(d) Best fan-out in 2..20 (all ranges): LDP levels sampled (OUE; eps-free) or eps")
    print("    split across levels, against central DP (Laplace, eps split across levels:")
    print("    raw with the root measured; +BLUE without it, H_b);")
    print("    asymptotes: (B-1)/ln^2 B least at 4.92 (LDP sampled), (B-1)/ln^3 B at 16.8")
    head = ("D", "eps", "LDP samp", "+BLUE", "LDP split", "+BLUE", "central", "+BLUE")
    print("{:>6} {:>5} {:>9} {:>6} {:>10} {:>6} {:>8} {:>6}".format(*head))
    for d in (256, 4096, 65_536):
        sampled = [
            ranges.optimal_fanout(domain=d, eps=1.0, consistent=c, candidates=candidates)
            for c in (False, True)
        ]
        for eps in (0.5, 2.0, 8.0):
            split = []
            for consistency in ("none", "blue"):
                costs = [
                    ranges.tree_average_variance(
                        ranges.ldp_tree(d, b, eps=eps, users=d, levels="split"),
                        consistency=consistency,
                    )
                    for b in candidates
                ]
                split.append(candidates[int(np.argmin(costs))])
            central = np.array([_central(d, b, eps) for b in candidates])
            best_central = [candidates[int(np.argmin(central[:, i]))] for i in (0, 1)]
            row = (d, eps, *sampled, *split, *best_central)
            print("{:>6} {:>5} {:>9} {:>6} {:>10} {:>6} {:>8} {:>6}".format(*row))


BUNDLED = Path(__file__).resolve().parents[1] / "assets" / "examples" / "bimodal-1024.csv"
TERM_RANGES = 4096  # random ranges over which the level groups' term is averaged


def _all_range_error(leaves: np.ndarray, truth: np.ndarray) -> float:
    """Mean squared error over all D(D+1)/2 ranges of answers summing ``leaves``, O(D)."""
    prefix = np.concatenate(([0.0], np.cumsum(leaves - truth)))
    d = truth.size
    return all_range_sum(prefix[:, None], np.ones(1)) / (d * (d + 1) / 2)


def _range_truth(f: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    prefix = np.concatenate(([0.0], np.cumsum(f)))
    return np.asarray(prefix[b + 1] - prefix[a])


def _sampled_ranges(d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.triu_indices(d)
    pick = rng.choice(a.size, TERM_RANGES, replace=False)
    return a[pick], b[pick]


def _mean_se(values: list[float]) -> str:
    x = np.array(values)
    return f"{x.mean():.3e}±{x.std(ddof=1) / np.sqrt(x.size):.0e}"


def adaptive(reps: int) -> None:
    shape = np.loadtxt(BUNDLED, skiprows=1)
    d = shape.size
    a, b = np.triu_indices(d)
    rng = np.random.default_rng(41)
    some_a, some_b = _sampled_ranges(d, rng)
    print(f"\n(e) AHEAD vs HH_4 (exact BLUE) vs HaarHRR, {BUNDLED.name} (D = {d}), all ranges")
    print(f"    average squared error of a range's fraction, {reps} draws each (mean ± SE);")
    print("    closed form = data terms + the level groups' term (independent level draws; the")
    print(f"    term averaged over {TERM_RANGES} random ranges); AHEAD: B = 2 (the authors') and 4")
    head = ("eps", "N", "HH4 closed", "HH4 sim", "Haar closed", "Haar sim", "AHEAD-2", "AHEAD-4")
    print("{:>4} {:>5} {:>11} {:>17} {:>11} {:>17} {:>17} {:>17}".format(*head))
    for users in (10**5, 10**6, 10**7):
        hist = ranges.draw_histogram(shape, users, rng=rng)
        f = hist / users
        for eps in (0.5, 1.0, 2.0, 4.0):
            plan = ranges.ldp_tree(d, FANOUT, eps=eps, users=users)
            smoother = ranges.blue_smoother(plan)
            tree_closed = ranges.tree_average_variance(plan, consistency="blue", frequencies=f)
            tree_closed += ranges.sampling_variance(
                plan, some_a, some_b, frequencies=f, consistency="blue", groups="independent"
            ).mean()
            haar_closed = ranges.haar_average_variance(d, eps, users, frequencies=f)
            haar_closed += ranges.haar_sampling_variance(
                d, eps, users, some_a, some_b, frequencies=f
            ).mean()
            tree: list[float] = []
            haar: list[float] = []
            ahead2: list[float] = []
            ahead4: list[float] = []
            truth = _range_truth(f, a, b)
            for _ in range(reps):
                nodes = smoother.apply(ranges.simulate_tree(plan, hist, rng=rng))
                tree.append(_all_range_error(nodes[plan.tree.leaf_of_bin], f))
                leaves = ranges.haar_leaves(ranges.simulate_haar(hist, eps, rng=rng), d)
                haar.append(_all_range_error(leaves, f))
                for fanout, out in ((2, ahead2), (4, ahead4)):
                    release = ranges.simulate_ahead(hist, eps, rng=rng, fanout=fanout)
                    out.append(float(((ranges.ahead_answers(release, a, b) - truth) ** 2).mean()))
            row = (eps, f"1e{round(math.log10(users))}", tree_closed, _mean_se(tree), haar_closed)
            print(
                "{:>4} {:>5} {:>11.3e} {:>17} {:>11.3e}".format(*row),
                *(f"{_mean_se(x):>17}" for x in (haar, ahead2, ahead4)),
            )


def norm_sub_effect(reps: int) -> None:
    shape = np.loadtxt(BUNDLED, skiprows=1)
    d, users = shape.size, 10**6
    a, b = np.triu_indices(d)
    rng = np.random.default_rng(42)
    hist = ranges.draw_histogram(shape, users, rng=rng)
    f = hist / users
    truth = _range_truth(f, a, b)
    print(f"\n(f) Norm-Sub (biased; no closed form), {BUNDLED.name}, N = 10^6, all ranges:")
    print(f"    average squared error without / with Norm-Sub, {reps} draws each (mean ± SE);")
    print("    HH_4: Norm-Sub on each level, then the exact BLUE; AHEAD: B = 2")
    head = ("eps", "flat OUE", "+Norm-Sub", "HH4 BLUE", "+Norm-Sub", "AHEAD raw", "+Norm-Sub")
    print("{:>4} {:>17} {:>17} {:>17} {:>17} {:>17} {:>17}".format(*head))
    for eps in (0.5, 1.0, 2.0, 4.0):
        plan = ranges.ldp_tree(d, FANOUT, eps=eps, users=users)
        smoother = ranges.blue_smoother(plan)
        cells: list[list[float]] = [[] for _ in range(6)]
        for _ in range(reps):
            for i, normalise in enumerate((False, True)):
                flat = ranges.simulate_flat("oue", hist, eps, rng=rng, normalise=normalise)
                cells[i].append(_all_range_error(flat, f))
                nodes = ranges.simulate_tree(plan, hist, rng=rng, normalise=normalise)
                leaves = smoother.apply(nodes)[plan.tree.leaf_of_bin]
                cells[2 + i].append(_all_range_error(leaves, f))
                release = ranges.simulate_ahead(hist, eps, rng=rng, normalise=normalise)
                answers = ranges.ahead_answers(release, a, b)
                cells[4 + i].append(float(((answers - truth) ** 2).mean()))
        print(f"{eps:>4}", *(f"{_mean_se(x):>17}" for x in cells))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="one repeat per timing")
    args = parser.parse_args()
    repeats = 1 if args.quick else 3
    closed_forms(repeats)
    simulations(repeats)
    headline()
    fanouts()
    adaptive(3 if args.quick else 10)
    norm_sub_effect(3 if args.quick else 10)


if __name__ == "__main__":
    main()
