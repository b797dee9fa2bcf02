"""The wheel carries every package and the built-in rulesets."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_tacmap_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
                 ["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "tacmap").rglob("*.py")}
    assert found <= listed, f"add to pyproject.toml [tool.setuptools] packages: {found - listed}"
