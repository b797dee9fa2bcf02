"""The tables of opposed's ruleset.toml, typed: what each key may hold, next to it.

``Manifest.tables(Data)`` converts the file once, as the ruleset loads; a value
that does not fit is one sentence naming the table and the key. The stats
themselves ([stat_block.*]) are the engine's: rules.py reads them through
``Ruleset.stat_block``.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

import msgspec

from tacmap.api import Entry, Invalid, Table, TurnData, turns

DICE_PATTERN = r"^[1-9][0-9]?d[1-9][0-9]{0,2}$"
#: Dice written "2d6": 1 to 99 dice of 1 to 999 faces.
Dice = Annotated[str, msgspec.Meta(pattern=DICE_PATTERN)]
Metres = Annotated[float, msgspec.Meta(ge=0, le=10_000)]
Shift = Annotated[int, msgspec.Meta(ge=-100, le=100)]
Cost = Annotated[int, msgspec.Meta(ge=0, le=100)]
Kind = Literal["move", "standard", "full"]


def parse_dice(text: str) -> tuple[int, int]:
    """``"2d6"`` → ``(2, 6)``; ``""`` → ``(0, 0)`` (no dice)."""
    if not text:
        return (0, 0)
    m = re.fullmatch(r"(\d+)d(\d+)", text)
    if m is None:
        raise ValueError(f"{text!r} is not dice like 2d6")
    return int(m.group(1)), int(m.group(2))


class Tier(Table):
    """A row of [[tiers]]: a skill tier, the SL it starts at and its dice."""

    name: str
    from_sl: Annotated[int, msgspec.Meta(ge=0, le=100)]
    dice: Dice


class Gear(Entry):
    """A row of [shields.*] or [armour.*]: its dice by tier (none: no dice)."""

    dice: tuple[Dice, ...] = ()


class Weapon(Entry):
    """A row of [weapons.*]."""

    family: str = ""
    reach: Metres = 1.0
    ranged: bool = False
    range: Metres = 0.0
    attack: Shift = 0
    damage: Shift = 0

    def __post_init__(self) -> None:
        if self.ranged and self.range <= 0:
            raise Invalid("range", "a ranged weapon needs a range above 0 m")


class Flourish(Entry):
    """A row of [flourishes.*]: what it adds and what it costs."""

    stamina: Cost = 0
    faith: Cost = 0
    attack: Shift = 0
    damage: Shift = 0
    stun: bool = False

    def __post_init__(self) -> None:
        if not (self.attack or self.damage or self.stun):
            raise Invalid("attack", "a flourish must add attack, damage or stun")


class Turn(turns.Turn, kw_only=True):
    """[turn]: the shapes a turn may take, and movement (the engine's turn machinery's
    other keys keep their defaults: the order is the GM's or Reflex's, set by the rules)."""

    shapes: tuple[tuple[Kind, ...], ...]
    incapacitated_speed: Annotated[float, msgspec.Meta(ge=0, le=1)] = 0.5
    free_moves_before_combat: bool = True

    def __post_init__(self) -> None:
        if not self.shapes or any(not s for s in self.shapes):
            raise Invalid("shapes", "list at least one shape, each of one action or more")


class Order(Table):
    """[order]: how the order is set when the GM gives none."""

    default: Literal["reflex", "map"] = "reflex"


class Challenge(Table):
    """[challenge]: advantage for the initiator, the GM's situational bonus."""

    advantage: Literal["first_turn", "none"] = "first_turn"
    bonus: Annotated[int, msgspec.Meta(ge=1, le=100)] = 2


class Opportunity(Table):
    """[opportunity]: the roll that decides an attack of opportunity."""

    die: Annotated[int, msgspec.Meta(ge=2, le=1000)] = 100
    take_at_most: Annotated[int, msgspec.Meta(ge=0, le=1000)] = 50
    decide: Literal["roll", "take", "pass"] = "roll"

    def __post_init__(self) -> None:
        if self.take_at_most > self.die:
            raise Invalid("take_at_most", f"must be at most the die ({self.die})")


class Health(Table):
    """[health]: where death starts."""

    dead_at_minus_vigor: bool = True


class Data(TurnData, kw_only=True):
    """Everything ruleset.toml says besides [stat_block], checked once when it loads."""

    tiers: tuple[Tier, ...]
    shields: dict[str, Gear]
    armour: dict[str, Gear]
    weapons: dict[str, Weapon]
    flourishes: dict[str, Flourish] = msgspec.field(default_factory=dict)
    turn: Turn
    order: Order = msgspec.field(default_factory=Order)
    challenge: Challenge = msgspec.field(default_factory=Challenge)
    opportunity: Opportunity = msgspec.field(default_factory=Opportunity)
    health: Health = msgspec.field(default_factory=Health)

    def __post_init__(self) -> None:
        if not self.tiers:
            raise Invalid("tiers", "list at least one skill tier")
        starts = [t.from_sl for t in self.tiers]
        if starts != sorted(set(starts)):
            raise Invalid("tiers", "each tier must start at a higher SL than the one before")
