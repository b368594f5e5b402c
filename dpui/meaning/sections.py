"""The settings and the body of the parts of What ε means after "Neighbours": each draws its
chart (the view's main figure), what to notice in it, the key numbers and a second chart or
table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.meaning import attacks
from dpui.kit import present, references
from dpui.kit.page import View
from dpui.meaning import attacker as atv
from dpui.meaning import figures
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
    st.subheader("The attacker's posterior")
    left, right = present.columns([3, 2])
    priors = np.linspace(0.001, 0.999, 400)
    lower, upper = attacks.posterior_band(priors, d.eps)
    present.show_chart(
        figures.posterior(priors, lower, upper, prior=d.prior, draws=d.posteriors),
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
    st.subheader("The differencing attack")
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
