"""``tacmap ruleset guide`` (issue 38): the author's guide found wherever tacmap is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.cli import main
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
