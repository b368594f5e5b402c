"""The Key-value LDP page's sections below the accuracy charts, one shown at a time."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from dpcore.ldp import hiskv, metrics
from dpcore.ldp.mechanisms import UNAVAILABLE
from dpui.kit import present
from dpui.ldp import figures as ldp_figures
from dpui.ldp import hiskv as hiskv_view
from dpui.ldp import simulation as sim
from dpui.ldp.settings import AMPLIFIED, BETA, RE_EPS, ROUNDS, SHARE
from dpui.ldp.view import KV


def relative_error(kv: KV) -> None:
    st.header("Relative error vs top-t")
    acc = kv.acc
    if not acc.names or acc.summary is None:
        st.info("Tick at least one mechanism above.")
        return
    chosen = kv.values[RE_EPS.name]
    if float(chosen) not in acc.grid:
        st.info(f"ε = {chosen} is not in the grid; showing ε = {acc.re_eps:g}.")
    left, right = present.columns([1, 1])
    for where, metric in ((left, "re_freq"), (right, "re_mean")):
        fig = ldp_figures.error_vs_t(acc.summary, metric, acc.re_eps)
        present.show_chart(fig, kv.stamp() | {"ε": acc.re_eps}, key=f"kv_{metric}", where=where)


def oetl_length(kv: KV) -> int:
    """HISKV's truncation length L, estimated privately by OETL (seeded)."""
    return sim.oetl_estimate(kv.spec, kv.eps, kv.values[BETA.name], kv.acc.seed)[0]


def value_share_sweep(kv: KV, length: int) -> pd.DataFrame:
    """The value-share sweep at truncation length ``length`` (simulated, seeded)."""
    acc = kv.acc
    amplified = kv.values[AMPLIFIED.name]
    return sim.share_sweep(kv.spec, kv.eps, length, acc.t, acc.reps, amplified, acc.seed)


def truncation(kv: KV) -> None:
    st.header("Truncation length (HISKV's OETL)")
    spec, data, eps, t, beta = kv.spec, kv.data, kv.eps, kv.acc.t, kv.values[BETA.name]
    length, estimated = sim.oetl_estimate(spec, eps, beta, kv.acc.seed)
    marked = kv.stamp() | {"ε": eps, "β": beta}
    left, right = present.columns([1, 1])
    present.show_chart(
        ldp_figures.length_distribution(data.lengths, estimated, length),
        marked,
        key="kv_len",
        where=left,
    )
    table = sim.truncation_table(
        spec, eps, t, kv.values[SHARE.name], kv.values[AMPLIFIED.name], beta
    )
    present.show_chart(
        ldp_figures.truncation_tradeoff(table, length), marked, key="kv_trunc", where=right
    )
    st.latex(
        r"E\,\hat f_k = \frac1n\sum_{i:\,k\in S_i}\min\Bigl(1,\frac{L}{l_i}\Bigr),\qquad"
        r"\mathrm{Var}\,\hat f_k = \frac{L^2\,\overline{\pi(1-\pi)}}{n'(a-b)^2},\ "
        r"\pi_i = b + (a-b)\frac{w_i}{L}"
    )
    top = metrics.top_keys(data.true_frequency(), t)
    present.show_chart(
        ldp_figures.truncation_bias(
            data.true_frequency(), hiskv.truncated_frequency(data, length), top.tolist(), length
        ),
        marked,
        key="kv_bias",
    )
    st.caption(
        f"OETL: {beta:.0%} of users report their length by GRR over 1..50 at ε = "
        f"{eps:g}; L is the smallest length whose estimated cumulative share reaches 90%. "
        "Users with more than L pairs are under-counted (bias); a longer L dilutes every report "
        "(variance). Both curves are exact for these data."
    )


def value_key_split(kv: KV) -> None:
    st.header("Value / key budget split (HISKV)")
    length = oetl_length(kv)
    sweep = value_share_sweep(kv, length)
    share = kv.values[SHARE.name]
    left, right = present.columns([3, 2])
    present.show_chart(
        ldp_figures.share_tradeoff(sweep, share),
        kv.stamp() | {"ε": kv.eps, "β": kv.values[BETA.name]},
        key="kv_share_chart",
        where=left,
    )
    right.latex(r"Z = e^{\varepsilon^*} + e^{\varepsilon^*-\varepsilon_v} + D - 2")
    right.latex(
        r"p_1 = \frac{e^{\varepsilon^*}}{Z},\quad q_1 = \frac{e^{\varepsilon^*-\varepsilon_v}}{Z},"
        r"\quad q_2 = \frac1Z"
    )
    present.table(sim.probability_table(kv.eps, kv.data.d, length, share), where=right)
    right.caption(
        f"At L = {length} (fixed, all users report). p1/q2 = e^ε* bounds every likelihood "
        "ratio, whatever the split; ε_v = ε* is plain GRR over the D pairs (PCKV-GRR's setting)."
    )


def privacy_check(kv: KV) -> None:
    st.header("Privacy check (exact)")
    values = kv.values
    privacy = sim.privacy_table(
        kv.eps, values[SHARE.name], values[AMPLIFIED.name], values[ROUNDS.name]
    )
    present.table(privacy, height="content")  # every mechanism, no inner scroll
    st.caption(
        f"Every input set over d = {sim.CHECK_D} keys (values ±1, sets up to L + 1 pairs so "
        f"truncation is included) and every output is enumerated at L = l = {sim.CHECK_L}; "
        "the output laws come from each mechanism's own probabilities composed with a "
        "brute-force enumeration of its sampling step. A claim holds when the worst ln-ratio "
        "does not exceed ε. Values in [-1, 1] need no separate check: the laws are affine in "
        "each value. HISKV and HISKV-OETL are reconstructions (see the notice at the top). "
        + " ".join(f"{name}: {why}" for name, why in UNAVAILABLE.items())
    )


def why_hiskv_does_not_win(kv: KV) -> None:
    length = oetl_length(kv)
    hiskv_view.render(
        kv.spec,
        value_share_sweep(kv, length),
        eps=kv.eps,
        length=length,
        t=kv.acc.t,
        share=kv.values[SHARE.name],
        amplified=kv.values[AMPLIFIED.name],
        beta=kv.values[BETA.name],
        reps=kv.acc.reps,
        seed=kv.acc.seed,
    )


SHOW: dict[str, Callable[[KV], None]] = {
    "privacy": privacy_check,
    "re": relative_error,
    "truncation": truncation,
    "split": value_key_split,
    "hiskv": why_hiskv_does_not_win,
}
