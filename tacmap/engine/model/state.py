"""The encounter as plain data: map, walls, tokens and what the ruleset keeps.

State is changed only by applying events (``tacmap.engine.model.events``); everything
here is a plain record (``tacmap.engine.model.records``): compared, copied and saved as is.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import PurePosixPath, PureWindowsPath
from typing import Annotated

import msgspec

from tacmap.engine.model.errors import InputError
from tacmap.engine.model.records import (
    LONG,
    MAX_ALL_ITEMS,
    MAX_KEYS,
    SHORT,
    Float,
    Int,
    Json,
    MutableRecord,
    Record,
    Text,
    items_in,
)
from tacmap.engine.rules.schedule import Schedule

Cell = tuple[Int, Int]

DIAGONAL_RULES = ("rectilinear", "chebyshev", "alternating", "euclidean")
WALL_KINDS = ("wall", "door", "window")

#: One ring of an area: corner points in metres, closed (the last point is not repeated);
#: at most ``vision.MAX_POINTS``, checked again with the whole area by ``vision.area_problem``.
Ring = Annotated[tuple[tuple[Float, Float], ...], msgspec.Meta(max_length=200_000)]
#: An area on the map: polygons, each an outer ring then its holes.
Area = Annotated[tuple[Annotated[tuple[Ring, ...], LONG], ...], LONG]


def canonical_area(area: Area) -> Area:
    """``area`` in one form: each ring from its lowest point, holes and polygons sorted.

    A union or difference hands back the same area from another vertex, depending on
    what ran before; saved in this form, the same area is the same bytes.
    """
    def ring(points: tuple[tuple[float, float], ...]) -> tuple[tuple[float, float], ...]:
        start = min(range(len(points)), key=points.__getitem__, default=0)
        return (*points[start:], *points[:start])

    return tuple(sorted((ring(p[0]), *sorted(ring(h) for h in p[1:])) if p else p
                        for p in area))


#: A table of free-form values: a token's stats or values, the ruleset's data.
JsonTable = Annotated[dict[Text, Json], msgspec.Meta(max_length=MAX_KEYS)]

# Documented limits (docs/manual/files.md): far above any table's needs, low enough that
# checking, drawing and saving the largest encounter stays within seconds and memory.
MAX_TOKENS = 20_000
"""Tokens in one encounter."""
MAX_WALLS = 10_000
"""Walls and obstacles on one map."""
MAX_WALL_POINTS = 1_000
"""Corner points of one wall or obstacle."""

Points = Annotated[tuple[tuple[Float, Float], ...], msgspec.Meta(max_length=MAX_WALL_POINTS)]


class Wall(Record, frozen=True, tag="wall"):
    """A wall or obstacle on the map, in metres from the map's top-left corner."""

    points: Points
    """Corner points: a polyline for a wall, a closed ring for an obstacle."""
    closed: bool = False
    """True for an obstacle (a filled polygon), False for a wall line."""
    blocks_sight: bool = True
    """Whether line of sight stops here (a low fence blocks movement only)."""
    kind: Text = "wall"
    """``"wall"``, ``"door"`` (blocks moves and sight while closed) or ``"window"``
    (blocks moves, never sight)."""
    open: bool = False
    """A door stands open: nothing is blocked. Only doors open."""

    def __post_init__(self) -> None:
        if self.kind not in WALL_KINDS:
            raise ValueError(f"a wall's kind must be one of {', '.join(WALL_KINDS)}, "
                             f"not {self.kind!r}")
        if self.kind != "wall" and self.closed:
            raise ValueError(f"a {self.kind} is a line, not a closed obstacle")
        if self.open and self.kind != "door":
            raise ValueError("only a door can stand open")
        if len(self.points) < (3 if self.closed else 2):
            need = "three points" if self.closed else "two points"
            raise ValueError(f"a {'polygon' if self.closed else 'wall'} needs at least {need}")


    @property
    def blocks_moves(self) -> bool:
        """Whether a token may not pass here (everything but an open door)."""
        return not self.open

    @property
    def stops_sight(self) -> bool:
        """Whether line of sight stops here (not a window, an open door or a low fence)."""
        return self.blocks_sight and self.kind != "window" and not self.open


class Fog(Record, frozen=True, tag="fog"):
    """Fog of war: what the players' side has seen, and the GM's hand-made changes.

    Shown now = (what the party sees + ``revealed``) − ``hidden``; ``explored``
    grows by what is shown now (``tacmap.engine.space.vision``).
    """

    enabled: bool = False
    """Fog is on for this encounter (a file without fog loads with it off)."""
    explored: Area = ()
    """Everything the players' side has been shown (snapped to 0.01 m)."""
    revealed: Area = ()
    """Areas the GM revealed by hand: always shown."""
    hidden: Area = ()
    """Areas the GM hid by hand: never shown, whatever the party sees."""
    sight: Float | None = None
    """How far tokens see, in the ruleset's unit, unless a token's ``sight`` stat says otherwise;
    None: as far as the walls let them."""


#: The four template shapes (``tacmap.engine.space.templates`` finds the cells they cover).
SHAPES = ("circle", "cone", "line", "square")


class Template(Record, frozen=True, tag="template"):
    """An area on the map: a spell's blast, a cloud, a wall of fire.

    Measured in cells from the centre of its origin cell, under the encounter's
    diagonal rule; ``tacmap.engine.space.templates.cells`` lists the cells it covers.
    """

    shape: Text
    """``"circle"``, ``"cone"``, ``"line"`` or ``"square"``."""
    origin: Cell
    """The cell it is measured from (a circle's centre, the apex of a cone, a line's
    start, a square's corner)."""
    size: Int
    """In cells: a circle's radius, a cone's or a line's length, a square's side."""
    toward: Cell | None = None
    """A cell the cone or line points at (the corner a square grows toward);
    None: a square grows right and down."""
    width: Int = 1
    """A line's width in cells."""
    angle: Float = 90.0
    """A cone's opening in degrees."""


class Placed(Record, frozen=True, tag="placed_template"):
    """A template that stays on the map until removed (a cloud, a spell about to land)."""

    id: Text
    """Stable id used by ``RemoveTemplate`` (``"t1"``)."""
    label: Text
    """What it is, as the map and the log name it (``"Cloud of fog"``)."""
    template: Template
    """Its area."""


WallList = Annotated[tuple[Wall, ...], msgspec.Meta(max_length=MAX_WALLS)]


class MapSpec(MutableRecord, tag="map"):
    """The battle map: size in cells, background, walls."""

    width: Int = 30
    """Width in cells (metres)."""
    height: Int = 20
    """Height in cells (metres)."""
    image: Text | None = None
    """Background image path, relative to the encounter's image folder."""
    image_offset: tuple[Float, Float] = (0.0, 0.0)
    """Where the image's top-left corner sits, in metres from the map's corner."""
    image_scale: Float = 0.02
    """Metres per image pixel (0.02: a 50-pixel grid square is one metre)."""
    walls: WallList = ()
    """Walls and obstacles."""
    image_locked: bool = False
    """The image's offset and scale are locked (no accidental drag once aligned)."""

    def __post_init__(self) -> None:
        if not 0 < self.image_scale <= 1000:
            raise ValueError(f"image scale {self.image_scale} m per pixel must be above 0")
        if not (1 <= self.width <= 10_000 and 1 <= self.height <= 10_000):
            raise ValueError(
                f"map size {self.width}×{self.height} must be 1 to 10,000 cells a side")


class Token(MutableRecord, tag="token"):
    """One combatant on the map."""

    id: Text
    """Stable id used by commands and the log (``"ana"``)."""
    name: Text
    """Name shown on the map."""
    side: Text
    """Side or faction; tokens on different sides are enemies."""
    x: Int
    """Column of the top-left cell."""
    y: Int
    """Row of the top-left cell."""
    size: Int = 1
    """Footprint edge in cells: 1 for 1×1, 2 for 2×2."""
    hp: Int = 10
    """Current hit points (may go negative where a ruleset allows it)."""
    max_hp: Int = 10
    """Hit points when unhurt."""
    stats: JsonTable = msgspec.field(default_factory=dict)
    """The ruleset's stat block: numbers and names the GM sets (``{"dex": 3}``)."""
    values: JsonTable = msgspec.field(default_factory=dict)
    """What the ruleset tracks in play (dice pool, actions left, prepared reaction)."""
    conditions: Annotated[tuple[Text, ...], SHORT] = ()
    """Conditions in the order gained (``"prone"``, ``"dead"``)."""
    image: Text | None = None
    """Portrait, relative to the encounter's image folder."""
    hidden: bool = False
    """GM-only: never shown in the player view (an ambush not yet sprung)."""

    def __post_init__(self) -> None:
        if not self.id or len(self.id) > 64:
            raise ValueError("a token id must be 1 to 64 characters")
        if not 1 <= self.size <= 20:
            raise ValueError(f"token {self.id!r}: size must be 1 to 20 cells, not {self.size}")

    @property
    def cell(self) -> Cell:
        """Top-left cell."""
        return (self.x, self.y)

    @property
    def alive(self) -> bool:
        """Not marked dead by the ruleset."""
        return "dead" not in self.conditions


class Encounter(MutableRecord, tag="encounter"):
    """Everything that is saved: the map, the tokens, the dice stream, the ruleset's round.

    A file holds the tokens as a list and names today's schedule types, so
    ``tacmap.engine.files.storage`` reads it in that shape and builds an Encounter.
    """

    ruleset: Text
    """Ruleset id (``"action_pool"``)."""
    ruleset_version: Text = "0"
    """Version of the ruleset that wrote the file."""
    name: Text = "Encounter"
    """Title shown in the window."""
    map: MapSpec = msgspec.field(default_factory=MapSpec)
    """The battle map."""
    diagonal: Text = "rectilinear"
    """Diagonal rule of DESIGN §4, chosen by the ruleset, changeable per encounter."""
    tokens: Annotated[dict[str, Token], msgspec.Meta(max_length=MAX_TOKENS)] = \
        msgspec.field(default_factory=dict)
    """Tokens by id, in the order they were added."""
    seed: Int = 0
    """Seed of the encounter's dice stream."""
    dice_drawn: Int = 0
    """How many faces of the stream have been used."""
    round: Int = 0
    """Combat round, 0 before combat starts."""
    schedule: Schedule | None = None
    """The ruleset's round structure (a record from ``tacmap.engine.rules.schedule``)."""
    data: JsonTable = msgspec.field(default_factory=dict)
    """Encounter-wide values the ruleset tracks (tie roll-offs, effects)."""
    party: Text = ""
    """The players' side: the player view shows its hit points and hides the others'.
    Empty: the side of the first token."""
    templates: Annotated[tuple[Placed, ...], LONG] = ()
    """Templates left on the map, in the order they were placed."""
    fog: Fog = Fog()
    """Fog of war on the player view (off unless the GM turns it on)."""
    house_rules: dict[Text, Text] = msgspec.field(default_factory=dict)
    """The house rules this encounter sets: option key → value, only where it departs from
    the ruleset's default (``[options.*]`` of ruleset.toml)."""
    map_extras: dict[str, Json] = msgspec.field(default_factory=dict)
    """What an imported map file held that tacmap keeps but does not draw yet (a Universal
    VTT file's ``lights`` and ``environment``), as read. Left out of the file when empty."""

    def __post_init__(self) -> None:
        if self.diagonal not in DIAGONAL_RULES:
            raise ValueError(f"diagonal rule must be one of {', '.join(DIAGONAL_RULES)}")

    def token(self, token_id: str) -> Token:
        """The token with this id, or a RuleError naming it."""
        from tacmap.engine.model.errors import RuleError

        try:
            return self.tokens[token_id]
        except KeyError:
            raise RuleError(f"there is no token {token_id!r}") from None

    def copy(self) -> Encounter:
        """A deep copy (for previews and tests)."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, object]) -> Encounter:
        # Walls, the fog and the templates are immutable records: a copy shares them,
        # so the wall index and sight caches built on them still serve a preview.
        for shared in (self.map.walls, self.fog, self.templates):
            memo[id(shared)] = shared
        out = copy.copy(self)
        for name in self.__struct_fields__:
            setattr(out, name, copy.deepcopy(getattr(self, name), memo))
        return out


#: Whether a token is out of the fight: a ruleset's ``out_of_fight``, handed to engine code
#: that has no ruleset (threats, the way barred, the party's eyes, the report's fallen).
OutOfFight = Callable[[Token], bool]


def too_many_items(state: Encounter) -> str:
    """Why the encounter's free-form values are too big together (one sentence), or "".

    Each stat, value and entry of the data holds at most ``MAX_ITEMS``; together at
    most ``MAX_ALL_ITEMS``, so that checking, copying and forecasting the largest
    encounter stay within seconds (a 240 MB file of them took 107 s to check).
    """
    left = MAX_ALL_ITEMS - items_in(state.data)
    for token in state.tokens.values():
        if left < 0:
            break
        left -= items_in(token.stats, left)
        left -= items_in(token.values, left)
    if left >= 0:
        return ""
    return (f"the stats, values and data hold more than {MAX_ALL_ITEMS:,} items in all "
            "(nested lists and tables counted together)")


def marked_dead(token: Token) -> bool:
    """The base ruleset's answer to out of the fight: the token is marked ``dead``."""
    return not token.alive


def sides_of(state: Encounter) -> list[str]:
    """The encounter's sides, in the order their first token is listed."""
    return list(dict.fromkeys(t.side for t in state.tokens.values()))


def party_side(state: Encounter) -> str | None:
    """The players' side: the one the GM named, else the side of the first token."""
    if state.party:
        return state.party
    first = next(iter(state.tokens.values()), None)
    return first.side if first is not None else None


def check_image_path(value: str, where: str) -> None:
    """Refuse an image path that is absolute or climbs out of its folder.

    A ``data:`` URI is the image itself, not a path: it is let through. This is
    the text alone; where the image is read, its real path (links followed) must
    still be inside the image folder, and it must be a regular file.
    """
    if not value.startswith("data:") and _escapes(value):
        raise InputError(f"{where}: image path {value!r} escapes the encounter's image folder")


def check_folder_path(value: str, where: str) -> None:
    """Refuse an image folder name that is absolute or climbs out of the file's folder.

    No ``data:`` shortcut here: a folder name is always a path.
    """
    if _escapes(value):
        raise InputError(f"{where}: folder {value!r} escapes the encounter's folder")


def _escapes(value: str) -> bool:
    posix, win = PurePosixPath(value), PureWindowsPath(value)
    return not value or posix.is_absolute() or win.is_absolute() or bool(win.drive) \
        or ".." in posix.parts or ".." in win.parts
