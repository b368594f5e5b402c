"""The settings and the body of the parts of What ε means after "Neighbours": each draws its
chart (the view's main figure), what to notice in it, the key numbers and a second chart or
table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import NDArray

from dpcore.meaning import attacks
from dpui.kit import anchors, byte_cache, present, references, styled_once
from dpui.kit.page import View
from dpui.meaning import attacker as atv
from dpui.meaning import composition as cov
from dpui.meaning import figures
from dpui.meaning import reconstruction as rev
from dpui.reference import glossary


def notice(text: str) -> None:
    """A part's own "What to notice" sentence, just under its chart."""
    st.markdown(f"**What to notice here:** {references.resolve(text)}")


def attacker_controls() -> None:
    c1, c2, c3 = st.columns(3)
    c1.slider(
        "Attacker's prior P[Alice is in]",
        atv.PRIOR.lo,
        atv.PRIOR.hi,
        step=0.01,
        key=atv.PRIOR.name,
        help="What the attacker believes before seeing the release.",
    )
    c2.number_input(
        "Simulated releases per world",
        atv.TRIALS.lo,
        atv.TRIALS.hi,
        step=1000,
        key=atv.TRIALS.name,
    )
    c3.number_input("Seed", atv.SEED.lo, atv.SEED.hi, key=atv.SEED.name)


@byte_cache.cache_by_bytes(max_entries=16)
def _posterior_figure(eps: float, prior: float, draws: NDArray[np.float64]) -> go.Figure:
    """The posterior band over every prior, the attacker's ``prior`` and the simulated
    posteriors ``draws``: one figure for every session drawing the same (never changed)."""
    priors = np.linspace(0.001, 0.999, 400)
    lower, upper = attacks.posterior_band(priors, eps)
    return styled_once.shared(figures.posterior(priors, lower, upper, prior=prior, draws=draws))


def attacker_body(view: View) -> None:
    d: atv.Attacker = view.detail
    left, right = present.columns([3, 2])
    present.show_chart(view.figure, view.stamp, key="at_roc", where=left)
    with right:
        st.latex(r"\mathrm{TPR} \le e^{\varepsilon}\,\mathrm{FPR}")
        st.latex(r"1-\mathrm{FPR} \ge e^{\varepsilon}\,(1-\mathrm{TPR})")
        inside = all(
            lo <= bound + 1e-12
            for lo, bound in zip(
                d.attack.tpr_lo, attacks.dp_bound(d.attack.fpr_hi, d.eps), strict=True
            )
        )
        st.markdown(
            references.resolve(
                f"Every test of {glossary.link('membership-inference', 'membership')} from one "
                f"release has its (FPR, TPR) in the shaded region [@kairouz-2015]. "
                f"Laplace noise's optimal test (solid) touches the bound where it says 'in' "
                f"only beyond both counts or below both. The {d.attack.trials:,} simulated "
                f"releases per world give the crosses; "
                + (
                    "every one of them lies under the bound within its 95% interval."
                    if inside
                    else "one lies above the bound beyond its interval: a 1-in-20 chance per point."
                )
            )
        )
    notice(
        f"at ε = {d.eps:g} no attacker catches Alice more than e^ε = {math.exp(d.eps):.3g} "
        f"times as often as it falsely accuses someone absent, whatever its test "
        f"[@kairouz-2015]."
    )
    m = st.columns(4)
    n = view.numbers
    m[0].metric("TPR at FPR 5% (Laplace)", f"{n['TPR at FPR 5% (Laplace, optimal)']:.3g}")
    m[1].metric("TPR at FPR 5% (bound)", f"{n['TPR at FPR 5% (ε-DP bound)']:.3g}")
    m[2].metric(
        "Best accuracy (even odds)",
        f"{n['best accuracy at even odds (bound)']:.3g}",
        help="e^ε/(1+e^ε): the corner of the bound.",
    )
    m[3].metric("Posterior range", f"{d.band[0]:.3g} – {d.band[1]:.3g}")
    anchors.heading("The attacker's posterior", "attacker-posterior")
    left, right = present.columns([3, 2])
    present.show_chart(
        _posterior_figure(d.eps, d.prior, d.posteriors),
        view.stamp,
        key="at_posterior",
        where=left,
    )
    right.latex(
        r"e^{-\varepsilon} \le \frac{\Pr[D \mid o]\,/\,\Pr[D' \mid o]}"
        r"{\Pr[D]\,/\,\Pr[D']} \le e^{\varepsilon}"
    )
    right.markdown(
        f"An attacker who believed Alice in with probability **{d.prior:g}** ends, whatever "
        f"the release, between **{d.band[0]:.3g}** and **{d.band[1]:.3g}**; the box shows "
        f"where {d.posteriors.size:,} simulated attackers ended (all inside: the "
        f"{glossary.link('privacy-loss', 'privacy loss')} of Laplace noise never exceeds ε)."
    )
    st.header("The differencing attack")
    acc = attacks.differencing_accuracy(d.eps)
    rows = pd.DataFrame(
        {
            "release": ["exact counts", f"Laplace noise, ε = {d.eps:g} each"],
            f"bin {d.bin:,}, everyone": [d.count, round(d.noisy[0], 2)],
            "everyone but Alice": [d.count - 1, round(d.noisy[1], 2)],
            "difference": [1.0, round(d.noisy[0] - d.noisy[1], 2)],
            "P[right guess of Alice]": [1.0, round(acc, 4)],
        }
    )
    present.table(rows)
    st.markdown(
        references.resolve(
            f"Two exact counts that differ only in Alice give her away: their "
            f"{glossary.link('differencing-attack', 'difference')} is her. With noise on each "
            f"(2ε = {2 * d.eps:g} spent in all), guessing 'in' when the difference exceeds ½ is "
            f"right with probability {acc:.3g}, below the {attacks.best_accuracy(2 * d.eps):.3g} "
            f"that any 2ε-DP release allows [@dwork-roth-2014]."
        )
    )
    present.prose(references.prose("meaning_attacker.md"))


def composition_controls() -> None:
    c1, c2, c3 = st.columns(3)
    c1.number_input(
        "Answers k",
        cov.K.lo,
        cov.K.hi,
        key=cov.K.name,
        help=f"How many times the count is asked, 1 to {cov.K.hi:,}.",
    )
    c1.number_input("Seed", cov.SEED.lo, cov.SEED.hi, key=cov.SEED.name)
    c2.number_input(
        "δ (Gaussian ledger)",
        cov.DELTA.lo,
        cov.DELTA.hi,
        format="%g",
        key=cov.DELTA.name,
        help="zCDP converts to (ε, δ)-DP only for δ > 0.",
    )
    c3.number_input("Queries sharing ε", cov.QUERIES.lo, cov.QUERIES.hi, key=cov.QUERIES.name)
    c3.radio("Split", tuple(cov.SPLITS), format_func=cov.SPLITS.__getitem__, key=cov.SPLIT.name)


def composition_body(view: View) -> None:
    d: cov.Composition = view.detail
    n = view.numbers
    present.show_chart(view.figure, view.stamp, key="co_chart")
    notice(
        f"the average of {d.k:,} answers is {math.sqrt(d.k):.3g}× closer to the true count "
        f"than one answer, and the ledger charges for it: {d.k:,} × ε = {d.k * d.eps:.4g} by "
        f"basic composition, while Gaussian answers cost only about √k more "
        f"[@bun-steinke-2016]."
    )
    m = st.columns(4)
    m[0].metric("Basic kε", f"{n['basic composition kε']:.4g}")
    m[1].metric(
        "zCDP ε at δ", f"{n['zCDP ε at δ (Gaussian)']:.4g}", help=f"δ = {d.delta:g}, Gaussian noise"
    )
    m[2].metric("Exact Gaussian ε at δ", f"{n['exact ε at δ (Gaussian)']:.4g}")
    m[3].metric("sd of the average", f"{n['error of the average after k (sd)']:.3g}")
    left, right = present.columns([1, 1])
    left.latex(r"\varepsilon_{\text{basic}} = k\,\varepsilon")
    left.latex(r"\rho = \frac{k\,\Delta^2}{2\sigma^2}")
    left.latex(r"\varepsilon = \rho + 2\sqrt{\rho \ln(1/\delta)}")
    right.markdown(
        references.resolve(
            f"Each answer spends ε = {d.eps:g} of the budget: that is "
            f"{glossary.link('composition')} [@dwork-roth-2014]. With Gaussian noise "
            f"(σ = {d.sigma:.4g}, which alone is (ε, δ = {d.delta:g})-DP) the "
            f"{glossary.link('zcdp', 'zCDP')} ρ of the answers adds up and converts to a "
            f"total ε growing like √k; the exact curve treats k answers as one with σ/√k."
        )
    )
    st.header("One budget, several queries")
    rows = pd.DataFrame(
        {
            "query": [f"query {i + 1}" for i in range(d.shares.size)],
            "share of ε": np.round(d.shares, 6),
            "mean |error| Δ/εᵢ": np.round(d.mean_error, 4),
            "sd √2·Δ/εᵢ": np.round(d.sd_error, 4),
        }
    )
    present.table(rows)
    st.markdown(
        f"A total ε = {d.eps:g} split among {d.shares.size} queries of the histogram "
        f"({cov.SPLITS[d.split]}): the shares add up to ε, and each buys an error "
        f"inversely proportional to its share. The [Tree & budgets](tree_budgets) page does "
        f"the same for the nodes of a tree (its "
        f"{glossary.link('budget-allocation', 'budget allocation')})."
    )
    present.prose(references.prose("meaning_composition.md"))


def reconstruction_controls() -> None:
    c1, c2, c3 = st.columns(3)
    c1.number_input(
        "Secret bits n",
        rev.BITS.lo,
        rev.BITS.hi,
        step=64,
        key=rev.BITS.name,
        help=f"{rev.BITS.lo} to {rev.BITS.hi} bits; the attack's work grows like m·n².",
    )
    c2.number_input(
        "Queries per bit (m = this × n)",
        rev.PER_BIT.lo,
        rev.PER_BIT.hi,
        key=rev.PER_BIT.name,
    )
    c2.number_input("Noise levels", rev.GRID.lo, rev.GRID.hi, key=rev.GRID.name)
    c3.number_input("Seed", rev.SEED.lo, rev.SEED.hi, key=rev.SEED.name)


def reconstruction_body(view: View) -> None:
    d: rev.Reconstruction = view.detail
    n = view.numbers
    left, right = present.columns([3, 2])
    present.show_chart(view.figure, view.stamp, key="re_chart", where=left)
    with right:
        st.latex(r"\hat x = \operatorname{round}\big(\arg\min_{y} \lVert A y - a \rVert_2\big)")
        st.latex(r"a = A x + \mathrm{noise},\quad A \in \{0,1\}^{m \times n}")
        st.markdown(
            references.resolve(
                f"The attacker asks {d.m:,} random subset sums of {d.n:,} secret bits and "
                f"solves for the bits by least squares: a "
                f"{glossary.link('reconstruction-attack')} [@dinur-nissim-2003]. Each answer "
                f"that is ε-DP in a total budget ε = {d.eps:g} gets Laplace noise of scale "
                f"m/ε = {d.dp_scale:.4g} ({d.dp_scale / math.sqrt(d.n):.3g} √n)."
            )
        )
    dp_words = (
        "near chance: a budget that means something protects every bit"
        if d.dp_rate < 0.6
        else f"still {d.dp_rate:.0%}: a total ε of {d.eps:g} is no protection against it"
    )
    notice(
        f"every bit comes back while the noise stays well below √n = {math.sqrt(d.n):.3g} "
        f"(all of them up to b = {d.perfect_up_to():.3g} here), and from answers that are "
        f"ε-DP together the attack recovers {d.dp_rate:.0%}: {dp_words} "
        f"[@dinur-nissim-2003]."
    )
    m = st.columns(4)
    m[0].metric("Recovered at b = √n/20", f"{n['bits recovered at noise √n/20']:.1%}")
    m[1].metric("Recovered at b = √n", f"{n['bits recovered at noise √n']:.1%}")
    m[2].metric("ε-DP noise scale m/ε", f"{d.dp_scale:.4g}")
    m[3].metric("Recovered from ε-DP answers", f"{d.dp_rate:.1%}")
    present.prose(references.prose("meaning_reconstruction.md"))
