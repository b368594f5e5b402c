"""Shipped p-Identity strategies: each is the optimiser's own output (re-optimised here and
compared), its loss and sensitivity are computed from the stored Θ on loading, and the file
stores nothing else than Θ and the arguments that produced it."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.hist import pidentity, pidentity_store
from dpcore.hist.workload import parse_workload, workload_ranges

# The search is deterministic (seeded starts, one BLAS thread); another BLAS may round
# differently over 300 iterations. 1e-6 is far below the 0.2-0.8 % between the local optima
# of different starts (measured at n = 142 and 1,024), so a file made by another optimiser
# or other defaults fails.
SAME_SEARCH = 1e-6


def _dense_loss(theta: np.ndarray) -> float:
    """tr(W^T W (A^T A)^{-1}) with W every range listed as a row (brute force)."""
    n = theta.shape[1]
    a, b = workload_ranges(n, "uniform")
    cols = np.arange(n)
    w = ((cols >= a[:, None]) & (cols <= b[:, None])).astype(float)
    strategy = np.vstack((np.eye(n), theta)) / (1.0 + theta.sum(axis=0))
    return float(np.trace(w.T @ w @ np.linalg.inv(strategy.T @ strategy)))


def test_the_file_holds_each_strategy_and_the_arguments_that_made_it_nothing_else():
    bins = pidentity_store.stored_bins()
    assert bins == pidentity_store.SHIPPED_BINS
    with np.load(pidentity_store.STORE) as stored:
        names = set(stored)
        kinds = {name: stored[name].dtype for name in names}
    assert names == {f"{k}_{n}" for n in bins for k in ("theta", "settings")}
    assert all(kinds[f"theta_{n}"] == np.float64 for n in bins)
    assert all(kinds[f"settings_{n}"] == np.int64 for n in bins)
    assert pidentity_store.STORE.stat().st_size < 400_000  # small package data


@pytest.mark.parametrize("n", pidentity_store.SHIPPED_BINS)
def test_a_shipped_strategy_s_loss_and_sensitivity_come_from_its_theta(n):
    shipped = pidentity_store.load(n)
    assert shipped is not None
    theta = shipped.theta
    assert theta.shape == (pidentity.default_rows(n), n) and np.all(theta >= 0)
    assert shipped.workload == parse_workload("uniform", n)
    assert shipped.loss == pytest.approx(
        pidentity.loss_and_gradient(theta, "uniform").loss, rel=1e-12
    )
    assert shipped.sensitivity == pytest.approx(1.0, abs=1e-12)  # columns scaled to L1 norm 1
    m = n * (n + 1) // 2
    assert shipped.expected_error(1.0) == pytest.approx(2.0 * shipped.loss / m, rel=1e-12)
    if n <= 142:  # dense brute force: every range a row of W, the strategy a dense matrix
        assert shipped.loss == pytest.approx(_dense_loss(theta), rel=1e-9)
        assert shipped.sensitivity == pytest.approx(
            np.abs(shipped.matrix()).sum(axis=0).max(), rel=1e-12
        )


@pytest.mark.parametrize("n", [16, 142, pytest.param(1024, marks=pytest.mark.slow)])
def test_a_shipped_strategy_is_what_the_optimiser_returns(n):
    assert pidentity_store.settings(n) == (
        pidentity.default_rows(n),
        pidentity.default_starts(n),
        pidentity.MAX_ITER,
        0,
    )
    fresh = pidentity.optimise(n)  # its defaults: what the app computes for other n
    shipped = pidentity_store.load(n)
    assert shipped is not None
    assert shipped.loss == pytest.approx(fresh.loss, rel=SAME_SEARCH)
    assert shipped.expected_error(1.0) == pytest.approx(fresh.expected_error(1.0), rel=SAME_SEARCH)


def test_write_regenerates_and_load_refuses_what_it_does_not_hold(tmp_path):
    path = tmp_path / "strategies.npz"
    pidentity_store.write(path, bins=(16,))
    assert pidentity_store.stored_bins(path) == (16,)
    made = pidentity_store.load(16, path)
    shipped = pidentity_store.load(16)
    assert made is not None and shipped is not None
    assert made.loss == pytest.approx(shipped.loss, rel=SAME_SEARCH)
    assert pidentity_store.load(17, path) is None
    # made with other arguments than the optimiser's defaults: not served
    other = tmp_path / "other.npz"
    np.savez(other, theta_16=made.theta, settings_16=np.array([1, 1, 300, 0]))
    assert pidentity_store.load(16, other) is None
    np.savez(other, theta_16=made.theta[:, :8], settings_16=np.array(pidentity_store.settings(16)))
    assert pidentity_store.load(16, other) is None
