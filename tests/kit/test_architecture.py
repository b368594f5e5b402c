"""House rules that keep the layers apart (STYLE.md): dpcore is pure numerics."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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
    from dpui.registry import GROUPS, PAGES

    registered = {page.path for page in PAGES}
    on_disk = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py")}
    assert registered == on_disk
    assert len({page.key for page in PAGES}) == len(PAGES)
    assert all(page.group in GROUPS for page in PAGES)


LAYERS = ("dpcore", "dpui")
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (anywhere in the file), for dpcore and dpui."""
    files = {_module_name(p): p for layer in LAYERS for p in (ROOT / layer).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets.add(node.module)
                targets.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[name] = {t for t in targets if t in files and t != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (a list of modules, first repeated last), or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycles_in_dpcore_or_dpui():
    graph = import_graph()
    assert len(graph) > 50 and any(graph.values())
    assert find_cycle(graph) is None


def test_no_function_level_imports_in_dpcore_or_dpui():
    """An import inside a function hides a cycle or a slow first call; neither layer has one."""
    hidden = []
    for layer in LAYERS:
        for path in (ROOT / layer).rglob("*.py"):
            for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                    hidden += [
                        f"{path.relative_to(ROOT)}:{n.lineno}"
                        for n in ast.walk(fn)
                        if isinstance(n, ast.Import | ast.ImportFrom)
                    ]
    assert hidden == []


def test_page_scripts_never_import_dpcore():
    offenders = {
        f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if "dpcore" in imported_modules(p)
    }
    assert offenders == set()


def test_no_module_over_600_lines():
    long = {
        str(p.relative_to(ROOT))
        for layer in (*LAYERS, "pages")
        for p in (ROOT / layer).rglob("*.py")
        if len(p.read_text(encoding="utf-8").splitlines()) > MAX_LINES
    }
    assert long == set()


def test_every_page_is_a_declaration_on_the_runner():
    """A page script only runs its declaration; a page with a view has pin and compare and
    says which data it shows."""
    from dpui.registry import PAGES

    for page in PAGES:
        code = [
            line
            for line in (ROOT / page.path).read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith(('"""', "#"))
        ]
        assert len(code) <= 4 and code[-1].startswith("run("), page.path
        if page.view is not None:
            assert page.pinned and page.data, page.key


def test_widget_values_are_never_read_from_session_state_without_a_default():
    """A widget's key leaves the session when a run does not draw it (another page, a
    fragment's rerun), so ``st.session_state[key]`` can raise KeyError on the next full run:
    reads go through ``state.get`` or ``st.session_state.get``. Only the state module, which
    checks before it reads, indexes the session directly."""
    bare = []
    for path in [*(ROOT / "dpui").rglob("*.py"), *(ROOT / "pages").glob("*.py")]:
        if path.relative_to(ROOT).as_posix() == "dpui/kit/state.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and ast.unparse(node.value).endswith("session_state")
            ):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bare == []
