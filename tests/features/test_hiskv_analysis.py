"""Analysis of the HISKV reconstruction: PCKV-GRR is the value-share family's endpoint, the
printed probabilities overspend, and OETL's length costs users (independent derivations)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.ldp import hiskv, pckv, privacy
from dpcore.ldp import hiskv_analysis as analysis
from dpcore.ldp.data import from_pairs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("eps", "d", "length"), [(0.5, 5, 1), (1.6, 100, 33), (3.2, 20, 4)])
def test_share_one_is_pckv_grr(eps: float, d: int, length: int) -> None:
    """PCKV-GRR outputs <k, v> w.p. a p, <k, -v> w.p. a (1 - p), any other pair w.p. b / 2."""
    g = pckv.grr_probabilities(eps, d, length)
    h = hiskv.pair_probabilities(eps, d, length, value_share=1.0, amplified=True)
    assert (h.p1, h.q1, h.q2) == pytest.approx((g.a * g.p, g.a * (1 - g.p), g.b / 2))


@pytest.mark.parametrize(
    ("eps", "tilt", "d", "length"), [(1.0, 2.0, 3, 2), (0.4, 5.0, 2, 1), (1.6, 3.0, 100, 33)]
)
def test_printed_probabilities_overspend_by_the_closed_form(
    eps: float, tilt: float, d: int, length: int
) -> None:
    printed = analysis.printed_probabilities(eps, d, length, tilt)
    pairs = 2 * (d + length)
    # ln(p1 / q2) while p1 >= q1; a tilt past p1 makes q1 / q2 = tilt the worst ratio
    expected = max(eps + math.log((tilt + pairs - 2) / (pairs - 1)), math.log(tilt))
    assert analysis.report_epsilon(printed) == pytest.approx(expected)
    assert privacy.worst_log_ratio(printed.matrix()) == pytest.approx(expected)
    if printed.p1 >= printed.q1:  # then it is the valid split at eps_true, eps_v = eps_true - ln t
        valid = hiskv.perturbation_probabilities(expected, d, length, expected - math.log(tilt))
        assert (printed.p1, printed.q1, printed.q2) == pytest.approx(valid)


def test_issue_example_1_105_at_claimed_eps_1() -> None:
    """d = 3, L = 2 (D = 10), tilt 2: 1 + ln(10 / 9) = 1.1054."""
    report, whole = analysis.printed_check(1.0, 2.0, 3, 2)
    assert report == pytest.approx(1 + math.log(10 / 9)) and round(report, 3) == 1.105
    assert analysis.printed_check(1.0, 1.0, 3, 2)[0] == pytest.approx(1.0)
    assert whole <= report


def test_length_cost_same_length_variance_scales_with_reporters() -> None:
    """Every user holds 3 keys: OETL at a large eps finds L = 3 = the 90th percentile, so the
    only difference is that (1 - beta) n users report: variance x 1 / (1 - beta). (eps = 10 is
    the largest the LDP mechanisms accept.)"""
    n, d = 2000, 6
    rng = np.random.default_rng(1)
    keys = np.concatenate([rng.choice(d, 3, replace=False) for _ in range(n)])
    data = from_pairs(np.repeat(np.arange(n), 3), keys, rng.uniform(-1, 1, 3 * n), d)
    cost = analysis.length_cost(
        data, 10.0, 0.2, 3, value_share=0.5, amplified=False, runs=3, seed=0
    )
    assert cost.pckv_length == 3 and (cost.oetl_lengths == 3).all()
    assert cost.pckv[0] == pytest.approx(0, abs=1e-15) and cost.oetl[0] == pytest.approx(
        0, abs=1e-15
    )
    assert cost.oetl[1] == pytest.approx(cost.pckv[1] * n / (n - 0.2 * n))


def test_page_shows_the_analysis() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "kv_ldp.py"), default_timeout=300)
    at.query_params["kv_show"] = "hiskv"  # the section below the accuracy charts
    at.run()
    assert not at.exception
    assert any("analysis of a reconstruction" in h.value for h in at.header)
    labels = {m.label: m.value for m in at.metric}
    assert labels["True ε of one report claimed 1-LDP (exact check, d = 3, L = 2)"] == "1.105"
    printed = next(d.value for d in at.dataframe if "true ε* per report" in d.value.columns)
    assert printed["true ε* per report"].iloc[0] > printed["claimed ε* per report"].iloc[0]
    assert any("PCKV: 90th percentile" in str(d.value.iloc[0, 0]) for d in at.dataframe)
    at.slider(key="kv_tilt").set_value(1.0).run()
    labels = {m.label: m.value for m in at.metric}
    assert labels["True ε of one report claimed 1-LDP (exact check, d = 3, L = 2)"] == "1"
    assert at.query_params["kv_tilt"] in ("1", ["1"])
