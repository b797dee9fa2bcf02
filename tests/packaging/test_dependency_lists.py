"""Issue 29 item 13: every text that lists tacmap's runtime dependencies lists them all."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def direct() -> list[str]:
    """The distribution names of ``[project] dependencies``, once each."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    names = [re.split(r"[<>=;!~ \[]", d, maxsplit=1)[0] for d in deps]
    return sorted(set(names), key=names.index)


def transitive(names: list[str]) -> set[str]:
    """``names`` and what they need at run time on this machine (installed metadata)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        key = name.lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        for req in metadata.requires(name) or []:
            if "extra ==" in req:
                continue
            marker = req.split(";", 1)[1] if ";" in req else ""
            if marker and not _applies(marker):
                continue
            todo.append(re.split(r"[<>=;!~ \[(]", req, maxsplit=1)[0])
    return seen


def _applies(marker: str) -> bool:
    from packaging.markers import Marker

    return Marker(marker).evaluate()


def short(name: str) -> str:
    """How prose names a distribution: PySide6-Essentials is PySide6."""
    return "PySide6" if name.startswith("PySide6") else name


def texts() -> dict[str, str]:
    readme = (ROOT / "docs" / "manual" / "install.md").read_text("utf-8")
    install = readme[readme.index("`pip install` fetches"):][:300]
    packaging = (ROOT / "packaging" / "README.md").read_text("utf-8")
    windows = next(line for line in packaging.splitlines()
                   if "Scripts\\python -m pip install" in line)
    deb = (ROOT / "packaging" / "build-deb.sh").read_text("utf-8")
    copyright_ = deb[deb.index("Comment: /usr/lib/tacmap"):deb.index("Files: *")]
    return {"the manual's install paragraph": install,
            "packaging/README.md Windows pip line": windows, "the .deb copyright": copyright_}


@pytest.mark.parametrize("where", list(texts()))
def test_every_runtime_dependency_is_named(where: str) -> None:
    text = " ".join(texts()[where].split())
    missing = [short(n) for n in direct() if short(n).lower() not in text.lower()]
    assert not missing, f"{where} lacks {missing}"


def test_the_deb_copyright_names_what_the_bundle_carries() -> None:
    text = texts()["the .deb copyright"].lower()
    carried = transitive(direct()) - {"pyside6-essentials", "shiboken6", "typing-extensions"}
    missing = sorted(n for n in carried if short(n).lower() not in text)
    assert not missing, missing


def test_the_windows_pip_line_has_the_same_bounds_as_pyproject() -> None:
    line = texts()["packaging/README.md Windows pip line"]
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    for dep in deps:
        if "python_version >= '3.12'" in dep:
            continue  # the line installs for 3.11, the oldest supported
        spec = dep.split(";")[0].strip()
        assert f'"{spec}"' in line, spec


def test_pyproject_describes_a_desktop_app_for_packagers() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert "Topic :: Games/Entertainment :: Role-Playing" in project["classifiers"]
    assert any(c.startswith("Environment :: X11 Applications :: Qt")
               for c in project["classifiers"])
    assert "tabletop" in project["keywords"]
    assert all((ROOT / f).is_file() for f in project["license-files"])
    # The console script for the command line, a GUI one so Windows opens no console.
    assert project["scripts"]["tacmap"] == "tacmap.cli:main"
    assert project["gui-scripts"]["tacmap-gui"] == "tacmap.gui:main"
    bounded = {re.split(r"[<>=;]", d, maxsplit=1)[0]: d for d in project["dependencies"]}
    assert "<3" in bounded["icepool"] and "<1" in bounded["msgspec"]


def test_the_gui_entry_runs_with_no_standard_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tacmap import gui

    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    monkeypatch.setattr(sys, "argv", ["tacmap-gui", "rulesets"])
    assert gui.main() == 0
