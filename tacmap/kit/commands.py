"""The kit's commands on the ``tacmap`` command line: ``ruleset check``, ``ruleset new``,
``schema``. ``tacmap.cli`` adds the parsers and hands the parsed arguments over."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.ruleset import TRUST_WARNING, Manifest, Registry
from tacmap.kit import check, guide, scaffold, schema


def add_parsers(sub: Any) -> None:
    """``ruleset`` (with ``check`` and ``new``) and ``schema`` on the sub-command parser."""
    ruleset = sub.add_parser("ruleset", help="check a ruleset folder, start a new one, or find "
                             "the guide (tacmap ruleset guide)")
    kit = ruleset.add_subparsers(dest="kit_command", metavar="ACTION", required=True,
                                 parser_class=type(ruleset))
    checker = kit.add_parser(
        "check", help="shape, scenarios and the every-action contract of a ruleset folder",
        description="Check a ruleset folder: its shape and ruleset.toml, every scenario "
                    "file, and the every-action contract played headless on its demo. "
                    "One line per part; exit 0 when all pass, 2 otherwise. Checking a "
                    "folder runs its Python with your permissions: unless DIR is a built-in "
                    "or was trusted before, it asks first at a terminal (and remembers the "
                    "answer, as the window does), and a script needs --trust-rulesets "
                    "before the command (tacmap --trust-rulesets ruleset check DIR).",
        epilog="examples:\n  tacmap ruleset new skirmish_plus mine && tacmap ruleset check "
               "mine/skirmish_plus\n  tacmap --trust-rulesets ruleset check mine/skirmish_plus "
               "--seeds 1 --rounds 5 --strict",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    checker.add_argument("folder", metavar="DIR", type=Path,
                         help="the ruleset folder: the one holding ruleset.toml and rules.py")
    checker.add_argument("--demo", type=Path, default=None, metavar="FILE",
                         help="the encounter to play (default: a .tacmap in DIR)")
    checker.add_argument("--scenarios", type=Path, default=None, metavar="DIR",
                         help="where the scenario files are (default: DIR/scenarios; for a "
                         "built-in ruleset in a checkout, tests/scenarios/ID)")
    checker.add_argument("--rounds", type=int, default=check.ROUNDS, metavar="N",
                         help=f"rounds played per seed (default {check.ROUNDS})")
    checker.add_argument("--seeds", type=int, default=check.SEEDS, metavar="K",
                         help=f"seeds played (default {check.SEEDS})")
    checker.add_argument("--strict", action="store_true",
                         help="an option never offered in the contract's games, or enabled "
                              "with no legal target, fails the check (exit 2); without it, "
                              "it is listed")
    new = kit.add_parser("new", help="write a small working ruleset folder to start from",
                         description="Write DIR/ID: a small ruleset that passes "
                                     "'tacmap ruleset check' at once, to change into yours "
                                     "(tacmap ruleset guide shows how).",
                         epilog="examples:\n  tacmap ruleset new skirmish_plus mine\n  "
                                "tacmap --rulesets-dir mine new --ruleset skirmish_plus "
                                "fight.tacmap\n  tacmap ruleset new house_opposed mine "
                                "--from opposed",
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    new.add_argument("id", metavar="ID", help="the ruleset's id: lower-case letters, digits "
                     "and _ (the folder's name too)")
    new.add_argument("folder", metavar="DIR", type=Path,
                     help="the folder to write it in (made if missing); DIR/ID must not exist")
    new.add_argument("--from", dest="source", default=None, metavar="RULESET",
                     help="start from a copy of this ruleset (a built-in: tacmap rulesets "
                          "lists them), with its scenarios and demo, under the new id")
    kit.add_parser("guide", help="print where the ruleset author's guide is, and open it",
                   description="Print the path of the guide to writing a ruleset (GUIDE.md, "
                               "installed with tacmap) and open it in the desktop's viewer "
                               "where there is one.")
    printed = sub.add_parser("schema", help="print the encounter file format as a JSON Schema")
    printed.add_argument("--ruleset", default=None, metavar="ID",
                         help="also name the commands and events of this ruleset")


def run(args: argparse.Namespace, registry_warn: Callable[[str], None],
        trust: Callable[[Manifest], bool] | None = None) -> int:
    """Run ``ruleset check``, ``ruleset new`` or ``schema``; the exit code.

    ``trust`` is asked before ``ruleset check`` runs a user's folder (None: run it).
    """
    if args.command == "schema":
        print(schema.text(args.ruleset, args.rulesets_dir))
        return 0
    if args.kit_command == "guide":
        return guide.main()
    if args.kit_command == "new" and args.source is not None:
        made = _copy(args, registry_warn)
        print(f"{made}: ruleset {args.id!r}, a copy of {args.source!r}; try: tacmap ruleset "
              f"check {made}")
        return 0
    if args.kit_command == "new":
        made = scaffold.write(args.id, args.folder)
        print(f"{made}: new ruleset {args.id!r}; try: tacmap ruleset check {made}")
        return 0
    if not 1 <= args.rounds <= 1000 or not 1 <= args.seeds <= 1000:
        raise InputError("--rounds and --seeds must be 1 to 1000")
    manifest = check.user_manifest(args.folder)
    if manifest is not None:
        if trust is not None and not trust(manifest):
            raise InputError(f"ruleset {manifest.id!r} from {manifest.folder} is not trusted, "
                             "so its Python was not run (add --trust-rulesets, or Help ▸ "
                             "Rulesets You Added forgets that answer)")
        # Said now, before the folder's code runs, not after the check as other commands do.
        print(f"warning: loading ruleset {manifest.id!r} from {manifest.folder}: "
              f"{TRUST_WARNING}", file=sys.stderr, flush=True)
        registry_warn = _said_already
    return check.main(args.folder, args.demo, args.scenarios, args.rounds, args.seeds,
                      registry_warn, strict=args.strict)


def _copy(args: argparse.Namespace, warn: Callable[[str], None]) -> Path:
    """``ruleset new ID DIR --from RULESET``: the copy's folder."""
    registry = Registry(args.rulesets_dir, warn=warn)
    if args.source not in registry.ids():
        raise InputError(f"no ruleset {args.source!r} to copy; tacmap rulesets lists them")
    folder = registry.get(args.source).manifest.folder
    return scaffold.copy_of(folder, args.source, args.id, args.folder,
                            check.find_scenarios(folder, args.source),
                            check.find_demo(folder, args.source))


def _said_already(message: str) -> None:
    """The trust warning, printed once before the check began."""
