"""Each built-in ruleset's [stat_block]: complete, in step with the rules' tables, neutral."""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tacmap.engine.commands import StartCombat
from tacmap.engine.dice import FixedDice
from tacmap.engine.errors import InputError
from tacmap.engine.referee import Referee
from tacmap.engine.ruleset import Registry
from tacmap.engine.statblock import defaults
from tacmap.engine.state import Token

RULES = Path(__file__).resolve().parents[2] / "rulesets"
#: Stats the rules read through a variable rather than a literal key.
INDIRECT = {
    "action_pool": {"str", "dex", "con", "ac"},                  # weapon.stat, dodge_stat
    "speed_rank": {"riding", "strength_bonus", "helmet", "armour"},  # checks, armour pieces
}


@pytest.mark.parametrize("ruleset_id", ["action_pool", "speed_rank"])
def test_the_stat_block_covers_every_stat_the_rules_read(registry: Registry,
                                                         ruleset_id: str) -> None:
    source = (RULES / ruleset_id / "rules.py").read_text(encoding="utf-8")
    read = set(re.findall(r"stats\.get\(\"(\w+)\"", source))
    read |= set(re.findall(r"\bstat\(\w+, [\"'](\w+)[\"']\)", source))
    read |= INDIRECT[ruleset_id]
    keys = {f.key for f in registry.get(ruleset_id).stat_fields()}
    assert read <= keys, f"not in [stat_block]: {sorted(read - keys)}"


@pytest.mark.parametrize(("ruleset_id", "key", "changes", "words"), [
    ("action_pool", "str", {"max": 30}, "stat_block.str.max is 30 but stats.str.max is 20"),
    ("action_pool", "con", {"default": 2}, "stat_block.con.default is 2 but stats.con.default"),
    ("action_pool", "weapon", {"default": "axe"},
     "stat_block.weapon.default is 'axe' but defaults.weapon is 'unarmed'"),
    ("action_pool", "proficiency", {"max": 9}, "stat_block.proficiency.max is 9"),
    ("action_pool", "armour", {"choices_from": None, "choices": ["none", "plate"]},
     "stat_block.armour offers 'plate', which the rules' tables do not have"),
    ("action_pool", "ac", {"kind": "float"}, "stat_block.ac.kind must be 'int'"),
    ("speed_rank", "dex", {"default": 12}, "stat_block.dex.default is 12 but stats.dex is 10"),
    ("speed_rank", "dex", {"max": 30}, "stat_block.dex.max must be dexterity.highest (25)"),
    ("speed_rank", "mount_type", {"choices": ["mount", "boat"], "default": "mount"},
     "stat_block.mount_type.choices must be"),
    ("speed_rank", "race", {"choices_from": None, "choices": ["human", "centaur"]},
     "stat_block.race must offer names from [race] only"),
    ("speed_rank", "helmet", {"kind": "int", "default": 0}, "stat_block.helmet.kind must be bool"),
])
def test_a_stat_block_out_of_step_with_the_rules_is_refused(
        registry: Registry, ruleset_id: str, key: str, changes: dict[str, Any],
        words: str) -> None:
    rules = registry.get(ruleset_id)
    data = copy.deepcopy(rules.manifest.data)
    spec = data["stat_block"][key]
    for k, v in changes.items():
        if v is None:
            spec.pop(k, None)
        else:
            spec[k] = v
    with pytest.raises(InputError, match=re.escape(words)):
        type(rules)(replace(rules.manifest, data=data))


@pytest.mark.parametrize(("ruleset_id", "dice"), [("action_pool", []),
                                                  ("speed_rank", [7, 3])])
def test_a_token_with_every_default_plays_like_a_bare_one(
        registry: Registry, ruleset_id: str, dice: list[int]) -> None:
    """A form fills in every field; that must not change what the rules do."""
    rules = registry.get(ruleset_id)
    outcomes = []
    for stats in ({}, defaults(rules.stat_fields())):
        state = rules.new_encounter(seed=3)
        state.tokens = {t.id: t for t in (
            Token("ana", "Ana", "Party", 1, 1, stats=copy.deepcopy(stats)),
            Token("orc", "Orc", "Foes", 2, 1, stats=copy.deepcopy(stats)))}
        ref = Referee(state, rules)
        order = ("ana", "orc") if ruleset_id == "action_pool" else ()
        events = ref.execute(StartCombat(order), FixedDice(dice))
        ana = state.tokens["ana"]
        outcomes.append((events, rules.reach(state, ana), rules.move_budget(state, ana),
                         [o.key for o in rules.actions_for(state, "ana")]))
    assert outcomes[0] == outcomes[1]
