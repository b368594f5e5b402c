"""Teaching prose renders as text and math: no raw HTML tags, no formulas left in code spans."""

import re
from pathlib import Path

import pytest

ASSETS = Path(__file__).resolve().parents[2] / "assets"
PROSE = sorted(ASSETS.glob("*.md"))
# characters that only occur in formulas; Streamlit renders `...` as literal code
FORMULA_MARKS = re.compile(r"[\^_{}≤≥εδΔΣ√·ᵀ⁻²³]")


def test_every_page_prose_file_is_checked():
    assert {p.name for p in PROSE} >= {"kv_ldp.md", "laplace.md", "matrix_privelet.md"}


@pytest.mark.parametrize("path", PROSE, ids=lambda p: p.name)
def test_no_html_tags(path):
    text = path.read_text(encoding="utf-8")
    assert re.findall(r"</?[a-zA-Z][a-zA-Z0-9]*[\s>/]", text) == []


@pytest.mark.parametrize("path", PROSE, ids=lambda p: p.name)
def test_no_formula_in_a_code_span(path):
    spans = re.findall(r"`([^`\n]+)`", path.read_text(encoding="utf-8"))
    assert [s for s in spans if FORMULA_MARKS.search(s)] == []


@pytest.mark.parametrize("path", PROSE, ids=lambda p: p.name)
def test_math_delimiters_balance(path):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        assert line.replace(r"\$", "").count("$") % 2 == 0, f"line {number}: {line}"
