"""The tables of action_pool's ruleset.toml, typed: what each key may hold, next to it.

``Manifest.tables(Data)`` converts the file once, as the ruleset loads; a
value that does not fit is one sentence naming the table and the key. The
stats themselves ([stat_block.*]) are the engine's: rules.py reads them
through ``Ruleset.stat_block``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from tacmap.api import Entry, Invalid, Table, TurnData, article, turns

#: A prepared dodge that answers an attack with any weapon: no weapon may take the name.
ANY = "any"

Count = Annotated[int, msgspec.Meta(ge=1, le=100)]
"""How many actions, uses, dice …: a whole number from 1 to 100."""
Die = Annotated[int, msgspec.Meta(ge=2, le=1000)]
"""Sides of a die."""
Metres = Annotated[float, msgspec.Meta(ge=0, le=10_000)]
Shift = Annotated[int, msgspec.Meta(ge=-1000, le=1000)]
"""A whole number added to something (DT, AC, damage)."""
Trigger = Literal["attacks", "leaves_reach", "enters_reach"]


class Turn(turns.Turn, kw_only=True):
    """[turn]: the actions of a turn and what a move action covers (the engine's turn
    machinery reads ``actions``; its other keys keep their defaults: the GM's order)."""

    actions: Count
    metres_per_move_action: Metres
    free_moves_before_combat: bool = True


class Pool(Table):
    """[pool]: the die every combat pool rolls and what one must show to succeed."""

    die: Die
    success_at: Annotated[int, msgspec.Meta(ge=1)]
    reaction_refill: Literal["at_once", "end_of_turn"] = "at_once"

    def __post_init__(self) -> None:
        if self.success_at > self.die:
            raise Invalid("success_at", f"must be at most the die ({self.die})")


class Test(Table):
    """[test]: how a test's successes are read against the DT."""

    success_on_equal: bool = True


class Reach(Table):
    """[reach]: how reach and range are measured (moving keeps the 2 m diagonal)."""

    diagonal: Literal["chebyshev", "alternating"] = "chebyshev"
    """A rule under which tokens that touch at a corner are 1 m apart."""


class Skill(Table):
    """[skill]: the DTs the Actions panel offers for a skill test."""

    test_dts: tuple[Shift, ...] = (1, 2, 3)


class WeaponChange(Table):
    """[weapon_change]: what a new weapon in hand does to the pool."""

    pool: Literal["shift", "rebuild"] = "shift"


class Costs(Table):
    """[costs]: actions each action takes."""

    attack: Count = 1
    prepare: Count = 1
    skill: Count = 1
    generic: Count = 1
    wield: Count = 1


class Triggers(Table):
    """[prepare.triggers]: what a prepared action can wait for, in the log's words."""

    attacks: str
    leaves_reach: str
    enters_reach: str

    def words(self) -> dict[str, str]:
        """Trigger → words, in the order the action options list them."""
        return {"attacks": self.attacks, "leaves_reach": self.leaves_reach,
                "enters_reach": self.enters_reach}


class Prepare(Table):
    """[prepare]: the prepared dodge, and how often a prepared action fires."""

    dodge_stat: str
    """A whole-number stat of [stat_block]; rules.py checks that it is one."""
    triggers: Triggers
    dodge_divisor: Count = 2
    uses: Count = 1


class Hp(Table):
    """[hp]: where HP stops, and a character is down."""

    floor: Annotated[int, msgspec.Meta(ge=-1000, le=0)] = 0


class Armour(Entry):
    """A row of [armour.*]."""

    move_penalty: Metres = 0.0
    """Metres taken off each move action."""


class Weapon(Entry):
    """A row of [weapons.*]."""

    stat: str
    """Proficiency stat: with the weapon proficiency it sets the pool size."""
    damage_die: Die
    damage_stat: str = ""
    """Stat added to damage, or "" when the weapon does not allow it."""
    reach: Metres = 1.0
    """Metres edge to edge; the range of a ranged weapon."""
    ranged: bool = False


#: Effects each kind of ability may have ("" for a passive: it only changes numbers).
EFFECTS = {"action": ("attack", "heal"), "reaction": ("attack", "dodge"), "passive": ("",)}


class Ability(Entry):
    """A row of [abilities.*] (ruleset.toml says what each key does)."""

    kind: Literal["action", "passive", "reaction"]
    effect: Literal["", "attack", "heal", "dodge"] = ""
    trigger: Literal["", "attacks", "leaves_reach", "enters_reach"] = ""
    actions: Count = 1
    discard: Annotated[int, msgspec.Meta(ge=0, le=1000)] = 0
    dt: Shift = 0
    extra_dice: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    damage: Shift = 0
    ac: Shift = 0
    move: Metres = 0.0
    refill: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    per_round: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    heal_die: Die | None = None
    """Die of the healing roll; none given: the pool's die."""
    reach: Metres = 1.0
    text: str = ""

    def __post_init__(self) -> None:
        allowed = " or ".join(repr(e) for e in EFFECTS[self.kind] if e)
        if self.effect not in EFFECTS[self.kind]:
            raise Invalid("effect", f"must be {allowed} for {article(self.kind)}" if allowed
                          else f"is left out for {article(self.kind)}")
        if self.kind == "reaction" and not self.trigger:
            raise Invalid("trigger", "a reaction needs one: attacks, leaves_reach or "
                          "enters_reach")
        if self.kind != "reaction" and self.trigger:
            raise Invalid("trigger", f"only a reaction has one, not {article(self.kind)}")
        if self.effect == "dodge" and self.trigger != "attacks":
            raise Invalid("trigger", "must be 'attacks' for a dodge")


class Data(TurnData, kw_only=True):
    """Everything ruleset.toml says besides [stat_block], checked once when the ruleset loads."""

    turn: Turn
    pool: Pool
    prepare: Prepare
    weapons: dict[str, Weapon]
    armour: dict[str, Armour]
    abilities: dict[str, Ability] = msgspec.field(default_factory=dict)
    test: Test = msgspec.field(default_factory=Test)
    reach: Reach = msgspec.field(default_factory=Reach)
    skill: Skill = msgspec.field(default_factory=Skill)
    weapon_change: WeaponChange = msgspec.field(default_factory=WeaponChange)
    costs: Costs = msgspec.field(default_factory=Costs)
    hp: Hp = msgspec.field(default_factory=Hp)

    def __post_init__(self) -> None:
        if ANY in self.weapons:
            raise Invalid(f"weapons.{ANY}", f"{ANY!r} means any weapon; name it otherwise")
