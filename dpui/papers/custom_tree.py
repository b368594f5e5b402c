"""The Paper experiments page's custom-tree view: a typed tree, hand-set budgets, scores.

The tree text and the budgets (one per line, in the same order) live in the URL. The tree
is typed in the page's settings; the budget table is a ``st.data_editor`` below the view,
whose edits are folded into the URL's budgets as they happen (so the view, computed before
the table is drawn, and a pinned view see them). The editor starts afresh from the URL's
budgets whenever the tree or the budgets change outside it.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from numpy.typing import NDArray

from dpcore.hist import budget, consistent_budget, coverage
from dpcore.hist import custom_tree as ct
from dpui.kit import present, sidebar, state
from dpui.kit.page import Inputs, Refused, View
from dpui.kit.params import TextParam
from dpui.papers import figures
from dpui.tree import figures as tree_figures

FIG_3_14B = "1 4\n1 1\n2 3\n4 4\n2 2\n3 3"
FIG_3_14B_BUDGETS = ",".join(f"{b:.10g}" for b in (1 / 3, 2 / 3, 1 / 3, 2 / 3, 1 / 3, 1 / 3))
TREE_TEXT = TextParam("px_ct_tree", FIG_3_14B, 12_000)
BUDGETS = TextParam("px_ct_eps", FIG_3_14B_BUDGETS, 20_000)
PARAMS = (TREE_TEXT, BUDGETS)
AUTO_BLUE_NODES = 250
"""Above this many nodes the numerical optimum after BLUE waits for a button (seconds)."""
TOLERANCE = 1e-9
"""Relative slack before a path sum counts as exceeding ε (the URL keeps 10 digits)."""
BUDGET_COLUMN = "budget ε_x"


def encode_budgets(values: np.ndarray) -> str:
    return ",".join(f"{float(v):.10g}" for v in values)


def decode_budgets(text: str, size: int) -> np.ndarray | None:
    """Budgets from the URL text, or None if they do not fit the tree (wrong count, not numbers)."""
    try:
        values = np.array([float(v) for v in text.split(",") if v.strip()], dtype=np.float64)
    except ValueError:
        return None
    return values if values.size == size else None


@st.cache_data(max_entries=16, show_spinner=False)
def parse(text: str) -> ct.CustomTree | str:
    """The validated tree, or the message saying what is wrong."""
    try:
        return ct.parse_tree(text)
    except ct.CustomTreeError as err:
        return str(err)


def uniform_by_line(custom: ct.CustomTree, eps: float) -> np.ndarray:
    return np.asarray(budget.uniform_budgets(custom.tree, eps)[custom.node_of_line])


def optimum_by_line(custom: ct.CustomTree, eps: float) -> np.ndarray:
    p = coverage.coverage_probabilities(custom.tree)
    return np.asarray(budget.optimal_budgets(custom.tree, eps, p)[custom.node_of_line])


@st.cache_data(max_entries=16, show_spinner="Optimising budgets for the error after BLUE…")
def blue_optimum(text: str, eps: float) -> np.ndarray:
    """Per-node budgets minimising the exact error after BLUE (numerical; per tree node)."""
    custom = parse(text)
    assert isinstance(custom, ct.CustomTree)
    return consistent_budget.consistent_optimal_budgets(custom.tree, eps, granularity="node")


def scores_table(custom: ct.CustomTree, rows: dict[str, np.ndarray]) -> pd.DataFrame:
    scored = {name: ct.score(custom.tree, b) for name, b in rows.items()}
    return pd.DataFrame(
        {
            "budgets": list(scored),
            "release ε (max path sum)": [s.release_epsilon for s in scored.values()],
            "raw error": [s.raw_error for s in scored.values()],
            "error after BLUE": [s.blue_error for s in scored.values()],
        }
    )


BASE, VERSION, BASE_TREE = "px_ct_base", "px_ct_version", "px_ct_base_tree"
"""Session keys: the budgets the editor started from, its generation, and for which tree.

The editor keeps the user's edits relative to its starting table, so that table (and the
editor's key) change only when the budgets are replaced as a whole: a button, a new tree.
"""


def _restart_editor(values: str) -> None:
    st.session_state[BUDGETS.name] = st.session_state[BASE] = values
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def _load_example() -> None:
    st.session_state[TREE_TEXT.name] = FIG_3_14B
    _restart_editor(FIG_3_14B_BUDGETS)


def controls() -> None:
    """The tree's text and the example button (in the page's settings)."""
    st.text_area(
        "Intervals: one node per line, first and last bin",
        key=TREE_TEXT.name,
        height=240,
        max_chars=TREE_TEXT.max_chars,
        help=f"E.g. '2 3' or '2-3'; one number is a single bin. Up to {ct.MAX_NODES} nodes; "
        "every bin must be a leaf and each node's children must partition it.",
    )
    st.button("Fig. 3.14(b) example", on_click=_load_example)


RAW_OPTIMUM = "per-node optimum for the raw tree (LUE-DPTree)"
BLUE_OPTIMUM = "optimum after BLUE (numerical)"
YOURS = "yours (hand-set)"


@dataclass(frozen=True)
class Custom:
    """One custom-tree view: the tree, the budgets by line (the URL's, or uniform when they
    do not fit the tree), why the hand-set budgets cannot be scored ("" when they can) and
    the scores of every set of budgets scored."""

    text: str
    custom: ct.CustomTree
    eps: float
    by_line: NDArray[np.float64]
    fitted: bool
    problem: str
    scores: pd.DataFrame


def scored(
    custom: ct.CustomTree, text: str, eps: float, hand: NDArray[np.float64] | None, *, blue: bool
) -> pd.DataFrame:
    """The scores of the hand-set budgets (when valid), the raw optimum and, with ``blue``, the
    numerical optimum after BLUE."""
    rows = {} if hand is None else {YOURS: hand}
    rows[RAW_OPTIMUM] = budget.optimal_budgets(
        custom.tree, eps, coverage.coverage_probabilities(custom.tree)
    )
    if blue:
        rows[BLUE_OPTIMUM] = blue_optimum(text, eps)
    return scores_table(custom, rows)


def setup(text: str, budgets: str, eps: float) -> Custom:
    """The view of tree ``text`` with ``budgets``; :class:`Refused` when the tree is invalid."""
    custom = parse(text)
    if isinstance(custom, str):
        raise Refused(f"{custom} Your text is kept; fix it in the settings to continue.")
    by_line = decode_budgets(budgets, custom.lo.size)
    fitted = by_line is not None
    if by_line is None:
        by_line = uniform_by_line(custom, eps)
    try:
        hand, problem = ct.check_budgets(custom, by_line), ""
    except ct.CustomTreeError as err:
        hand, problem = None, str(err)
    scores = scored(custom, text, eps, hand, blue=custom.tree.size <= AUTO_BLUE_NODES)
    return Custom(text, custom, eps, by_line, fitted, problem, scores)


def view(inputs: Inputs) -> View:
    """The scores of the hand-set budgets and the optima as bars; key numbers: the release ε
    and the errors of the hand-set budgets and of the raw optimum."""
    eps = float(inputs[sidebar.EPSILON])
    c = setup(str(inputs[TREE_TEXT]), str(inputs[BUDGETS]), eps)
    by_name = {
        str(row["budgets"]): row for row in c.scores.to_dict("records")
    }  # budgets -> that row's scores
    numbers: dict[str, float] = {"nodes": float(c.custom.tree.size)}
    if YOURS in by_name:
        yours = by_name[YOURS]
        numbers["release ε of your budgets"] = float(yours["release ε (max path sum)"])
        numbers["raw error (yours)"] = float(yours["raw error"])
        numbers["error after BLUE (yours)"] = float(yours["error after BLUE"])
    numbers["raw error (raw optimum)"] = float(by_name[RAW_OPTIMUM]["raw error"])
    numbers["error after BLUE (raw optimum)"] = float(by_name[RAW_OPTIMUM]["error after BLUE"])
    return View(
        f"custom tree of {c.custom.tree.size} nodes over {c.custom.tree.n_bins} bins, ε = {eps:g}",
        figures.custom_scores(c.scores),
        {"ε": eps, "nodes": c.custom.tree.size, "bins": c.custom.tree.n_bins},
        numbers,
        detail=c,
        share="y",
        kind="custom",
        note="Errors: expected squared error of a range, every range equally likely.",
    )


def _fold_edits(editor: str, size: int) -> None:
    """Write the editor's edits (relative to the budgets it started from) into the URL's
    budgets before the rerun, so the view computed before the editor is drawn uses them."""
    base = decode_budgets(str(st.session_state.get(BASE, "")), size)
    edits = st.session_state.get(editor)
    if base is None or not isinstance(edits, dict):
        return
    for row, change in edits.get("edited_rows", {}).items():
        if BUDGET_COLUMN in change:
            value = change[BUDGET_COLUMN]
            base[int(row)] = np.nan if value is None else float(value)
    st.session_state[BUDGETS.name] = encode_budgets(base)


def typed_tree(custom: ct.CustomTree) -> go.Figure:
    """The typed tree drawn as the Tree page draws its trees (root on top, bins left to
    right), coloured by coverage probability, each node's line and budget on hover."""
    tree = custom.tree
    p = coverage.coverage_probabilities(tree)
    nodes = tree_figures.visible_nodes(tree, 0, tree.n_bins - 1)
    line = np.zeros(tree.size)
    line[custom.node_of_line] = np.arange(1, custom.lo.size + 1)
    hover = {"line": line, "p_x": p}
    fig = tree_figures.tree_icicle(
        tree, nodes, 0, tree.n_bins - 1, p, "coverage probability p_x", hover
    )
    fig.update_layout(title=f"Your tree: {tree.size} nodes over {tree.n_bins} bins")
    return fig


def body(shown: View, prose: str) -> None:
    """The budget table, the scores of the hand-set budgets and the optima."""
    c: Custom = shown.detail
    custom, eps, text = c.custom, c.eps, c.text
    st.header("Custom tree and hand-set budgets (LUE-DPTree fig. 3.14(b))")
    present.show_chart(
        typed_tree(custom), {"nodes": custom.tree.size, "ε": eps}, key="custom_tree_drawn"
    )
    present.prose(prose)  # below the figure, as the other experiments: it fits a projector
    left, right = st.columns([1, 2])
    left.caption("The tree's intervals are typed under **Settings**.")
    if st.session_state.get(BASE_TREE) != text or BASE not in st.session_state:
        st.session_state[BASE_TREE] = text
        _restart_editor(str(state.get(BUDGETS)))
    by_line = decode_budgets(str(st.session_state.get(BASE, "")), custom.lo.size)
    if by_line is None:
        by_line = uniform_by_line(custom, eps)
        _restart_editor(encode_budgets(by_line))
        right.info(
            f"The budgets did not match this tree's {custom.lo.size} lines: set to uniform "
            f"ε/Δ = {eps:g}/{custom.tree.height} each.",
            icon=":material/info:",
        )
    b1, b2 = left.columns(2)
    b1.button(
        "Per-node optimum (raw)",
        on_click=_restart_editor,
        args=(encode_budgets(optimum_by_line(custom, eps)),),
        help="LUE-DPTree's closed form for the sidebar's ε.",
    )
    b2.button(
        "Uniform ε/Δ",
        on_click=_restart_editor,
        args=(encode_budgets(uniform_by_line(custom, eps)),),
    )
    p = coverage.coverage_probabilities(custom.tree)[custom.node_of_line]
    table = pd.DataFrame(
        {
            "line": np.arange(1, custom.lo.size + 1),
            "first bin": custom.lo,
            "last bin": custom.hi,
            "coverage p_x": p,
            BUDGET_COLUMN: by_line,
        }
    )
    editor = f"px_ct_editor_{st.session_state.get(VERSION, 0)}"
    edited = right.data_editor(
        table,
        key=editor,
        hide_index=True,
        disabled=["line", "first bin", "last bin", "coverage p_x"],
        column_config={
            BUDGET_COLUMN: st.column_config.NumberColumn(min_value=0.0, format="%.6g"),
            "coverage p_x": st.column_config.NumberColumn(format="%.4f"),
        },
        height=min(420, 40 + 35 * custom.lo.size),
        on_change=_fold_edits,
        args=(editor, custom.lo.size),
    )
    hand = edited[BUDGET_COLUMN].to_numpy(dtype=np.float64, na_value=np.nan)
    st.session_state[BUDGETS.name] = encode_budgets(hand)
    state.save(PARAMS)
    try:
        hand_nodes = ct.check_budgets(custom, hand)
    except ct.CustomTreeError as err:
        st.error(f"{err} The other budgets are kept.", icon=":material/error:")
        return
    digest = hashlib.blake2b(f"{text}|{eps!r}".encode(), digest_size=8).hexdigest()
    blue = custom.tree.size <= AUTO_BLUE_NODES or bool(st.session_state.get(f"px_ct_blue_{digest}"))
    if not blue and st.button(
        f"Compute the optimum after BLUE ({custom.tree.size} nodes: takes seconds)"
    ):
        st.session_state[f"px_ct_blue_{digest}"] = blue = True
    scores = scored(custom, text, eps, hand_nodes, blue=blue)
    release = float(scores["release ε (max path sum)"].iloc[0])
    present.show_chart(figures.custom_scores(scores), shown.stamp, key="px_custom_chart")
    m1, m2, m3 = st.columns(3)
    over = release > eps * (1 + TOLERANCE)
    m1.metric(
        "Release ε of your budgets",
        f"{release:.6g}",
        delta=f"{release - eps:+.3g} over the requested ε" if over else None,
        delta_color="inverse",
    )
    m2.metric("Raw error (yours)", _fmt(float(scores["raw error"].iloc[0])))
    m3.metric("Error after BLUE (yours)", _fmt(float(scores["error after BLUE"].iloc[0])))
    if over:
        st.error(
            f"**Privacy violation**: the largest root-to-leaf sum of your budgets is "
            f"{release:.6g}, more than the requested ε = {eps:g}; this release is only "
            f"{release:.6g}-DP. Lower the budgets on the longest paths.",
            icon=":material/gpp_bad:",
        )
    elif release < eps * (1 - TOLERANCE):
        st.info(
            f"Your budgets spend ε = {release:.6g} of the {eps:g} allowed: raising them on the "
            "paths below the maximum lowers the error at no privacy cost.",
            icon=":material/info:",
        )
    st.dataframe(scores, hide_index=True)
    st.caption(
        f"ε = {eps:g} (sidebar) for the two optima; uniform workload (all "
        f"{custom.tree.n_bins * (custom.tree.n_bins + 1) // 2:,} ranges equally likely). "
        "The raw optimum minimises the raw error; the BLUE optimum the error after BLUE."
    )


def _fmt(value: float) -> str:
    return "∞ (a used node is unmeasured)" if math.isinf(value) else f"{value:.4g}"
