"""A bad value in a ruleset's ruleset.toml stops it loading with one sentence: file, table, key.

Each built-in ruleset declares its tables as typed records in data.py; these
cases break one value of the real file, as a GM editing it would, and check
the sentence the loader gives, in code and from the command line (exit 2).
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tacmap.engine.model.errors import InputError
from tacmap.engine.rules.ruleset import Registry

RULES = Path(__file__).resolve().parents[2] / "rulesets"

CASES = [
    # action_pool
    ("action_pool", "weapons.halberd.reach", -2,
     "ruleset.toml: weapons.halberd.reach: expected a number >= 0, got -2"),
    ("action_pool", "weapons.dagger.stat", "luck",
     "ruleset.toml: weapons.dagger.stat: names 'luck', which is not a stat of [stat_block]"),
    ("action_pool", "turn.actions", "two",
     "ruleset.toml: turn.actions: expected a whole number, got 'two'"),
    ("action_pool", "costs.atack", 1, "ruleset.toml: costs: unknown key 'atack'"),
    ("action_pool", "abilities.parry.trigger", "sneezes",
     "ruleset.toml: abilities.parry.trigger: unknown word 'sneezes'"),
    ("action_pool", "abilities.mend.effect", "dodge",
     "ruleset.toml: abilities.mend.effect: must be 'attack' or 'heal' for an action, "
     "got 'dodge'"),
    ("action_pool", "weapons.any", {"stat": "dex", "damage_die": 4},
     "ruleset.toml: weapons.any: 'any' means any weapon; name it otherwise"),
    ("action_pool", "prepare.triggers.enters_reach", None,
     "ruleset.toml: prepare.triggers: missing key 'enters_reach'"),
    # speed_rank
    ("speed_rank", "weapons.halberd.reach", -2,
     "ruleset.toml: weapons.halberd.reach: expected a number >= 0, got -2"),
    ("speed_rank", "weapons.halberd.speed", "slow",
     "ruleset.toml: weapons.halberd.speed: expected a whole number, got 'slow'"),
    ("speed_rank", "combat_events.table.2.key", "earthquake",
     "ruleset.toml: combat_events.table[2].key: unknown word 'earthquake'"),
    ("speed_rank", "action_costs.attack", ["standard", "bonus"],
     "ruleset.toml: action_costs.attack[1]: unknown word 'bonus'"),
    ("speed_rank", "events.item_damaged.item_save", "fire",
     "ruleset.toml: events.item_damaged.item_save: must be one of [item_saves] "
     "(crushing_blow), got 'fire'"),
    ("speed_rank", "events.slip.choice_order", ["move", "prone"],
     "ruleset.toml: events.slip.choice_order: must name move, drop and prone, once each"),
    ("speed_rank", "combat_events.direction_die", 6,
     "ruleset.toml: combat_events.direction_die: unknown value 6"),
    ("speed_rank", "grid.cell_size", 0,
     "ruleset.toml: grid.cell_size: expected a number > 0, got 0"),
    ("speed_rank", "grid.unit", "yards",
     "ruleset.toml: grid.unit: must be one of m, ft, got 'yards'"),
    ("speed_rank", "stats", {"dex": 10},
     "ruleset.toml: unknown key 'stats'"),
    # six_phase
    ("six_phase", "grid.unit", "m",
     "ruleset.toml: grid.unit: six_phase counts in feet (a shove moves \"a number of feet\"): "
     "must be \"ft\", got 'm'"),
    ("six_phase", "wounds.head.effect", "blind",
     "ruleset.toml: wounds.head.effect: unknown word 'blind'"),
    ("six_phase", "locations.default", "tail",
     "ruleset.toml: locations.default: must be one of the names (head, torso, right arm, "
     "left arm, right leg, left leg), got 'tail'"),
]


def broken(data: dict[str, Any], where: str, value: Any) -> dict[str, Any]:
    """A copy of ``data`` with the value at ``where`` (dotted; list items by index) set."""
    out = copy.deepcopy(data)
    *path, last = where.split(".")
    table: Any = out
    for part in path:
        table = table[int(part)] if isinstance(table, list) else table.setdefault(part, {})
    if value is None:
        del table[last]
    elif isinstance(table, list):
        table[int(last)] = value
    else:
        table[last] = value
    return out


@pytest.mark.parametrize(("ruleset_id", "where", "value", "sentence"), CASES)
def test_a_bad_value_stops_the_ruleset_loading(registry: Registry, ruleset_id: str,
                                               where: str, value: Any, sentence: str) -> None:
    rules = registry.get(ruleset_id)
    data = broken(rules.manifest.data, where, value)
    with pytest.raises(InputError) as err:
        type(rules)(replace(rules.manifest, data=data))
    assert str(err.value) == sentence


@pytest.mark.parametrize(("ruleset_id", "line", "sentence"), [
    ("action_pool", "reach = 2\n",
     "ruleset.toml: weapons.spear.reach: expected a number >= 0, got -2"),
    ("speed_rank", "speed = 3\n",
     "ruleset.toml: weapons.greatsword.speed: expected a whole number, got 'slow'"),
])
def test_the_command_line_says_the_one_sentence_and_exits_2(
        tmp_path: Path, ruleset_id: str, line: str, sentence: str) -> None:
    # A user's copy of the built-in folder, under a new id, with one value broken. A fresh
    # process: the copy registers the same record names as the built-in it came from.
    folder = tmp_path / "mine"
    shutil.copytree(RULES / ruleset_id, folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "ruleset.toml"
    text = toml.read_text(encoding="utf-8").replace(f'id = "{ruleset_id}"', 'id = "mine"')
    bad = "reach = -2\n" if ruleset_id == "action_pool" else 'speed = "slow"\n'
    first = text.index(line, text.index("[weapons.spear]" if ruleset_id == "action_pool"
                                        else "[weapons.greatsword]"))
    toml.write_text(text[:first] + bad + text[first + len(line):], encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "tacmap", "--rulesets-dir", str(tmp_path),
                           "measure", "--ruleset", "mine", "0,0", "1,1"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    # The first line is the warning that a user's ruleset folder is code.
    assert done.stderr.splitlines()[-1] == f"tacmap: {sentence}"
