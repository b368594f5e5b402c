"""Held-out check of issue 39: each 2-D algorithm's mean scaled L1 error beside DPComp's
implementation of it, on the same sampled inputs and rectangles.

DPComp (``dpcomp_core``, Hay et al.'s code behind DPBench) is not a dependency: pass a
checkout of it (e.g. ``git archive`` of github.com/dpcomp-org/dpcomp_core) with
``--dpcomp``, in an environment that has its ``future`` package, with its DAWA and AHP
extensions built (``setup.sh`` in ``algorithm/dawa`` and ``algorithm/ahp``; with Python 3.11
they build with ``cython<3`` and ``swig<4.3``). PrivTree and KronPIdentity have no DPComp
counterpart. Inputs: ``scale`` records sampled from the grid at 128², DPBench's 2,000
random rectangles (``RandomState(0)``, which is DPComp's ``RandomRange(None, (128, 128),
2000, seed=0)``), eps = 0.1, 5 trials; each trial's input is given to both; the noise
seeds differ (numpy's Generator here, DPComp's RandomState there).

    python bench/check_dpcomp_2d.py --dpcomp /tmp/dpcomp [--scales 10000 1000000]

DPComp's UGrid, AGrid and MWEM take the number of records as public (``N = x.sum()``);
ours pay 5% of eps for a noisy one. ``--public-n`` runs ours with the exact ``N`` and none
of eps spent on it, so that two runs measure what that share costs.

DPComp's DAWA-2D writes its estimate into an ``int32`` array (truncating toward 0); ours
keeps floats. ``--dawa-float`` scores DPComp's DAWA-2D on its estimate before that write-back
(the same run: its Hilbert order, workload matrix and seeds, so truncating it gives exactly
the engine's output), and adds ours truncated the same way: like beside like, both ways.
``--dawa-partition`` instead feeds our L1 partition (:func:`dpcore.algorithms.dawa.best_partition`
of :func:`~dpcore.algorithms.dawa.noisy_costs`) DPComp's own noise stream (its C++ draws
``u`` from MT19937 as numpy's ``RandomState.random_sample`` does, ``Lap = sgn(r) log(1 - 2|r|)``
with ``r = 0.5 - u``, every window length in turn) and counts the trials whose partition
is DPComp's, bucket for bucket.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import types
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dpcore.algorithms import dawa, release
from dpcore.algorithms.dpbench_2d import random_rectangles, sample_grid, scaled_errors
from dpcore.algorithms.grid2d import flat, mwem2d

DATA = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "2d"
DATASETS = ("ADULT-2D", "BJ-CABS-E", "GOWALLA", "STROKE")
DOMAIN = (128, 128)
EPS = 0.1
TRIALS = 5
# ours -> (DPComp module, engine class, its arguments)
PAIRS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "Identity": ("identity", "identity_engine", {}),
    "Uniform": ("uniform", "uniform_noisy_engine", {}),
    "HB-2D": ("HB2D", "HB2D_engine", {}),
    "QuadTree": ("QuadTree", "QuadTree_engine", {}),
    "UGrid": ("UG", "UG_engine", {}),
    "AGrid": ("AG", "AG_engine", {}),
    "Privelet-2D": ("privelet2D", "privelet2D_engine", {}),
    "MWEM-2D": ("mwemND", "mwemND_engine", {}),
    "DPCube-2D": ("DPcube", "DPcube_engine", {}),
    "AHP-2D": ("ahp", "ahpND_engine", {}),
    "DAWA-2D": ("dawa", "dawa2D_engine", {}),
}


def dpcomp_engines(root: Path) -> tuple[dict[str, Any], Any]:
    """DPComp's engines, imported without its package ``__init__`` (which loads the
    compiled modules), and its ``RandomRange``."""
    sys.path.insert(0, str(root))
    package = types.ModuleType("dpcomp_core.algorithm")
    package.__path__ = [str(root / "dpcomp_core" / "algorithm")]
    sys.modules["dpcomp_core.algorithm"] = package
    query = importlib.import_module("dpcomp_core.query_nd_union").ndRangeUnion
    slices = query.slice  # a list of slices, which numpy >= 1.23 no longer takes as an index
    query.slice = staticmethod(lambda r: tuple(slices(r)))
    engines = {}
    for ours, (module, name, kwargs) in PAIRS.items():  # every one, to fail early
        engine = getattr(importlib.import_module(f"dpcomp_core.algorithm.{module}"), name)
        engines[ours] = engine(**kwargs)
    workload = importlib.import_module("dpcomp_core.workload")
    return engines, workload.RandomRange(None, DOMAIN, 2000, seed=0)


def dawa_float(engine: Any, workload: Any, x: NDArray[Any], seed: int) -> NDArray[Any]:
    """DPComp's DAWA-2D estimate before its ``int32`` write-back: ``dawa2D_engine.Run``'s
    steps 1-4 with the 1-D routine's float output written into a float grid."""
    module = sys.modules[type(engine).__module__]
    d = 1 << (max(x.shape) - 1).bit_length()
    padded = np.zeros((d, d), dtype="int32")
    padded[: x.shape[0], : x.shape[1]] = x
    xs, ys = module.hilbert(d)
    rows = np.array([q.asArray([d, d])[xs, ys] for q in workload.query_list], dtype=np.float64)
    flat = super(type(engine), engine).Run(rows, padded[xs, ys], EPS, seed)
    out = np.zeros((d, d))
    out[xs, ys] = flat
    return out[: x.shape[0], : x.shape[1]]


def same_partition(x: NDArray[Any], seed: int) -> bool:
    """Whether our L1 partition of ``x`` (Hilbert order, ``0.25 eps``) with DPComp's noise
    stream for ``seed`` is the one DPComp's ``L1partition_approx`` returns."""
    l1 = importlib.import_module("dpcomp_core.algorithm.dawa.partition_engines.l1partition")
    xs, ys = importlib.import_module("dpcomp_core.algorithm.dawa").hilbert(x.shape[0])
    flat = x.astype("int32")[xs, ys]
    theirs = [lb for lb, _ in l1.L1partition_approx(flat, EPS, dawa.RHO, gethist=True, seed=seed)]
    n = flat.size
    lengths = 1 << np.arange(int(np.log2(n)) + 1)
    draws = np.random.RandomState(np.random.RandomState(seed).randint(500000))
    noise = np.zeros((lengths.size, n))
    for j, length in enumerate(lengths):
        r = 0.5 - draws.random_sample(n - length + 1)
        noise[j, length - 1 :] = np.sign(r) * np.log(1.0 - 2.0 * np.abs(r))
    eps1 = dawa.RHO * EPS
    ours, _ = dawa.best_partition(dawa.noisy_costs(flat.astype(float), eps1, EPS - eps1, noise))
    return bool(ours.tolist() == theirs)


def public_n() -> None:
    """Ours as DPComp runs UGrid, AGrid and MWEM: the exact number of records, free."""
    for module in (flat, mwem2d):
        module.TOTAL_SHARE = 0.0  # type: ignore[attr-defined]
        module.noisy_scale = lambda grid, eps, rng: max(1.0, float(grid.sum()))  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpcomp", type=Path, required=True, help="a dpcomp_core checkout")
    parser.add_argument("--scales", type=int, nargs="+", default=[10_000, 1_000_000])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--algorithms", nargs="+", default=list(PAIRS), choices=list(PAIRS))
    parser.add_argument("--public-n", action="store_true", help="ours with N given, free")
    parser.add_argument("--trials", type=int, default=TRIALS)
    parser.add_argument(
        "--dawa-float", action="store_true", help="DAWA-2D: DPComp's estimate before int32"
    )
    parser.add_argument(
        "--dawa-partition", action="store_true", help="DAWA: our partition, DPComp's noise"
    )
    args = parser.parse_args()
    if args.dawa_partition:
        dpcomp_engines(args.dpcomp)  # imports DPComp's modules
        for scale in args.scales:
            for dataset in args.datasets:
                grid = np.loadtxt(DATA / f"{dataset}.n256x256.csv", delimiter=",")
                same = 0
                for trial in range(args.trials):
                    seed = zlib.crc32(f"dpcomp/{dataset}/{scale}/{trial}".encode())
                    x = sample_grid(grid, scale, DOMAIN, np.random.default_rng(seed))
                    same += same_partition(x, seed % 2**31)
                print(f"{dataset:11}{scale:>12,}  DPComp's partition: {same} of {args.trials}")
        return
    if args.public_n:
        public_n()
    engines, theirs_workload = dpcomp_engines(args.dpcomp)
    ours_workload = random_rectangles(DOMAIN)
    names = args.algorithms
    rows = [*names, "DAWA-2D int"] if args.dawa_float and "DAWA-2D" in names else names
    for scale in args.scales:
        print(f"\n128², eps {EPS}, scale {scale:,}: mean scaled L1 error x 1e3 over {args.trials}")
        print(f"{'dataset':11}{'algorithm':13}{'ours':>10}{'DPComp':>10}{'ratio':>8}{'s ours':>8}"
              f"{'s DPComp':>9}")  # fmt: skip
        for dataset in args.datasets:
            grid = np.loadtxt(DATA / f"{dataset}.n256x256.csv", delimiter=",")
            errors: dict[str, tuple[list[float], ...]] = {n: ([], [], [], []) for n in rows}
            for trial in range(args.trials):
                seed = zlib.crc32(f"dpcomp/{dataset}/{scale}/{trial}".encode())
                x = sample_grid(grid, scale, DOMAIN, np.random.default_rng(seed))
                for name in names:
                    start = time.perf_counter()
                    run = release(
                        name, x, EPS, workload=ours_workload, rng=np.random.default_rng([seed, 1])
                    )
                    errors[name][2].append(time.perf_counter() - start)
                    errors[name][0].append(scaled_errors(x, run.estimate, ours_workload)[0])
                    start = time.perf_counter()
                    if name == "DAWA-2D" and "DAWA-2D int" in rows:
                        guess = dawa_float(engines[name], theirs_workload, x, seed % 2**31)
                        truncated = errors["DAWA-2D int"]
                        for column, grid_out in enumerate((run.estimate, guess)):
                            score = scaled_errors(x, np.trunc(grid_out), ours_workload)[0]
                            truncated[column].append(score)
                        truncated[2].append(errors[name][2][-1])
                        truncated[3].append(time.perf_counter() - start)
                    else:
                        estimate = engines[name].Run(theirs_workload, x.copy(), EPS, seed % 2**31)
                        guess = np.asarray(estimate, dtype=np.float64).reshape(DOMAIN)
                    errors[name][3].append(time.perf_counter() - start)
                    errors[name][1].append(scaled_errors(x, guess, ours_workload)[0])
            for name in rows:
                ours, theirs, t_ours, t_theirs = (float(np.mean(v)) for v in errors[name])
                print(
                    f"{dataset:11}{name:13}{ours * 1e3:>10.4f}{theirs * 1e3:>10.4f}"
                    f"{ours / theirs:>8.2f}{t_ours:>8.3f}{t_theirs:>9.3f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
