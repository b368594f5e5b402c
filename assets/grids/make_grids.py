"""Writes the bundled 2-D example histograms in this folder (deterministic; rerun to check).

Each is a small coarsening (sums of k x k blocks of cells) of one of DPBench's real
256 x 256 histograms (Hay et al., SIGMOD 2016; DPComp's ``datafiles/2D``), read in place
from ``../shared/data/2d/`` (see its README for provenance); the full grids are not copied:

* ``stroke-32x32``    -- International Stroke Trial, age x systolic blood pressure
  (19,435 patients), 8 x 8 blocks, written as a grid (rows of counts);
* ``md-salary-64x64`` -- Maryland state employees 2012, annual salary x overtime (70,526
  people), 4 x 4 blocks, written in long form ``x,y,count`` (non-zero cells only);
* ``sf-taxi-64x64``   -- start points of San Francisco taxi traces (CRAWDAD epfl/mobility,
  464,040 trips), 4 x 4 blocks, long form;
* ``gowalla-128x128`` -- Gowalla check-ins (DPBench's GOWALLA), 2 x 2 blocks, long form: the
  one example at DPBench's 128 x 128 scale.

Usage, from the repository's root: ``PYTHONPATH=. python assets/grids/make_grids.py``
(writes ``<name>.csv`` beside it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np

from dpcore.spatial.grid_data import grid_csv

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[2] / "shared" / "data" / "2d"

GRIDS: dict[str, tuple[str, int, Literal["grid", "long"]]] = {
    "stroke-32x32": ("STROKE", 8, "grid"),
    "md-salary-64x64": ("MD-SAL-2D", 4, "long"),
    "sf-taxi-64x64": ("SF-CABS-S", 4, "long"),
    "gowalla-128x128": ("GOWALLA", 2, "long"),
}


def coarsened(source: str, block: int) -> np.ndarray:
    """The 256 x 256 grid ``source`` summed over ``block`` x ``block`` blocks."""
    full = np.loadtxt(SOURCE / f"{source}.n256x256.csv", delimiter=",")
    side = full.shape[0] // block
    return full.reshape(side, block, side, block).sum(axis=(1, 3))


def main() -> None:
    for name, (source, block, layout) in GRIDS.items():
        counts = coarsened(source, block)
        (HERE / f"{name}.csv").write_bytes(grid_csv(counts, layout=layout))


if __name__ == "__main__":
    main()
