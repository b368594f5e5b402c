"""The Matrix mechanism / Privelet page, declared: its settings, its view
(:mod:`dpui.errors.matrix`) and the body (sizes, the three matrices, the range's error)."""

from __future__ import annotations

import streamlit as st

from dpui.errors import figures
from dpui.errors import matrix as mp
from dpui.errors.matrix import LEFT, RELEASES, RIGHT, SEED, N
from dpui.kit import downloads, present, references
from dpui.kit.page import Page, View


def controls() -> None:
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.number_input("Bins n", N.lo, N.hi, key=N.name, help="Matrices are n × n: keep n small.")
    c2.number_input("Range: first bin l", LEFT.lo, LEFT.hi, key=LEFT.name)
    c3.number_input("Range: last bin r", RIGHT.lo, RIGHT.hi, key=RIGHT.name)
    c4.number_input("Simulated releases", RELEASES.lo, RELEASES.hi, step=1000, key=RELEASES.name)
    c5.number_input("Noise seed", SEED.lo, SEED.hi, key=SEED.name)


def how_it_works() -> None:
    with st.expander("How it works", expanded=False):
        st.markdown(references.prose("matrix_privelet.md"))


def body(view: View | None) -> None:
    """The sizes, the covariance (the view's figure) with its formulas, the strategy and
    reconstruction matrices, then the range's error three ways and simulated."""
    assert view is not None
    detail: mp.Detail = view.detail
    mats, eps = detail.mats, detail.eps
    n = int(mats.covariance.shape[0])
    m = st.columns(4)
    m[0].metric("Bins n", n)
    m[1].metric("Transform size N", mats.padded, help="n zero-padded to a power of two.")
    m[2].metric(
        "Sensitivity Δ_A = h + 1", f"{mats.sensitivity:g}", help="Largest column L1 norm of A."
    )
    m[3].metric("Noise variance per coefficient", f"{2 * mats.sensitivity**2 / eps**2:.4g}")

    cov_col, text_col = present.columns([3, 2])
    present.show_chart(view.figure, view.stamp, key="mp_covariance", where=cov_col)
    text_col.latex(r"\mathrm{MSE}([l,r]) = \frac{2(h+1)^2}{\varepsilon^2}\; w^\top B B^\top w")
    text_col.latex(r"\Sigma_{ii} = \tfrac{1 + 2\cdot 4^{-h}}{3}")  # one per line: fits the column
    text_col.latex(r"\Sigma_{ij} = \Phi_k = \tfrac{2}{3}\left(4^{-h} - 4^{-k}\right)")
    text_col.markdown(
        "with $k$ the height of the lowest common ancestor of bins $i \\neq j$. The dashed box "
        "is the chosen range's sub-matrix: its sum is the range's error coefficient."
    )
    downloads.csv_button(
        "Download B Bᵀ (CSV)",
        mp.covariance_csv(n),
        f"privelet_covariance_n{mats.padded}.csv",
        where=text_col,
    )

    a_col, b_col = present.columns([1, 1])
    present.show_chart(
        figures.matrix_heatmap(mats.strategy, title="Strategy A (rows: total, then nodes)"),
        {"n": n},
        key="mp_strategy",
        where=a_col,
    )
    present.show_chart(
        figures.matrix_heatmap(mats.reconstruction, title="Reconstruction B = A⁻¹"),
        {"n": n},
        key="mp_reconstruction",
        where=b_col,
    )

    if detail.problem is not None or detail.table is None:
        st.error(
            f"{detail.problem} Change the range in Settings; nothing is computed for an "
            "invalid range."
        )
        how_it_works()
        return
    st.header(f"The error of range {view.stamp['range']}, three ways and simulated")
    present.table(detail.table)
    st.caption(
        f"ε = {eps:g} (sidebar). The simulation releases an all-zero histogram: Privelet's error "
        "does not depend on the data. The interval is a normal-approximation 95% CI."
    )
    downloads.csv_button("Download the comparison (CSV)", detail.table, "privelet_range_error.csv")
    how_it_works()


PAGE = Page(
    key="matrix_privelet",
    title="Matrix mechanism / Privelet",
    icon=":material/grid_on:",
    group="Central DP: histograms",
    blurb=(
        "Privelet's Haar strategy and reconstruction matrices, the covariance B Bᵀ, and one "
        "range's error three ways: the closed form, a sub-matrix sum of B Bᵀ, and simulation."
    ),
    notice=(
        "A range's error is the sum of a whole block of B Bᵀ, covariances included: for "
        "Privelet the diagonal alone (the bins' own variances) is wrong for every range longer "
        "than one bin except the two middle bins [N/2, N/2+1], whose covariance is 0 "
        "[@wu-2018]."
    ),
    caption=(
        "Privelet's Haar strategy and reconstruction as matrices, the covariance of its output,"
        " and the error of one range computed three ways. Teaching and exploration tool: "
        "numpy's generator is not a hardened noise source."
    ),
    data=(
        "none: Privelet's error does not depend on the data, so the matrices are for the n "
        "bins set in Settings and the simulation releases an all-zero histogram (only the "
        "sidebar's ε is used)."
    ),
    params=mp.PARAMS,
    pinned=mp.PINNED,
    controls=controls,
    cost=mp.cost,
    view=mp.view,
    body=body,
)
