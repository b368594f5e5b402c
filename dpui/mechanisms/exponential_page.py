"""The Exponential mechanism page: exact output probabilities, an animated run, and the
accuracy bound vs the exact probability."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

from dpcore.mechanisms import ScoreTableError
from dpui.kit import downloads, present, state, untrusted
from dpui.kit.page import Page, View
from dpui.mechanisms import exponential as em
from dpui.mechanisms import figures
from dpui.mechanisms.exponential import DRAWS, SEED, SENSITIVITY, SOURCE


def controls() -> None:
    """The candidates' source, Δu and the random seed; for a preset, its table to edit (kept
    for the view by :func:`dpui.mechanisms.exponential.keep_edited`: no link carries it)."""
    c1, c2, c3 = st.columns([1.6, 1, 1])
    c1.selectbox(
        "Candidates and scores",
        list(em.SOURCES),
        format_func=em.SOURCES.__getitem__,
        key=SOURCE.name,
    )
    c2.number_input(
        "Score sensitivity Δu",
        SENSITIVITY.lo,
        SENSITIVITY.hi,
        format="%g",
        key=SENSITIVITY.name,
        help="The most any one score can change when one person is added or removed.",
    )
    c3.number_input("Random seed", SEED.lo, SEED.hi, key=SEED.name)
    c3.number_input(
        "Runs to draw",
        DRAWS.lo,
        DRAWS.hi,
        key=DRAWS.name,
        help="Each run is one independent use of the mechanism (Wang and Kang drew 100).",
    )
    source = str(state.get(SOURCE))
    if source == "sidebar":
        em.keep_edited(None)
        return
    left, right = st.columns([2, 1])
    with left:
        st.markdown("**Candidates and scores** (editable)")
        edited = st.data_editor(
            em.editor_base(source),
            num_rows="dynamic",
            key=em.editor_key(source),
            hide_index=True,
            column_config={
                em.NAME_COLUMN: st.column_config.TextColumn("candidate"),
                em.SCORE_COLUMN: st.column_config.TextColumn("score", help="Any finite number."),
            },
        )
        st.button("Restore the preset table", on_click=em.reset_table, args=(source,))
    try:
        em.table_from_editor(edited)
    except ScoreTableError as err:
        left.error(
            f"{untrusted.markdown(err, 600)} Fix the table to see the results; your edits are kept."
        )
    right.markdown(em.SENSITIVITY_NOTE)
    em.keep_edited(edited, source)


def body(view: View | None) -> None:
    """Key numbers, weights, the animated runs with their Play control, the accuracy bound
    vs the exact probability and the table for download, then the explanation."""
    assert view is not None
    r: em.Result = view.detail
    out, settings = r.outcome, view.stamp
    analysis, shown, table = out.analysis, out.shown, out.table
    if r.source == "sidebar":
        st.markdown(f"Candidates: {r.words}, scored by their counts.")
    m = present.aside("key-numbers").columns(4)  # hidden while presenting: the figure fits
    m[0].metric("Candidates |R|", f"{table.scores.size:,}")
    m[1].metric("ε (sidebar)", f"{r.eps:g}")
    m[2].metric("Pr[best answer]", f"{analysis.best_probability:.4g}")
    m[3].metric(
        "Expected score loss", f"{analysis.expected_loss:.4g}", help="OPT − E[u(M(x))], exact."
    )
    if shown.size < table.scores.size:
        st.caption(
            f"Charts show the {shown.size} highest-scoring of {table.scores.size:,} candidates."
        )
    repeated_runs(r, settings)  # first: Play sits right under the key numbers
    weights(r, settings)
    accuracy(r, settings)
    present.prose(em.prose())


def weights(r: em.Result, settings: Mapping[str, Any]) -> None:
    analysis = r.outcome.analysis
    st.header("Weights and probabilities")
    left, right = present.columns([2, 1])
    present.show_chart(
        figures.log_weights(r.outcome.shown_names, analysis.log_weights[r.outcome.shown]),
        settings,
        key="exp_weights",
        where=left,
    )
    with right:
        st.latex(
            r"\Pr[M(x)=r] = \frac{e^{\varepsilon u(x,r)/2\Delta u}}"
            r"{\sum_{r'} e^{\varepsilon u(x,r')/2\Delta u}}"
        )
        st.latex(r"\Delta u = \max_{r,\, x\sim y} |u(x,r)-u(y,r)|")
        if r.source == "sidebar":
            st.markdown(em.SENSITIVITY_NOTE)
        offset = analysis.log_weight_offset
        st.markdown(
            f"The chart shows ln-weights relative to the best candidate; the absolute ones are "
            f"{offset:,.4g} higher, and e to that power "
            f"{'overflows' if offset > 709 else 'fits in'} floating point "
            "(e^710 is already infinite). Working relative to the best keeps every probability "
            "finite and exact, for any score and any ε."
        )


def repeated_runs(r: em.Result, settings: Mapping[str, Any]) -> None:
    """The animation that reveals the runs (Play, Pause, Reset, All at once; how many runs is
    a setting); new inputs start it over."""
    em.sync(r.outcome.table, r.eps, r.sensitivity, r.draws, r.seed)
    if not present.presenting():  # the chart's title says it; Play stays by the chart
        st.header("Repeated runs")
    st.fragment(animation, run_every=em.FRAME_SECONDS if em.playing() else None)(r, settings)


def animation(r: em.Result, settings: Mapping[str, Any]) -> None:
    """One frame: the controls, the progress, and the frequencies of the runs drawn so far."""
    total, table, analysis, shown = r.draws, r.outcome.table, r.outcome.analysis, r.outcome.shown
    finished_now = em.advance(total)
    b = st.columns([1, 1, 1, 1, 2])
    if b[0].button("Play", key="exp_play", icon=":material/play_arrow:", disabled=em.playing()):
        em.play(total)
        st.rerun()
    if b[1].button("Pause", key="exp_pause", icon=":material/pause:", disabled=not em.playing()):
        em.pause()
        st.rerun()
    if b[2].button("Reset", key="exp_reset", icon=":material/replay:"):
        em.reset()
        st.rerun()
    if b[3].button("All at once", key="exp_finish", icon=":material/fast_forward:"):
        em.finish(total)
        st.rerun()
    done = em.drawn()
    outputs = em.runs(table.scores, r.eps, r.sensitivity, total, r.seed)[:done]
    counts = np.bincount(outputs, minlength=table.scores.size)
    b[4].progress(done / total, text=f"{done:,} of {total:,} runs")
    present.show_chart(
        figures.probabilities_vs_frequencies(
            r.outcome.shown_names, analysis.probabilities[shown], counts[shown], done
        ),
        dict(settings) | {"runs": done},
        key="exp_frequencies",
    )
    if done:
        is_best = table.scores == table.scores.max()
        recent = ", ".join(untrusted.markdown(table.names[i]) for i in outputs[-8:][::-1])
        st.caption(
            f"Best answer output {int(counts[is_best].sum()):,} times in {done:,} runs. "
            f"Latest outputs (newest first): {recent}."
        )
    if finished_now:
        st.rerun()  # drop the timer now that the run is over


def accuracy(r: em.Result, settings: Mapping[str, Any]) -> None:
    """The textbook bound vs the exact probability, the events table and the download."""
    analysis, table = r.outcome.analysis, r.outcome.table
    st.header("Accuracy: the bound vs the exact probability")
    left, right = present.columns([2, 1])
    present.show_chart(
        figures.accuracy_curves(
            analysis.values,
            analysis.cumulative,
            analysis.grid,
            analysis.bound,
            best=float(table.scores.max()),
        ),
        settings,
        key="exp_accuracy",
        where=left,
    )
    with right:
        st.markdown("Bound (Dwork & Roth, thm. 3.11):")
        st.latex(
            r"\begin{aligned}&\Pr\big[u(M(x)) \le c\big] \\"
            r"&\le \frac{|R|}{|R_{OPT}|} e^{\varepsilon (c - OPT)/2\Delta u}\end{aligned}"
        )
        st.markdown("Exact:")
        st.latex(
            r"\begin{aligned}&\Pr\big[u(M(x)) \le c\big] \\"
            r"&= \sum_{r:\,u(x,r)\le c} \Pr[M(x)=r]\end{aligned}"
        )
    if not analysis.events.empty:
        st.markdown(
            "The same event, bound vs exact, for the best few wrong score levels c "
            "(the first row is the probability of not returning a best candidate):"
        )
        st.dataframe(analysis.events, hide_index=True)
    downloads.csv_button(
        "Download candidates and probabilities (CSV)",
        em.candidate_table(table, analysis),
        "exponential_mechanism.csv",
    )


PAGE = Page(
    key="exponential",
    title="Exponential mechanism",
    icon=":material/casino:",
    group="Central DP: mechanisms",
    blurb=(
        "Pick the best candidate privately: exact output probabilities, an animated run of "
        "repeated draws, and the accuracy bound vs the exact probability (which can be >1)."
    ),
    notice=(
        "The best candidate is the most likely output but never certain: as ε shrinks its "
        "probability falls towards 1/|R|, and repeated draws settle onto the exact "
        "probabilities."
    ),
    caption=(
        "Choose one candidate with probability ∝ exp(ε·score / 2Δu): the best is likely, every "
        "other candidate stays possible. Teaching and exploration tool: numpy's generator is "
        "not a hardened noise source."
    ),
    data=(
        "preset candidate tables (a four-sport vote, people per education level in the Adult "
        "census), editable in Settings, unless Settings → Candidates and scores chooses the "
        "sidebar's histogram: the mechanism picks one named answer, which a short table shows "
        "best."
    ),
    params=em.PARAMS,
    pinned=em.PINNED,
    controls=controls,
    cost=em.cost,
    view=em.view,
    body=body,
    extra=em.extra,
)
