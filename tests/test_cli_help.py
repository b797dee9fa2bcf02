"""Every sub-command's --help says what it does and shows an example."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tacmap.cli import build_parser
from tacmap.cli_help import subcommands


def test_every_subcommand_has_a_description_and_an_example() -> None:
    for name, sub in subcommands(build_parser()).items():
        text = sub.format_help()
        assert sub.description, f"tacmap {name} --help has no description"
        assert "examples:\n  tacmap " in text, f"tacmap {name} --help has no example"
        for action in sub._actions:
            if action.dest != "help":
                assert action.help or action.choices, f"tacmap {name}: {action.dest} unexplained"


def test_the_window_s_own_command_lines_are_read_as_the_parser_reads_them(tmp_path: Path) -> None:
    """``tacmap`` and ``tacmap FILE`` skip building the parser (issue 29 item 15): they must
    mean what the parser would make of them, and every other command line goes to it."""
    from tacmap.cli import COMMANDS, _window_only, _with_open

    parser = build_parser()
    assert set(COMMANDS) == set(subcommands(parser))
    encounter = tmp_path / "fight.tacmap"
    encounter.write_text("{}")
    for words in ([], [str(encounter)], ["maps/fight.tacmap"]):
        expected, _ = parser.parse_known_args(_with_open(list(words), parser))
        assert vars(_window_only(words) or argparse.Namespace()) == vars(expected)
    for words in (*([name] for name in COMMANDS), ["--version"], ["rulset"],
                  [str(encounter), "extra"]):
        assert _window_only(words) is None


def test_no_example_names_a_file_only_a_checkout_has() -> None:
    # A wheel install has no resources/ folder: examples start from `tacmap new --demo`.
    for name, sub in subcommands(build_parser()).items():
        assert "resources/" not in (sub.epilog or ""), f"tacmap {name} --help"


def test_a_ruleset_action_s_usage_error_shows_its_own_usage(
        capsys: pytest.CaptureFixture[str]) -> None:
    from tacmap.cli import main

    assert main(["ruleset", "new"]) == 2
    err = capsys.readouterr().err
    assert "usage: tacmap ruleset new [-h] [--from RULESET] ID DIR (see tacmap ruleset new " \
        "--help)" in err
    assert main(["ruleset", "check"]) == 2
    assert "usage: tacmap ruleset check [-h] " in capsys.readouterr().err
    assert main(["rulset"]) == 2
    assert "did you mean `ruleset`?" in capsys.readouterr().err
