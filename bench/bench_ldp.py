"""Benchmark: key-value LDP at 10^6 users, and our frequency oracles against pure-ldp.

Run ``python bench/bench_ldp.py`` (``--users``/``--their-users`` to shrink it).
Part 1 times one collection + estimation of every mechanism on the same data
(target: HISKV <= 2 s at 10^6 users, d = 1000, set lengths up to 50). Part 2 runs
pure-ldp's GRR ("direct encoding") and SUE clients and servers next to ours on the
same one-item-per-user data and checks that the estimates agree within noise
(``pip install -e ".[bench]"`` installs pure-ldp; the tests never need it).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dpcore.ldp import hiskv, mechanisms, metrics, oracles
from dpcore.ldp.data import generate, key_weights


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def mechanism_table(
    users: int, d: int, max_length: int, eps: float, seed: int, repeats: int
) -> None:
    data, gen_s = _timed(
        lambda: generate(
            users, d, keys="gauss", lengths="uniform", max_length=max_length,
            rng=np.random.default_rng(seed),
        )
    )  # fmt: skip
    print(
        f"data: {users:,} users, d = {d}, lengths 1..{max_length} "
        f"({data.keys.size:,} pairs; generated in {gen_s:.1f} s, not timed below)"
    )
    f, m = data.true_frequency(), data.true_mean()
    top = metrics.top_keys(f, 50)
    settings = mechanisms.KVSettings(padding_length=int(np.percentile(data.lengths, 90)))
    print(f"\neps = {eps}; PCKV/SUE padding l = {settings.padding_length}; errors over top-50 keys")
    print(f"seconds: best and median of {repeats} runs (the machine is shared)")
    header = ("mechanism", "best s", "median s", "L", "MSE freq", "MSE mean")
    print("{:<10} {:>8} {:>9} {:>4} {:>10} {:>10}".format(*header))
    for name in mechanisms.MECHANISMS:
        rng = np.random.default_rng(seed + 1)
        times = []
        for _ in range(repeats):
            est, secs = _timed(lambda: mechanisms.run(name, data, eps, settings=settings, rng=rng))  # noqa: B023
            times.append(secs)
        mse_f = "-" if est.frequency is None else f"{metrics.mse(est.frequency, f, top):.2e}"
        mse_m = "-" if est.mean is None else f"{metrics.mse(est.mean, m, top):.2e}"
        length = "-" if est.length is None else str(est.length)
        flag = "  (target <= 2 s)" if name == "HISKV" else ""
        best, median = min(times), float(np.median(times))
        print(f"{name:<10} {best:>8.3f} {median:>9.3f} {length:>4} {mse_f:>10} {mse_m:>10}{flag}")

    rng = np.random.default_rng(seed + 2)
    order, t_split = _timed(lambda: rng.permutation(data.n_users))
    n_oetl = round(0.1 * data.n_users)
    reports, t_oetl = _timed(
        lambda: hiskv.oetl_perturb(data.lengths[order[:n_oetl]], eps, 50, rng=rng)
    )
    (length, _), t_len = _timed(lambda: hiskv.oetl_length(reports, eps, 50))
    pairs, t_perturb = _timed(
        lambda: hiskv.perturb(data, eps, length, rng=rng, users=order[n_oetl:])
    )
    probs = hiskv.pair_probabilities(eps, d, length, amplified=True)
    _, t_est = _timed(lambda: hiskv.estimate(pairs, d, length, probs))
    print(
        f"\nHISKV stages (s): split {t_split:.3f}, OETL clients {t_oetl:.3f}, OETL server "
        f"{t_len:.3f}, LRR_KV clients {t_perturb:.3f}, "
        f"estimation {t_est:.3f}"
    )


def _agreement(ours: np.ndarray, theirs: np.ndarray, variance: np.ndarray) -> float:
    """Largest |difference| in standard errors of a difference of independent estimates."""
    return float(np.max(np.abs(ours - theirs) / np.sqrt(2 * variance)))


def oracle_table(users: int, their_users: int, d: int, eps: float, seed: int) -> None:
    from pure_ldp.frequency_oracles.direct_encoding import DEClient, DEServer
    from pure_ldp.frequency_oracles.unary_encoding import UEClient, UEServer

    rng = np.random.default_rng(seed)
    items = rng.choice(d, size=users, p=key_weights("gauss", d))
    f = np.bincount(items, minlength=d) / users
    theirs_items = items[:their_users]
    f_theirs = np.bincount(theirs_items, minlength=d) / their_users
    random.seed(seed)  # pure-ldp draws from the global random / np.random state
    np.random.seed(seed)  # noqa: NPY002 (the external library's own global generator)
    print(f"\nfrequency oracles, eps = {eps}, d = {d}; ours on {users:,} users, "
          f"pure-ldp on {their_users:,}")  # fmt: skip
    print(f"{'oracle':<34} {'seconds':>8} {'users/s':>12} {'max |z| vs truth':>17}")

    def row(label: str, secs: float, n: int, est: np.ndarray, truth: np.ndarray,
            var: np.ndarray) -> None:  # fmt: skip
        z = float(np.max(np.abs(est - truth) / np.sqrt(var)))
        print(f"{label:<34} {secs:>8.2f} {n / secs:>12,.0f} {z:>17.2f}")

    # GRR
    ours_grr, t = _timed(
        lambda: oracles.grr_estimate(oracles.grr_perturb(items, eps, d, rng=rng), eps, d)
    )
    row("ours GRR (vectorized)", t, users, ours_grr, f, oracles.grr_variance(eps, d, users, f))

    def their_grr() -> np.ndarray:
        client, server = (
            DEClient(eps, d, index_mapper=lambda x: x),
            DEServer(eps, d, index_mapper=lambda x: x),
        )
        for x in theirs_items.tolist():
            server.aggregate(client.privatise(x))
        return np.asarray(server.estimate_all(range(d), suppress_warnings=True)) / their_users

    est_grr, t = _timed(their_grr)
    row("pure-ldp DE (= GRR), per user", t, their_users, est_grr, f_theirs,
        oracles.grr_variance(eps, d, their_users, f_theirs))  # fmt: skip

    # SUE
    ours_sue, t = _timed(
        lambda: oracles.sue_estimate(oracles.sue_counts(items, eps, d, rng=rng), users, eps)
    )
    row(
        "ours SUE (aggregated, exact law)",
        t,
        users,
        ours_sue,
        f,
        oracles.sue_variance(eps, users, f),
    )

    def ours_sue_bits() -> np.ndarray:
        counts = np.zeros(d, dtype=np.int64)
        for start in range(0, users, 20_000):
            chunk = items[start : start + 20_000]
            counts += oracles.sue_perturb_users(chunk, eps, d, rng=rng).sum(axis=0)
        return oracles.sue_estimate(counts, users, eps)

    bits_est, t = _timed(ours_sue_bits)
    row(
        "ours SUE (per-user bits, chunked)",
        t,
        users,
        bits_est,
        f,
        oracles.sue_variance(eps, users, f),
    )

    def their_sue() -> np.ndarray:
        client = UEClient(eps, d, use_oue=False, index_mapper=lambda x: x)
        server = UEServer(eps, d, use_oue=False, index_mapper=lambda x: x)
        for x in theirs_items.tolist():
            server.aggregate(client.privatise(x))
        return np.asarray(server.estimate_all(range(d), suppress_warnings=True)) / their_users

    est_sue, t = _timed(their_sue)
    row("pure-ldp UE (SUE), per user", t, their_users, est_sue, f_theirs,
        oracles.sue_variance(eps, their_users, f_theirs))  # fmt: skip

    if their_users == users:
        grr_z = _agreement(ours_grr, est_grr, oracles.grr_variance(eps, d, users, f))
        sue_z = _agreement(ours_sue, est_sue, oracles.sue_variance(eps, users, f))
        print(
            f"ours vs pure-ldp, max |difference| in SEs over {d} items: GRR {grr_z:.2f}, "
            f"SUE {sue_z:.2f} (about {math.sqrt(2 * math.log(d)):.1f} expected by chance)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--their-users", type=int, default=None, help="default: --users")
    parser.add_argument("--d", type=int, default=1000)
    parser.add_argument("--max-length", type=int, default=50)
    parser.add_argument("--eps", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-library", action="store_true")
    args = parser.parse_args()
    mechanism_table(args.users, args.d, args.max_length, args.eps, args.seed, args.repeats)
    if not args.skip_library:
        their = args.users if args.their_users is None else args.their_users
        oracle_table(args.users, their, args.d, args.eps, args.seed)


if __name__ == "__main__":
    main()
