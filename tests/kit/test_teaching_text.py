"""User-facing text: no internal words, every citation resolves, Glossary and References render."""

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dpui import registry
from dpui.kit import present, references
from dpui.reference import glossary

ROOT = Path(__file__).resolve().parents[2]
USER_FACING = sorted(
    [ROOT / "app.py", ROOT / "README.md"]
    + [p for d in ("pages", "dpui", "dpcore") for p in (ROOT / d).rglob("*.py")]
    + list((ROOT / "assets").glob("*.md"))
)
# Words from the team's working notes that mean nothing to a user ("seed" only for random seeds).
INTERNAL = re.compile(
    r"seed paper|seed 00[0-9]|seed's|spec 0[0-9]|project spec|the seeds?\b"
    r"|seed (table|theorem|algorithm|definition|eq|section|conclusion|experiment|reports|drew|ran)",
    re.IGNORECASE,
)
CITE_CALL = re.compile(r"""cite\(\s*((?:["'][a-z0-9_-]+["'],?\s*)+)\)""")
GLOSSARY_LINK = re.compile(r"\]\(" + glossary.PAGE + r"#([a-z0-9-]+)\)")
GLOSSARY_CALL = re.compile(r"""glossary\.link\(\s*["']([a-z0-9-]+)["']""")


def texts() -> dict[str, str]:
    return {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8") for p in USER_FACING}


def test_the_scan_sees_the_files_it_must_check() -> None:
    names = set(texts())
    assert {
        "README.md",
        "assets/kv_ldp.md",
        "pages/tree_budgets.py",
        "dpcore/hist/tree.py",
    } <= names


def test_the_internal_word_pattern_catches_what_it_must() -> None:
    bad = ["the seed paper says", "seed 001", "the seed's two-k check", "project spec 04",
           "as the seed reports", "seed table 1"]  # fmt: skip
    fine = ["Noise seed", "a random seed you choose", "seed: int", "default_rng(seed)"]
    assert all(INTERNAL.search(s) for s in bad)
    assert not any(INTERNAL.search(s) for s in fine)


def test_no_internal_words_in_user_facing_text() -> None:
    hits = [
        f"{name}:{i}: {line.strip()}"
        for name, text in texts().items()
        for i, line in enumerate(text.splitlines(), start=1)
        if INTERNAL.search(line)
    ]
    assert not hits, "\n".join(hits)


def markers_in_prose() -> list[tuple[str, str]]:
    found = []
    for name, text in texts().items():
        found += [(name, key) for key in references.MARKER.findall(text)]
        for group in CITE_CALL.findall(text):
            found += [(name, key) for key in re.findall(r"[a-z0-9_-]+", group)]
    found += [
        ("glossary", k) for t in glossary.TERMS for k in references.MARKER.findall(t.definition)
    ]
    found += [("registry", k) for p in registry.PAGES for k in references.MARKER.findall(p.notice)]
    return found


def test_every_citation_marker_resolves_to_a_reference() -> None:
    found = markers_in_prose()
    known = {ref.key for ref in references.REFERENCES}
    assert len(found) > 20, "the scan finds the prose's citations"
    assert not [f"{name}: [@{key}]" for name, key in found if key not in known]


def test_every_reference_is_cited_somewhere() -> None:
    cited = {key for _, key in markers_in_prose()}
    assert [ref.key for ref in references.REFERENCES if ref.key not in cited] == []


def test_resolved_prose_links_each_marker_to_its_numbered_entry() -> None:
    for path in (ROOT / "assets").glob("*.md"):
        text = references.prose(path.name)
        assert "[@" not in text, path.name
    text = references.resolve("as in [@xiao-2010] and [@hay-2010]")
    n_xiao = 1 + [r.key for r in references.REFERENCES].index("xiao-2010")
    n_hay = 1 + [r.key for r in references.REFERENCES].index("hay-2010")
    assert text == (
        f"as in [[{n_xiao}]](references?entry=ref-xiao-2010) and "
        f"[[{n_hay}]](references?entry=ref-hay-2010)"
    )
    with pytest.raises(KeyError):
        references.resolve("[@no-such-paper]")


def test_every_glossary_link_names_a_defined_term() -> None:
    keys = {t.key for t in glossary.TERMS}
    links = [k for text in texts().values() for k in GLOSSARY_LINK.findall(text)]
    links += [k for text in texts().values() for k in GLOSSARY_CALL.findall(text)]
    links += [k for p in registry.PAGES for k in GLOSSARY_LINK.findall(p.notice)]
    assert len(links) >= 3
    assert sorted(set(links) - keys) == []
    with pytest.raises(KeyError):
        glossary.link("no-such-term")


def test_every_page_is_registered_with_a_one_sentence_notice() -> None:
    on_disk = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py")}
    assert {p.path for p in registry.PAGES} == on_disk
    for page in registry.PAGES:
        assert page.notice.rstrip().endswith(".") and page.notice.count(". ") == 0, page.path
        assert present.what_to_notice(page.notice).startswith("**What to notice:** ")


def test_references_page_lists_every_entry_with_its_number_and_anchor() -> None:
    at = AppTest.from_file(str(ROOT / "pages/references.py")).run()
    assert not at.exception
    headings = [h.value for h in at.header]
    bodies = [m.value for m in at.markdown]
    assert headings == [f"[{n}] {r.short}" for n, r in enumerate(references.REFERENCES, start=1)]
    for ref in references.REFERENCES:
        entry = next(b for b in bodies if f'"{ref.title}"' in b)
        assert ref.authors in entry and ref.venue in entry and ref.year in entry
    anchors = [h.proto.anchor for h in at.header]
    assert anchors == [references.anchor(r.key) for r in references.REFERENCES]


def test_glossary_page_defines_the_terms_the_pages_use() -> None:
    at = AppTest.from_file(str(ROOT / "pages/glossary.py")).run()
    assert not at.exception
    headings = [h.value for h in at.header]
    required = ["ε", "Sensitivity", "Coverage probability", "Budget allocation", "BLUE",
                "MSE", "Workload", "Canonical decomposition", "LDP"]  # fmt: skip
    for word in required:
        assert any(word in h for h in headings), word
    assert len(headings) == len(glossary.TERMS)
    bodies = " ".join(m.value for m in at.markdown)
    assert "[@" not in bodies and "](references?entry=ref-" in bodies
