"""Issue 17 item 7: a user ruleset folder runs only when trusted; a mistyped key is exit 2."""

from __future__ import annotations

import importlib
import importlib.util
import py_compile
import shutil
import sys
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.ruleset import Manifest, Registry, content_hash
from tests.conftest import TEST_RULESETS


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "mine" / "skirmish"
    shutil.copytree(TEST_RULESETS / "skirmish", folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_a_mistyped_grid_exits_2_naming_the_key(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(tmp_path)
    toml = folder / "ruleset.toml"
    text = toml.read_text(encoding="utf-8")
    toml.write_text("grid = 5\n" + text.replace("[grid]", "[unused_grid]"), encoding="utf-8")
    assert main(["--rulesets-dir", str(folder.parent), "rulesets"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == f"tacmap: {toml}: grid: expected a table ([grid]), got 5"


def test_an_untrusted_folder_does_not_run_its_code(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    asked: list[str] = []

    def refuse(manifest: Manifest) -> bool:
        asked.append(manifest.id)
        return False

    registry = Registry([folder.parent], warn=lambda msg: None, trust=refuse)
    with pytest.raises(InputError, match=r"is not trusted, so its rules\.py was not run"):
        registry.get("skirmish")
    assert asked == ["skirmish"]


def test_the_content_hash_changes_with_any_file(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    before = content_hash(folder)
    (folder / "__pycache__").mkdir(exist_ok=True)
    (folder / "__pycache__" / "x.pyc").write_bytes(b"cache")
    assert content_hash(folder) == before
    (folder / "rules.py").write_text((folder / "rules.py").read_text() + "\n# changed\n")
    assert content_hash(folder) != before


def test_the_cli_keeps_the_warning_and_accepts_trust_rulesets(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--rulesets-dir", str(TEST_RULESETS), "--trust-rulesets",
            "measure", "--ruleset", "skirmish", "0,0", "3,4"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out.strip() == "7 m"
    assert "a ruleset folder is code" in captured.err


def test_planted_bytecode_never_runs_for_a_trusted_folder(tmp_path: Path) -> None:
    """Issue 23 item 12: a user's ruleset is compiled from the .py files the hash covers."""
    folder = _copy(tmp_path)
    before = content_hash(folder)
    evil = tmp_path / "evil.py"
    evil.write_text("raise RuntimeError('planted bytecode ran')\n", encoding="utf-8")
    # An unchecked-hash .pyc is used by Python's own loader without looking at rules.py.
    planted = Path(importlib.util.cache_from_source(str(folder / "rules.py")))
    py_compile.compile(str(evil), cfile=str(planted),
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    (folder / "extra.pyc").write_bytes(planted.read_bytes())  # a module with no source
    assert content_hash(folder) == before  # bytecode is not part of what is trusted …
    registry = Registry([folder.parent], warn=lambda msg: None, trust=lambda m: True)
    rules = registry.get("skirmish")  # … because it never runs
    assert rules.id == "skirmish"
    package = sys.modules[type(rules).__module__].__package__
    with pytest.raises(ModuleNotFoundError, match=r"modules are \.py files"):
        importlib.import_module(f"{package}.extra")
    assert list(planted.parent.iterdir()) == [planted]  # and no bytecode is written


def test_code_in_a_symlinked_subfolder_is_part_of_the_hash(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "helper.py").write_text("X = 1\n", encoding="utf-8")
    (folder / "parts").symlink_to(outside, target_is_directory=True)
    (outside / "loop").symlink_to(outside, target_is_directory=True)  # walked once
    before = content_hash(folder)
    (outside / "helper.py").write_text("X = 2\n", encoding="utf-8")
    assert content_hash(folder) != before


@pytest.mark.parametrize("bad", ["root_a.b", "Caps", "1st", "with-dash"])
def test_a_ruleset_id_that_is_no_module_name_is_refused_in_a_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    """Issue 23 item 14: ids are [a-z][a-z0-9_]*, and the CLI says so (exit 2, not 1)."""
    folder = _copy(tmp_path)
    renamed = folder.with_name(bad)
    folder.rename(renamed)
    toml = renamed / "ruleset.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('id = "skirmish"', f'id = "{bad}"'),
                    encoding="utf-8")
    assert main(["--rulesets-dir", str(renamed.parent), "--trust-rulesets", "rulesets"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"tacmap: {toml}: ruleset id {bad!r} must be lower-case letters, digits and "
                   "_, starting with a letter (rename the folder and the id)")


def test_a_refused_command_prints_only_its_error_not_the_trust_warning(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--rulesets-dir", str(TEST_RULESETS), "measure", "--ruleset", "skirmish", "0,0"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "loading ruleset" not in err  # the one line, no trust warning
    assert err.startswith("tacmap measure: measure needs at least two points — usage: ")


def test_python_inside_pycache_is_part_of_the_hash(tmp_path: Path) -> None:
    """Issue 33 item 10: a .py file under __pycache__ can be imported, so editing it is asked
    about again."""
    folder = _copy(tmp_path)
    cache = folder / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "helper.py").write_text("X = 1\n", encoding="utf-8")
    registry = Registry([folder.parent], warn=lambda msg: None, trust=lambda m: True)
    package = sys.modules[type(registry.get("skirmish")).__module__].__package__
    assert importlib.import_module(f"{package}.__pycache__.helper").X == 1  # importable …
    before = content_hash(folder)
    (cache / "helper.py").write_text("X = 2\n", encoding="utf-8")
    assert content_hash(folder) != before  # … so trusted by its content
    (cache / "helper.cpython-311.pyc").write_bytes(b"cache")
    after = content_hash(folder)
    (cache / "helper.cpython-311.pyc").write_bytes(b"other cache")
    assert content_hash(folder) == after  # bytecode never runs: still left out
