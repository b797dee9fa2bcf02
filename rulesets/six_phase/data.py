"""The tables of six_phase's ruleset.toml, typed: what each key may hold, next to it.

``Manifest.tables(Data)`` converts the file once, as the ruleset loads; a value
that does not fit is one sentence naming the table and the key. The stats
([stat_block.*]) are the engine's: rules.py reads them through ``stat_block``.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from tacmap.api import Entry, Grid, Invalid, RulesetData, Table

Die = Annotated[int, msgspec.Meta(ge=2, le=1000)]
Whole = Annotated[int, msgspec.Meta(ge=0)]
Positive = Annotated[int, msgspec.Meta(ge=1)]
Effect = Literal["none", "disadvantage", "slow"]
"""What a Wound does to the wounded ([wounds.*].effect)."""

#: Position of each phase's role in [round].phases (the seed's order).
DECLARE_SPELLS, MORALE, MOVEMENT, RANGED, SPELLS, MELEE = range(6)


class RoundTable(Table):
    """[round]: the six phases, and the die each action rolls."""

    phases: list[str]
    die: Die

    def __post_init__(self) -> None:
        if len(self.phases) != 6 or any(not p.strip() for p in self.phases):
            raise Invalid("phases", "must name the six phases, in the seed's order")


class Movement(Table):
    """[movement]: how far a combatant moves in the Movement phase."""

    cells: Positive


class AttackTable(Table):
    """[attack]: damage floor, the grapple/shove self-hit, and the range bands."""

    min_damage: Whole
    self_hit_base: int
    short: int
    medium: int
    long: int


class AttackTypes(Table):
    """[attack_types]: the kinds of attack a melee, ranged or spell attack can be."""

    melee: Annotated[list[str], msgspec.Meta(min_length=1)]
    ranged: Annotated[list[str], msgspec.Meta(min_length=1)]
    spell: Annotated[list[str], msgspec.Meta(min_length=1)]


class Locations(Table):
    """[locations]: where an attack can be aimed, and where other damage lands."""

    names: Annotated[list[str], msgspec.Meta(min_length=1)]
    default: str

    def __post_init__(self) -> None:
        if self.default not in self.names:
            raise Invalid("default", f"must be one of the names ({', '.join(self.names)})")


class Wound(Entry):
    """A row of the Wound Table ([wounds.<location>])."""

    effect: Effect = "none"


class Death(Table):
    """[death]: how long a critical Wound lasts, and a monster's Wound limit."""

    critical_wound_rounds: Whole
    monster_wound_divisor: Positive


class Notches(Table):
    """[notches]: what each Notch takes off an item."""

    defense: Whole
    damage: Whole


class Morale(Table):
    """[morale]: when a monster checks, and the condition a failure gives."""

    shaken_at: Annotated[float, msgspec.Meta(ge=0, le=1)]
    condition: str


class Actions(Table):
    """[actions]: bonus actions, and conditions that stop a combatant moving."""

    bonus: list[str]
    immobile: list[str]


class Weapon(Entry):
    """A row of [weapons]: Defense, reach, ranges and damage rules."""

    kind: Literal["melee", "ranged"] = "melee"
    defense: Whole = 0
    reach: Positive = 1
    short: Whole = 0
    medium: Whole = 0
    long: Whole = 0
    bonus: int = 0
    dice_count: Whole = 0
    dice_sides: Whole = 0

    def __post_init__(self) -> None:
        if self.kind == "ranged" and not 0 < self.short <= self.medium <= self.long:
            raise Invalid("long", "a ranged weapon needs 0 < short <= medium <= long (cells)")
        if (self.dice_count > 0) != (self.dice_sides > 1):
            raise Invalid("dice_sides", "damage dice need both dice_count and dice_sides >= 2")


class Armour(Entry):
    """A row of [armour]: its Defense in melee."""

    defense: Whole = 0


class Spell(Weapon):
    """A row of [spells]: a ranged attack made with Intelligence."""

    kind: Literal["melee", "ranged"] = "ranged"


class Data(RulesetData, kw_only=True):
    """Everything ruleset.toml says besides [stat_block], checked once when the ruleset loads."""

    grid: Grid
    round: RoundTable
    movement: Movement
    attack: AttackTable
    attack_types: AttackTypes
    locations: Locations
    wounds: dict[str, Wound]
    death: Death
    notches: Notches
    morale: Morale
    actions: Actions
    weapons: dict[str, Weapon]
    armour: dict[str, Armour]
    spells: dict[str, Spell]

    def __post_init__(self) -> None:
        if self.grid.unit != "ft":
            # The shove turns its feet into squares by cell_size, which must be in feet.
            raise Invalid("grid.unit", "six_phase counts in feet (a shove moves \"a number "
                                       "of feet\"): must be \"ft\"")
        missing = [loc for loc in self.locations.names if loc not in self.wounds]
        if missing:
            raise Invalid("wounds", f"needs a row for every location (missing: "
                                    f"{', '.join(missing)})")
        if "unarmed" not in self.weapons or self.weapons["unarmed"].kind != "melee":
            raise Invalid("weapons", "needs a melee 'unarmed' entry")
