"""Matrix mechanism / Privelet: the Haar matrices, the covariance B Bᵀ and one range's error."""

import streamlit as st

from dpui.errors import figures as figures
from dpui.errors import matrix as view
from dpui.errors.matrix import LEFT, RELEASES, RIGHT, SEED, N
from dpui.errors.matrix_page import PAGE
from dpui.kit import downloads, present, references, sidebar, state

present.header(PAGE)
sidebar.shared_controls()
eps = sidebar.current_epsilon()
state.load(view.PARAMS)

with present.settings_panel():
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.number_input("Bins n", N.lo, N.hi, key=N.name, help="Small n only: matrices are n × n.")
    c2.number_input("Range: first bin l", LEFT.lo, LEFT.hi, key=LEFT.name)
    c3.number_input("Range: last bin r", RIGHT.lo, RIGHT.hi, key=RIGHT.name)
    c4.number_input("Simulated releases", RELEASES.lo, RELEASES.hi, step=1000, key=RELEASES.name)
    c5.number_input("Noise seed", SEED.lo, SEED.hi, key=SEED.name)
state.save(view.PARAMS)

n = int(st.session_state[N.name])
left, right = int(st.session_state[LEFT.name]), int(st.session_state[RIGHT.name])
mats = view.matrices(n)

m = st.columns(4)
m[0].metric("Bins n", n)
m[1].metric("Transform size N", mats.padded, help="n zero-padded to a power of two.")
m[2].metric("Sensitivity Δ_A = h + 1", f"{mats.sensitivity:g}", help="Largest column L1 norm of A.")
m[3].metric("Noise variance per coefficient", f"{2 * mats.sensitivity**2 / eps**2:.4g}")

problem = view.range_problem(n, left, right)
settings = {"n": n, "range": None if problem else f"[{left}, {right}]"}
cov_col, text_col = present.columns([3, 2])
present.show_chart(
    figures.matrix_heatmap(
        mats.covariance,
        title="Covariance Σ = B Bᵀ (unit noise)",
        outline=None if problem else (left, right),
    ),
    settings,
    key="mp_covariance",
    where=cov_col,
)
text_col.latex(r"\mathrm{MSE}([l,r]) = \frac{2(h+1)^2}{\varepsilon^2}\; w^\top B B^\top w")
text_col.latex(r"\Sigma_{ii} = \tfrac{1 + 2\cdot 4^{-h}}{3}")  # one per line: fits the column
text_col.latex(r"\Sigma_{ij} = \Phi_k = \tfrac{2}{3}\left(4^{-h} - 4^{-k}\right)")
text_col.markdown(
    "with $k$ the height of the lowest common ancestor of bins $i \\neq j$. The dashed box is "
    "the chosen range's sub-matrix: its sum is the range's error coefficient."
)
downloads.csv_button(
    "Download B Bᵀ (CSV)",
    view.covariance_csv(n),
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

if problem:
    st.error(problem + " Change the range in Settings; nothing is computed for an invalid range.")
    with st.expander("How it works", expanded=False):
        st.markdown(references.prose("matrix_privelet.md"))
    st.stop()
st.subheader(f"The error of range [{left}, {right}], three ways and simulated")
bar = st.progress(0.0, text="Simulating Privelet releases…")
table = view.three_ways(
    n,
    left,
    right,
    eps,
    int(st.session_state[RELEASES.name]),
    int(st.session_state[SEED.name]),
    progress=lambda f: bar.progress(f, text="Simulating Privelet releases…"),
)
bar.empty()
present.table(table)
st.caption(
    f"ε = {eps:g} (sidebar). The simulation releases an all-zero histogram: Privelet's error does "
    "not depend on the data. The interval is a normal-approximation 95% CI."
)
downloads.csv_button("Download the comparison (CSV)", table, "privelet_range_error.csv")
with st.expander("How it works", expanded=False):
    st.markdown(references.prose("matrix_privelet.md"))
