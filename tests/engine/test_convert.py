"""Typed conversion of plain data: a bad value is one sentence with its path."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
import pytest

from tacmap.engine.model.convert import Invalid, convert, locate, place
from tacmap.engine.model.errors import InputError


class Weapon(msgspec.Struct, forbid_unknown_fields=True):
    reach: Annotated[int, msgspec.Meta(ge=1)] = 1
    weight: Annotated[float, msgspec.Meta(ge=0, lt=100)] = 1.0
    kind: Literal["melee", "ranged"] = "melee"
    name: str = ""


class Data(msgspec.Struct, forbid_unknown_fields=True):
    weapons: dict[str, Weapon] = {}
    marks: list[tuple[int, int]] = []


@pytest.mark.parametrize(("raw", "sentence"), [
    ({"weapons": {"axe": {}, "halberd": {"reach": -2}}},
     "ruleset.toml: weapons.halberd.reach: expected a whole number >= 1, got -2"),
    ({"weapons": {"halberd": {"kind": "polearm"}}},
     "ruleset.toml: weapons.halberd.kind: unknown word 'polearm'"),
    ({"weapons": {"halberd": {"name": "ok", "colour": "red"}}},
     "ruleset.toml: weapons.halberd: unknown key 'colour'"),
    ({"weapons": {"halberd": {"name": "ok", "reach": "far"}}},
     "ruleset.toml: weapons.halberd.reach: expected a whole number, got 'far'"),
    ({"marks": [[1, 2], [3]]}, "ruleset.toml: marks[1]: expected a list of length 2, got 1"),
    ({"weapons": {"halberd": {"weight": -2}}},
     "ruleset.toml: weapons.halberd.weight: expected a number >= 0, got -2"),
    ({"weapons": {"halberd": {"weight": 100.5}}},
     "ruleset.toml: weapons.halberd.weight: expected a number < 100, got 100.5"),
    ({"weapons": 5}, "ruleset.toml: weapons: expected a table, got 5"),
])
def test_a_bad_value_is_one_sentence_naming_its_path(raw: object, sentence: str) -> None:
    with pytest.raises(InputError) as err:
        convert(raw, Data, "ruleset.toml")
    assert str(err.value) == sentence


def test_good_data_converts() -> None:
    data = convert({"weapons": {"spear": {"reach": 2}}}, Data, "x")
    assert data.weapons["spear"].reach == 2
    assert data.weapons["spear"].kind == "melee"


class Pool(msgspec.Struct, forbid_unknown_fields=True):
    die: int
    success_at: int

    def __post_init__(self) -> None:
        if self.success_at > self.die:
            raise Invalid("success_at", f"must be at most the die ({self.die})")


class Game(msgspec.Struct, forbid_unknown_fields=True):
    pools: dict[str, Pool]

    def __post_init__(self) -> None:
        if "any" in self.pools:
            raise Invalid("pools.any", "'any' is a reserved word")


@pytest.mark.parametrize(("raw", "sentence"), [
    ({"pools": {"a": {"die": 6, "success_at": 4}, "b": {"die": 6, "success_at": 7}}},
     "ruleset.toml: pools.b.success_at: must be at most the die (6), got 7"),
    ({"pools": {"any": {"die": 6, "success_at": 4}}},
     "ruleset.toml: pools.any: 'any' is a reserved word"),
])
def test_a_record_check_names_the_key_it_is_about(raw: object, sentence: str) -> None:
    with pytest.raises(InputError) as err:
        convert(raw, Game, "ruleset.toml")
    assert str(err.value) == sentence


def test_locate_finds_the_value_its_type_and_a_table_key() -> None:
    raw = {"weapons": {"axe": {}, "halberd": {"reach": "far"}}}
    try:
        msgspec.convert(raw, Data, strict=True)
    except msgspec.ValidationError as err:
        found = locate(err, raw, Data)
    assert (found.message, found.parts, found.value) == (
        "Expected `int`, got `str`", ["weapons", "halberd", "reach"], "far")
    assert found.kinds[1:] == [dict[str, Weapon], Weapon, Annotated[int, msgspec.Meta(ge=1)]]
    assert place(["log", "3", "events", "0"]) == "log[3].events[0]"


def test_locate_joins_the_places_of_a_complaint_passed_on_from_a_hook() -> None:
    err = msgspec.ValidationError("Expected `int`, got `str` - at `$[1]` - at `$.marks`")
    found = locate(err, {"marks": [[1, 2], [3, "x"]]}, Data)
    assert (found.parts, found.value) == (["marks", "1"], [3, "x"])
