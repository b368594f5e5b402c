"""The "Audit a mechanism" page, declared: a gallery mechanism audited at the sidebar's ε,
the lower bound on ε against the runs, the verdict in words, the event found."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dpcore.audit.bounds import clopper_pearson
from dpui.audit import view as au
from dpui.audit.menu import EXHIBIT, MECHANISMS, label
from dpui.kit import limits, present, references, state
from dpui.kit.page import Page, View
from dpui.kit.sidebar import EPSILON
from dpui.reference import glossary

_FULL_RUN = "_au.full_run"
"""Set by the "Use ε = ..." button: the sidebar's ε changed, and only a full run redraws it."""


def controls() -> None:
    """The mechanism, the runs, the confidence, the random seed and (where the gallery has
    one) the mechanism's own score."""
    if st.session_state.pop(_FULL_RUN, False):
        st.rerun()  # this part of the page runs on its own; the sidebar shows the new ε
    c1, c2, c3 = st.columns([1.8, 1, 1])
    c1.selectbox("Mechanism", tuple(MECHANISMS), format_func=label, key=au.MECHANISM.name)
    c2.number_input(
        "Runs on each input",
        au.RUNS.lo,
        au.RUNS.hi,
        step=10_000,
        key=au.RUNS.name,
        help="How many times the mechanism runs on D and on D′ for the largest audit; "
        "30 % of the runs choose the event, the rest are counted.",
    )
    c2.number_input(
        "Confidence",
        au.CONFIDENCE.lo,
        au.CONFIDENCE.hi,
        step=0.01,
        format="%.4g",
        key=au.CONFIDENCE.name,
        help="The bound holds with this probability (Clopper–Pearson, half the rest per input).",
    )
    c3.number_input("Seed", au.SEED.lo, au.SEED.hi, key=au.SEED.name)
    key = str(state.get(au.MECHANISM))
    if au.built(key, 1.0).score is not None:
        c3.toggle(
            "Use its own score",
            key=au.SCORE.name,
            help="Threshold the gallery's score for this mechanism's outputs (the last bits "
            "of a float, a log density ratio) instead of a score the audit learns.",
        )


def _use_claim(claim: float) -> None:
    state.put({EPSILON.name: claim})
    st.session_state[_FULL_RUN] = True


def _show_exhibit() -> None:
    state.put({au.MECHANISM.name: EXHIBIT, au.SCORE.name: True})


def body(view: View | None) -> None:
    """The chart, the verdict, the key numbers, the event found, the mechanism, the prose."""
    assert view is not None
    r: au.Result = view.detail
    verdict = au.verdict(r)
    present.show_chart(view.figure, view.stamp, key="au_chart", alt=alt(r, verdict))
    shout = st.error if verdict.violation else st.info
    shout(
        f"**{verdict.headline}** {verdict.reason}",
        icon=":material/gpp_bad:" if verdict.violation else ":material/search_off:",
    )
    st.markdown(verdict.gallery)
    if r.plan.cut:
        limits.scaled_down(
            f"audited up to {r.final.runs:,} runs per input of the {r.plan.wanted:,} asked for",
            library=au.LIBRARY,
        )
    mechanism = MECHANISMS[r.key]
    if not math.isclose(mechanism.claim, r.claim) and (
        mechanism.min_claim <= mechanism.claim <= mechanism.max_claim
    ):
        left, right = st.columns([3, 1], vertical_alignment="center")
        left.markdown(
            f"The gallery audits {mechanism.label} at ε = {mechanism.claim:.4g}"
            + (", where its bug shows" if mechanism.known_bug else "")
            + f"; the sidebar's ε, its claim here, is {r.claim:g}."
        )
        right.button(f"Use ε = {mechanism.claim:.4g}", on_click=_use_claim, args=(mechanism.claim,))
    numbers(view)
    event(r)
    about(r)
    present.prose(references.prose("audit.md"))


def alt(r: au.Result, verdict: au.Verdict) -> str:
    """The chart's finding in words: the verdict, and what the points near its top stand for."""
    infinite = any(math.isinf(p.upper) or math.isinf(p.audit.point_estimate) for p in r.points)
    return verdict.headline + (
        " Points at the top of the chart stand for values off the chart or infinite (no run "
        "of the other input in the event)."
        if infinite
        else ""
    )


def numbers(view: View) -> None:
    n = view.numbers
    m = present.aside("au-numbers").columns(4)
    m[0].metric("Lower bound ε_LB", f"{n['lower bound ε_LB']:.3f}")
    m[1].metric(
        "Point estimate",
        _number(n["point estimate (not a bound)"]),
        help="ln(k/n) − ln(k′/n′) on the counted runs: not a bound, it exceeds the true ε "
        "about half the time.",
    )
    m[2].metric("Claimed ε (sidebar)", f"{n['claimed ε']:g}")
    m[3].metric("True ε (gallery)", _number(n["true ε (gallery)"]))


def _number(value: float) -> str:
    if math.isnan(value):
        return "—"
    return "∞" if math.isinf(value) else f"{value:.4g}"


def event(r: au.Result) -> None:
    """The event found at the top rung and its two probabilities with their bounds."""
    audit, point = r.final.audit, r.final
    c, alpha = audit.counts, 1.0 - audit.confidence
    st.header("The event found")
    st.markdown(
        f"**S: {audit.event}.** Chosen on the first {audit.training_runs:,} runs of each "
        f"input; counted on the other {c.runs_d:,}. The bound is "
        r"$\varepsilon \ge \ln\frac{p_{lo} - \delta}{p'_{hi}}$"
        f" with δ = {audit.delta:g}: the favoured input's lower bound over the other's upper "
        f"bound, each at {100 * (1 - alpha / 2):.4g} % so that both hold at "
        f"{100 * audit.confidence:.4g} % (see {glossary.link('privacy-audit')})."
    )
    rows = []
    for name, hits, runs, favoured in (
        ("D", c.hits_d, c.runs_d, point.favours_d),
        ("D′", c.hits_d_prime, c.runs_d_prime, not point.favours_d),
    ):
        lo, hi = clopper_pearson(hits, runs, alpha / 2)
        rows.append(
            {
                "input": name + (" (favoured)" if favoured else ""),
                "runs in S": f"{hits:,}",
                "runs counted": f"{runs:,}",
                "share in S": hits / runs,
                "bound used": f"P ≥ {float(lo):.4g}" if favoured else f"P ≤ {float(hi):.4g}",
            }
        )
    present.table(pd.DataFrame(rows))


def about(r: au.Result) -> None:
    entry = r.entry
    st.header("The mechanism")
    st.markdown(
        f"**{entry.name}.** D and D′: {entry.description} (neighbours: {entry.relation}). "
        f"Claimed ε = {entry.claimed_epsilon:g}"
        + (f", δ = {entry.claimed_delta:g}" if entry.claimed_delta else "")
        + f"; true ε = {au.true_words(entry)}."
        + (
            " The exact ε is the largest |ln P(o | D) − ln P(o | D′)| over its outputs: where "
            "the output distribution is finite and known, it settles what an audit can only "
            "approach."
            if entry.law is not None
            else ""
        )
    )
    if r.key == EXHIBIT:
        st.warning(
            references.resolve(
                "**An exhibit: this product's own noise.** The samplers call dpcore's "
                "`laplace_mechanism`, the one every page uses. Its float64 outputs near 0 lie "
                "on a finer grid when the true count is 0 than when it is 1, so their last "
                "bits tell the two inputs apart: the claimed ε does not hold, whatever it is "
                "[@mironov-2012]. The audit sees it only when given that score (Use its own "
                "score, in Settings); without it, it finds no violation. Mironov's fix, "
                "snapping the output to a coarse grid, is not in this product: its noise is "
                "for teaching, not for releasing real data."
            ),
            icon=":material/bug_report:",
        )
    else:
        st.button(
            "Show the exhibit: this product's own Laplace mechanism",
            on_click=_show_exhibit,
            icon=":material/bug_report:",
        )


PAGE = Page(
    key="audit",
    title="Audit a mechanism",
    icon=":material/fact_check:",
    group="Start",
    blurb=(
        "Test a mechanism's claim from its outputs: a lower bound on ε with its confidence, "
        "rising with the runs, against the claimed and the true ε, on a gallery of correct and "
        "buggy mechanisms (this product's own float Laplace among them)."
    ),
    notice=(
        "The lower bound climbs with the runs towards the true ε: a bound above the claimed ε "
        "shows a violation at the stated confidence, while a bound below it proves nothing "
        "[@bichsel-2021]."
    ),
    caption=(
        "An audit runs a mechanism many times on two neighbouring inputs D and D′, chooses "
        "an event S on 30 % of the runs and bounds ε from how often the other runs land in S "
        "(Clopper–Pearson). Each point is its own seeded audit. Teaching and exploration tool: "
        "numpy's generator is not a hardened noise source."
    ),
    data=(
        "none: the sidebar's histogram is not used. Each mechanism runs on its own two "
        "neighbouring inputs (the gallery's), with the sidebar's ε as the ε it claims."
    ),
    params=au.PARAMS,
    pinned=au.PINNED,
    controls=controls,
    cost=au.cost,
    view=au.view,
    body=body,
)
