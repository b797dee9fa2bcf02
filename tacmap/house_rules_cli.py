"""``tacmap rules``: the house rules of an encounter file, listed or set; and the
``--rule KEY=VALUE`` that ``tacmap new`` and ``tacmap forecast`` take."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tacmap.engine.files import storage
from tacmap.engine.model.commands import SetHouseRule
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.state import Encounter
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.house_rules import check_value, parse_setting, value_in_force
from tacmap.engine.rules.ruleset import Registry, Ruleset

RULE_HELP = "set house rule KEY to VALUE (repeatable; tacmap rules FILE lists them)"


def add_parser(sub: Any) -> None:
    """The ``rules`` sub-command."""
    p = sub.add_parser("rules", help="list an encounter's house rules, or set them")
    p.add_argument("file", metavar="FILE", help="the encounter file (.tacmap)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="set house rule KEY to VALUE (repeatable), logged like the window's "
                        "Encounter ▸ House Rules")
    p.add_argument("--out", default=None, metavar="OUT",
                   help="write the result to OUT instead of FILE")


def overridden(state: Encounter, ruleset: Ruleset, settings: Sequence[str]) -> Encounter:
    """``state`` with the ``KEY=VALUE`` settings in force (checked; a default clears one)."""
    options = ruleset.manifest.options
    for text in settings:
        key, value = parse_setting(text)
        check_value(options, key, value)
        if value == options[key].default:
            state.house_rules.pop(key, None)
        else:
            state.house_rules[key] = value
    return state


def lines(state: Encounter, ruleset: Ruleset) -> list[str]:
    """Each option: its value in force, the default, the quoted sentence and every value."""
    options = ruleset.manifest.options
    if not options:
        return [f"{ruleset.manifest.name} declares no house rules"]
    out = []
    for key, option in options.items():
        now = value_in_force(options, state, key)
        mark = "default" if now == option.default else f"default {option.default}"
        out.append(f"{key} = {now}  ({mark})")
        out.append(f"  “{option.text}”")
        for value, said in option.values.items():
            out.append(f"  {'*' if value == now else ' '} {value}: {said}")
    return out


def run(registry: Registry, args: argparse.Namespace) -> int:
    """Run ``tacmap rules``."""
    loaded = storage.load(args.file, registry)
    ruleset = registry.get(loaded.state.ruleset)
    if not args.set:
        print("\n".join(lines(loaded.state, ruleset)))
        return 0
    referee = Referee(loaded.state, ruleset, loaded.log)
    for text in args.set:
        key, value = parse_setting(text)
        try:
            referee.execute(SetHouseRule(key, value))
        except RuleError as err:
            raise InputError(str(err)) from None
    out = Path(args.out or args.file)
    storage.save(out, referee.state, referee.log, loaded.images)
    print(f"{out}: " + "; ".join(
        f"{k} = {value_in_force(ruleset.manifest.options, referee.state, k)}"
        for k in dict(parse_setting(t) for t in args.set)))
    return 0
