"""The tables of reflex's ruleset.toml, typed: what each key may hold, next to it.

``Manifest.tables(Data)`` converts the file once, as the ruleset loads; a value
that does not fit is one sentence naming the table and the key. The stats
themselves ([stat_block.*]) are the engine's: rules.py reads them through
``Ruleset.stat_block``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from tacmap.api import Entry, Invalid, RulesetData, Table

Count = Annotated[int, msgspec.Meta(ge=1, le=100)]
"""How many rolls, targets …: a whole number from 1 to 100."""
Die = Annotated[int, msgspec.Meta(ge=2, le=1000)]
"""Sides of a die."""
Face = Annotated[int, msgspec.Meta(ge=1, le=1000)]
"""A face a die must show."""
Level = Annotated[int, msgspec.Meta(ge=0, le=100)]
"""A number of victory levels."""
Metres = Annotated[float, msgspec.Meta(ge=0, le=10_000)]


class Round(Table):
    """[round]: combat rolls a round and metres a move may cover."""

    combat_rolls: Count = 1
    move_metres: Metres = 6.0


class Rolloff(Table):
    """[rolloff]: the die of the RFX tie roll-off."""

    die: Die = 20


class Dice(Table):
    """[dice]: the die every pool rolls and what one must show to win."""

    sides: Die = 6
    win_at: Face = 4

    def __post_init__(self) -> None:
        if self.win_at > self.sides:
            raise Invalid("win_at", f"must be at most the die ({self.sides})")


class Edge(Table):
    """[edge]: what a die must show under disadvantage and under advantage."""

    disadvantage_win_at: Face = 5
    advantage_win_at: Face = 3


class Attack(Table):
    """[attack]: when an attack hits, staggers, and how many melee targets it engages."""

    hit_at: Annotated[int, msgspec.Meta(ge=1, le=100)] = 1
    stagger_at: Annotated[int, msgspec.Meta(ge=1, le=100)] = 3
    melee_targets: Count = 2


class KnockDown(Table):
    """[knock_down]: the pool a knock-down rolls and the net VL that knocks prone."""

    pool: str = "melee"
    at_vl: Annotated[int, msgspec.Meta(ge=1, le=100)] = 1


class Pools(Table):
    """[pools]: the stat each non-weapon action rolls."""

    dodge: str = "dodge"
    assist: str = "assist"


class Injury(Table):
    """[injury]: damage that takes one die out of the kept pool."""

    damage_per_die: Count = 3


class Hp(Table):
    """[hp]: at or below this a character is down."""

    dead_at: int = 0


class Weapon(Entry):
    """A row of [weapons.<key>]."""

    kind: Literal["melee", "ranged"]
    damage: Level
    pool: str = ""
    """The stat whose pool the weapon rolls (empty: the one named like its kind)."""
    reach: Metres = 1.0
    range: Metres = 0.0

    def __post_init__(self) -> None:
        if not self.pool:
            self.pool = self.kind
        if self.kind == "ranged" and self.range <= 0:
            raise Invalid("range", "a ranged weapon needs a range above 0 m")


class Data(RulesetData, kw_only=True):
    """The whole of ruleset.toml past the engine's keys."""

    round: Round = msgspec.field(default_factory=Round)
    rolloff: Rolloff = msgspec.field(default_factory=Rolloff)
    dice: Dice = msgspec.field(default_factory=Dice)
    edge: Edge = msgspec.field(default_factory=Edge)
    attack: Attack = msgspec.field(default_factory=Attack)
    knock_down: KnockDown = msgspec.field(default_factory=KnockDown)
    pools: Pools = msgspec.field(default_factory=Pools)
    injury: Injury = msgspec.field(default_factory=Injury)
    hp: Hp = msgspec.field(default_factory=Hp)
    weapons: dict[str, Weapon]

    def __post_init__(self) -> None:
        for face, key in ((self.edge.disadvantage_win_at, "disadvantage_win_at"),
                          (self.edge.advantage_win_at, "advantage_win_at")):
            if face > self.dice.sides + 1:
                raise Invalid(f"edge.{key}", f"must be at most {self.dice.sides + 1}")
        if "unarmed" not in self.weapons:
            raise Invalid("weapons", "needs an 'unarmed' row (a character with no weapon)")
