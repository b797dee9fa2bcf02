"""The tables of speed_rank's ruleset.toml, typed: what each key may hold, next to it.

``Manifest.tables(Data)`` converts the file once, as the ruleset loads; a
value that does not fit is one sentence naming the table and the key. The
stats themselves ([stat_block.*]) are the engine's: rules.py reads them
through ``Ruleset.stat_block``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import msgspec

from tacmap.api import SPEED_PHASES, Entry, Grid, Invalid, RulesetData, Table

Die = Annotated[int, msgspec.Meta(ge=2, le=1000)]
"""Sides of a die."""
Face = Annotated[int, msgspec.Meta(ge=1)]
"""A face of a die."""
Whole = Annotated[int, msgspec.Meta(ge=0)]
Cells = Annotated[float, msgspec.Meta(ge=0)]
SaveKind = Literal["paralyzation", "spell"]
"""A character's saving throw ([saves])."""
CheckLevel = Literal["normal", "advanced"]
"""A Riding or Strength check ([checks])."""
Cost = Literal["standard", "move"]
"""An action a round's budget pays with."""
EventKey = Literal["armour_trouble", "battlefield_damaged", "battlefield_shifts",
                   "close_quarters", "item_damaged", "item_dropped", "knock_down",
                   "lucky_break", "lucky_opening", "mount_trouble", "reinforcements",
                   "retreat", "slip", "weapon_trouble"]
"""A Combat Event the rules know (events_table.py has one rule per key)."""

#: The mount types the rules know: whoever rides a mount or an open vehicle can fall off.
MOUNT_TYPES = ("mount", "open_vehicle", "closed_vehicle")

#: The log's name for each kind of saving throw, characters' ([saves]) and items' ([item_saves]).
SAVE_NAMES = {
    "paralyzation": "Reflex Save vs. Paralyzation",
    "spell": "Save vs. Spell",
    "crushing_blow": "Saving Throw vs. Crushing Blow",
}


def _cover_once(ranges: Sequence[tuple[int, int]], die: int) -> bool:
    """Whether the (low, high) ranges name every face of a ``die`` exactly once."""
    faces = sorted(f for low, high in ranges for f in range(low, high + 1))
    return faces == list(range(1, die + 1))


class Initiative(Table):
    """[initiative]: the die each side rolls every round."""

    die: Die


class Phases(Table):
    """[phases]: the speed ranks, which must be the engine's, with the text's names."""

    order: list[str]
    names: list[str]

    def __post_init__(self) -> None:
        if tuple(self.order) != SPEED_PHASES:
            raise Invalid("order", f"must be {list(SPEED_PHASES)} (the engine's phases)")
        if len(self.names) != len(SPEED_PHASES):
            raise Invalid("names", f"needs one name per phase ({len(SPEED_PHASES)})")


class Dexterity(Table):
    """[dexterity]: the speed modifier, each row [lowest score, modifier]."""

    speed_modifier: Annotated[list[tuple[int, int]], msgspec.Meta(min_length=1)]


class Attack(Table):
    """[attack]: To-Hit, Glancing Hits, damage and death."""

    die: Die
    glancing_band: Whole
    glancing_numerator: Whole
    glancing_denominator: Face
    min_damage: Whole
    dead_at: int


class Saves(Table):
    """[saves]: a character's Saving Throw, d20 + save ≥ the number for its kind."""

    die: Die
    paralyzation: int
    spell: int

    def target(self, kind: SaveKind) -> int:
        """The number a save of ``kind`` must reach."""
        return self.paralyzation if kind == "paralyzation" else self.spell


class Checks(Table):
    """[checks]: Riding / Driving and Strength feats, d20 + bonus ≥ the number."""

    die: Die
    normal: int
    advanced: int

    def target(self, level: CheckLevel) -> int:
        """The number a check of ``level`` must reach."""
        return self.normal if level == "normal" else self.advanced


class Actions(Table):
    """[actions]: a round's actions, moves and sprints, and who cannot act or move."""

    standard: Whole
    move: Whole
    standard_as_move: bool
    move_cells: Cells
    sprint_phases: Face
    sprint_cells_per_phase: Cells
    helpless: list[str]
    immobile: list[str]


class ActionCosts(Table):
    """[action_costs]: what each action spends (sustaining one spends it again)."""

    attack: tuple[Cost, ...]
    cast: tuple[Cost, ...]
    break_free: tuple[Cost, ...]
    move: tuple[Cost, ...]
    stand: tuple[Cost, ...]
    pick_up: tuple[Cost, ...]
    free_weapon: tuple[Cost, ...]
    sprint: tuple[Cost, ...]


class Armour(Table):
    """[armour]: AC lost while a piece is damaged, and damage lost with a damaged weapon."""

    helmet: Whole
    shield: Whole
    armour: Whole
    damaged_weapon: Whole

    def pieces(self) -> dict[str, int]:
        """Worn piece → the AC it is worth, in the order Armour Trouble names them."""
        return {"helmet": self.helmet, "shield": self.shield, "armour": self.armour}


class Weapon(Entry):
    """A row of [weapons.*]."""

    speed: int
    damage: tuple[Face, Face, int]
    """[dice, sides, bonus]."""
    reach: Cells
    kind: str
    range: Cells = 0.0

    @property
    def count(self) -> int:
        return self.damage[0]

    @property
    def sides(self) -> int:
        return self.damage[1]

    @property
    def bonus(self) -> int:
        return self.damage[2]

    @property
    def ranged(self) -> bool:
        """A missile weapon: attacks out to ``range`` instead of ``reach``."""
        return self.range > 0


class Spell(Entry):
    """A row of [spells.*]."""

    speed: int
    delay: Whole
    range: Cells
    radius: Cells
    damage: tuple[Whole, Whole, int]
    """[dice, sides, bonus]; no dice for a spell that does no damage."""
    save: Literal["", "paralyzation", "spell"]
    save_halves: bool
    condition: str
    rounds: Whole
    template: Literal["", "circle", "cone", "line", "square"] = ""
    """The area it is aimed at (``radius`` is its size in squares); "": a token."""

    @property
    def count(self) -> int:
        return self.damage[0]

    @property
    def sides(self) -> int:
        return self.damage[1]

    @property
    def bonus(self) -> int:
        return self.damage[2]

    def __post_init__(self) -> None:
        if self.count and self.sides < 1:
            raise Invalid("damage", "rolls dice, so they need sides")
        if self.template and not (1 <= self.radius <= 100 and self.radius == int(self.radius)):
            raise Invalid("radius", "is the size of its template: a whole 1 to 100 squares")


class TableRow(Table):
    """One line of [[combat_events.table]]."""

    low: Face = msgspec.field(name="from")
    high: Face = msgspec.field(name="to")
    key: EventKey
    name: str


class CombatEvents(Table):
    """[combat_events]: the d20 table and how its results are read."""

    die: Die
    max_rerolls: Whole
    direction_die: Literal[8]
    """1 = north (up the map), then clockwise."""
    touch_range: Cells
    table: list[TableRow]

    def __post_init__(self) -> None:
        if not _cover_once([(r.low, r.high) for r in self.table], self.die):
            raise Invalid("table", f"must cover 1 to {self.die} once")


def _results(results: Sequence[tuple[int, int, str]], die: int) -> None:
    if not _cover_once([(low, high) for low, high, _ in results], die):
        raise Invalid("results", f"must cover 1 to {die} once")


class ArmourTrouble(Table):
    die: Die
    results: list[tuple[Face, Face, Literal["helmet", "shield", "armour"]]]
    item_save: str

    def __post_init__(self) -> None:
        _results(self.results, self.die)


class ItemSave(Table):
    """An event whose only number is the save an item or object makes."""

    item_save: str


class BattlefieldShifts(Table):
    distance_die: Die
    same_for_all: bool


class KnockDown(Table):
    save: SaveKind


class LuckyBreak(Table):
    ac: int
    saves: int


class LuckyOpening(Table):
    to_hit: int
    saves_against: int


class MountTrouble(Table):
    die: Die
    results: list[tuple[Face, Face, Literal["off_course", "bucks_wildly", "stumbles"]]]
    rounds_die: Die
    off_course_check: CheckLevel
    bucks_check: CheckLevel
    stumbles_check: CheckLevel
    save: SaveKind
    stun_die: Die

    def __post_init__(self) -> None:
        _results(self.results, self.die)


class Retreat(Table):
    cells: Whole


class Slip(Table):
    feet: Whole
    save: SaveKind
    choice_order: list[Literal["move", "drop", "prone"]]

    def __post_init__(self) -> None:
        if sorted(self.choice_order) != ["drop", "move", "prone"]:
            raise Invalid("choice_order", "must name move, drop and prone, once each")


class WeaponTrouble(Table):
    die: Die
    results: list[tuple[Face, Face, Literal["disarmed", "hard_parry", "stuck"]]]
    save: SaveKind
    item_save: str
    stuck_kinds: list[str]
    free_check: CheckLevel

    def __post_init__(self) -> None:
        _results(self.results, self.die)


class Events(Table):
    """[events.*]: the numbers of each Combat Event that has some."""

    armour_trouble: ArmourTrouble
    battlefield_damaged: ItemSave
    battlefield_shifts: BattlefieldShifts
    item_damaged: ItemSave
    knock_down: KnockDown
    lucky_break: LuckyBreak
    lucky_opening: LuckyOpening
    mount_trouble: MountTrouble
    retreat: Retreat
    slip: Slip
    weapon_trouble: WeaponTrouble


class Data(RulesetData, kw_only=True):
    """Everything ruleset.toml says besides [stat_block], checked once when the ruleset loads."""

    grid: Grid
    initiative: Initiative
    phases: Phases
    races: dict[str, int]
    """Base speed of each race, as a speed rank."""
    dexterity: Dexterity
    attack: Attack
    saves: Saves
    item_saves: dict[str, int]
    """An item's or object's save by kind: d20 ≥ the number."""
    checks: Checks
    actions: Actions
    action_costs: ActionCosts
    armour: Armour
    weapons: dict[str, Weapon]
    spells: dict[str, Spell]
    combat_events: CombatEvents
    events: Events

    def __post_init__(self) -> None:
        if "unarmed" not in self.weapons:
            raise Invalid("weapons", "needs an 'unarmed' entry for a disarmed combatant")
        ev = self.events
        for name, kind in (("armour_trouble", ev.armour_trouble.item_save),
                           ("battlefield_damaged", ev.battlefield_damaged.item_save),
                           ("item_damaged", ev.item_damaged.item_save),
                           ("weapon_trouble", ev.weapon_trouble.item_save)):
            if kind not in self.item_saves:
                raise Invalid(f"events.{name}.item_save",
                              f"must be one of [item_saves] ({', '.join(self.item_saves)})")
