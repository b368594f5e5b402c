"""The Key-value LDP page, declared: settings, the accuracy charts (streamed while they are
simulated), the offer of a full run, one section below them, and the prose."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpcore.ldp import metrics
from dpcore.ldp.mechanisms import MAX_EPS, MECHANISMS, UNAVAILABLE
from dpui.kit import downloads, limits, pin, present, references, session_memory, sidebar, state
from dpui.kit.page import Page, View
from dpui.ldp import figures as ldp_figures
from dpui.ldp import settings as kv
from dpui.ldp import simulation as sim
from dpui.ldp import view as kv_view
from dpui.ldp.sections import SHOW
from dpui.ldp.view import KV

DRAFT_EVERY_S = 1.0  # a redraw costs the browser ~0.2 s: not after every quick mechanism


def controls() -> None:
    """The data and simulation settings (and the uploader, with why a file was refused)."""
    st.markdown("**Data**")
    c = [*st.columns([2.2, 1.6, 1]), *st.columns(3)]
    c[0].selectbox(
        "Source",
        kv.SOURCES,
        key=kv.SOURCE.name,
        format_func=lambda s: kv.SYNTHETIC.get(s, "upload a user,key,value CSV"),
    )
    synthetic = state.get(kv.SOURCE) != kv.UPLOAD
    c[1].selectbox(
        "Set lengths",
        tuple(kv.LENGTHS),
        key=kv.LENGTH_MODEL.name,
        format_func=kv.LENGTHS.__getitem__,
        disabled=not synthetic,
    )
    c[2].number_input(
        "Users n",
        kv.USERS.lo,
        kv.USERS.hi,
        step=10_000,
        key=kv.USERS.name,
        disabled=not synthetic,
        help="Generated once (then cached), in time and memory about proportional to the "
        "(user, key) pairs; this server's work limit caps it.",
    )
    c[3].number_input("Keys d", kv.KEYS.lo, kv.KEYS.hi, key=kv.KEYS.name, disabled=not synthetic)
    c[4].number_input(
        "Max set length", kv.MAX_LENGTH.lo, kv.MAX_LENGTH.hi, key=kv.MAX_LENGTH.name,
        disabled=not synthetic,
    )  # fmt: skip
    c[5].number_input(
        "Data seed", kv.DATA_SEED.lo, kv.DATA_SEED.hi, key=kv.DATA_SEED.name,
        disabled=not synthetic,
    )  # fmt: skip
    if not synthetic:
        st.file_uploader(
            "user,key,value CSV (values in [-1, 1], one pair per user and key)",
            key=session_memory.uploader_key(kv.UPLOAD_WIDGET),
            on_change=kv.on_upload,
        )
    if error := st.session_state.get(kv.UPLOAD_ERROR):
        st.error(f"Upload rejected, previous data kept. {error}")
    simulation_controls()


def simulation_controls() -> None:
    st.markdown("**Simulation**")
    g = [*st.columns([2, 1, 1]), *st.columns(3)]
    g[0].selectbox(
        "ε grid",
        tuple(kv.EPS_GRIDS),
        key=kv.GRID.name,
        format_func=lambda g: f"{g}: " + ", ".join(f"{e:g}" for e in kv.EPS_GRIDS[g]),
    )
    g[1].number_input("Repetitions", kv.REPS.lo, kv.REPS.hi, key=kv.REPS.name)
    g[2].number_input("Top-t keys for MSE", kv.TOP_T.lo, kv.TOP_T.hi, key=kv.TOP_T.name)
    g[3].selectbox("ε for RE vs top-t", kv.EPS_CHOICES, key=kv.RE_EPS.name)
    g[4].number_input("Simulation seed", kv.SEED.lo, kv.SEED.hi, key=kv.SEED.name)
    boxes = st.columns(5)
    for i, (name, flag) in enumerate(kv.MECHANISM_FLAGS.items()):
        boxes[i % 5].checkbox(name, key=flag.name, help=MECHANISMS[name].note)
    h = [*st.columns(3), *st.columns(3)]
    h[0].slider(
        "HISKV value share ε_v/ε*",
        kv.SHARE.lo,
        kv.SHARE.hi,
        step=0.05,
        key=kv.SHARE.name,
        help="Budget of the value inside LRR_KV. Smaller: the true key with a flipped value "
        "gets more probability (better frequencies, worse means).",
    )
    h[1].toggle(
        "Padding-amplified accounting",
        wrap=True,
        key=kv.AMPLIFIED.name,
        help="On: ε* = ln(L(e^ε − 1) + 1) per report, ε for the whole set (checked below). "
        "Off: every report is ε-LDP on its own.",
    )
    h[2].number_input("HISKV OETL share β", kv.BETA.lo, kv.BETA.hi, step=0.05, key=kv.BETA.name)
    h[3].number_input(
        "PCKV / SUE padding l (0 = auto)", kv.PCKV_L.lo, kv.PCKV_L.hi, key=kv.PCKV_L.name,
        help="0: the 90th percentile of the TRUE lengths, tuned on raw data (not private), "
        "as in PCKV's experiments.",
    )  # fmt: skip
    h[4].number_input("PrivKVM rounds c", kv.ROUNDS.lo, kv.ROUNDS.hi, key=kv.ROUNDS.name)


def extra() -> Mapping[str, Any]:
    """This session's uploaded CSV, its "Run it" requests (kept by
    :func:`dpui.kit.limits.allow_or_offer`), and the values set now (view B's)."""
    return {
        kv_view.UPLOADED_CSV: st.session_state.get(kv.UPLOADED),
        kv_view.REQUESTED: limits.requested(),
        kv_view.SET_NOW: {p.name: state.get(p) for p in kv.PARAMS},
    }


def body(view: View | None) -> None:
    """The accuracy charts (streamed while simulated), key numbers, one section, prose."""
    assert view is not None
    b: KV = view.detail
    reconstructed = (
        f"**HISKV {references.cite('zhang-hiskv')} is reconstructed from the paper's "
        "description; its formulas are derived here** (the source lost them) and verified by "
        "the exact privacy check and by simulation."
    )
    if present.presenting():  # one line, so the chart fits a 720p projector under it
        st.caption(
            f":material/construction: HISKV {references.cite('zhang-hiskv')} is reconstructed "
            "from the paper's description (formulas derived here, checked exactly)."
        )
    else:
        st.warning(reconstructed, icon=":material/construction:")
    if b.sidebar_eps > MAX_EPS:
        st.info(
            f"This page uses ε = {MAX_EPS:g}, not the sidebar's {b.sidebar_eps:g}: above "
            f"{MAX_EPS:g} the local-DP probabilities (such as e^ε / (e^ε + D − 1)) are too "
            "close to 1 for floating-point arithmetic, and the exact privacy check fails from "
            "rounding alone."
        )
    if not present.presenting():  # the chart's own title says it on a projector
        st.header("Accuracy vs ε")
    charts = st.empty()  # on a long first run, redrawn as mechanisms finish: results stream in
    acc = b.acc
    if not offer_full_run(b):
        st.stop()
    if b.pending:
        acc = stream(b, charts)
        b = replace(b, acc=acc, pending=False)
        if pin.URL_KEY in st.query_params:
            st.rerun()  # the comparison above drew B before it was simulated
    if not acc.names:
        data_summary(b)
        st.info("Tick at least one mechanism above.")
    else:
        assert acc.runs is not None and acc.summary is not None  # a mechanism is ticked
        draw(charts, b, acc, draft="")
        f1, f2 = st.columns(2)  # side by side, stacked on a phone
        f1.latex(r"\mathrm{MSE} = \frac1t\sum_{k\in\text{top-}t}(\hat x_k - x_k)^2")
        f2.latex(r"\mathrm{RE} = \frac1t\sum_{k}\frac{|\hat x_k - x_k|}{\max(|x_k|,\delta)}")
        st.caption(
            f"Mean over {acc.reps} seeded runs per point with 95% Student-t intervals "
            "(a lower end at or below 0 is drawn at a tenth of the mean on the log axis); "
            f"top-{acc.t} keys by true frequency. PCKV/SUE use padding l = "
            f"{acc.settings.padding_length}; Harmony's means divide by the TRUE frequency "
            f"(an advantage it would not have). δ = 0 for frequencies, "
            f"{metrics.MEAN_RE_FLOOR} for means. "
            f"{', '.join(UNAVAILABLE)} is not shown: {next(iter(UNAVAILABLE.values()))} "
            f"Dashed, {ldp_figures.CENTRAL}: the exact error a trusted curator reaches (central "
            f"DP, no local randomisation) with Laplace noise of scale L/ε on each key's count, "
            f"L = {int(b.data.lengths.max(initial=1))} the longest set here."
        )
        d1, d2 = st.columns(2)
        downloads.csv_button("Download summary (CSV)", acc.summary, "kv_ldp_summary.csv", where=d1)
        downloads.csv_button("Download every run (CSV)", acc.runs, "kv_ldp_runs.csv", where=d2)
        data_summary(b)
    SHOW[present.section_choice("Below the accuracy charts", kv.SECTION, kv.SECTIONS)](b)
    with st.expander("How the mechanisms work, and what is assumed", icon=":material/school:"):
        st.markdown(kv_view.prose())


def offer_full_run(b: KV) -> bool:
    """Say when the simulation is scaled down to the work limit, offering the full run; False
    when not even one repetition fits (the view's decision, :func:`sim.repetitions`)."""
    acc, data = b.acc, b.data
    if limits.allow_or_offer(
        sim.simulation_what(data, acc.names, acc.grid, acc.wanted),
        sim.simulation_cost(data, acc.names, acc.grid, acc.wanted, acc.settings.privkvm_rounds),
        key=acc.request(b.spec),
        smaller=sim.SMALLER,
        library=sim.LIBRARY,
    ):
        return True
    if acc.reps:
        st.caption(
            f"Shown: {acc.reps} repetition{'s' if acc.reps > 1 else ''} per point instead of "
            f"{acc.wanted}, within this server's limit for a change (wider confidence intervals)."
        )
    return acc.reps > 0


def stream(b: KV, charts: DeltaGenerator) -> sim.Accuracy:
    """Simulate ``b`` with a progress bar, drawing each mechanism's errors in ``charts`` as
    soon as they are complete (at most once a second)."""
    bar = st.progress(0.0, text="Simulating…")
    drafts = iter(range(len(kv.MECHANISM_FLAGS)))
    last = [time.monotonic()]

    def partial(acc: sim.Accuracy) -> None:
        if time.monotonic() - last[0] >= DRAFT_EVERY_S:
            last[0] = time.monotonic()
            draw(charts, b, acc, draft=f"_draft{next(drafts)}")

    def progress(fraction: float, text: str) -> None:
        bar.progress(fraction, text=text)

    acc = b.acc.run(b.spec, progress=progress, partial=partial)
    bar.empty()
    return acc


def draw(charts: DeltaGenerator, b: KV, acc: sim.Accuracy, *, draft: str) -> None:
    """The MSE of frequencies and of means vs ε, side by side, in ``charts``."""
    if acc.summary is None:
        return
    with charts.container():
        left, right = present.columns([1, 1])
        for where, metric in ((left, "mse_freq"), (right, "mse_mean")):
            baseline = kv_view.central(b.data, acc.grid) if metric == "mse_freq" else None
            fig = ldp_figures.error_vs_eps(acc.summary, metric, acc.t, central=baseline)
            present.show_chart(
                fig, kv_view.stamp(b.spec, acc), key=f"kv_{metric}{draft}", where=where
            )


def data_summary(b: KV) -> None:
    cols = st.columns(6)
    for col, (label, value) in zip(cols, kv_view.data_summary(b.data).items(), strict=False):
        col.metric(label, value)
    cols[5].metric(
        "ε (sidebar)", f"{b.eps:g}", help="Used by the truncation, split and privacy sections."
    )
    st.caption(f"Data: {b.spec.describe()}. Targets f_k and m_k are computed from these pairs.")


PAGE = Page(
    key="kv_ldp",
    title="Key-value LDP",
    icon=":material/key:",
    group="Local DP",
    blurb=(
        "HISKV (reconstructed) against PCKV, PrivKV, KVUE/KVOH, Harmony and SUE: accuracy vs ε "
        "and top-t, the truncation-length and value/key budget trade-offs, exact privacy "
        "checks."
    ),
    notice=(
        "Under [local DP](glossary#ldp) every user randomises their own pairs, so errors are "
        "far larger than in central DP; the mechanisms differ mostly in how they split ε "
        "between key and value and how they handle users with many pairs."
    ),
    caption=(
        "Local differential privacy for key-value data: each user holds a set of ⟨key, value⟩ "
        "pairs and reports one randomized pair; the collector estimates every key's frequency "
        "and mean. Teaching and exploration tool: numpy's generator is not a hardened noise "
        "source."
    ),
    data=(
        "synthetic key-value data generated from Settings → Data (users holding ⟨key, value⟩ "
        "pairs), or an uploaded user,key,value CSV, not the sidebar's histogram: local-DP "
        "key-value collection needs each user's own pairs, which a 1-D histogram does not have."
    ),
    params=(*kv.PARAMS, kv.SECTION),
    pinned=(*kv.PARAMS, sidebar.EPSILON),
    controls=controls,
    cost=kv_view.cost,
    view=kv_view.view,
    body=body,
    extra=extra,
)
