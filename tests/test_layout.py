"""The package's layout (docs/ARCHITECTURE.md), read from the imports of every module: each part imports only
the parts below it, no modules import each other in a circle, no file is longer than 400 lines."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "solver"
# the picture of docs/ARCHITECTURE.md, bottom up: a part may import its own level and those below
LEVELS = {
    "errors": 0,
    "version": 0,
    "numba_setup": 0,
    "i18n": 0,
    "progress": 0,
    "rules": 1,
    "dp": 2,
    "store": 3,
    "jobs": 4,  # layer-parallel builds of the tables: above store, beside advice
    "advice": 4,
    "poker": 4,  # the dice-poker duel: one-turn decisions of its own, beside advice
    "chances": 5,
    "game": 6,
    "api": 7,
    "reports": 7,
    "__init__": 7,
    "cli": 8,
    "web": 8,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """The solver modules `path` imports, at the top or inside a function, resolved to module names."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "solver"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.split(".")[0] == "solver":
                stem = node.module
            else:
                continue
            if node.module:  # `from .. import dp` names a module, not the package it is in
                found.add(stem)
            found |= {f"{stem}.{alias.name}" for alias in node.names}
    return {m for m in found if module_path(m) is not None}


def module_path(name: str) -> Path | None:
    base = PACKAGE.parent.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def part(name: str) -> str:
    pieces = name.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
IMPORTS = {name: imported_modules(path) for name, path in MODULES.items()}


def test_every_part_has_a_level():
    assert {part(name) for name in MODULES} <= set(LEVELS)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_run_down_the_picture(name):
    own = LEVELS[part(name)]
    upward = sorted(m for m in IMPORTS[name] if LEVELS[part(m)] > own)
    assert not upward, f"{name} (level {own}) imports parts above it: {upward}"


def test_no_import_circles():
    """Depth-first search over the import graph, package __init__ modules left out (importing
    solver.dp.engine runs solver/dp/__init__.py first, which is no circle of the code's own making)."""
    graph = {
        name: {m for m in deps if MODULES[m].name != "__init__.py" and m != name}
        for name, deps in IMPORTS.items()
        if MODULES[name].name != "__init__.py"
    }
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    circles = []

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                circles.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not circles, f"import circles: {circles}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_file_over_400_lines(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= 400, f"{MODULES[name].relative_to(PACKAGE.parent)}: {lines} lines"


TESTS = Path(__file__).resolve().parent
# test modules still imported by others (their shared pieces belong in tests/helpers.py): none may be added
IMPORTED_TESTS_LEFT = {
    "test_dp_vs_naive",
    "test_distribution",
    "test_target",
    "test_simulate_review",
    "test_reliability_files",
    "test_web_api",
    "test_web_browser",
}


def test_test_modules_do_not_import_each_other():
    """Only tests/helpers.py and the naive references (naive*.py) are shared between test modules."""
    imported = set()
    for path in TESTS.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("test_"):
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported |= {a.name for a in node.names if a.name.startswith("test_")}
    assert imported <= IMPORTED_TESTS_LEFT, f"test modules importing test modules: {imported - IMPORTED_TESTS_LEFT}"
