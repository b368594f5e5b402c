"""Hval(L, R, w) of the Struct-Construct explanation, by enumerating every range; the Tree page
shows it and the CNP coefficients."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpui.tree import sc_explain

ROOT = Path(__file__).resolve().parents[2]


def _split(lo: int, hi: int, w: int) -> list[tuple[int, int]]:
    """The splitting rule written out: w near-equal parts, smaller ones first."""
    parts = min(w, hi - lo + 1)
    base, extra = divmod(hi - lo + 1, parts)
    sizes = [base] * (parts - extra) + [base + 1] * extra
    out, start = [], lo
    for size in sizes:
        out.append((start, start + size - 1))
        start += size
    return out


def _hval_by_enumeration(n: int, lo: int, hi: int, plo: int, phi: int, w: int) -> Fraction:
    """Sum over the w-ary subtree of [lo, hi] of P(a uniform range uses the node), 1-based."""
    nodes, stack = [], [((lo, hi), (plo, phi))]
    while stack:
        node, parent = stack.pop()
        nodes.append((node, parent))
        if node[0] < node[1]:
            stack.extend((child, node) for child in _split(*node, w))
    ranges = [(a, b) for a in range(1, n + 1) for b in range(a, n + 1)]
    used = sum(
        1
        for (x, f) in nodes
        for (a, b) in ranges
        if a <= x[0] and x[1] <= b and not (a <= f[0] and f[1] <= b)
    )
    return Fraction(used, len(ranges))


def test_example_3_4_hval_by_enumeration() -> None:
    assert _hval_by_enumeration(5, 3, 5, 1, 5, 2) == Fraction(14, 15)  # 0.9333
    assert _hval_by_enumeration(5, 3, 5, 1, 5, 3) == 1
    table = sc_explain.hval_table(5, 3, 5, 1, 5)
    assert table["Hval(L, R, w)"].tolist() == pytest.approx([14 / 15, 1.0])


@pytest.mark.parametrize(("n", "lo", "hi", "plo", "phi"), [(9, 4, 9, 1, 9), (12, 5, 11, 4, 12)])
def test_hval_table_matches_enumeration(n: int, lo: int, hi: int, plo: int, phi: int) -> None:
    table = sc_explain.hval_table(n, lo, hi, plo, phi)
    for w, value in zip(table["fan-out w"], table["Hval(L, R, w)"], strict=True):
        assert value == pytest.approx(float(_hval_by_enumeration(n, lo, hi, plo, phi, int(w))))


def test_tree_page_shows_hval_and_cnp_coefficients() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "tree_budgets.py"), default_timeout=120)
    at.session_state["tb_show"] = "nodes"
    at.run()
    assert not at.exception
    nodes = next(df.value for df in at.dataframe if "a_x (CNP)" in df.value.columns)
    leaf = nodes[nodes["first bin"] == nodes["last bin"]]
    assert (leaf["a_x (CNP)"] == 1).all() and (leaf["b_x (CNP)"] == 1).all()
    at.button_group(key="tb_show").set_value("sc").run()
    assert any("Hval(3, 5, 3) = 1.0000" in m.value for m in at.markdown)
    at.number_input(key="sc_w").set_value(2).run()
    assert any("Hval(3, 5, 2) = 0.9333" in m.value for m in at.markdown)
    assert at.query_params["sc_w"] in ("2", ["2"])
    at.number_input(key="sc_hi").set_value(9).run()
    assert any("got parent [1, 5], node [3, 9], n = 5" in e.value for e in at.error)
