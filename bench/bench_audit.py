"""Benchmark: the privacy auditor (dpcore.audit), against baselines measured in the same run.

Prints five tables:
1. Laplace at eps = 1: lower bound and seconds per runs per side (target >= 0.9 at 95 % in
   <= 2 s), against a naive audit whose event ``y >= 0.5`` is fixed in advance and counted on
   all runs (valid too, but it cannot look for a better event);
2. every buggy gallery mechanism: bound against claim and true eps, seconds (target <= 10 s
   each), and "HISKV as printed" above its claim;
3. the half-noise variants of this product's mechanisms, caught or not;
4. throughput of a whole audit in outputs per second (target >= 10^6 with vectorised
   samplers), against the same audit fed by a per-sample Python loop;
5. validity: 100 seeded audits of randomized response and of Laplace at eps = 1, how many
   exceed the true eps (a valid 95 % bound: at most about 5), against the point estimate.

Usage: ``python bench/bench_audit.py [--quick]`` (``--quick``: smaller sizes, 20 audits).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import stats

from dpcore.audit import bounds, gallery, lower_bound
from dpcore.audit.gallery import Entry


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def _audit(entry: Entry, samples: int, seed: int = 0) -> Any:
    return lower_bound(
        entry.sample_d, entry.sample_d_prime, samples=samples, delta=entry.claimed_delta,
        score=entry.score, rng=np.random.default_rng(seed),
    )  # fmt: skip


def _naive(entry: Entry, samples: int, seed: int = 0) -> float:
    """Event ``y >= 0.5`` fixed in advance, all runs counted, Clopper–Pearson at 95 %."""
    rng = np.random.default_rng(seed)
    k = int(np.count_nonzero(entry.sample_d(samples, rng) >= 0.5))
    k_prime = int(np.count_nonzero(entry.sample_d_prime(samples, rng) >= 0.5))
    return max(0.0, float(bounds.epsilon_lower_bound(k, samples, k_prime, samples, alpha=0.05)))


def laplace_table(sizes: list[int]) -> None:
    print("1. Laplace at eps = 1 (count 1 against 0), 95 % confidence; seconds: best of 3")
    print(f"{'runs/side':>10} {'auditor LB':>11} {'s':>7} {'naive LB':>9} {'s':>7}  target")
    entry = gallery.laplace(1.0)
    for n in sizes:
        runs = [_timed(lambda: _audit(entry, n)) for _ in range(3)]  # noqa: B023
        naive = [_timed(lambda: _naive(entry, n)) for _ in range(3)]  # noqa: B023
        result, secs = runs[0][0], min(s for _, s in runs)
        verdict = "ok" if result.epsilon >= 0.9 and secs <= 2.0 else "-"
        print(
            f"{n:>10,} {result.epsilon:>11.3f} {secs:>7.3f} {naive[0][0]:>9.3f} "
            f"{min(s for _, s in naive):>7.3f}  {verdict}"
        )
    print(f"   auditor's event at {sizes[-1]:,}: {_audit(entry, sizes[-1]).event}")


def buggy_table(entries: list[Entry], samples: dict[str, int], default: int) -> None:
    print("\n2. Buggy mechanisms: bound at 95 % against claim (caught = bound > claim)")
    print(f"{'mechanism':<50} {'claim':>6} {'true':>7} {'runs/side':>10} {'LB':>7} {'s':>6}")
    for entry in entries:
        n = samples.get(entry.name, default)
        result, secs = _timed(lambda: _audit(entry, n))  # noqa: B023
        true = "?" if entry.true_epsilon is None else f"{entry.true_epsilon:.4g}"
        caught = "caught" if result.epsilon > entry.claimed_epsilon else "MISSED"
        flag = caught + ("" if secs <= 10 else " SLOW")
        print(
            f"{entry.name:<50} {entry.claimed_epsilon:>6.3g} {true:>7} {n:>10,} "
            f"{result.epsilon:>7.3f} {secs:>6.2f} {flag}"
        )


def broken_table(samples: int) -> None:
    print(f"\n3. This product's mechanisms with noise for half the sensitivity ({samples:,} runs)")
    print(f"{'mechanism':<24} {'claim':>6} {'true':>6} {'LB':>7} {'s':>6}")
    for make in (
        gallery.laplace, gallery.geometric, gallery.gaussian, gallery.exponential,
        gallery.report_noisy_max, gallery.tree_release, gallery.grr, gallery.sue,
        gallery.hiskv_entry, gallery.pckv_grr, gallery.pckv_ue, gallery.kvue_entry,
        gallery.kvoh_entry, gallery.privkv_entry, gallery.harmony_entry,
    ):  # fmt: skip
        entry = make(stated_sensitivity=0.5)
        result, secs = _timed(lambda: _audit(entry, samples))  # noqa: B023
        caught = "caught" if result.epsilon > entry.claimed_epsilon else "MISSED"
        true = float("nan") if entry.true_epsilon is None else entry.true_epsilon
        print(
            f"{entry.name:<24} {entry.claimed_epsilon:>6.3g} {true:>6.3f} "
            f"{result.epsilon:>7.3f} {secs:>6.2f} {caught}"
        )


def _looped(sample: Callable[[int, np.random.Generator], Any]) -> Any:
    """The same sampler called once per output: the per-sample Python loop."""

    def loop(size: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate([np.asarray(sample(1, rng)) for _ in range(size)])

    return loop


def throughput_table(samples: int, loop_samples: int) -> None:
    print("\n4. Throughput of a whole audit (both sides' outputs / wall seconds), best of 3")
    print(f"{'mechanism':<22} {'runs/side':>10} {'outputs/s':>12} {'loop runs':>10} "
          f"{'loop out/s':>11} {'speed-up':>9}")  # fmt: skip
    for entry in (gallery.laplace(), gallery.grr(), gallery.histogram(), gallery.svt4()):
        secs = min(_timed(lambda: _audit(entry, samples))[1] for _ in range(3))  # noqa: B023
        looped = Entry(**{
            **entry.__dict__,
            "sample_d": _looped(entry.sample_d),
            "sample_d_prime": _looped(entry.sample_d_prime),
        })  # fmt: skip
        loop_secs = _timed(lambda: _audit(looped, loop_samples))[1]  # noqa: B023
        rate, loop_rate = 2 * samples / secs, 2 * loop_samples / loop_secs
        print(
            f"{entry.name:<22} {samples:>10,} {rate:>12,.0f} {loop_samples:>10,} "
            f"{loop_rate:>11,.0f} {rate / loop_rate:>8.0f}x"
        )


def validity_table(audits: int, samples: int) -> None:
    print(f"\n5. Validity: {audits} seeded audits at 95 %, {samples:,} runs per side each")
    print(f"{'mechanism':<22} {'true eps':>9} {'LB > true':>10} {'binom p':>8} "
          f"{'estimate > true':>16} {'mean LB':>8} {'s/audit':>8}")  # fmt: skip
    for entry in (gallery.randomized_response(0.75), gallery.laplace(1.0)):
        true = float(entry.true_epsilon or math.nan)
        results, secs = _timed(lambda: [_audit(entry, samples, s) for s in range(audits)])  # noqa: B023
        exceed = sum(r.epsilon > true for r in results)
        naive = sum(r.point_estimate > true for r in results)
        p = stats.binomtest(exceed, audits, 0.05, alternative="greater").pvalue
        mean = float(np.mean([r.epsilon for r in results]))
        print(
            f"{entry.name:<22} {true:>9.4f} {exceed:>10} {p:>8.3f} {naive:>16} "
            f"{mean:>8.3f} {secs / audits:>8.3f}"
        )
    print("   binom p: P[Binomial(audits, 0.05) >= exceedances]; below 0.01 would show the bound")
    print(
        "   invalid. The point estimate, never a bound, exceeds the true eps about half the time."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, 20 audits")
    quick = parser.parse_args().quick
    sizes = [3_000, 10_000, 30_000, 100_000]
    laplace_table(sizes if quick else [*sizes, 300_000, 1_000_000])
    buggy = [e for e in gallery.catalogue() if e.buggy]
    catch = {"Truncated geometric, ε0 = 0.1": 1_000_000, "HISKV as printed": 200_000}
    buggy_table(buggy, catch, 100_000)
    broken_table(50_000)
    throughput_table(300_000 if quick else 1_000_000, 5_000 if quick else 20_000)
    validity_table(20 if quick else 100, 20_000)


if __name__ == "__main__":
    main()
