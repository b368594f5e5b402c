"""Benchmark: exponential-mechanism sampling, ours vs numpy baselines, in one run.

Target (issue 4): 10^6 draws over 10^4 candidates in <= 0.5 s, probabilities
included. Baselines: ``rng.choice(p=...)`` once per draw (the obvious loop; timed
on fewer draws and extrapolated, as marked), the Gumbel-max trick (also timed on
fewer draws), and numpy's vectorized ``rng.choice(size=..., p=...)``. Each row
also reports the total-variation distance between the empirical and exact
distributions, so a fast but wrong sampler would show.

Ours uses the same inverse-CDF algorithm as numpy's vectorized choice (from the
same seed the two give identical draws); its contribution is not speed but taking
log-space probabilities and never drawing a zero-probability candidate.

Run from the repository root: ``python -m bench.bench_mechanisms`` (or install the package
with ``pip install -e .`` and run the file).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from dpcore.mechanisms import exponential_probabilities, sample_exponential

CANDIDATES = 10_000
DRAWS = 1_000_000
TARGET_SECONDS = 0.5
REPEATS = 5
EPS, SENSITIVITY = 1e-3, 1.0

Sampler = Callable[[NDArray[np.float64], int, np.random.Generator], NDArray[np.intp]]


def ours(scores: NDArray[np.float64], size: int, rng: np.random.Generator) -> NDArray[np.intp]:
    return sample_exponential(scores, EPS, SENSITIVITY, size=size, rng=rng)


def numpy_choice(
    scores: NDArray[np.float64], size: int, rng: np.random.Generator
) -> NDArray[np.intp]:
    p = exponential_probabilities(scores, EPS, SENSITIVITY)
    return rng.choice(scores.size, size=size, p=p)


def choice_per_draw(
    scores: NDArray[np.float64], size: int, rng: np.random.Generator
) -> NDArray[np.intp]:
    p = exponential_probabilities(scores, EPS, SENSITIVITY)
    return np.array([rng.choice(scores.size, p=p) for _ in range(size)], dtype=np.intp)


def gumbel_max(
    scores: NDArray[np.float64], size: int, rng: np.random.Generator
) -> NDArray[np.intp]:
    log_weights = EPS * scores / (2 * SENSITIVITY)
    out = np.empty(size, dtype=np.intp)
    for start in range(0, size, 100):
        stop = min(start + 100, size)
        noise = rng.gumbel(size=(stop - start, scores.size))
        out[start:stop] = np.argmax(log_weights + noise, axis=1)
    return out


def reference_tv(p: NDArray[np.float64], size: int) -> float:
    """TV distance of a correct sampler from sampling noise alone: numpy multinomial counts."""
    rng = np.random.default_rng(99)
    tvs = [0.5 * float(np.abs(rng.multinomial(size, p) / size - p).sum()) for _ in range(5)]
    return float(np.mean(tvs))


def measure(sampler: Sampler, scores: NDArray[np.float64], size: int) -> tuple[float, float]:
    """Median seconds over ``REPEATS`` runs, and the TV distance of the last sample."""
    times = []
    for repeat in range(REPEATS if size >= 100_000 else 1):
        rng = np.random.default_rng(repeat)
        start = time.perf_counter()
        draws = sampler(scores, size, rng)
        times.append(time.perf_counter() - start)
    exact = exponential_probabilities(scores, EPS, SENSITIVITY)
    empirical = np.bincount(draws, minlength=scores.size) / size
    return float(np.median(times)), 0.5 * float(np.abs(empirical - exact).sum())


def main() -> None:
    scores = np.random.default_rng(2024).integers(0, 10_000, CANDIDATES).astype(np.float64)
    rows = [
        ("ours: inverse CDF + searchsorted", ours, DRAWS),
        ("numpy rng.choice(size, p)", numpy_choice, DRAWS),
        ("rng.choice(p) per draw", choice_per_draw, 2_000),
        ("Gumbel-max (argmax of noisy scores)", gumbel_max, 2_000),
    ]
    print(f"{CANDIDATES:,} candidates, ε = {EPS:g}, Δu = {SENSITIVITY:g}; time for {DRAWS:,} draws")
    exact = exponential_probabilities(scores, EPS, SENSITIVITY)
    print(f"{'sampler':38} {'timed draws':>11} {'seconds for 1e6':>16}", end=" ")
    print(f"{'TV':>7} {'TV if correct':>14}")
    results = {}
    for name, sampler, size in rows:
        seconds, tv = measure(sampler, scores, size)
        scaled = seconds * DRAWS / size
        results[name] = scaled
        note = "" if size == DRAWS else " (extrapolated)"
        print(
            f"{name:38} {size:>11,} {scaled:>16.3f} {tv:>7.4f} {reference_tv(exact, size):>14.4f}"
            f"{note}"
        )
    ours_seconds = results[rows[0][0]]
    verdict = "meets" if ours_seconds <= TARGET_SECONDS else "MISSES"
    print(f"\nours {verdict} the target: {ours_seconds:.3f} s <= {TARGET_SECONDS} s")
    print("TV: distance between the empirical and exact distributions. 'TV if correct': the same")
    print("for multinomial counts with the exact probabilities (sampling noise alone).")


if __name__ == "__main__":
    main()
