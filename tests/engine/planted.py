"""Log entries with a secret planted in them, one per command and event kind.

Every kind is found from the code (every subclass of ``Command`` and ``Event``
once the rulesets are loaded), so a new kind is covered without a line here.
Each is built field by field from its type: a field naming a token names the
one the secret is about, a token field holds that token, a number is the
secret hit points, a sentence says them in a ruleset's words, a condition
is the secret one and a roll is the GM's alone.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import msgspec.inspect as mi

from tacmap.engine.model.commands import Command, EndTurn
from tacmap.engine.model.events import (
    ConditionChanged,
    Event,
    GmRolled,
    HpChanged,
    Said,
)
from tacmap.engine.model.state import Encounter, Placed, Token, Wall, party_side
from tacmap.engine.play.players import TOKEN_FIELDS
from tacmap.engine.play.referee import Entry
from tacmap.engine.rules.dice import Roll

#: An enemy's hit points now and unhurt: figures nothing else on the page has.
HP, MAX_HP = 8317, 9431
#: The hidden token: its id and name.
HIDDEN_ID, HIDDEN_NAME = "qzx", "Quixotl the Unseen"
#: A GM-only roll's faces and total.
ROLLED = 7723
#: The condition a ruleset keeps secret when it names none of its own.
SCHEMING = "scheming"
#: The template on the map (one command and one event take it off).
TEMPLATE = "t1"
#: The secrets, each planted on its own.
SECRETS = ("hp", "hidden", "roll", "condition")


def every_kind(base: type) -> list[type]:
    """``base``'s concrete subclasses, the rulesets' own included (load them first)."""
    out: list[type] = []
    todo: list[type] = list(base.__subclasses__())
    while todo:
        kind = todo.pop()
        todo.extend(kind.__subclasses__())
        config = getattr(kind, "__struct_config__", None)
        if config is not None and config.tag is not None and kind not in out:
            out.append(kind)
    return sorted(out, key=lambda k: k.__name__)


@dataclass(frozen=True)
class Plant:
    """What to plant: which secret, about which token, with which condition."""

    secret: str
    token: Token
    condition: str

    def sentence(self) -> str:
        """A ruleset's line holding the secret."""
        if self.secret == "hp":
            return f"{self.token.name} drops at {HP} HP ({HP}/{MAX_HP} HP)"
        # A ruleset tells a secret condition by its events, never in its own words.
        return f"{self.token.name} lurks"


def value(t: Any, field: str, plant: Plant) -> Any:
    """A value of msgspec type ``t`` for a field called ``field``, with the secret in it."""
    if isinstance(t, mi.Metadata):
        return value(t.type, field, plant)
    if isinstance(t, mi.UnionType):
        kinds = [k for k in t.types if not isinstance(k, mi.NoneType)]
        if len(kinds) < len(t.types) and (not kinds or (isinstance(kinds[0], mi.StructType)
                                          and kinds[0].cls.__name__ == "Schedule")):
            return None
        return value(kinds[0], field, plant)
    if isinstance(t, mi.StrType):
        if field in TOKEN_FIELDS:
            return plant.token.id
        if field == "id":
            return TEMPLATE
        if field in ("condition", "key"):
            return plant.condition
        if field in ("rule", "diagonal"):
            return "chebyshev"
        if field == "shape":
            return "circle"
        if field == "kind":
            return "wall"
        if field == "side":
            return plant.token.side
        if field == "notation":
            return f"1d9999+{ROLLED}" if plant.secret == "roll" else "1d6"
        return plant.sentence()
    if isinstance(t, mi.BoolType):
        if field == "public":
            return plant.secret != "roll"
        return field == "gained"
    if isinstance(t, mi.IntType):
        if plant.secret == "hp" and field in ("hp", "max_hp"):
            return HP if field == "hp" else MAX_HP
        return -1 if field == "change" else 0 if field in ("wall", "index", "step") else 1
    if isinstance(t, mi.FloatType):
        return 1.0
    if isinstance(t, mi.LiteralType):
        return t.values[0]
    if isinstance(t, mi.VarTupleType | mi.ListType):
        return (value(t.item_type, field, plant), value(t.item_type, field, plant))
    if isinstance(t, mi.TupleType):
        return tuple(value(k, field, plant) for k in t.item_types)
    if isinstance(t, mi.DictType | mi.AnyType):
        return {} if isinstance(t, mi.DictType) else plant.sentence()
    if isinstance(t, mi.StructType):
        if t.cls is Token:
            return token(plant)
        if t.cls is Roll:
            return Roll(6, (3,))
        return build(t.cls, plant)
    raise TypeError(f"no planted value for {t!r} ({field})")


def token(plant: Plant) -> Token:
    """The token the secret is about, holding it."""
    t = copy.deepcopy(plant.token)
    if plant.secret == "hp":
        t.hp, t.max_hp = HP, MAX_HP
    if plant.secret == "condition":
        t.conditions = (plant.condition,)
    return t


def build(kind: type, plant: Plant) -> Any:
    """An instance of the record type ``kind`` with the secret in every field it has."""
    info = mi.type_info(kind)
    assert isinstance(info, mi.StructType)
    fields = {f.name: value(f.type, f.name, plant) for f in info.fields}
    if kind is HpChanged and plant.secret == "hp":
        fields["old"], fields["new"] = MAX_HP, HP
    if "key" in fields and "token" not in fields:
        fields["key"] = "tide"  # an encounter-wide value, not a token's condition
    if kind.__name__ == "DiagonalChanged":
        fields.update(old="rectilinear", new="chebyshev")
    if kind.__name__ in ("EncounterRenamed", "RenameEncounter"):
        # The encounter's name is the GM's title for the page, never a secret.
        fields.update({k: "The ford" for k in ("old", "new", "name") if k in fields})
    if kind is GmRolled and plant.secret == "roll":
        return companion(plant)
    return kind(**fields)


def stage(state: Encounter, secret: str, conditions: frozenset[str]) -> tuple[Encounter, Plant]:
    """``state`` with the hidden token, a door, an enemy at the secret hit points; the plan."""
    state = copy.deepcopy(state)
    party = party_side(state)
    enemy = next(t for t in state.tokens.values() if t.side != party and not t.hidden)
    enemy.hp, enemy.max_hp = HP, MAX_HP
    state.tokens[HIDDEN_ID] = Token(HIDDEN_ID, HIDDEN_NAME, enemy.side, 0, 0, hidden=True)
    state.map.walls = (Wall(((0.0, 1.0), (1.0, 1.0)), kind="door"), *state.map.walls)
    condition = min(conditions) if conditions else SCHEMING
    about = state.tokens[HIDDEN_ID] if secret == "hidden" else enemy
    plant = Plant(secret, about, condition)
    fog_bank = msgspec.structs.replace(build(Placed, plant), label="Fog bank")
    state.templates = (*state.templates, fog_bank)
    return state, plant


def companion(plant: Plant) -> Event:
    """The event a command kind is logged with: one that holds the secret too."""
    t = plant.token
    if plant.secret == "hp":
        return HpChanged(t.id, MAX_HP, HP, "damage")
    if plant.secret == "condition":
        return ConditionChanged(t.id, plant.condition, True)
    if plant.secret == "roll":
        return GmRolled(f"1d9999+{ROLLED}", (Roll(9999, (ROLLED,)),), ROLLED,
                        f"1d9999 [{ROLLED}] = {ROLLED}", public=False)
    return Said(plant.sentence(), t.id)


def entries(kind: type, plant: Plant) -> Iterator[Entry]:
    """The log entry holding the secret in ``kind``."""
    record = build(kind, plant)
    if issubclass(kind, Command):
        yield Entry(record, (companion(plant),))
    else:
        yield Entry(EndTurn(), (record,))


def played(state: Encounter, log: list[Entry]) -> Encounter:
    """``state`` after ``log``'s events."""
    out = copy.deepcopy(state)
    for entry in log:
        for event in entry.events:
            event.apply(out)
    return out


def leaks(text: str, plant: Plant) -> list[str]:
    """The secrets of ``plant`` found in ``text``."""
    words = {"hp": [str(HP), str(MAX_HP)], "hidden": [HIDDEN_NAME, HIDDEN_ID],
             "roll": [str(ROLLED)], "condition": [plant.condition]}[plant.secret]
    return [w for w in words if w in text]


