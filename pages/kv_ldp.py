"""Key-value LDP: HISKV (reconstructed) and the mechanisms it is compared with."""

import time

import pandas as pd
import streamlit as st

from dpcore.ldp import hiskv, metrics
from dpcore.ldp.data import KVData
from dpcore.ldp.mechanisms import MAX_EPS, MECHANISMS, UNAVAILABLE
from dpui.kit import downloads, pin, present, references, sidebar, state
from dpui.ldp import figures as ldp_figures
from dpui.ldp import hiskv as hiskv_view
from dpui.ldp import view as view
from dpui.ldp.page import PAGE

toolbar = present.header(PAGE)
st.warning(
    f"**HISKV {references.cite('zhang-hiskv')} is reconstructed from the paper's description; "
    "its formulas are derived here** (the source lost them) and verified by the exact privacy "
    "check and by simulation.",
    icon=":material/construction:",
)

sidebar.shared_controls()
eps = sidebar.current_epsilon()
if eps > MAX_EPS:
    st.info(
        f"This page uses ε = {MAX_EPS:g}, not the sidebar's {eps:g}: above {MAX_EPS:g} the "
        "local-DP probabilities (such as e^ε / (e^ε + D − 1)) are too close to 1 for "
        "floating-point arithmetic, and the exact privacy check fails from rounding alone."
    )
    eps = MAX_EPS
state.load((*view.PARAMS, view.SECTION))

panel = present.settings_panel()
with panel:
    st.markdown("**Data**")
    c = [*st.columns([2.2, 1.6, 1]), *st.columns(3)]
    c[0].selectbox(
        "Source",
        view.SOURCES,
        key=view.SOURCE.name,
        format_func=lambda s: view.SYNTHETIC.get(s, "upload a user,key,value CSV"),
    )
    synthetic = st.session_state[view.SOURCE.name] != view.UPLOAD
    c[1].selectbox(
        "Set lengths",
        tuple(view.LENGTHS),
        key=view.LENGTH_MODEL.name,
        format_func=view.LENGTHS.__getitem__,
        disabled=not synthetic,
    )
    c[2].number_input(
        "Users n",
        view.USERS.lo,
        view.USERS.hi,
        step=10_000,
        key=view.USERS.name,
        disabled=not synthetic,
        help="Generation takes about 1.5 µs per (user, key) pair, once (then cached); "
        "this server's work limit caps it.",
    )
    c[3].number_input(
        "Keys d", view.KEYS.lo, view.KEYS.hi, key=view.KEYS.name, disabled=not synthetic
    )
    c[4].number_input(
        "Max set length", view.MAX_LENGTH.lo, view.MAX_LENGTH.hi, key=view.MAX_LENGTH.name,
        disabled=not synthetic,
    )  # fmt: skip
    c[5].number_input(
        "Data seed", view.DATA_SEED.lo, view.DATA_SEED.hi, key=view.DATA_SEED.name,
        disabled=not synthetic,
    )  # fmt: skip
    if not synthetic:
        st.file_uploader(
            "user,key,value CSV (values in [-1, 1], one pair per user and key)",
            key=view.UPLOAD_WIDGET,
            on_change=view.on_upload,
        )

with panel:
    st.markdown("**Simulation**")
    g = [*st.columns([2, 1, 1]), *st.columns(3)]
    g[0].selectbox(
        "ε grid",
        tuple(view.EPS_GRIDS),
        key=view.GRID.name,
        format_func=lambda g: f"{g}: " + ", ".join(f"{e:g}" for e in view.EPS_GRIDS[g]),
    )
    g[1].number_input("Repetitions", view.REPS.lo, view.REPS.hi, key=view.REPS.name)
    g[2].number_input("Top-t keys for MSE", view.TOP_T.lo, view.TOP_T.hi, key=view.TOP_T.name)
    g[3].selectbox("ε for RE vs top-t", view.EPS_CHOICES, key=view.RE_EPS.name)
    g[4].number_input("Simulation seed", view.SEED.lo, view.SEED.hi, key=view.SEED.name)
    boxes = st.columns(5)
    for i, (name, flag) in enumerate(view.MECHANISM_FLAGS.items()):
        boxes[i % 5].checkbox(name, key=flag.name, help=MECHANISMS[name].note)
    h = [*st.columns(3), *st.columns(3)]
    h[0].slider(
        "HISKV value share ε_v/ε*",
        view.SHARE.lo,
        view.SHARE.hi,
        step=0.05,
        key=view.SHARE.name,
        help="Budget of the value inside LRR_KV. Smaller: the true key with a flipped value "
        "gets more probability (better frequencies, worse means).",
    )
    h[1].toggle(
        "Padding-amplified accounting",
        wrap=True,
        key=view.AMPLIFIED.name,
        help="On: ε* = ln(L(e^ε − 1) + 1) per report, ε for the whole set (checked below). "
        "Off: every report is ε-LDP on its own.",
    )
    h[2].number_input(
        "HISKV OETL share β", view.BETA.lo, view.BETA.hi, step=0.05, key=view.BETA.name
    )
    h[3].number_input(
        "PCKV / SUE padding l (0 = auto)", view.PCKV_L.lo, view.PCKV_L.hi, key=view.PCKV_L.name,
        help="0: the 90th percentile of the TRUE lengths, tuned on raw data (not private), "
        "as in PCKV's experiments.",
    )  # fmt: skip
    h[4].number_input("PrivKVM rounds c", view.ROUNDS.lo, view.ROUNDS.hi, key=view.ROUNDS.name)
state.save(view.PARAMS)

PINNED = (*view.PARAMS, sidebar.EPSILON)
current = pin.current(PINNED)
ss = st.session_state
if ss.get(view.UPLOAD_ERROR):
    st.error(f"Upload rejected, previous data kept. {ss[view.UPLOAD_ERROR]}")
upload = ss.get(view.UPLOADED)
if not synthetic and upload is None:
    st.info("Upload a CSV with columns user,key,value to continue, or pick a synthetic source.")
    st.stop()
spec = view.data_spec(current, upload or b"")
data = view.dataset(spec)
if data is None:
    st.stop()

pinned = pin.controls("kv", PINNED, where=toolbar)
comparison = st.container()  # filled once B is computed: A is drawn beside it


def data_summary(data: KVData) -> None:
    cols = st.columns(6)
    for col, (label, value) in zip(cols, view.data_summary(data).items(), strict=False):
        col.metric(label, value)
    cols[5].metric(
        "ε (sidebar)", f"{eps:g}", help="Used by the truncation, split and privacy sections."
    )
    st.caption(f"Data: {spec.describe()}. Targets f_k and m_k are computed from these pairs.")


st.header("Accuracy vs ε")
charts = st.empty()  # on a long first run, redrawn as mechanisms finish: results stream in
drafts = iter(range(len(view.MECHANISM_FLAGS)))
last_drawn = [time.monotonic()]
DRAFT_EVERY_S = 1.0  # a redraw costs the browser ~0.2 s: not after every quick mechanism


def draw(acc: view.Accuracy, *, final: bool = False) -> None:
    if acc.summary is None or (not final and time.monotonic() - last_drawn[0] < DRAFT_EVERY_S):
        return
    last_drawn[0] = time.monotonic()
    draft = "" if final else f"_draft{next(drafts)}"
    with charts.container():
        left, right = present.columns([1, 1])
        for where, metric in ((left, "mse_freq"), (right, "mse_mean")):
            fig = ldp_figures.error_vs_eps(acc.summary, metric, acc.t)
            present.show_chart(fig, view.stamp(spec, acc), key=f"kv_{metric}{draft}", where=where)


acc = view.accuracy(current, spec, data, partial=draw)
if acc is None:
    st.stop()
if pinned is not None:
    with comparison:
        view.show_comparison(pinned, current, (spec, data, acc), upload)
names, grid, t, seed, settings, reps = acc.names, acc.grid, acc.t, acc.seed, acc.settings, acc.reps
stamp = view.stamp(spec, acc)
if not names:
    data_summary(data)
    st.info("Tick at least one mechanism above.")
else:
    runs, summary = acc.runs, acc.summary
    assert runs is not None and summary is not None  # a mechanism is ticked
    draw(acc, final=True)
    f1, f2 = st.columns(2)  # side by side, stacked on a phone
    f1.latex(r"\mathrm{MSE} = \frac1t\sum_{k\in\text{top-}t}(\hat x_k - x_k)^2")
    f2.latex(r"\mathrm{RE} = \frac1t\sum_{k}\frac{|\hat x_k - x_k|}{\max(|x_k|,\delta)}")
    st.caption(
        f"Mean over {reps} seeded runs per point with 95% Student-t intervals "
        "(a lower end at or below 0 is drawn at a tenth of the mean on the log axis); "
        f"top-{t} keys by true frequency. PCKV/SUE use padding l = {settings.padding_length}; "
        "Harmony's means divide by the TRUE frequency (an advantage it would not have). "
        f"δ = 0 for frequencies, {metrics.MEAN_RE_FLOOR} for means. "
        f"{', '.join(UNAVAILABLE)} is not shown: {next(iter(UNAVAILABLE.values()))}"
    )
    d1, d2 = st.columns(2)
    downloads.csv_button("Download summary (CSV)", summary, "kv_ldp_summary.csv", where=d1)
    downloads.csv_button("Download every run (CSV)", runs, "kv_ldp_runs.csv", where=d2)
    data_summary(data)


def relative_error(data: KVData, acc: view.Accuracy) -> None:
    st.header("Relative error vs top-t")
    if not names or acc.summary is None:
        st.info("Tick at least one mechanism above.")
        return
    re_eps = acc.re_eps
    if float(ss[view.RE_EPS.name]) not in grid:
        st.info(f"ε = {ss[view.RE_EPS.name]} is not in the grid; showing ε = {re_eps:g}.")
    left, right = present.columns([1, 1])
    for where, metric in ((left, "re_freq"), (right, "re_mean")):
        fig = ldp_figures.error_vs_t(acc.summary, metric, re_eps)
        present.show_chart(fig, stamp | {"ε": re_eps}, key=f"kv_{metric}", where=where)


def oetl_length() -> int:
    """HISKV's truncation length L, estimated privately by OETL (seeded)."""
    return view.oetl_estimate(spec, eps, ss[view.BETA.name], seed)[0]


def value_share_sweep(length: int) -> pd.DataFrame:
    """The value-share sweep at truncation length ``length`` (simulated, seeded)."""
    return view.share_sweep(spec, eps, length, t, reps, ss[view.AMPLIFIED.name], seed)


def truncation(data: KVData, acc: view.Accuracy) -> None:
    st.header("Truncation length (HISKV's OETL)")
    length, estimated = view.oetl_estimate(spec, eps, ss[view.BETA.name], seed)
    marked = stamp | {"ε": eps, "β": ss[view.BETA.name]}
    left, right = present.columns([1, 1])
    present.show_chart(
        ldp_figures.length_distribution(data.lengths, estimated, length),
        marked,
        key="kv_len",
        where=left,
    )
    table = view.truncation_table(
        spec, eps, t, ss[view.SHARE.name], ss[view.AMPLIFIED.name], ss[view.BETA.name]
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
        f"OETL: {ss[view.BETA.name]:.0%} of users report their length by GRR over 1..50 at ε = "
        f"{eps:g}; L is the smallest length whose estimated cumulative share reaches 90%. "
        "Users with more than L pairs are under-counted (bias); a longer L dilutes every report "
        "(variance). Both curves are exact for these data."
    )


def value_key_split(data: KVData, acc: view.Accuracy) -> None:
    st.header("Value / key budget split (HISKV)")
    length = oetl_length()
    sweep = value_share_sweep(length)
    left, right = present.columns([3, 2])
    present.show_chart(
        ldp_figures.share_tradeoff(sweep, ss[view.SHARE.name]),
        stamp | {"ε": eps, "β": ss[view.BETA.name]},
        key="kv_share_chart",
        where=left,
    )
    right.latex(r"Z = e^{\varepsilon^*} + e^{\varepsilon^*-\varepsilon_v} + D - 2")
    right.latex(
        r"p_1 = \frac{e^{\varepsilon^*}}{Z},\quad q_1 = \frac{e^{\varepsilon^*-\varepsilon_v}}{Z},"
        r"\quad q_2 = \frac1Z"
    )
    present.table(view.probability_table(eps, data.d, length, ss[view.SHARE.name]), where=right)
    right.caption(
        f"At L = {length} (fixed, all users report). p1/q2 = e^ε* bounds every likelihood "
        "ratio, whatever the split; ε_v = ε* is plain GRR over the D pairs (PCKV-GRR's setting)."
    )


def privacy_check(data: KVData, acc: view.Accuracy) -> None:
    st.header("Privacy check (exact)")
    privacy = view.privacy_table(
        eps, ss[view.SHARE.name], ss[view.AMPLIFIED.name], ss[view.ROUNDS.name]
    )
    present.table(privacy, height="content")  # every mechanism, no inner scroll
    st.caption(
        f"Every input set over d = {view.CHECK_D} keys (values ±1, sets up to L + 1 pairs so "
        f"truncation is included) and every output is enumerated at L = l = {view.CHECK_L}; "
        "the output laws come from each mechanism's own probabilities composed with a "
        "brute-force enumeration of its sampling step. A claim holds when the worst ln-ratio "
        "does not exceed ε. Values in [-1, 1] need no separate check: the laws are affine in "
        "each value. HISKV and HISKV-OETL are reconstructions (see the notice at the top). "
        + " ".join(f"{name}: {why}" for name, why in UNAVAILABLE.items())
    )


def why_hiskv_does_not_win(data: KVData, acc: view.Accuracy) -> None:
    length = oetl_length()
    hiskv_view.render(
        spec,
        value_share_sweep(length),
        eps=eps,
        length=length,
        t=t,
        share=ss[view.SHARE.name],
        amplified=ss[view.AMPLIFIED.name],
        beta=ss[view.BETA.name],
        reps=reps,
        seed=seed,
    )


SHOW = {
    "privacy": privacy_check,
    "re": relative_error,
    "truncation": truncation,
    "split": value_key_split,
    "hiskv": why_hiskv_does_not_win,
}
SHOW[present.section_choice("Below the accuracy charts", view.SECTION, view.SECTIONS)](data, acc)
with st.expander("How the mechanisms work, and what is assumed", icon=":material/school:"):
    st.markdown(view.prose())
