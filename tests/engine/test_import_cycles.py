"""No import circles (DESIGN §1): in tacmap/, and inside each ruleset folder.

Read from the source with ``ast``, so every import counts: at module level,
inside a function and under ``if TYPE_CHECKING:``. Each is a dependency; a
circle hidden behind one becomes a real one the day the import moves, and
the cure (a Protocol, or the shared piece moved down a layer) is the better
design anyway. A ruleset folder is loaded as one package, so its modules are
checked among themselves (rules.py imports views.py, never the other way).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

def modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package in folder ``root``, by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that the file at ``path`` (module ``name``) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                # ``from a import b`` imports module a.b when there is one, else a.
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {n for n in found if n in known and n != name}


def circles(edges: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """Each group of two or more modules that import one another (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(group) > 1:
                found.add(tuple(sorted(group)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def graph(root: Path, package: str) -> dict[str, set[str]]:
    mods = modules(root, package)
    return {name: imports(path, name, set(mods)) for name, path in mods.items()}


RULESETS = sorted(p.parent for p in (ROOT / "rulesets").glob("*/rules.py"))


def test_tacmap_has_no_import_circles() -> None:
    assert circles(graph(ROOT / "tacmap", "tacmap")) == set()


@pytest.mark.parametrize("folder", RULESETS, ids=[f.name for f in RULESETS])
def test_a_ruleset_folder_has_no_import_circles(folder: Path) -> None:
    assert circles(graph(folder, folder.name)) == set()


def test_the_checker_finds_circles_through_functions_and_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n    from .. import a\n")
    (pkg / "c.py").write_text("import pkg.a\n")  # leads into the circle, is not in it
    (pkg / "d.py").write_text("from . import e\n")
    (pkg / "e.py").write_text("from pkg.d import x\n")
    assert circles(graph(pkg, "pkg")) == {("pkg.a", "pkg.sub.b"), ("pkg.d", "pkg.e")}
