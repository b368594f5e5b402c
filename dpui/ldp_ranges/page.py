"""The "Range queries under local DP" page, declared: N users drawn from the sidebar
histogram's shape, error vs range length for flat, HH_B (raw and consistent) and HaarHRR,
exact against simulated, and AHEAD simulated; one section below (fan-out against central DP,
the ε crossover between HaarHRR and the tree, one collection against the truth)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dpui.kit import downloads, present, references
from dpui.kit.page import Page, Section, View, sections
from dpui.kit.params import ChoiceParam
from dpui.ldp_ranges import figures
from dpui.ldp_ranges import sections as sec
from dpui.ldp_ranges import view as lr
from dpui.ldp_ranges.view import (
    FANOUT,
    LEVEL_MODE,
    NORM_SUB,
    ORACLE,
    REPS,
    SEED,
    USERS,
    Setting,
)


def controls() -> None:
    """The population, the tree and its oracle, the simulation."""
    c = st.columns([1.2, 0.8, 0.8, 1.6])
    c[0].number_input(
        "Users N",
        USERS.lo,
        USERS.hi,
        step=10_000,
        key=USERS.name,
        help="Drawn from the sidebar histogram's shape (its counts ÷ their total). The "
        "simulation draws aggregates from their exact laws: 10^8 users cost what 10^3 do.",
    )
    c[1].number_input(
        "Fan-out B",
        FANOUT.lo,
        FANOUT.hi,
        key=FANOUT.name,
        help="Children per node of HH_B. A domain that is not a power of B gets an uneven "
        "last level.",
    )
    c[2].selectbox(
        "Oracle", tuple(lr.ORACLES), format_func=lr.ORACLES.__getitem__, key=ORACLE.name,
        help="The frequency oracle of the flat method and of every tree level. OLH is "
        "simulated with an ideal random hash.",
    )  # fmt: skip
    c[3].selectbox(
        "Tree levels", tuple(lr.LEVELS), format_func=lr.LEVELS.__getitem__, key=LEVEL_MODE.name
    )
    d = st.columns(3)
    d[0].number_input(
        "Simulation repetitions",
        REPS.lo,
        REPS.hi,
        key=REPS.name,
        help="Simulated collections per method (0: exact values only).",
    )
    d[1].number_input("Seed", SEED.lo, SEED.hi, key=SEED.name)
    d[2].toggle(
        "Norm-Sub the simulated estimates",
        key=NORM_SUB.name,
        help="Set the flat estimates and each tree level's to non-negative values summing to "
        "1 (negatives to 0, one δ off the rest), before BLUE; AHEAD always does. Biased: the "
        "lines stay those of the unbiased estimates, and the markers show what it changes.",
    )


def body(view: View | None) -> None:
    """The main chart, what it shows, the key averages, one section, the prose."""
    assert view is not None
    detail: lr.Detail = view.detail
    s, c = detail.setting, detail.curves
    if note := lr.eps_note(s):
        st.info(note, icon=":material/tune:")
    names = s.names()
    present.show_chart(
        view.figure,
        view.stamp,
        key="lr_chart_length",
        alt=(
            f"Variance of a range's estimated fraction against its length on log axes for "
            f"{', '.join(names.values())}: lines exact, markers simulated (AHEAD has "
            "markers only: no closed form)."
        ),
    )
    for paragraph in main_caption(s, c).split("\n\n"):
        st.caption(paragraph)
    notes = domain_notes(s)
    if notes:
        st.caption(" ".join(notes))
    averages = {names[m]: c.averages[m] for m in lr.CLOSED}
    cols = st.columns(len(averages))
    for col, (name, value) in zip(cols, averages.items(), strict=True):
        col.metric(
            f"{name}: all ranges",
            f"{value:.3g}",
            help="Exact average of the variance of a range's estimated fraction over all "
            "D(D+1)/2 ranges, noise only (the data terms left out).",
        )
    downloads.csv_button("Download the curves (CSV)", c.table, "ldp_ranges_by_length.csv")
    sections("Below the chart", SECTION, SECTIONS, s)
    present.prose(references.prose("ldp_ranges.md"))


def main_caption(s: Setting, c: lr.Curves) -> str:
    """What the main chart plots, in which units, what is exact and what is simulated."""
    text = (
        "Plotted: the variance of a range's estimated fraction of users (fraction², no unit; "
        "times N² for users²). Lines: exact closed forms with the data terms of the drawn "
        f"population, averaged over the ranges of each length evaluated ({c.starts} evenly "
        "spaced start" + ("s" if c.starts > 1 else "") + " per length). "
    )
    estimand = (
        "Lines and markers measure the error against all N users' histogram"
        + (
            " (with levels sampled, the trees' lines include the exact term of the random "
            "split of the users into equal level groups, which the simulation draws)"
            if s.levels == "sample"
            else ""
        )
        + "; HaarHRR's line includes the exact term of each user's independent choice of "
        "level, as its simulation draws it. "
        f"AHEAD ({references.cite('du-2021')}; fan-out {lr.AHEAD_FANOUT} on the domain "
        "padded to a power of 2, Norm-Sub on each level) has markers only: the tree it "
        "grows depends on the data and on the noise, so its error has no closed form. "
    )
    if s.reps:
        text += (
            f"Markers: the mean squared error of {s.reps} simulated collections on the same "
            "ranges, with 95% intervals (a lower end at 0 is "
            "drawn at a tenth of the mean on the log axis). "
        )
        if s.reps < s.asked:
            text += (
                f"Simulated {s.reps} of the {s.asked} collections asked for: more would take "
                f"over about {lr.SIMULATION_SECONDS:g} s per change on this shared server "
                "(`dpcore.ldp.ranges.simulate_tree` runs any number). "
            )
    else:
        text += "No simulation (repetitions 0). "
    if s.normalise and s.reps:
        text += (
            "Norm-Sub is on: the flat and tree markers are of the estimates after Norm-Sub "
            "(each level non-negative and summing to 1, then BLUE), which is biased and has "
            "no closed form; the lines stay those of the unbiased estimates, so the gap "
            "between markers and line is Norm-Sub's doing (closer on short ranges, often "
            "further on long ones, where its bias adds up). "
        )
    text += (
        "The full range is known exactly by the tree and HaarHRR (its root, 1, is public): "
        "error 0, not drawn on the log axis. "
    )
    text += (
        "\n\n"
        + estimand
        + (
            "The domain and the total N are public; only each user's value is private. "
            "OLH's aggregate draw is an ideal-random-hash model. Teaching tool: numpy's generator "
            "is not a hardened noise source."
        )
    )
    return text


def domain_notes(s: Setting) -> list[str]:
    """What the domain changes: an uneven last level, HaarHRR's padding."""
    notes = []
    d, b = s.domain, s.fanout
    if b ** (lr.tree_levels(d, b)) != d:
        notes.append(
            f"{d:,} bins is not a power of B = {b}: the tree's last level is uneven (some "
            "leaves sit above the deepest level; their users report them at every deeper "
            "level, and the estimates are combined). Allowed: the closed forms are exact."
        )
    if s.padded != d:
        notes.append(
            f"HaarHRR needs a power of 2: its domain is padded from {d:,} to {s.padded:,} "
            "items (the extra ones empty), which adds levels and so error."
        )
    return notes


def fanout_section(s: Setting) -> None:
    table = sec.fanout_table(s)
    best = {str(col): int(table["B"].iloc[int(table[col].argmin())]) for col in table.columns[1:]}
    present.show_chart(
        figures.error_vs_fanout(table, domain=s.domain),
        s.stamp(),
        key="lr_chart_fanout",
        alt=(
            f"Each model's average over all ranges divided by its own minimum, against the "
            f"fan-out: local DP is best at B = {best['LDP + BLUE']} with BLUE and "
            f"{best['LDP raw']} raw; central DP at {best['central + BLUE']} with BLUE and "
            f"{best['central raw']} raw."
        ),
    )
    st.caption(
        "Each curve divided by its own minimum (exact averages over all ranges, noise only): "
        "local DP in fraction² (the page's oracle and levels), central DP in counts² "
        f"(Laplace, ε = {s.eps:g} split over the levels; raw with the root measured, BLUE "
        f"without it, H_b {references.cite('qardaji-2013')}). Under local DP with sampled "
        "levels the levels share people, each report at the full ε, so the error grows like "
        "(B−1)h² and the best fan-out is near 5; under central DP they share the budget, "
        "(B−1)h³, best near 16."
    )
    blue = table[["B", "LDP + BLUE", "central + BLUE"]]
    ldp = float(blue["LDP + BLUE"].min())
    central = float(blue["central + BLUE"].min()) / s.users**2
    st.markdown(
        f"At their best fan-outs, with BLUE: local DP's average variance of a fraction "
        f"{ldp:.3g}; central DP's, as a fraction of N = {s.users:,} ({'÷ N²'}), "
        f"{central:.3g}: **{ldp / central:,.0f} times smaller** with a trusted curator."
    )
    downloads.csv_button("Download the table (CSV)", table, "ldp_ranges_by_fanout.csv")


def crossover_section(s: Setting) -> None:
    cross = sec.crossover(s)
    names = s.names()
    at = cross.crossings
    present.show_chart(
        figures.crossover(
            cross.table, {m: names[m] for m in lr.CLOSED}, at, eps=s.eps, domain=cross.domain
        ),
        s.stamp(),
        key="lr_chart_cross",
        alt=_crossover_words(names, at),
    )
    padded = (
        f" Both on the domain padded to {cross.domain:,} items, so that HaarHRR and the tree "
        "answer the same ranges."
        if cross.domain != s.domain
        else ""
    )
    st.caption(
        "Exact averages over all ranges, noise only, at N = "
        f"{s.users:,} (every curve is ∝ 1/N, so where they cross does not depend on N)."
        f"{padded} {_crossover_words(names, at)} "
        f"{references.cite('cormode-2019')} found the wavelet best at high privacy and the "
        "consistent tree at weaker privacy."
    )
    downloads.csv_button("Download the averages (CSV)", cross.table, "ldp_ranges_by_eps.csv")


def _crossover_words(names: dict[str, str], at: dict[str, float | None]) -> str:
    words = []
    for tree in ("blue", "raw"):
        if at[tree] is None:
            words.append(f"HaarHRR and {names[tree]} do not cross for ε in 0.05–10.")
        else:
            words.append(f"HaarHRR is better below ε* = {at[tree]:.3g} and {names[tree]} above it.")
    return " ".join(words)


def release_section(s: Setting) -> None:
    frame = sec.one_release(s)
    width = sec.display_groups(s.domain)
    names = s.names()
    errors = {names[m]: float(np.abs(frame[names[m]] - frame["true"]).max()) for m in lr.METHODS}
    worst = ", ".join(f"{name} {value:.3g}" for name, value in errors.items())
    present.show_chart(
        figures.release(frame, {m: names[m] for m in lr.METHODS}, width=width),
        s.stamp(),
        key="lr_chart_release",
        alt=(
            f"The population's fraction in each of {len(frame)} adjacent ranges as bars, and "
            f"one simulated answer per method; the largest error: {worst}."
        ),
    )
    st.caption(
        f"One simulated collection (the first of the main chart's, seed {s.seed}), "
        f"{len(frame)} adjacent ranges of {width} bin{'s' if width > 1 else ''}: the raw "
        "tree answers each by its canonical decomposition, the others sum their items' "
        "estimates. Single bins are not shown: at ε = "
        f"{s.eps:g} and N = {s.users:,} a bin's noise drowns its fraction. Largest error of "
        f"a range: {worst}."
    )
    downloads.csv_button("Download the answers (CSV)", frame, "ldp_ranges_release.csv")


SECTIONS: dict[str, Section[Setting]] = {
    "fanout": Section("Error vs fan-out", fanout_section, cost=sec.fanout_cost),
    "crossover": Section(
        "Haar or tree: the ε crossover", crossover_section, cost=sec.crossover_cost
    ),
    "release": Section("One release vs the truth", release_section, cost=sec.release_cost),
}
SECTION = ChoiceParam("lr_show", "fanout", tuple(SECTIONS))


PAGE = Page(
    key="ldp_ranges",
    title="Range queries under local DP",
    icon=":material/stacked_bar_chart:",
    group="Local DP",
    blurb=(
        "Range queries when every user randomises her own value: flat oracles, hierarchical "
        "histograms (raw and consistent) and HaarHRR, exact against simulated; the best "
        "fan-out against central DP, and where the wavelet beats the tree."
    ),
    notice=(
        "Under [local DP](glossary#ldp) a tree's levels share *people*, not budget, so its "
        "best fan-out is smaller than under central DP (about 5 against 17 for large "
        "domains); consistency (BLUE) cuts the tree's error about threefold, and HaarHRR wins "
        "at small ε while the consistent tree wins above ε ≈ 1 [@cormode-2019]."
    ),
    caption=(
        "N users drawn from the sidebar histogram's shape each hold one value; each method "
        "collects their reports under ε-local DP and answers range queries (Cormode, Kulkarni "
        "and Srivastava, PVLDB 2019). "
        "Exact variances beside simulated collections. Teaching and exploration tool: numpy's "
        "generator is not a hardened noise source."
    ),
    data=(
        "the sidebar histogram's shape (its counts ÷ their total, its bins as the domain), "
        "from which N users are drawn; N is set in Settings."
    ),
    params=(*lr.PARAMS, SECTION),
    pinned=lr.PINNED,
    controls=controls,
    cost=lr.cost,
    view=lr.view,
    body=body,
)
