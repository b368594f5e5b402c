"""The Matrix mechanism / Privelet page, declared."""

from dpui.kit.page import Page

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
)
