"""Custom trees and hand-set budgets: LUE-DPTree fig. 3.14(b) by brute force, validation that
names the offending node, and the Paper experiments page showing both."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dpcore.hist import budget, coverage
from dpcore.hist import custom_tree as ct
from tests.oracles import coverage_by_enumeration, strategy_matrix, workload_ranges

ROOT = Path(__file__).resolve().parents[2]
FIG = "1 4\n1 1\n2 3\n4 4\n2 2\n3 3"
# fig. 3.14(b): the root and [2, 3] get 1/3, [1] and [4] 2/3, [2] and [3] 1/3 (every path: 1)
HAND = [
    Fraction(1, 3),
    Fraction(2, 3),
    Fraction(1, 3),
    Fraction(2, 3),
    Fraction(1, 3),
    Fraction(1, 3),
]


def _coverage_by_hand() -> list[Fraction]:
    """p_x of the six lines of FIG: count the 10 ranges whose canonical decomposition uses x."""
    nodes = [(1, 4), (1, 1), (2, 3), (4, 4), (2, 2), (3, 3)]
    parents = [None, (1, 4), (1, 4), (1, 4), (2, 3), (2, 3)]
    ranges = [(a, b) for a in range(1, 5) for b in range(a, 5)]
    out = []
    for (lo, hi), par in zip(nodes, parents, strict=True):
        used = sum(
            1
            for a, b in ranges
            if a <= lo and hi <= b and not (par and a <= par[0] and par[1] <= b)
        )
        out.append(Fraction(used, len(ranges)))
    return out


def test_fig_3_14b_hand_set_budgets_give_17_1() -> None:
    p = _coverage_by_hand()
    exact = sum(px * 2 / e**2 for px, e in zip(p, HAND, strict=True))
    assert exact == Fraction(171, 10)
    custom = ct.parse_tree(FIG)
    budgets = ct.check_budgets(custom, np.array([float(b) for b in HAND]))
    scores = ct.score(custom.tree, budgets)
    assert scores.raw_error == pytest.approx(17.1) and scores.release_epsilon == pytest.approx(1)


def test_fig_3_14b_optimum_is_15_18_by_grid_search() -> None:
    """Budgets r (root) and s ([2, 3]); leaves take the rest of their path. Grid step 2.5e-4."""
    p = [float(v) for v in _coverage_by_hand()]
    r = np.linspace(1e-3, 0.999, 3993)[:, None]
    s = np.linspace(1e-3, 0.999, 3993)[None, :]
    rest = np.where(r + s < 1, 1 - r - s, np.nan)
    grid = 2 * (p[0] / r**2 + (p[1] + p[3]) / (1 - r) ** 2 + p[2] / s**2 + (p[4] + p[5]) / rest**2)
    best = float(np.nanmin(grid))
    assert best == pytest.approx(15.18, abs=0.005)
    custom = ct.parse_tree(FIG)
    cov = coverage.coverage_probabilities(custom.tree)
    optimum = ct.score(custom.tree, budget.optimal_budgets(custom.tree, 1.0, cov))
    assert optimum.raw_error <= best + 1e-9 and optimum.raw_error == pytest.approx(best, abs=1e-3)


def test_blue_error_of_hand_set_budgets_matches_dense_least_squares() -> None:
    custom = ct.parse_tree(FIG)
    budgets = ct.check_budgets(custom, np.array([float(b) for b in HAND]))
    a = strategy_matrix(custom.tree)
    cov_bins = np.linalg.inv(a.T @ ((budgets**2 / 2)[:, None] * a))  # Var Lap(1/e) = 2/e^2
    per_range = [
        cov_bins[lo : hi + 1, lo : hi + 1].sum() for lo, hi in workload_ranges(4, "uniform")
    ]
    assert ct.score(custom.tree, budgets).blue_error == pytest.approx(np.mean(per_range))
    np.testing.assert_allclose(
        coverage_by_enumeration(custom.tree, "uniform")[custom.node_of_line],
        [float(v) for v in _coverage_by_hand()],
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1 4\n1\n2 3\n4\n2", "children of node [2, 3] (line 3) do not cover bin 3"),
        ("1 4\n1 2\n2 3\n4\n2\n3", "node [2, 3] (line 3) overlaps node [1, 2] (line 2)"),
        ("1 4\n1\n2 3\n4", "node [2, 3] (line 3) has no children"),
        ("1 4\n1\n2 3\n4\n2\n3\n3", "node [3, 3] (line 7) repeats line 6"),
        ("2 3\n2\n3", "The root [1, 3] (all bins) is missing"),
        ("1 4\n1 x", "Line 2 ('1 x')"),
        ("1 2\n1\n2\n", None),
    ],
)
def test_validation_names_the_offending_node(text: str, message: str | None) -> None:
    if message is None:
        assert ct.parse_tree(text).tree.size == 3
        return
    with pytest.raises(ct.CustomTreeError, match=re.escape(message)):
        ct.parse_tree(text)


def test_budget_checks_name_the_node() -> None:
    custom = ct.parse_tree(FIG)
    with pytest.raises(ct.CustomTreeError, match=r"node \[4, 4\] \(line 4\) is 0"):
        ct.check_budgets(custom, np.array([0.3, 0.7, 0.3, 0.0, 0.3, 0.4]))
    internal_zero = ct.check_budgets(custom, np.array([0.0, 1.0, 0.5, 1.0, 0.5, 0.5]))
    assert np.isinf(ct.score(custom.tree, internal_zero).raw_error)


def _page(**params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "paper_experiments.py"), default_timeout=120)
    at.query_params["px_view"] = "custom"
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_page_shows_17_1_and_the_optimum_15_18() -> None:
    at = _page()
    assert not at.exception and not at.error
    assert {m.label: m.value for m in at.metric}["Raw error (yours)"] == "17.1"
    scores = next(d.value for d in at.dataframe if "raw error" in d.value.columns)
    assert scores["raw error"].round(2).tolist()[:2] == [17.1, 15.18]


def test_page_flags_a_privacy_violation_and_keeps_bad_text() -> None:
    at = _page(px_ct_eps="0.5,0.6667,0.3333,0.6667,0.3333,0.3333")
    assert any("Privacy violation" in e.value and "1.16" in e.value for e in at.error)
    at = _page(px_ct_tree="1 4\n1\n2 3\n4\n2")
    # the view is refused: the runner shows the message as inert (escaped) markdown
    assert any("node [2, 3] (line 3)" in w.value.replace("\\", "") for w in at.warning)
    assert at.text_area(key="px_ct_tree").value == "1 4\n1\n2 3\n4\n2"
