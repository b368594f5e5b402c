"""Writes the bundled example histograms in this folder (deterministic; rerun to check).

Each shape is synthetic and licence-clean, chosen to show something about
hierarchical releases:

* ``teaching-16``  -- 16 bins of small counts, readable node by node in the tree chart;
* ``bimodal-1024`` -- two Gaussian bumps (means 300 and 700, sd 60 and 90 bins) of
  20,000 and 30,000 people: smooth data, where long ranges dominate;
* ``zipf-4096``    -- counts proportional to 1/rank^1.1 (total ~200,000), sorted:
  a heavy head and a long tail of near-zero bins, like NetTrace;
* ``spiky-65536``  -- 65,536 bins, mostly zero with 300 random spikes: the size at which
  the page must stay interactive.

Usage: ``python assets/examples/make_examples.py`` (writes ``<name>.csv`` beside it).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def teaching(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, 10, size=16)


def bimodal(rng: np.random.Generator) -> np.ndarray:
    people = np.concatenate([rng.normal(300, 60, 20_000), rng.normal(700, 90, 30_000)])
    counts, _ = np.histogram(np.clip(people, 0, 1023), bins=1024, range=(0, 1024))
    return counts


def zipf(rng: np.random.Generator) -> np.ndarray:
    rank = np.arange(1, 4097)
    expected = 200_000 * rank**-1.1 / np.sum(rank**-1.1)
    return rng.poisson(expected)


def spiky(rng: np.random.Generator) -> np.ndarray:
    counts = np.zeros(65_536, dtype=np.int64)
    where = rng.choice(counts.size, size=300, replace=False)
    counts[where] = rng.integers(1, 500, size=300)
    return counts


SHAPES = {
    "teaching-16": teaching,
    "bimodal-1024": bimodal,
    "zipf-4096": zipf,
    "spiky-65536": spiky,
}


def generate(name: str) -> np.ndarray:
    """The counts of example ``name``; each example has its own fixed seed."""
    seed = list(SHAPES).index(name) + 2026
    return SHAPES[name](np.random.default_rng(seed)).astype(np.int64)


def main() -> None:
    here = Path(__file__).parent
    for name in SHAPES:
        counts = generate(name)
        (here / f"{name}.csv").write_text("count\n" + "\n".join(map(str, counts)) + "\n")


if __name__ == "__main__":
    main()
