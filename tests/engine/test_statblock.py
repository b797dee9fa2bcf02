"""The stat block schema: reading [stat_block.*], wording every problem, defaults."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tacmap.engine.model.errors import InputError
from tacmap.engine.model.state import Token
from tacmap.engine.rules.ruleset import Registry
from tacmap.engine.rules.statblock import (
    StatBlock,
    StatField,
    check_stats,
    check_value,
    defaults,
    fields_of,
)

TOML: dict[str, Any] = {
    "weapons": {"dagger": {"reach": 1}, "spear": {"reach": 2}},
    "stat_block": {
        "dex": {"label": "DEX", "kind": "int", "min": 0, "max": 20, "default": 3,
                "help": "Dexterity."},
        "speed": {"kind": "float", "min": 0.5},
        "motto": {"label": "Motto", "kind": "text", "max": 10, "required": True},
        "weapon": {"label": "Weapon", "kind": "choice", "choices_from": "weapons"},
        "stance": {"label": "Stance", "kind": "choice", "choices": ["high", "low"],
                   "default": "low"},
        "spells": {"label": "Spells", "kind": "choices", "choices": ["sleep", "fire"],
                   "repeats": True, "max": 3},
        "friends": {"label": "Friends", "kind": "choices"},
        "shield": {"label": "Shield", "kind": "bool"},
        "proficiency": {"label": "Proficiency", "kind": "table", "choices_from": "weapons",
                        "min": 0, "max": 5, "default": {"dagger": 1}},
    },
}
FIELDS = fields_of(TOML)
BY_KEY = {f.key: f for f in FIELDS}


def test_fields_come_in_toml_order_with_their_settings() -> None:
    assert [f.key for f in FIELDS] == ["dex", "speed", "motto", "weapon", "stance", "spells",
                                       "friends", "shield", "proficiency"]
    assert BY_KEY["dex"] == StatField("dex", "DEX", "int", 0, 20, 3, (), "Dexterity.")
    assert BY_KEY["weapon"].choices == ("dagger", "spear")      # the keys of [weapons]
    assert BY_KEY["stance"].choices == ("high", "low")
    assert BY_KEY["motto"].required and BY_KEY["spells"].repeats
    assert BY_KEY["speed"].label == "speed"                     # the key when no label


def test_defaults_fill_every_field_and_are_fresh_each_time() -> None:
    d = defaults(FIELDS)
    assert d == {"dex": 3, "speed": 0.5, "motto": "", "weapon": "dagger", "stance": "low",
                 "spells": (), "friends": (), "shield": False, "proficiency": {"dagger": 1}}
    d["proficiency"]["spear"] = 2
    assert defaults(FIELDS)["proficiency"] == {"dagger": 1}
    assert BY_KEY["proficiency"].default == {"dagger": 1}


@pytest.mark.parametrize(("key", "value", "sentence"), [
    ("dex", 25, "DEX must be a whole number from 0 to 20, not 25"),
    ("dex", 2.5, "DEX must be a whole number from 0 to 20, not 2.5"),
    ("dex", True, "DEX must be a whole number from 0 to 20, not yes"),
    ("dex", "3", "DEX must be a whole number from 0 to 20, not '3' (text in quotes: write "
                 "numbers without them)"),
    ("dex", None, "DEX must be a whole number from 0 to 20, not null"),
    ("dex", {"a": [True, None]},
     'DEX must be a whole number from 0 to 20, not {"a": [true, null]}'),
    ("speed", 0.25, "speed must be a number of at least 0.5, not 0.25"),
    ("speed", float("nan"), "speed must be a number of at least 0.5, not nan"),
    ("motto", 3, "Motto must be text, not 3"),
    ("motto", "x" * 11, "Motto must be at most 10 characters long, not 11"),
    ("weapon", "axe", "Weapon must be one of dagger, spear, not 'axe'"),
    ("spells", "sleep", "Spells must be a list of names, not 'sleep'"),
    ("spells", ("wish",), "Spells names 'wish', which is not one of sleep, fire"),
    ("spells", ("sleep",) * 4, "Spells must name at most 3, not 4"),
    ("friends", ("Ana", "Ana"), "Friends names 'Ana' twice"),
    ("shield", 1, "Shield must be yes or no (true or false), not 1"),
    ("proficiency", (1, 2), "Proficiency must give a whole number for each name, not [1, 2]"),
    ("proficiency", {"axe": 1}, "Proficiency names 'axe', which is not one of dagger, spear"),
    ("proficiency", {"spear": 6},
     "Proficiency for spear must be a whole number from 0 to 5, not 6"),
])
def test_each_problem_is_one_readable_sentence(key: str, value: Any, sentence: str) -> None:
    assert check_value(BY_KEY[key], value) == sentence
    assert check_stats(FIELDS, {"motto": "ok", key: value}) == [sentence]


@pytest.mark.parametrize(("key", "value"), [
    ("dex", 0), ("dex", 20), ("speed", 3), ("speed", 0.5), ("motto", ""),
    ("weapon", "spear"), ("spells", ["sleep", "sleep"]), ("spells", ()),
    ("friends", ("Ana", "Bo")), ("shield", False), ("proficiency", {}),
    ("proficiency", {"dagger": 0, "spear": 5}),
])
def test_good_values_pass(key: str, value: Any) -> None:
    assert check_value(BY_KEY[key], value) is None


def test_check_stats_lists_every_problem_in_form_order() -> None:
    problems = check_stats(FIELDS, {"zeal": 1, "weapon": "axe", "dex": -1})
    assert problems == [
        "DEX must be a whole number from 0 to 20, not -1",
        "Motto is required",
        "Weapon must be one of dagger, spear, not 'axe'",
        "unknown stat 'zeal' (this ruleset knows dex, speed, motto, weapon, stance, spells, "
        "friends, shield, proficiency)",
    ]
    assert check_stats(FIELDS, {"motto": "Onward"}) == []
    assert check_stats((), {}) == []


@pytest.mark.parametrize(("spec", "words"), [
    ({"kind": "integer"}, "stat_block.x.kind must be one of int, float, text, choice"),
    ({"kind": "int", "maxx": 3}, "stat_block.x.maxx is not a stat block key"),
    ({"kind": "int", "min": 5, "max": 1}, "stat_block.x has min 5 above max 1"),
    ({"kind": "int", "min": 0.5}, "stat_block.x.min must be a whole number, not 0.5"),
    ({"kind": "int", "max": 3, "default": 4},
     "stat_block.x.default: x must be a whole number of at most 3, not 4"),
    ({"kind": "bool", "max": 1}, "stat_block.x.max has no meaning for a bool field"),
    ({"kind": "text", "min": -1}, "counts characters and cannot be negative"),
    ({"kind": "choice"}, "is a choice field and needs choices or choices_from"),
    ({"kind": "choice", "choices_from": "armour"}, "names [armour], which is not a table"),
    ({"kind": "choice", "choices": ["a"], "choices_from": "weapons"}, "keep one"),
    ({"kind": "choice", "choices": ["a", "a"]}, "names a choice twice"),
    ({"kind": "choice", "choices": "a, b"}, "stat_block.x.choices must be a list of names"),
    ({"kind": "int", "choices": ["a"]}, "has choices, which a int field does not use"),
    ({"kind": "int", "repeats": True}, "repeats only applies to a choices field"),
    ({"kind": "text", "least_means": "none"},
     "stat_block.x.least_means only applies to an int or float field"),
    ({"kind": "int", "label": 3}, "stat_block.x.label must be text, not 3"),
    ({"kind": "int", "required": "yes"}, "stat_block.x.required must be true or false"),
    ("dex", "stat_block.x must be a table"),
])
def test_a_bad_stat_block_in_ruleset_toml_is_one_clear_sentence(spec: Any, words: str) -> None:
    data = {"weapons": {"dagger": {}}, "stat_block": {"x": spec}}
    with pytest.raises(InputError, match=r"ruleset\.toml: ") as err:
        fields_of(data)
    assert words in str(err.value)


def test_a_ruleset_without_a_stat_block_has_no_fields(registry: Registry) -> None:
    skirmish = registry.get("skirmish")
    # Only the sight range fog of war reads, which every ruleset's tokens may have.
    assert [f.key for f in skirmish.stat_fields()] == ["sight"]
    # With no schema of its own, the base class leaves the stat block to the rules.
    skirmish.check_token(_token({"anything": 1, "sight": 12.5}))
    with pytest.raises(InputError, match=r"Sight \(m\)"):
        skirmish.check_token(_token({"anything": 1, "sight": -3}))


def _token(stats: dict[str, Any]) -> Token:
    return Token("x", "X", "foes", 0, 0, stats=stats)


@pytest.mark.parametrize("ruleset_id", ["action_pool", "speed_rank"])
def test_a_fresh_form_is_a_valid_stat_block(registry: Registry, ruleset_id: str) -> None:
    rules = registry.get(ruleset_id)
    fields = rules.stat_fields()
    assert fields and rules.stat_fields() is fields          # read once
    assert all(f.label and f.help for f in fields)
    rules.check_token(_token(defaults(fields)))


def _value(f: StatField) -> st.SearchStrategy[Any]:
    lo = None if f.min is None else int(f.min)
    hi = None if f.max is None else int(f.max)
    if f.kind == "int":
        return st.integers(lo if lo is not None else -50, hi if hi is not None else 50)
    if f.kind == "bool":
        return st.booleans()
    if f.kind == "float":
        return st.floats(lo if lo is not None else -50, hi if hi is not None else 50)
    if f.kind == "text":
        return st.text(max_size=hi if hi is not None else 20)
    if f.kind == "choice":
        return st.sampled_from(f.choices)
    if f.kind == "choices":
        names = st.sampled_from(f.choices) if f.choices else st.text(min_size=1, max_size=8)
        many = st.lists(names, max_size=4, unique=not f.repeats)
        return many.map(tuple)
    keys = st.sampled_from(f.choices)
    return st.dictionaries(keys, st.integers(lo or 0, hi if hi is not None else 9), max_size=3)


@pytest.mark.parametrize("ruleset_id", ["action_pool", "speed_rank"])
def test_any_block_the_schema_allows_is_accepted_and_any_bad_value_is_named(
        registry: Registry, ruleset_id: str) -> None:
    rules = registry.get(ruleset_id)
    fields = rules.stat_fields()

    @given(st.fixed_dictionaries({}, optional={f.key: _value(f) for f in fields}),
           st.sampled_from(fields))
    def check(stats: dict[str, Any], broken: StatField) -> None:
        if ruleset_id == "action_pool" and stats.get("weapons"):
            stats["weapon"] = stats["weapons"][0]      # the one cross-stat rule
        assert check_stats(fields, stats) == []
        rules.check_token(_token(stats))
        bad = {**stats, broken.key: {"not": "this"} if broken.kind != "table" else 7}
        problems = check_stats(fields, bad)
        assert len(problems) == 1 and problems[0].startswith(broken.label)
        with pytest.raises(InputError, match=f"token 'x' \\(X\\): {re.escape(broken.label)}"):
            rules.check_token(_token(bad))

    check()


# --------------------------------------------------------------------------- as the rules read it


BLOCK = StatBlock(FIELDS)


def test_the_rules_read_a_stat_or_its_default() -> None:
    assert BLOCK.value({"dex": 7}, "dex") == 7
    assert BLOCK.value({}, "dex") == 3
    assert BLOCK.default("stance") == "low"
    assert "dex" in BLOCK and "luck" not in BLOCK
    assert BLOCK.fields == FIELDS


def test_a_stat_the_rules_need_is_checked_as_they_load() -> None:
    assert BLOCK.need("dex", "int").label == "DEX"
    assert BLOCK.need("weapon", ("choice", "text"), among=["dagger", "spear", "axe"]).choices \
        == ("dagger", "spear")


@pytest.mark.parametrize(("call", "sentence"), [
    (lambda: BLOCK.need("luck", "int"),
     "ruleset.toml: stat_block.luck: missing; the rules read this stat as kind 'int'"),
    (lambda: BLOCK.need("luck", "int", where="weapons.dagger.stat"),
     "ruleset.toml: weapons.dagger.stat: names 'luck', which is not a stat of [stat_block]"),
    (lambda: BLOCK.need("dex", "bool"),
     "ruleset.toml: stat_block.dex.kind: the rules read DEX as 'bool', not 'int'"),
    (lambda: BLOCK.need("motto", "int", where="prepare.dodge_stat"),
     "ruleset.toml: prepare.dodge_stat: names 'motto', which the rules read as kind 'int', "
     "but stat_block.motto is 'text'"),
    (lambda: BLOCK.need("weapon", "choice", among=["dagger"], table="weapons"),
     "ruleset.toml: stat_block.weapon: offers 'spear', which is not a key of [weapons]"),
    (lambda: BLOCK.need("stance", "choice", among=("high", "mid")),
     "ruleset.toml: stat_block.stance: offers 'low', which is not one of high, mid"),
])
def test_a_stat_the_rules_cannot_read_is_one_sentence(call: Any, sentence: str) -> None:
    with pytest.raises(InputError) as err:
        call()
    assert str(err.value) == sentence


# --------------------------------------------------------------------------- issue 33 item 14


def test_tracked_values_are_declared_as_stats_are_with_lists_and_rows() -> None:
    wounds, faces = fields_of({"values": {
        "wounds": {"kind": "rows", "columns": ["text", "text", "int"], "max": 5},
        "faces": {"kind": "list", "items": "int", "min": 1, "max": 6}}}, "values")
    assert check_value(wounds, (("Arrow", "leg", 0),)) is None
    assert check_value(wounds, "an arrow") == \
        "wounds must be a list of rows of 3 items (text, text, a whole number), not 'an arrow'"
    assert check_value(wounds, (("Arrow", "leg"),)) == \
        'wounds row 1 must hold 3 items (text, text, a whole number), not ["Arrow", "leg"]'
    assert check_value(wounds, (("a", "b", 0),) * 6) == "wounds must hold at most 5 rows, not 6"
    assert check_value(faces, (1, 6)) is None
    assert check_value(faces, (1, 7)) == \
        "faces must be a list of whole numbers (1 to 6), not holding 7"


@pytest.mark.parametrize(("spec", "said"), [
    ({"kind": "rows"}, "values.w.columns must list the kind of each column"),
    ({"kind": "list", "items": "dict"}, "values.w.items must be one of int, float, text, bool"),
    ({"kind": "int", "columns": ["int"]}, "values.w.columns only applies to a rows or list field"),
])
def test_a_bad_value_declaration_is_named(spec: dict[str, object], said: str) -> None:
    with pytest.raises(InputError, match=re.escape(f"ruleset.toml: {said}")):
        fields_of({"values": {"w": spec}}, "values")
