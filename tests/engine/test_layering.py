"""Arrows point down (DESIGN §1): the engine and the rulesets never import Qt or the UI."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QT = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "pyqtgraph")


def imports(path: Path) -> list[str]:
    """Every module a file imports, absolute names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def offenders(folder: Path, allowed_tacmap: tuple[str, ...]) -> list[str]:
    found = []
    for path in sorted(folder.rglob("*.py")):
        for name in imports(path):
            top = name.split(".")[0]
            bad_qt = top in QT
            bad_tacmap = top == "tacmap" and not name.startswith(allowed_tacmap)
            if bad_qt or bad_tacmap or (top == "icepool" and path.name != "odds.py"):
                found.append(f"{path.name} imports {name}")
    return found


def test_engine_imports_no_qt_and_no_ui() -> None:
    assert offenders(ROOT / "tacmap" / "engine", ("tacmap.engine",)) == []


def test_rulesets_import_only_the_door() -> None:
    folders = [ROOT / "rulesets", ROOT / "tests" / "fixtures" / "rulesets"]
    found = [o for f in folders if f.is_dir() for o in offenders(f, ("tacmap.api",))]
    assert found == []


def test_only_odds_imports_icepool() -> None:
    users = [p.name for p in (ROOT / "tacmap").rglob("*.py")
             if any(n.split(".")[0] == "icepool" for n in imports(p))]
    assert users == ["odds.py"]


def test_checker_catches_an_upward_arrow(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("from PySide6.QtCore import QObject\nimport tacmap.ui.map\n")
    assert len(offenders(tmp_path, ("tacmap.engine",))) == 2
