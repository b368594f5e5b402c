"""The Key-value LDP page's section "Why the reconstructed HISKV does not win".

Analysis of a reconstruction (:mod:`dpcore.ldp.hiskv_analysis`): the value-share
frontier with PCKV-GRR as its endpoint, "HISKV as printed" with a tilt slider and its
true epsilon, and the cost of OETL's private length against PCKV's non-private one.
Everything here is cheap: exact frequency errors, a few seeded runs for the means
(at most :data:`MAX_RUNS`), enumeration on a 3-key domain for the privacy check.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dpcore.ldp import hiskv
from dpcore.ldp import hiskv_analysis as analysis
from dpui.kit import present, references, state
from dpui.kit.params import FloatParam
from dpui.ldp import hiskv_figures
from dpui.ldp.settings import DataSpec, load_data

TILT = FloatParam("kv_tilt", 2.0, 1.0, 50.0)
PARAMS = (TILT,)
MAX_RUNS = 5
CHECK_D, CHECK_L = 3, 2


@st.cache_data(max_entries=32, show_spinner="Comparing at equal privacy…")
def printed_table(
    spec: DataSpec, eps_star: float, length: int, tilt: float, t: int, runs: int
) -> pd.DataFrame:
    """Printed HISKV at the claimed per-report budget vs GRR over pairs at claimed and true."""
    data = load_data(spec)
    printed = analysis.printed_probabilities(eps_star, data.d, length, tilt)
    true_eps = analysis.report_epsilon(printed)
    rows = {
        f"HISKV as printed, tilt {tilt:g}": (eps_star, true_eps, printed),
        "PCKV-GRR's channel at the claimed ε*": (eps_star, eps_star, None),
        "PCKV-GRR's channel at the true ε* (equal privacy)": (true_eps, true_eps, None),
    }
    out = []
    for name, (claimed, true, probs) in rows.items():
        probs = probs or analysis.grr_pairs(true, data.d, length)
        acc = analysis.accuracy(data, probs, length, t, runs=runs, seed=0)
        out.append(
            {
                "mechanism": name,
                "claimed ε* per report": claimed,
                "true ε* per report": true,
                "q1 / q2": probs.q1 / probs.q2,
                "MSE of frequencies (exact)": acc.mse_freq,
                "MSE of means (simulated)": acc.mse_mean,
            }
        )
    return pd.DataFrame(out)


@st.cache_data(max_entries=32, show_spinner="Estimating L privately…")
def length_table(
    spec: DataSpec,
    eps: float,
    beta: float,
    t: int,
    share: float,
    amplified: bool,
    runs: int,
    seed: int,
) -> tuple[pd.DataFrame, str]:
    cost = analysis.length_cost(
        load_data(spec), eps, beta, t, value_share=share, amplified=amplified, runs=runs, seed=seed
    )
    table = pd.DataFrame(
        {
            "length step": [
                "PCKV: 90th percentile of true lengths (not private), all users report",
                f"OETL: private estimate by {beta:.0%} of users, {1 - beta:.0%} report",
            ],
            "L": [str(cost.pckv_length), ", ".join(str(v) for v in cost.oetl_lengths)],
            "bias² (truncation)": [cost.pckv[0], cost.oetl[0]],
            "variance": [cost.pckv[1], cost.oetl[1]],
            "frequency MSE": [sum(cost.pckv), sum(cost.oetl)],
        }
    )
    same = bool(np.all(cost.oetl_lengths == cost.pckv_length))
    verdict = "the same L" if same else "a different L in some runs"
    return table, verdict


def render(
    spec: DataSpec,
    sweep: pd.DataFrame,
    *,
    eps: float,
    length: int,
    t: int,
    share: float,
    amplified: bool,
    beta: float,
    reps: int,
    seed: int,
) -> None:
    """The whole section; ``sweep`` is the page's value-share sweep at ``length``."""
    data = load_data(spec)
    state.load(PARAMS)
    st.header("Why the reconstructed HISKV does not win (analysis of a reconstruction)")
    st.markdown(references.prose("kv_hiskv.md"))
    left, right = st.columns([3, 2])
    present.show_chart(
        hiskv_figures.share_frontier(sweep, share), {}, key="kv_hiskv_frontier", where=left
    )
    right.markdown(
        f"At ε = {eps:g} and L = {length} (all users report). Moving along the curve from "
        "small shares to share 1 trades frequency accuracy for mean accuracy; share 1 "
        "(the star) is PCKV-GRR's channel, so no share beats PCKV-GRR on both at once."
    )

    st.subheader("HISKV as printed")
    st.slider(
        "Tilt q1/q2 (1 = plain randomized response over the pairs)",
        TILT.lo,
        TILT.hi,
        step=0.1,
        key=TILT.name,
        help="How much more likely the true key with the flipped value is than any other pair.",
    )
    tilt = float(state.get(TILT))
    state.save(PARAMS)
    eps_star = hiskv.amplified_epsilon(eps, length) if amplified else eps
    report, whole = analysis.printed_check(eps, tilt, CHECK_D, CHECK_L)
    c1, c2 = st.columns(2)
    c1.metric(
        f"True ε of one report claimed {eps:g}-LDP (exact check, d = {CHECK_D}, L = {CHECK_L})",
        f"{report:.4g}",
        delta=f"{report - eps:+.3g} over the claimed {eps:g}"
        if report > eps * (1 + 1e-9)
        else None,
        delta_color="inverse",
    )
    c2.metric("Whole set, sampling included (same check)", f"{whole:.4g}")
    st.latex(
        r"p_1 = \frac{e^{\varepsilon}}{e^{\varepsilon} + D - 1},\quad q_1 = t\,q_2,\quad "
        r"q_2 = \frac{1 - p_1}{t + D - 2} \;\Rightarrow\; "
        r"\varepsilon_{true} = \max\Big(\varepsilon + \ln\frac{t + D - 2}{D - 1},\ "
        r"\ln t\Big)"
    )
    runs = max(1, min(reps, MAX_RUNS))
    table = printed_table(spec, eps_star, length, tilt, t, runs)
    st.dataframe(table, hide_index=True)
    printed = analysis.printed_probabilities(eps_star, data.d, length, tilt)
    st.caption(
        f"On the page's data: d = {data.d}, L = {length}, D = {2 * (data.d + length)} pairs; "
        f"per-report budget ε* = {eps_star:.4g} from ε = {eps:g} "
        f"({'with' if amplified else 'without'} the padding-and-sampling gain). Frequencies: "
        f"exact MSE over the top {t} keys; means: {runs} seeded runs. "
        + (
            "At its true ε* the printed mechanism is the valid split with ε_v = ε*_true − ln t, "
            "a point of the frontier above: any gain over PCKV-GRR at equal privacy is "
            "frequency accuracy bought with mean accuracy."
            if printed.p1 >= printed.q1
            else "This tilt makes q1 > p1: the flipped pair is reported more often than the "
            "true one, and the true ε* is ln t."
        )
    )

    st.subheader("The price of a private length")
    table, verdict = length_table(spec, eps, beta, t, share, amplified, runs, seed)
    st.dataframe(table, hide_index=True)
    st.caption(
        f"OETL at ε = {eps:g} with β = {beta:.0%} (the β control above), {runs} seeded draws: "
        f"{verdict} as PCKV. Both rows use HISKV's channel at share {share:g}, so only the "
        "length step differs; bias² and variance are exact, averaged over the top "
        f"{t} keys (and over OETL's draws of L)."
    )
