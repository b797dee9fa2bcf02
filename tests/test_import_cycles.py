"""No import circles inside tacmap/ (DESIGN §1), checked on the source with ``ast``.

Every import counts: at module level, inside functions and under
``if TYPE_CHECKING:``. A function-level import still means one module needs
the other, and it turns into a real circle the day someone hoists it; a
``TYPE_CHECKING`` import is the same dependency made for the type checker, and
the usual cure for the circle it hides (a Protocol, or moving the shared type
down a layer) is also the better design. So the graph is every ``import`` and
``from … import`` statement anywhere in the file.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tacmap"

#: Circles known and being removed elsewhere; each is a sorted pair of modules.
KNOWN: set[tuple[str, ...]] = {
    # removed by the rulesets branch
    ("tacmap.engine.ruleset", "tacmap.engine.statblock"),
}


def module_name(path: Path, root: Path) -> str:
    """``tacmap/ui/window.py`` → ``tacmap.ui.window``; a package is its ``__init__``."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: Path) -> dict[str, Path]:
    """Every module under ``package``, by dotted name."""
    return {module_name(p, package.parent): p for p in sorted(package.rglob("*.py"))}


def imported(path: Path, name: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that the file at ``path`` (module ``name``) imports.

    ``from a.b import c`` is an import of ``a.b.c`` when that is a module, else of
    ``a.b``. Relative imports are resolved against the module's package.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    return {n for n in found if n in known and n != name}


def graph(package: Path) -> dict[str, set[str]]:
    """Module → the package's modules it imports."""
    mods = modules(package)
    known = set(mods)
    return {name: imported(path, name, known) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_cycles_in_tacmap() -> None:
    found = [c for c in cycles(graph(PACKAGE)) if tuple(c) not in KNOWN]
    assert found == [], f"import circles: {found}"


def test_every_known_circle_is_still_there() -> None:
    # When a known circle is broken, this says so, so its exception can be deleted.
    found = {tuple(c) for c in cycles(graph(PACKAGE))}
    assert found >= KNOWN, f"no longer circular, delete from KNOWN: {KNOWN - found}"


def test_the_checker_sees_circles_through_functions_and_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("from typing import TYPE_CHECKING\n"
                                      "if TYPE_CHECKING:\n    from .. import a\n")
    (pkg / "c.py").write_text("import pkg.a\n")  # on a path into the circle, not in it
    (pkg / "d.py").write_text("from . import e\n")
    (pkg / "e.py").write_text("from pkg import d\n")
    assert cycles(graph(pkg)) == [["pkg.a", "pkg.sub.b"], ["pkg.d", "pkg.e"]]
