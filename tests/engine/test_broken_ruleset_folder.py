"""Issue 33 item 17: a broken ruleset folder in TACMAP_RULESETS is skipped with one warning;
only what needs its ruleset fails."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.rules.ruleset import ENV_VAR
from tests.conftest import TEST_RULESETS

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo.tacmap"


def _broken(tmp_path: Path) -> tuple[Path, Path]:
    """A folder that does not exist, and a copy of skirmish whose ruleset.toml lacks its id."""
    copy = tmp_path / "mine" / "skirmish"
    shutil.copytree(TEST_RULESETS / "skirmish", copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    toml = copy / "ruleset.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('id = "skirmish"\n', ""),
                    encoding="utf-8")
    return tmp_path / "gone", copy.parent


def test_every_command_runs_past_a_broken_folder_with_one_warning_each(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    gone, mine = _broken(tmp_path)
    monkeypatch.setenv(ENV_VAR, f"{gone}{os.pathsep}{mine}")
    assert main(["check", str(DEMO)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{DEMO}: ok")
    assert err.splitlines() == [
        f"warning: ruleset folder {gone} does not exist (in {ENV_VAR}; skipped)",
        f"warning: {mine / 'skirmish' / 'ruleset.toml'}: missing 'id' (in {ENV_VAR}; "
        "skipped)"]
    assert main(["rulesets"]) == 0
    assert "example_skirmish" not in capsys.readouterr().out


def test_what_needs_a_skipped_ruleset_fails_naming_the_skip(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fight = tmp_path / "fight.tacmap"
    assert main(["--rulesets-dir", str(TEST_RULESETS), "--trust-rulesets", "new",
                 "--ruleset", "skirmish", str(fight), "--seed", "1"]) == 0
    _, mine = _broken(tmp_path)
    monkeypatch.setenv(ENV_VAR, str(mine))
    capsys.readouterr()
    assert main(["check", str(fight)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith(f"tacmap: {fight}: unknown ruleset 'skirmish' (installed: ")
    assert err.endswith(f"; skipped: {mine / 'skirmish' / 'ruleset.toml'}: missing 'id')")


def test_a_folder_named_on_the_command_line_is_still_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gone, _ = _broken(tmp_path)
    assert main(["--rulesets-dir", str(gone), "rulesets"]) == 2
    assert capsys.readouterr().err.strip() == f"tacmap: ruleset folder {gone} does not exist"


def test_a_rules_py_that_does_not_load_fails_only_its_encounters_in_one_sentence(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    fight = tmp_path / "fight.tacmap"
    assert main(["--rulesets-dir", str(TEST_RULESETS), "--trust-rulesets", "new",
                 "--ruleset", "skirmish", str(fight), "--seed", "1"]) == 0
    copy = tmp_path / "mine" / "skirmish"
    shutil.copytree(TEST_RULESETS / "skirmish", copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    rules = copy / "rules.py"
    rules.write_text(rules.read_text(encoding="utf-8") + "\ndef broken(:\n", encoding="utf-8")
    monkeypatch.setenv(ENV_VAR, str(copy.parent))
    capsys.readouterr()
    assert main(["check", str(DEMO)]) == 0  # a built-in encounter: untouched
    assert main(["check", str(fight)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"tacmap: {fight}: ruleset 'skirmish' from {copy} does not load "
                          "(SyntaxError: invalid syntax, rules.py line ")

