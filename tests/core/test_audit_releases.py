"""Every histogram release of dpcore audited on neighbouring histograms, and a broken variant
of each kind caught (issue 41, item 4).

Every audit runs at 95 % confidence (``CONFIDENCE``) with a fixed seed. For a
mechanism that is ε-DP under the stated relation the bound exceeds ε with probability at
most 5 % over seeds (the auditor's validity, tested over 100 seeds in
test_audit_lower_bound.py); "caught" means the bound exceeds the claim, a violation proved
at 95 %. Neighbours differ by one record in one bin (MWEM: one record moved, see below);
the output audited is the released count of that bin
(:func:`dpcore.audit.gallery.releases.algorithm`), post-processing of the release, so a
bound on it bounds the release.

A pass says only that no violation was found at this many samples. How much a pass means is
the bound the same audit reaches: ``FLOOR`` asserts it where seeds 0-3 all reach above 0
(a sampler that lost the changed record would fall below), and the comments give the bound
the same audit reaches with the noise halved (the algorithm run at 2ε, true ε at most 2)
at seed 0, i.e. the violation it would need to see. Data-dependent algorithms run once per
output and are audited weakly at the sample sizes the one-minute budget of the audit tests
allows: their output shows only the budget spent on the changed bin's count (DAWA 0.75 ε,
AHP 0.15 ε, MWEM 0.5 ε, ...), and the partition's share is not seen by this score.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from dpcore.algorithms import NAMES, NAMES_2D, release
from dpcore.algorithms.acs import efpa
from dpcore.algorithms.common import as_workload
from dpcore.audit import lower_bound
from dpcore.audit.gallery import Entry
from dpcore.audit.gallery.releases import algorithm, efpa_phase_kept, region_tree

SPIKE_1D = np.array([0.0, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0, 0.0])
FLAT_1D = np.full(8, 10.0)
MOVE_1D = np.array([5.0, 5, 5, 100, 5, 5, 5, 5])
TREE_1D = np.zeros(32)  # 32 bins: HB's and HB-opt's trees have two measured levels
TREE_1D[5] = 10.0
SPIKE_2D = np.zeros((4, 4))
SPIKE_2D[1, 2] = 100.0
FLAT_2D = np.full((4, 4), 60.0)
FLAT_2D[1, 2] = 100.0

# name -> (runs per neighbour, algorithm() keywords, FLOOR), FLOOR below the bound on seeds
# 0-3. Comment: seed 0's bound; the same audit's at 2ε (4ε where 2ε shows little), the size
# of violation it would catch; "batched": sampled in one batch, cheap (releases.py).
ONE_D: dict[str, tuple[int, dict[str, object], float]] = {
    "Identity": (10_000, {}, 0.6),  # 0.99 (0.90-0.96 on 1-3); 1.91
    "Uniform": (10_000, {}, 0.6),  # 0.89 (0.92-0.93); 1.87
    "HB": (50_000, {"counts": TREE_1D}, 0.4),  # 0.56; 1.12 (batched)
    "HB-opt": (50_000, {"counts": TREE_1D}, 0.3),  # 0.48 (0.40-0.45 on 1-3); 0.97 (batched)
    "Privelet": (10_000, {}, 0.2),  # 0.35 (0.29-0.35); 0.81
    "GreedyH": (50_000, {"counts": SPIKE_1D}, 0.45),  # 0.59 (0.60 on 1, 2); 1.22 (batched)
    "DAWA": (500, {"counts": SPIKE_1D}, 0.0),  # 0.29 (0.38, 0.52, 0.00 on 1-3); 0.98
    # MWEM takes the total as public: one record moved from bin 4 to bin 3, its one listed
    # query [3, 3] measured with half the budget (0.5 ε visible at most): 0.00; 0.46, 1.23 at 4ε
    "MWEM": (400, {"counts": MOVE_1D, "moved_from": 4, "workload": [(3, 3)]}, 0.0),
    # dpcore's EFPA is the corrected one (acs.py: orthonormal transform, noise for the kept
    # coefficients' L1 sensitivity), so it is audited as ε-DP; DPComp's is not ε-DP
    "EFPA": (3_000, {"counts": FLAT_1D}, 0.15),  # 0.26 (0.29 on 1-3); 0.55
    "PHP": (1_000, {"counts": FLAT_1D}, 0.15),  # 0.29 (0.25-0.35); 0.73
    "AHP": (3_000, {"counts": FLAT_1D}, 0.0),  # 0.00; 0.20, 0.44 at 4ε (0.15 ε visible)
    "SF": (1_000, {"counts": SPIKE_1D}, 0.0),  # 0.00; 0.32, 0.84 at 4ε
    "DPCube": (3_000, {"counts": SPIKE_1D}, 0.25),  # 0.44 (0.48-0.53); 1.06
}
TWO_D: dict[str, tuple[int, dict[str, object], float]] = {
    "Identity": (10_000, {"counts": SPIKE_2D}, 0.6),  # 0.94; 1.84
    "Uniform": (10_000, {"counts": SPIKE_2D}, 0.6),  # 0.89; 1.87
    "HB-2D": (50_000, {"counts": SPIKE_2D}, 0.6),  # 0.96; 1.93 (batched; flat at 4 x 4)
    "QuadTree": (50_000, {"counts": SPIKE_2D}, 0.3),  # 0.46 (0.42-0.44); 0.97 (batched)
    "KronPIdentity": (2_000, {"counts": SPIKE_2D}, 0.5),  # 0.83 (0.73-0.84); 1.85
    "UGrid": (1_500, {"counts": SPIKE_2D}, 0.4),  # 0.61 (0.63-0.76); 1.53
    "AGrid": (500, {"counts": SPIKE_2D}, 0.0),  # 0.00; 1.07
    "PrivTree": (500, {"counts": SPIKE_2D}, 0.0),  # 0.35 (0.00, 0.00, 0.21); 0.78
    "Privelet-2D": (3_000, {"counts": SPIKE_2D}, 0.0),  # 0.01; 0.31, 1.08 at 4ε
    "AHP-2D": (2_000, {"counts": SPIKE_2D}, 0.0),  # 0.00; 0.00, 0.49 at 4ε
    "MWEM-2D": (400, {"counts": FLAT_2D, "workload": [(1, 2, 1, 2)]}, 0.0),  # 0.00; 0.49
    "DAWA-2D": (500, {"counts": SPIKE_2D}, 0.15),  # 0.59 (0.24-0.29); 0.96
    "DPCube-2D": (500, {"counts": SPIKE_2D}, 0.0),  # 0.23 (0.00-0.22); 0.64
}


CONFIDENCE = 0.95


def audit(entry: Entry, samples: int, seed: int = 0) -> float:
    result = lower_bound(
        entry.sample_d, entry.sample_d_prime, samples=samples, confidence=CONFIDENCE,
        rng=np.random.default_rng(seed),
    )  # fmt: skip
    return result.epsilon


def test_every_algorithm_of_both_registries_is_audited():
    assert set(ONE_D) == set(NAMES)
    assert set(TWO_D) == set(NAMES_2D)


@pytest.mark.parametrize("name", NAMES)
def test_1d_algorithm_shows_no_violation(name):
    """Bound <= ε = 1 at 95 %, and at least FLOOR. Weak where seed 0 finds about 0 (MWEM,
    AHP, SF): only a violation of about 4 times the claim would show at these runs."""
    samples, keywords, floor = ONE_D[name]
    entry = algorithm(name, 1.0, **keywords)
    assert floor <= audit(entry, samples) <= entry.claimed_epsilon


@pytest.mark.parametrize("name", NAMES_2D)
def test_2d_algorithm_shows_no_violation(name):
    """Bound <= ε = 1 at 95 %, and at least FLOOR. Weak where seed 0 finds about 0: AGrid
    (2ε shows), MWEM-2D, DPCube-2D (2ε shows half of ε), Privelet-2D and AHP-2D (4ε
    needed)."""
    samples, keywords, floor = TWO_D[name]
    entry = algorithm(name, 1.0, **keywords)
    assert floor <= audit(entry, samples) <= entry.claimed_epsilon


@pytest.mark.parametrize(
    ("name", "counts", "cell"),
    [("HB", TREE_1D, (5,)), ("HB-opt", TREE_1D, (5,)), ("GreedyH", SPIKE_1D, (3,)),
     ("HB-2D", SPIKE_2D, (1, 2)), ("QuadTree", SPIKE_2D, (1, 2)), ("DAWA", SPIKE_1D, (3,)),
     ("DAWA-2D", SPIKE_2D, (1, 2))],
)  # fmt: skip
def test_the_samplers_draw_the_algorithms_own_runs(name, counts, cell):
    """On seed 3 the sampler's five outputs equal five runs of
    :func:`dpcore.algorithms.release` on seed 3, one after another: for the tree releases
    the batch (tiled node sums, one Laplace draw, BLUE's transpose), for the others the
    registry's algorithm on inputs checked once."""
    entry = algorithm(name, 1.0, counts=counts)
    rng = np.random.default_rng(3)
    workload = "all rectangles" if counts.ndim == 2 else "prefix"
    runs = [release(name, counts, 1.0, workload=workload, rng=rng).estimate[cell]
            for _ in range(5)]  # fmt: skip
    np.testing.assert_allclose(entry.sample_d_prime(5, np.random.default_rng(3)), runs)


def test_the_region_tree_release_shows_no_violation():
    """4 x 4 grid, quadtree of 3 levels, ε/3 per level: 0.35 at 50,000 runs per side."""
    entry = region_tree(1.0)
    assert entry.true_epsilon == pytest.approx(1.0)
    assert 0.25 <= audit(entry, 50_000) <= 1.0


# A broken variant of each kind, caught: the bound exceeds the claimed ε = 1.


def test_per_bin_noise_with_half_the_scale_is_caught():
    """Identity at 2ε: true ε 2; the same audit reaches 0.90-0.99 of ε = 1 (ONE_D), and a
    Laplace audit scales with ε (spec 08 §7: about 0.93 of it at 7,000 held-out runs), so
    about 1.85 is expected (1.91 at seed 0)."""
    assert audit(algorithm("Identity", 1.0, stated_sensitivity=0.5), 10_000) > 1.0


def test_a_tree_whose_level_budget_ignores_the_levels_is_caught():
    """Every level of the 3-level quadtree at ε: true ε 3. The changed cell's consistent
    count is a linear function of the Laplace measurements, so a third of the noise scale
    triples the separation the audit sees: about 3 x 0.35 (the correct tree's bound at these
    runs) = 1.05 expected, 1.16-1.20 on seeds 0-2."""
    entry = region_tree(1.0, levels_ignored=True)
    assert entry.true_epsilon == pytest.approx(3.0) and entry.buggy
    assert audit(entry, 50_000) > 1.0


def test_a_wavelet_release_with_its_sensitivity_misstated_is_caught():
    """Privelet's generalised sensitivity is 1 + log2 n = 4 at 8 bins; stated as 1 the noise
    is a quarter (true ε 4). The same audit reaches 0.29-0.35 at ε (ONE_D, 10,000 runs) and
    scales with the noise, so about 4 x 0.3 = 1.2 is expected: 1.46 at 3,000 runs, seed 0."""
    misstated = algorithm("Privelet", 1.0, stated_sensitivity=1 / (1 + math.log2(8)))
    assert audit(misstated, 3_000) > 1.0


def test_a_partition_algorithm_with_half_the_noise_is_caught():
    """UGrid (grid size chosen from a noisy total, 0.95 ε on the tiles) run at 2ε: its
    one-cell tile's count is a Laplace count at 1.9 ε, audited to about 0.8 of it at 1,500
    runs (0.61-0.76 at ε, TWO_D): 1.53 at seed 0."""
    entry = algorithm("UGrid", 1.0, counts=SPIKE_2D, stated_sensitivity=0.5)
    assert audit(entry, 1_500) > 1.0


def test_mwem_under_add_remove_neighbours_is_caught():
    """MWEM takes the total as public (DPComp's default): under add/remove neighbours the
    released total is N + 1 against N (to 3e-14), an event of probability 1 against 0 (true
    ε infinite): every held-out run falls on its side of the cut, and 140 held-out runs per
    side bound ε at 3.6, the most they can show at 95 %."""
    entry = algorithm("MWEM", 1.0, counts=MOVE_1D, workload=[(3, 3)], read="total")
    assert audit(entry, 200) > 1.0


def test_efpa_as_dpcomp_runs_it_is_caught_and_dpcore_s_is_not():
    """DPComp's EFPA keeps each coefficient's phase: coefficient 1's phase (mod π) is one
    number on D and another on D', so every held-out run is separated (3.6 expected at 200
    runs, the most 140 held-out runs show at 95 %). dpcore's EFPA, audited on the same
    neighbours with the same score, shows no violation (0.0 on seeds 0 and 1: it keeps
    coefficient 1 there, with noise on its real and imaginary parts)."""
    bug = efpa_phase_kept(1.0)
    assert bug.buggy and bug.true_epsilon == math.inf

    def ours(histogram: np.ndarray):
        load = as_workload("prefix", histogram.size)
        return lambda size, rng: np.array(
            [efpa(histogram, 1.0, load, rng).estimate for _ in range(size)]
        )

    caught = lower_bound(bug.sample_d, bug.sample_d_prime, samples=200, score=bug.score,
                         rng=np.random.default_rng(0))  # fmt: skip
    assert caught.epsilon > 3.0
    plus = np.array([100.0, 1, 0, 0, 0, 0, 0, 50])  # efpa_phase_kept's D: a record in bin 1
    fixed = lower_bound(ours(plus), ours(plus - np.eye(8)[1]), samples=1_000, score=bug.score,
                        rng=np.random.default_rng(0))  # fmt: skip
    assert fixed.epsilon <= 1.0


@pytest.mark.parametrize(
    ("keywords", "message"),
    [({"name": "DAWA", "counts": SPIKE_2D}, "unknown algorithm 'DAWA' for this histogram"),
     ({"name": "Nope"}, "unknown algorithm 'Nope'"),
     ({"name": "Identity", "changed": 8}, "changed must be a bin of the (8,) histogram"),
     ({"name": "Identity", "changed": 3, "moved_from": 0}, "moved_from must be another bin"),
     ({"name": "Identity", "moved_from": 3}, "moved_from must be another bin"),
     ({"name": "Identity", "read": "max"}, "read must be 'count' or 'total'"),
     ({"name": "Identity", "stated_sensitivity": 0}, "stated_sensitivity"),
     ({"name": "Identity", "counts": [1.0, -1.0]}, "counts"),
     ({"name": "Identity", "counts": np.ones((2, 2, 2))}, "a histogram or a grid")],
)  # fmt: skip
def test_bad_settings_are_refused_naming_them(keywords, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        algorithm(**keywords)
