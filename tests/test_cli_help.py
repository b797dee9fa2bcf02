"""Every sub-command's --help says what it does and shows an example."""

from __future__ import annotations

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
