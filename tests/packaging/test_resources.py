"""What the wheel and the frozen app carry: every resource and ruleset file, licence, icon."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType
from xml.etree import ElementTree

import pytest

from tacmap.ui import help as tm_help
from tacmap.ui.qt import QImage

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
ICONS = ROOT / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256)
NOT_SHIPPED = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


def _files(folder: Path) -> set[str]:
    """Every file under ``folder`` that belongs in a package (no caches, no backups, no
    ``.NAME.lock`` of a window that has a shipped demo open)."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and not NOT_SHIPPED & set(p.relative_to(folder).parts)
            and p.suffix not in (".pyc", ".bak", ".lock")}


@pytest.mark.parametrize("package", ["tacmap._rulesets", "tacmap._resources"])
def test_package_data_takes_every_file_of_the_folder(package: str) -> None:
    folder = ROOT / SETUPTOOLS["package-dir"][package]
    assert package in SETUPTOOLS["packages"]
    patterns = SETUPTOOLS["package-data"][package]
    # setuptools reads package-data patterns as globs relative to the package folder.
    shipped = {p.relative_to(folder).as_posix() for pattern in patterns
               for p in folder.glob(pattern) if p.is_file()}
    missing = _files(folder) - shipped
    assert not missing, (f"add patterns for these to [tool.setuptools.package-data] "
                         f"{package!r} in pyproject.toml: {sorted(missing)}")


def test_the_licence_is_mit_and_travels_with_the_resources() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    licence = tm_help.resource_path("LICENSE")
    assert licence is not None and licence == ROOT / "resources" / "LICENSE"
    text = licence.read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text


def test_the_demo_and_the_icon_are_found_as_resources() -> None:
    assert tm_help.resource_path("demo.tacmap") == ROOT / "resources" / "demo.tacmap"
    assert tm_help.resource_path("icons/tacmap.svg") == ICONS / "tacmap.svg"
    assert tm_help.resource_path("no-such-file") is None


def test_the_svg_icon_is_square_svg() -> None:
    svg = ElementTree.parse(ICONS / "tacmap.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg"
    assert svg.get("viewBox") == "0 0 256 256"


@pytest.mark.parametrize("size", SIZES)
def test_each_png_icon_has_its_size_and_a_transparent_corner(size: int) -> None:
    image = QImage(str(ICONS / f"tacmap-{size}.png"))
    assert not image.isNull()
    assert (image.width(), image.height()) == (size, size)
    assert image.hasAlphaChannel()
    assert image.pixelColor(0, 0).alpha() == 0  # rounded corner
    assert image.pixelColor(size // 2, size // 2).alpha() == 255


def _make_icons() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_icons", ROOT / "packaging" /
                                                  "make_icons.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pngs_are_drawn_from_the_current_svg(qapp: object) -> None:
    fresh = _make_icons().render(ICONS / "tacmap.svg", 64)
    committed = QImage(str(ICONS / "tacmap-64.png")).convertToFormat(fresh.format())
    diff = sum(abs(fresh.pixelColor(x, y).red() - committed.pixelColor(x, y).red())
               + abs(fresh.pixelColor(x, y).blue() - committed.pixelColor(x, y).blue())
               for x in range(64) for y in range(64))
    assert diff / (64 * 64 * 2) < 2, "run: python packaging/make_icons.py"


def test_app_icon_has_every_size(qapp: object) -> None:
    icon = tm_help.app_icon()
    assert not icon.isNull()
    assert sorted(s.width() for s in icon.availableSizes()) == list(SIZES)
