"""What one run of an algorithm costs, estimated before it runs: seconds of one core and
peak bytes, from its name, the bins and the workload.

The constants were measured once (November 2026) on the 2-core development server by
timing :func:`dpcore.algorithms.estimate` (peak memory by ``tracemalloc``) and rounded up:
estimates good to a factor of about two, which is what a limit needs (the dashboard's work
gate, ``dp-sweep``'s estimate before a sweep). Recalibrate them when an algorithm gets
faster.
"""

from __future__ import annotations

RUN_SECONDS_4096: dict[str, float] = {
    "Identity": 1e-3,
    "Uniform": 1e-3,
    "HB": 5e-3,
    "Privelet": 2e-3,
    "HB-opt": 5e-3,
    "GreedyH": 0.03,
    "DAWA": 0.1,
    "MWEM": 0.1,
    "EFPA": 5e-3,
    "PHP": 0.3,
    "AHP": 0.1,
    "SF": 2.0,
    "DPCube": 0.01,
}
"""Seconds of one run at 4,096 bins on the prefix workload: about twice the slowest of
MEDCOST and ADULTFRANK at 10^3 to 10^7 records measured on this 2-core machine (DPCube:
about three times the slowest CPU time of the seven DPBench histograms, 0.003 s); an
algorithm not listed is assumed to take :data:`UNMEASURED_SECONDS`. A run is taken as
linear in the bins."""
WORKLOAD_SECONDS_4096: dict[tuple[str, str], float] = {
    ("GreedyH", "listed"): 1.5,
    ("DAWA", "listed"): 1.5,
    ("MWEM", "all"): 2.0,
}
"""Where a workload changes an algorithm's work: GreedyH sums over the listed ranges at
every node (up to 0.7 s of CPU for 2,000 random ranges at 4,096 bins), MWEM scores all
ranges."""
RUN_EXPONENT = {"SF": 2}
"""How a run grows with the bins where it is not linear: StructureFirst's v-optimal table
is ``O(k n^2)`` in the worst case with ``k = n / 10`` buckets; pruned
(:mod:`dpcore.algorithms.vopt`), it measured 0.01-0.03 s of CPU at 1,024 bins, 0.05-0.55 s
at 4,096 on MEDCOST, ADULTFRANK and MDSALARY at 10^3 to 10^7 records (1.3 s on the bundled
zipf-4096, whose noisy flat tail ties thousands of candidates the bounds cannot separate)
and 0.7-3.8 s at 16,384."""
RUN_BYTES_PER_SQUARED_BIN = {"SF": 0.8}
"""Where a run's memory grows with the square of the bins: StructureFirst's v-optimal table
holds ``k = n / 10`` rows of ``n`` float64 (3.4 GB at 65,536 bins; 3.6 GB of RSS was
measured there)."""
UNMEASURED_SECONDS = 0.3
EVALUATION_SECONDS = 15e-9
"""Per query and run: answering the workload on the truth and the estimate (prefix sums)."""
LISTED = ("random", "random ranges", "listed")
"""Workloads of ranges given one by one (the dashboard's and ``dp-sweep``'s names)."""


def run_seconds(name: str, domain: int, workload: str, queries: int = 0) -> float:
    """Estimated seconds of one run of ``name`` at ``domain`` bins on ``workload``, and of
    answering its ``queries`` ranges on the truth and the estimate.

    Parameters
    ----------
    name : str
        An algorithm (:data:`dpcore.algorithms.NAMES`; another name gets
        :data:`UNMEASURED_SECONDS` at 4,096 bins).
    domain : int
        Bins.
    workload : str
        ``"prefix"``, ``"all"``, or ranges listed one by one (:data:`LISTED`).
    queries : int, default 0
        Ranges of the workload evaluated after the run.

    Returns
    -------
    float
        Seconds of one core.

    Examples
    --------
    >>> run_seconds("SF", 8192, "prefix")  # quadratic in the bins
    8.0
    """
    kind = "listed" if workload in LISTED else workload
    at_4096 = WORKLOAD_SECONDS_4096.get(
        (name, kind), RUN_SECONDS_4096.get(name, UNMEASURED_SECONDS)
    )
    return at_4096 * (domain / 4096) ** RUN_EXPONENT.get(name, 1) + queries * EVALUATION_SECONDS


def run_bytes(name: str, domain: int, queries: int) -> float:
    """Estimated peak bytes of one run of ``name`` at ``domain`` bins evaluated on ``queries``
    ranges: a few arrays of the queries and of the bins, and StructureFirst's table.

    Parameters
    ----------
    name : str
        An algorithm.
    domain : int
        Bins.
    queries : int
        Ranges of the workload.

    Returns
    -------
    float
        Bytes.

    Examples
    --------
    >>> run_bytes("SF", 65536, 0) > 3.4e9
    True
    """
    squared = RUN_BYTES_PER_SQUARED_BIN.get(name, 0.0)
    return (6 * queries + 40 * domain) * 8 + squared * domain**2


RUN_SECONDS_2D_128: dict[str, float] = {
    "Identity": 3e-3,
    "Uniform": 3e-3,
    "HB-2D": 0.01,
    "QuadTree": 0.015,
    "KronPIdentity": 0.01,
    "UGrid": 0.02,
    "AGrid": 0.02,
    "PrivTree": 0.015,
    "Privelet-2D": 5e-3,
    "AHP-2D": 0.1,
    "MWEM-2D": 0.15,
    "DAWA-2D": 0.25,
    "DPCube-2D": 0.05,
}
"""Seconds of one run of a 2-D algorithm (:data:`dpcore.algorithms.NAMES_2D`) at 128 x 128
cells on DPBench's random rectangles, with the scaled error on them: about twice the CPU
time measured on GOWALLA at 10^3 and 10^6 records (November 2026, the 2-core server; 256 x
256 measured about four times as long: linear in the cells). An algorithm not listed is
assumed to take :data:`UNMEASURED_SECONDS`."""
FIXED_SECONDS_2D = {"MWEM-2D": 0.05}
"""Seconds a 2-D run takes whatever its cells: MWEM's rounds (0.03 s measured at 32 x 32)."""
ONCE_SECONDS_2D = {"KronPIdentity": 0.5}
"""Seconds of a 2-D algorithm's first run on a grid shape the process has not seen: HDMM's
strategy optimisation (0.17-0.46 s measured), which later runs on that shape reuse."""


def run_seconds_2d(name: str, cells: int, queries: int = 0) -> float:
    """Estimated seconds of one run of 2-D algorithm ``name`` on a grid of ``cells`` cells, and
    of answering its ``queries`` rectangles on the truth and the estimate.

    Parameters
    ----------
    name : str
        A 2-D algorithm (:data:`dpcore.algorithms.NAMES_2D`; another name gets
        :data:`UNMEASURED_SECONDS` at 128 x 128).
    cells : int
        Cells of the grid.
    queries : int, default 0
        Rectangles evaluated after the run.

    Returns
    -------
    float
        Seconds of one core for the run and the evaluation (:data:`ONCE_SECONDS_2D` not
        included: :func:`once_seconds_2d`).

    Examples
    --------
    >>> round(run_seconds_2d("DAWA-2D", 256 * 256), 3)  # linear in the cells
    1.0
    """
    at_128 = RUN_SECONDS_2D_128.get(name, UNMEASURED_SECONDS)
    fixed = FIXED_SECONDS_2D.get(name, 0.0)
    return fixed + at_128 * cells / 128**2 + queries * EVALUATION_SECONDS


def once_seconds_2d(names: tuple[str, ...]) -> float:
    """Estimated seconds the 2-D algorithms ``names`` spend once per grid shape, whatever the
    number of runs (:data:`ONCE_SECONDS_2D`).

    Examples
    --------
    >>> once_seconds_2d(("Identity", "KronPIdentity"))
    0.5
    """
    return sum(ONCE_SECONDS_2D.get(name, 0.0) for name in names)


BYTES_PER_CELL_2D = {"DAWA-2D": 2_500.0}
"""Peak bytes per cell of a 2-D run where it is above :data:`DEFAULT_BYTES_PER_CELL_2D`:
DAWA-2D's 2,100-2,400 measured (``tracemalloc``, 64 x 64 to 256 x 256 on GOWALLA)."""
DEFAULT_BYTES_PER_CELL_2D = 400.0
"""Peak bytes per cell of the other 2-D runs: at most 390 measured (AGrid at 128 x 128;
PrivTree 234 and AHP-2D 366 at 512 x 512)."""
AHP_2D_BYTES_PER_CELL = 4_000.0
"""AHP-2D's peak bytes per cell up to 128 x 128 cells, and its peak beyond: 16 MB at 64 x 64,
64 MB at 128 x 128, 71 MB at 256 x 256, 96 MB at 512 x 512 measured."""


def run_bytes_2d(name: str, cells: int, queries: int) -> float:
    """Estimated peak bytes of one run of 2-D algorithm ``name`` on ``cells`` cells evaluated
    on ``queries`` rectangles: bytes per cell as measured (:data:`BYTES_PER_CELL_2D`), and a
    dozen numbers per rectangle (corners and answers).

    Parameters
    ----------
    name : str
        A 2-D algorithm.
    cells : int
        Cells of the grid.
    queries : int
        Rectangles of the workload.

    Returns
    -------
    float
        Peak bytes of the run and its evaluation.

    Examples
    --------
    >>> round(run_bytes_2d("DAWA-2D", 128 * 128, 2000) / 1e6, 1)
    41.2
    """
    per_cell = BYTES_PER_CELL_2D.get(name, DEFAULT_BYTES_PER_CELL_2D)
    ahp = AHP_2D_BYTES_PER_CELL * min(cells, 128**2) if name == "AHP-2D" else 0.0
    return max(per_cell * cells, ahp) + 12 * 8 * queries
