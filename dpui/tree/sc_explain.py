"""The Tree page's Struct-Construct explanation: Hval(L, R, w) for any node and fan-out.

Struct-Construct gives a node ``[L, R]`` (not starting at bin 1) the fan-out ``w`` whose
``w``-ary subtree has the least total coverage ``Hval(L, R, w)``; here a reader evaluates
that sum for a node of their choice, for every candidate ``w`` (the LUE-DPTree chapter's
example 3.4 is the default: n = 5, node [3, 5] under the root [1, 5]).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dpcore.hist import tree
from dpui.kit import state
from dpui.kit.params import IntParam

MAX_N = 65_536  # Hval sums over the node's bins: keep one evaluation well under a second
N = IntParam("sc_n", 5, 2, MAX_N)
LO = IntParam("sc_lo", 3, 1, MAX_N)
HI = IntParam("sc_hi", 5, 1, MAX_N)
PARENT_LO = IntParam("sc_plo", 1, 1, MAX_N)
PARENT_HI = IntParam("sc_phi", 5, 1, MAX_N)
FANOUT = IntParam("sc_w", 3, 2, tree.MAX_FANOUT)
PARAMS = (N, LO, HI, PARENT_LO, PARENT_HI, FANOUT)


def node_problem(n: int, lo: int, hi: int, parent_lo: int, parent_hi: int) -> str | None:
    """What is wrong with the node ``[lo, hi]`` under ``[parent_lo, parent_hi]`` (1-based)."""
    if not 1 <= parent_lo <= lo <= hi <= parent_hi <= n:
        return (
            f"Need 1 ≤ parent's first bin ≤ first bin ≤ last bin ≤ parent's last bin ≤ n; got "
            f"parent [{parent_lo}, {parent_hi}], node [{lo}, {hi}], n = {n}."
        )
    if (lo, hi) == (parent_lo, parent_hi):
        return f"The node [{lo}, {hi}] must be strictly inside its parent."
    if lo == hi:
        return f"The node [{lo}, {hi}] is a single bin: a leaf has no fan-out to choose."
    return None


def hval_table(n: int, lo: int, hi: int, parent_lo: int, parent_hi: int) -> pd.DataFrame:
    """``Hval`` for every fan-out from 2 to ``min(20, R - L + 1)`` (inputs 1-based)."""
    ws = range(2, min(tree.MAX_FANOUT, hi - lo + 1) + 1)
    values = [
        tree.subtree_coverage_sum(n, lo - 1, hi - 1, parent_lo - 1, parent_hi - 1, w) for w in ws
    ]
    return pd.DataFrame({"fan-out w": list(ws), "Hval(L, R, w)": values})


def render() -> None:
    """The section (open: the page shows it on request): inputs (kept in the URL), Hval for
    the chosen w, and the table over w."""
    state.load(PARAMS)
    with st.expander("How Struct-Construct picks a node's fan-out: Hval(L, R, w)", expanded=True):
        st.markdown(
            "Struct-Construct (LUE-DPTree) splits nodes that start at bin 1 into k* parts; "
            "every other node [L, R] takes the fan-out w in [k*, 20] whose w-ary subtree has "
            "the smallest **Hval(L, R, w)**: the sum of the uniform-workload coverage "
            "probabilities of all nodes of that subtree, the node's own coverage computed with "
            "its real parent. Fewer nodes used per query and shorter paths mean less noise. "
            "Bins are 1-based here, as in the chapter."
        )
        cols = st.columns(6)
        cols[0].number_input("n (bins)", N.lo, N.hi, key=N.name)
        cols[1].number_input("first bin L", LO.lo, LO.hi, key=LO.name)
        cols[2].number_input("last bin R", HI.lo, HI.hi, key=HI.name)
        cols[3].number_input("parent's first bin", PARENT_LO.lo, PARENT_LO.hi, key=PARENT_LO.name)
        cols[4].number_input("parent's last bin", PARENT_HI.lo, PARENT_HI.hi, key=PARENT_HI.name)
        cols[5].number_input("fan-out w", FANOUT.lo, FANOUT.hi, key=FANOUT.name)
        n, lo, hi, plo, phi, w = (int(state.get(p)) for p in PARAMS)
        problem = node_problem(n, lo, hi, plo, phi)
        if problem:
            st.error(problem, icon=":material/error:")
        else:
            table = hval_table(n, lo, hi, plo, phi)
            ws, hvals = table["fan-out w"].to_numpy(), table["Hval(L, R, w)"].to_numpy()
            w_used = min(w, hi - lo + 1)
            value = float(hvals[ws == w_used][0])
            note = f" (a range of {hi - lo + 1} bins splits into single bins)" if w > w_used else ""
            st.markdown(
                f"**Hval({lo}, {hi}, {w}) = {value:.4f}**{note}"
                f"; the smallest over w is {hvals.min():.4f} at w = "
                f"{int(ws[hvals.argmin()])} (Struct-Construct only considers w ≥ k* = "
                f"{tree.best_fanout(n)} for n = {n})."
            )
            st.dataframe(table, hide_index=True, height=min(300, 40 + 35 * len(table)))
    state.save(PARAMS)
