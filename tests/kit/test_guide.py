"""``tacmap ruleset guide`` (issue 38): the author's guide found wherever tacmap is installed."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from tacmap.cli import main
from tacmap.engine.rules.turns import TurnRuleset
from tacmap.kit import guide


def test_guide_prints_the_path_of_the_guide(capsys: pytest.CaptureFixture[str]) -> None:
    # Not a terminal here: it prints the path and opens nothing.
    assert main(["ruleset", "guide"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    path = Path(out[0])
    assert path.name == "GUIDE.md" and path.is_file()
    assert "# " in path.read_text(encoding="utf-8")  # the guide itself, with its headings
    assert len(out) == 1


def test_no_guide_in_the_install_is_one_sentence(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(guide, "builtin_folders", lambda: [tmp_path])
    assert main(["ruleset", "guide"]) == 2
    err = capsys.readouterr().err
    assert "has no ruleset guide" in err and "Traceback" not in err


def test_the_kit_s_help_and_the_new_ruleset_name_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ruleset", "new", "mine", str(tmp_path)]) == 0
    capsys.readouterr()
    assert "tacmap ruleset guide" in (tmp_path / "mine" / "README.md").read_text()
    assert "GUIDE.md in tacmap's source" not in (tmp_path / "mine" / "README.md").read_text()
    with pytest.raises(SystemExit):
        main(["ruleset", "--help"])
    assert "guide" in capsys.readouterr().out


GUIDE = Path(__file__).resolve().parents[2] / "rulesets" / "GUIDE.md"


def test_the_guide_s_sections_are_numbered_once_each_in_order() -> None:
    numbers = [int(m) for m in re.findall(r"^## (\d+)\.", GUIDE.read_text(), re.M)]
    assert numbers == list(range(1, len(numbers) + 1))


def test_every_hook_of_the_turn_machinery_is_in_the_guide() -> None:
    text = GUIDE.read_text()
    hooks = [name for name, _ in inspect.getmembers(TurnRuleset, inspect.isfunction)
             if not name.startswith("_") and name in vars(TurnRuleset)]
    assert len(hooks) > 30
    missing = [h for h in hooks if f"`{h}(" not in text and f"`{h}`" not in text]
    assert missing == []


def test_the_guide_shows_a_turn_ruleset_loading_its_tables_as_the_class_does() -> None:
    text = GUIDE.read_text()
    assert "super().__init__(manifest, Data)" in text
    assert "super().__init__(manifest, Data)" in (
        Path(__file__).resolve().parents[2] / "tacmap" / "kit" / "template" / "rules.py"
    ).read_text()
