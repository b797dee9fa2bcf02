"""Issue 17 item 7: a user ruleset folder runs only when trusted; a mistyped key is exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.errors import InputError
from tacmap.engine.ruleset import Manifest, Registry, content_hash
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
