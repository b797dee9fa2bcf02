"""Each built-in ruleset's [stat_block]: the one place stats live, complete, neutral."""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tacmap.engine.model.commands import StartCombat
from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.statblock import defaults

RULES = Path(__file__).resolve().parents[2] / "rulesets"
#: Stats the rules read through a variable rather than a literal key.
INDIRECT = {
    "action_pool": {"str", "dex", "con", "ac"},                  # weapon.stat, dodge_stat
    "speed_rank": {"riding", "strength_bonus", "helmet", "armour"},  # checks, armour pieces
}


@pytest.mark.parametrize("ruleset_id", ["action_pool", "speed_rank"])
def test_the_stat_block_covers_every_stat_the_rules_read(registry: Registry,
                                                         ruleset_id: str) -> None:
    source = "".join(p.read_text(encoding="utf-8") for p in (RULES / ruleset_id).glob("*.py"))
    read = set(re.findall(r"stats\.get\(\"(\w+)\"", source))
    read |= set(re.findall(r"\bstat\(\w+, [\"'](\w+)[\"']\)", source))
    read |= INDIRECT[ruleset_id]
    keys = {f.key for f in registry.get(ruleset_id).stat_fields()}
    assert read <= keys, f"not in [stat_block]: {sorted(read - keys)}"


@pytest.mark.parametrize(("ruleset_id", "key", "changes", "sentence"), [
    ("action_pool", "armour", {"choices_from": None, "choices": ["none", "plate"]},
     "ruleset.toml: stat_block.armour: offers 'plate', which is not a key of [armour]"),
    ("action_pool", "ac", {"kind": "float"},
     "ruleset.toml: stat_block.ac.kind: the rules read AC as 'int', not 'float'"),
    ("action_pool", "weapon", {"default": "trident"},
     "ruleset.toml: stat_block.weapon.default: Weapon in hand must be one of unarmed, dagger, "
     "shortsword, longsword, axe, club, spear, halberd, shortbow, crossbow, not 'trident'"),
    ("speed_rank", "mount_type", {"choices": ["mount", "boat"], "default": "mount"},
     "ruleset.toml: stat_block.mount_type: offers 'boat', which is not one of mount, "
     "open_vehicle, closed_vehicle"),
    ("speed_rank", "race", {"choices_from": None, "choices": ["human", "centaur"]},
     "ruleset.toml: stat_block.race: offers 'centaur', which is not a key of [races]"),
    ("speed_rank", "helmet", {"kind": "int", "default": 0},
     "ruleset.toml: stat_block.helmet.kind: the rules read Helmet as 'bool', not 'int'"),
])
def test_a_stat_block_the_rules_cannot_read_is_refused(
        registry: Registry, ruleset_id: str, key: str, changes: dict[str, Any],
        sentence: str) -> None:
    rules = registry.get(ruleset_id)
    data = copy.deepcopy(rules.manifest.data)
    spec = data["stat_block"][key]
    for k, v in changes.items():
        if v is None:
            spec.pop(k, None)
        else:
            spec[k] = v
    with pytest.raises(InputError) as err:
        type(rules)(replace(rules.manifest, data=data))
    assert str(err.value) == sentence


@pytest.mark.parametrize(("ruleset_id", "key"), [("action_pool", "con"),
                                                 ("speed_rank", "dex")])
def test_a_stat_the_rules_read_cannot_be_left_out(registry: Registry, ruleset_id: str,
                                                  key: str) -> None:
    rules = registry.get(ruleset_id)
    data = copy.deepcopy(rules.manifest.data)
    del data["stat_block"][key]
    with pytest.raises(InputError) as err:
        type(rules)(replace(rules.manifest, data=data))
    assert str(err.value) == (f"ruleset.toml: stat_block.{key}: missing; the rules read this "
                              "stat as kind 'int'")


def test_the_stat_block_is_the_one_place_a_default_is_set(registry: Registry) -> None:
    """Change a default in [stat_block] and the rules follow; nothing else to keep in step."""
    for ruleset_id, key, value in (("action_pool", "con", 3), ("speed_rank", "dex", 18)):
        rules = registry.get(ruleset_id)
        data = copy.deepcopy(rules.manifest.data)
        data["stat_block"][key]["default"] = value
        changed = type(rules)(replace(rules.manifest, data=data))
        bare = Token("b", "Bare", "Party", 0, 0)
        if ruleset_id == "action_pool":
            assert changed.refill(bare) == (3, "CON 3")  # type: ignore[attr-defined]
        else:
            assert changed.base_speed(bare) == -1  # type: ignore[attr-defined]


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
