"""House rules that keep the layers apart (STYLE.md): dpcore is pure numerics."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_CORE = {"streamlit", "plotly", "dpui"}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_dpcore_never_imports_ui_libraries():
    files = list((ROOT / "dpcore").rglob("*.py"))
    assert files
    offenders = {
        str(f.relative_to(ROOT)): sorted(imported_modules(f) & FORBIDDEN_IN_CORE)
        for f in files
        if imported_modules(f) & FORBIDDEN_IN_CORE
    }
    assert offenders == {}


def test_no_global_numpy_random_state():
    for f in (ROOT / "dpcore").rglob("*.py"):
        text = f.read_text(encoding="utf-8")
        assert "np.random.seed" not in text and "np.random.rand(" not in text, f


def test_every_registered_page_exists_and_every_page_is_registered():
    from dpui.registry import PAGES, SECTIONS

    registered = {info.path for info in PAGES}
    on_disk = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert registered == on_disk
    assert all(info.section in SECTIONS for info in PAGES)
