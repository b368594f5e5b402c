"""Exponential mechanism: exact output probabilities, an animated run, and the accuracy bound."""

import numpy as np
import streamlit as st

from dpcore.mechanisms import ScoreTableError
from dpui.kit import downloads, pin, present, sidebar, state, untrusted
from dpui.mechanisms import exponential as em
from dpui.mechanisms import figures as figures
from dpui.mechanisms.exponential import DRAWS, SEED, SENSITIVITY, SOURCE
from dpui.mechanisms.exponential_page import PAGE

toolbar = present.header(PAGE)
sidebar.shared_controls()
state.load(em.PARAMS)

with present.settings_panel():
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
state.save(em.PARAMS)

PINNED = (SOURCE, SENSITIVITY, SEED, DRAWS, sidebar.EPSILON)
current = pin.current(PINNED)
source = str(current[SOURCE.name])
eps, sensitivity = float(current["eps"]), float(current[SENSITIVITY.name])
hist = sidebar.current_histogram()
table = None
settings = em.stamp(current, hist)
main = st.container()  # the key numbers and the first figure, above the candidate table
if source == "sidebar":
    if em.allowed(hist.n_bins, int(current[DRAWS.name])):
        table = em.table_from_histogram(hist)
        st.markdown(
            f"Candidates: the **{hist.n_bins:,} bins of '{hist.name}'**, scored by their counts."
        )
else:  # the table below the figure: the figure leads, the data stays one click away
    left, right = st.expander(
        "Candidates and scores (editable)", icon=":material/edit_note:"
    ).columns([2, 1])
    with left:
        edited = st.data_editor(
            em.preset_frame(source),
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
        table = em.table_from_editor(edited)
    except ScoreTableError as err:
        st.error(f"{err} Fix the table to see the results; your edits are kept.")
    right.markdown(em.SENSITIVITY_NOTE)

result = None if table is None else em.outcome(current, table)
pinned = pin.controls("exponential", PINNED, where=toolbar)
with main:
    if pinned is not None:
        em.show_comparison(pinned, current, result, hist)
    if result is not None:
        analysis, shown, table = result.analysis, result.shown, result.table
        names = result.shown_names
        best = float(table.scores.max())
        m = st.columns(4)
        m[0].metric("Candidates |R|", f"{table.scores.size:,}")
        m[1].metric("ε (sidebar)", f"{eps:g}")
        m[2].metric("Pr[best answer]", f"{analysis.best_probability:.4g}")
        m[3].metric(
            "Expected score loss", f"{analysis.expected_loss:.4g}", help="OPT − E[u(M(x))], exact."
        )
        if shown.size < table.scores.size:
            st.caption(
                f"Charts show the {shown.size} highest-scoring of {table.scores.size:,} candidates."
            )

        st.subheader("Weights and probabilities")
        left, right = present.columns([2, 1])
        present.show_chart(
            figures.log_weights(names, analysis.log_weights[shown]),
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
            if source == "sidebar":
                st.markdown(em.SENSITIVITY_NOTE)
            st.markdown(
                f"The chart shows ln-weights relative to the best candidate; the absolute ones are "
                f"{analysis.log_weight_offset:,.4g} higher, and e to that power "
                f"{'overflows' if analysis.log_weight_offset > 709 else 'fits in'} floating point "
                "(e^710 is already infinite). Working relative to the best keeps every probability "
                "finite and exact, for any score and any ε."
            )

if result is not None:
    analysis, shown, table = result.analysis, result.shown, result.table
    total = int(current[DRAWS.name])
    seed = int(current[SEED.name])
    em.sync(table, eps, sensitivity, total, seed)

    candidates = table  # narrowed to a valid table for the fragment below
    is_best = table.scores == best

    def animation() -> None:
        finished_now = em.advance(total)
        b = st.columns([1, 1, 1, 1, 2])
        if b[0].button("Play", key="exp_play", icon=":material/play_arrow:", disabled=em.playing()):
            em.play(total)
            st.rerun()
        if b[1].button(
            "Pause", key="exp_pause", icon=":material/pause:", disabled=not em.playing()
        ):
            em.pause()
            st.rerun()
        if b[2].button("Reset", key="exp_reset", icon=":material/replay:"):
            em.reset()
            st.rerun()
        if b[3].button("All at once", key="exp_finish", icon=":material/fast_forward:"):
            em.finish(total)
            st.rerun()
        done = em.drawn()
        outputs = em.runs(candidates.scores, eps, sensitivity, total, seed)[:done]
        counts = np.bincount(outputs, minlength=candidates.scores.size)
        b[4].progress(done / total, text=f"{done:,} of {total:,} runs")
        present.show_chart(
            figures.probabilities_vs_frequencies(
                names, analysis.probabilities[shown], counts[shown], done
            ),
            settings | {"runs": done},
            key="exp_frequencies",
        )
        if done:
            recent = ", ".join(untrusted.markdown(candidates.names[i]) for i in outputs[-8:][::-1])
            st.caption(
                f"Best answer output {int(counts[is_best].sum()):,} times in {done:,} runs. "
                f"Latest outputs (newest first): {recent}."
            )
        if finished_now:
            st.rerun()  # drop the timer now that the run is over

    st.subheader("Repeated runs")
    st.number_input(
        "Runs to draw",
        DRAWS.lo,
        DRAWS.hi,
        key=DRAWS.name,
        help="Each run is one independent use of the mechanism (Wang and Kang drew 100).",
    )
    st.fragment(animation, run_every=em.FRAME_SECONDS if em.playing() else None)()

    st.subheader("Accuracy: the bound vs the exact probability")
    left, right = present.columns([2, 1])
    present.show_chart(
        figures.accuracy_curves(
            analysis.values, analysis.cumulative, analysis.grid, analysis.bound, best=best
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

present.prose(em.prose())
