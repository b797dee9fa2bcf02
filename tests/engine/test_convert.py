"""Typed conversion of plain data: a bad value is one sentence with its path."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
import pytest

from tacmap.engine.convert import convert
from tacmap.engine.errors import InputError


class Weapon(msgspec.Struct, forbid_unknown_fields=True):
    reach: Annotated[int, msgspec.Meta(ge=1)] = 1
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
