"""One range's error over many releases: seeded draws and the exact density of the sum of
its nodes' Laplace noises (shared by the range explorer and its figures)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dpcore.hist import laplace_sum

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class ErrorSpread:
    """The range's error over many releases: simulated draws and the exact density."""

    draws: FloatArray
    x: FloatArray
    density: FloatArray
    gaussian_share: float


def error_spread(scales: FloatArray, releases: int, seed: int) -> ErrorSpread:
    """Draws of ``sum_x c_x Lap(1/eps_x)`` for ``releases`` seeded releases (only the nodes
    involved are simulated) and the exact density of that sum (:mod:`dpcore.hist.laplace_sum`)."""
    dist = laplace_sum.laplace_sum(scales)
    x, f = laplace_sum.density(dist, points=2048)
    draws = laplace_sum.sample(dist, releases, np.random.default_rng(seed))
    return ErrorSpread(draws, x, f, dist.gaussian_share)
