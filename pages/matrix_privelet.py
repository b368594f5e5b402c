"""Matrix mechanism / Privelet: the Haar matrices, the covariance B Bᵀ and one range's error."""

from dpui.errors.matrix_page import PAGE
from dpui.kit.page import run

run(PAGE)
