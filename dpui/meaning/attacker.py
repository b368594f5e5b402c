"""The "Attacker's view" part of What ε means: the optimal membership test's ROC for Laplace
noise against the ε-DP bound, a seeded simulated attack, the posterior band, and the
differencing attack on the sidebar's largest bin."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from dpcore.meaning import attacks
from dpui.kit import limits
from dpui.kit.page import Estimate, Inputs, View
from dpui.kit.params import FloatParam, IntParam
from dpui.kit.sidebar import EPSILON
from dpui.meaning import figures

FloatArray = NDArray[np.float64]

PRIOR = FloatParam("at_prior", 0.5, 0.01, 0.99)
TRIALS = IntParam("at_trials", 2_000, 100, 200_000)
SEED = IntParam("at_seed", 0, 0, 2**31 - 1)
PARAMS = (PRIOR, TRIALS, SEED)
THRESHOLDS = 9
GRID = 401


def page_cost(trials: int) -> limits.Cost:
    """Three sets of ``trials`` Laplace draws (two worlds, the posteriors), about 60 ns each,
    the thresholds counted over them (9 passes), 60 bytes per trial."""
    return limits.Cost(5e-3 + trials * 1.2e-6, trials * 60 / limits.MB)


def cost(inputs: Inputs) -> Estimate:
    trials = int(inputs[TRIALS])
    return Estimate(
        f"a membership attack simulated with {trials:,} releases per world",
        page_cost(trials),
        smaller="simulate fewer releases",
        library="dpcore.meaning.attacks.simulate_attack",
    )


@dataclass(frozen=True)
class Attacker:
    """What the body draws beside the ROC: the posterior band and draws, the differencing
    attack on one bin."""

    eps: float
    prior: float
    attack: attacks.Attack
    posteriors: FloatArray
    band: tuple[float, float]
    count: float
    bin: int
    noisy: tuple[float, float]
    """The two noisy counts (everyone, everyone but Alice) of one seeded release."""


@st.cache_data(max_entries=32, show_spinner=False)
def simulated(
    eps: float, prior: float, trials: int, seed: int
) -> tuple[attacks.Attack, FloatArray, tuple[float, float]]:
    """The seeded attack, posteriors, and one pair of noisy counts (noise only)."""
    rng = np.random.default_rng(seed)
    attack = attacks.simulate_attack(eps, trials, rng, points=THRESHOLDS)
    posteriors = attacks.simulate_posteriors(prior, eps, trials, rng)
    noise = rng.laplace(0.0, 1 / eps, 2)
    return attack, posteriors, (float(noise[0]), float(noise[1]))


def key_numbers(eps: float, prior: float) -> dict[str, float]:
    lo, hi = attacks.posterior_band([prior], eps)
    return {
        "ε": eps,
        "TPR at FPR 5% (Laplace, optimal)": float(attacks.laplace_roc([0.05], eps)[0]),
        "TPR at FPR 5% (ε-DP bound)": float(attacks.dp_bound([0.05], eps)[0]),
        "best accuracy at even odds (bound)": attacks.best_accuracy(eps),
        "posterior, lowest": float(lo[0]),
        "posterior, highest": float(hi[0]),
        "differencing accuracy (2 noisy counts)": attacks.differencing_accuracy(eps),
    }


def view(inputs: Inputs) -> View:
    """The ROC of the optimal test against the bound, with the simulated attack over it."""
    eps = float(inputs[EPSILON])
    prior, trials, seed = float(inputs[PRIOR]), int(inputs[TRIALS]), int(inputs[SEED])
    attack, posteriors, noise = simulated(eps, prior, trials, seed)
    fpr = np.concatenate([np.linspace(0.0, 1.0, GRID), [0.5 * math.exp(-eps), 0.5]])
    fpr.sort()
    figure = figures.roc(
        fpr, attacks.laplace_roc(fpr, eps), attacks.dp_bound(fpr, eps), attack, eps=eps
    )
    hist = inputs.hist
    chosen = int(np.argmax(hist.counts)) + 1
    count = float(hist.counts[chosen - 1])
    lo, hi = attacks.posterior_band([prior], eps)
    detail = Attacker(
        eps,
        prior,
        attack,
        posteriors,
        (float(lo[0]), float(hi[0])),
        count,
        chosen,
        (count + noise[0], count - 1 + noise[1]),
    )
    stamp = {"part": "attacker", "ε": eps, "prior": prior, "trials": trials, "seed": seed}
    described = f"Membership test on one Laplace release · ε = {eps:g}"
    return View(
        described,
        figure,
        stamp,
        key_numbers(eps, prior),
        detail=detail,
        share="xy",
        kind="attacker",
    )
