"""MWEM on a grid: multiplicative weights over the worst-answered workload rectangles.

Hardt, Ligett, McSherry, "A simple and practical algorithm for differentially private data
release", NIPS 2012, with DPComp's 2-D defaults (``mwemND.py``): ``T = 10`` rounds, half of
the budget for selection and half for measurement, 100 sweeps of the update over every
measurement so far, every round. DPComp starts from ``N / (n1 n2)`` with the true ``N``;
here ``N`` is paid for (``rho = 0.05`` of ``eps``, as UGrid and AGrid,
:func:`dpcore.algorithms.grid2d.flat.noisy_scale`) and the rest is split in halves.

The candidates are the workload's rectangles; for ``"random rectangles"`` and ``"all
rectangles"`` (distributions) :data:`CANDIDATES` of them drawn from ``RandomState(0)``:
DPBench's own 2,000 for random rectangles (the sampler's order), uniform ones for all.
"""

from __future__ import annotations

import numpy as np

from dpcore.algorithms.common import Release
from dpcore.algorithms.grid2d.flat import TOTAL_SHARE, noisy_scale
from dpcore.algorithms.grid2d.inputs import FloatArray, IntArray, rectangle_answers
from dpcore.mechanisms.exponential import sample_categorical
from dpcore.spatial.rectangles import Rectangles, sample_rectangles

ROUNDS = 10
"""DPComp's ``nrounds``."""
UPDATE_PASSES = 100
"""DPComp's ``updateround``."""
CANDIDATES = 2_000
"""Rectangles drawn as candidates when the workload is a distribution."""
_LAZY_STEP = 30.0
"""Largest ``|step|`` applied to the box alone (``e^{30}`` keeps float64 far from overflow)."""


def candidates(workload: Rectangles) -> tuple[IntArray, IntArray]:
    """The rectangles MWEM chooses from (see the module), first and last cells.

    Examples
    --------
    >>> from dpcore.spatial.rectangles import rectangle_workload
    >>> lo, hi = candidates(rectangle_workload("random rectangles", (128, 128)))
    >>> lo.shape, lo[0].tolist(), hi[0].tolist()
    ((2000, 2), [64, 67], [108, 114])
    """
    if workload.kind == "listed":
        return workload.lo, workload.hi
    state = np.random.RandomState(0)
    if workload.kind == "random rectangles":
        return sample_rectangles(workload.shape, CANDIDATES, state)
    lo = np.empty((CANDIDATES, 2), dtype=np.int64)
    hi = np.empty_like(lo)
    for d, n in enumerate(workload.shape):  # an interval uniform among the n (n + 1) / 2
        first, last = np.triu_indices(n)
        pick = state.randint(0, first.size, size=CANDIDATES)
        lo[:, d], hi[:, d] = first[pick], last[pick]
    return lo, hi


def multiplicative_weights_2d(
    estimate: FloatArray,
    lo: IntArray,
    hi: IntArray,
    measured: FloatArray,
    passes: int,
) -> FloatArray:
    """``passes`` sweeps of MWEM's update over the measured rectangles, in order.

    .. math:: \\hat x \\leftarrow \\hat x \\exp\\big(q (m - q(\\hat x)) / (2S)\\big),
              \\quad \\hat x \\leftarrow S \\hat x / \\textstyle\\sum \\hat x

    with ``S`` the estimate's total (kept). The grid is kept as ``c y`` so that the rescaling
    is a change of ``c`` and a step costs the rectangle's area, not the grid's; a step
    larger than :data:`_LAZY_STEP` in magnitude is applied to the whole grid instead,
    multiplying the outside by ``e^{-step}`` when positive (no overflow).

    Parameters
    ----------
    estimate : ndarray of float64, shape (n1, n2)
        Positive entries.
    lo, hi : ndarray of int64, shape (k, 2)
        The measured rectangles.
    measured : ndarray of float64, shape (k,)
        Their noisy answers.
    passes : int
        Sweeps.

    Returns
    -------
    ndarray of float64, shape (n1, n2)
        A new array with the same total (all zeros stay zeros: at a tiny ``eps`` the noisy
        answers can push every weight below the smallest float).
    """
    y = estimate.copy()
    total = float(y.sum())
    if not total > 0:  # every weight underflowed in an earlier round: nothing to reweight
        return y
    boxes = [
        (np.s_[a[0] : b[0] + 1, a[1] : b[1] + 1], float(m))
        for a, b, m in zip(lo, hi, measured, strict=True)
    ]
    # x = c y: rescaling the whole grid is a change of c, so a step costs the box's area
    c, mass = 1.0, total
    for _ in range(passes):
        for box, m in boxes:
            inside = float(y[box].sum())
            step = (m - c * inside) / (2.0 * total)
            if abs(step) > _LAZY_STEP:  # e^{|step|} could overflow the lazy form
                y, c = _full_step(c * y, box, step), 1.0
                mass = float(y.sum())
            else:
                factor = np.exp(step)
                y[box] *= factor
                mass += (factor - 1.0) * inside
            if mass > 0:  # all mass underflowed: the update cannot be represented
                c = total / mass
        y *= c  # once per sweep: back to x itself, the running sum refreshed
        c, mass = 1.0, float(y.sum())
        if mass > 0:
            c = total / mass
    return np.asarray(c * y, dtype=np.float64)


def _full_step(x: FloatArray, box: tuple[slice, slice], step: float) -> FloatArray:
    """One update on the whole grid, rescaled to its total, never overflowing: a positive
    step multiplies the outside by ``e^{-step}`` instead of the box by ``e^{step}``."""
    total = float(x.sum())
    if step > 0:
        inside = x[box].copy()
        x *= np.exp(-step)
        x[box] = inside
    else:
        x[box] *= np.exp(step)
    mass = float(x.sum())
    if mass > 0:
        x *= total / mass
    return x


def select_rectangle(
    scores: FloatArray, chosen: list[int], eps: float, rng: np.random.Generator
) -> int:
    """The exponential mechanism over the rectangles not yet ``chosen``: rectangle ``i`` with
    probability proportional to ``exp(eps scores[i] / 2)`` (scores of sensitivity 1).

    Parameters
    ----------
    scores : ndarray of float64, shape (m,)
        ``|q_i(x) - q_i(x_hat)|``.
    chosen : list of int
        Indices never drawn again.
    eps : float
        This round's selection budget.
    rng : numpy.random.Generator
        The draw.

    Returns
    -------
    int
        The chosen index.
    """
    log_weights = eps / 2.0 * scores
    log_weights[chosen] = -np.inf
    weights = np.exp(log_weights - log_weights.max())
    return int(sample_categorical(weights, size=1, rng=rng)[0])


def mwem_2d(
    grid: FloatArray, eps: float, workload: Rectangles, rng: np.random.Generator
) -> Release:
    """MWEM-2D (see the module): ``T = min(10, m)`` rounds; each picks a rectangle not yet
    picked by the exponential mechanism (score ``|q(x) - q(x_hat)|``, sensitivity 1,
    budget ``e / (2T)``), measures it with ``Lap(2T / e)`` and sweeps the update 100 times.

    Budget: ``"records N"`` ``= rho eps`` (the start ``N~ / (n1 n2)``), ``"selection"`` and
    ``"measurement"`` ``= e / 2`` each, ``e = (1 - rho) eps``.
    """
    eps_n = TOTAL_SHARE * eps
    rest = eps - eps_n
    lo, hi = candidates(workload)
    rounds = min(ROUNDS, lo.shape[0])
    eps_pick = rest / 2.0 / rounds
    eps_measure = rest / 2.0 / rounds
    truth = rectangle_answers(grid, lo, hi)
    x_hat = np.full(grid.shape, noisy_scale(grid, eps_n, rng) / grid.size)
    chosen: list[int] = []
    measured: list[float] = []
    for _ in range(rounds):
        scores = np.abs(truth - rectangle_answers(x_hat, lo, hi))
        pick = select_rectangle(scores, chosen, eps_pick, rng)
        chosen.append(pick)
        measured.append(truth[pick] + rng.laplace(0.0, 1.0 / eps_measure))
        x_hat = multiplicative_weights_2d(
            x_hat, lo[chosen], hi[chosen], np.asarray(measured), UPDATE_PASSES
        )
    return Release(x_hat, {"records N": eps_n, "selection": rest / 2.0, "measurement": rest / 2.0})
