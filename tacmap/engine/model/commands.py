"""What the user asks for, in the imperative. A command changes nothing by itself.

Commands are frozen records written as one JSON object a line in play scripts
and in the log: ``{"type": "move", "actor": "ana", "path": [[3, 4]]}``.
Rulesets add their own by subclassing ``Command`` with a tag
(``class Prepare(Command, frozen=True, tag="prepare")``).
"""

from __future__ import annotations

import json
from typing import Annotated, ClassVar

from msgspec import UNSET, UnsetType

from tacmap.engine.model.records import LONG, Float, Int, Json, Record, Text, plain
from tacmap.engine.model.state import Cell, Template, Token, WallList


class Command(Record, frozen=True):
    """Base of all commands."""

    #: True for GM overrides, which the referee applies without asking the rules.
    override: ClassVar[bool] = False


class Move(Command, frozen=True, tag="move"):
    """Move a token through waypoints under the encounter's movement rules."""

    actor: Text
    """Token that moves."""
    path: Annotated[tuple[Cell, ...], LONG]
    """Waypoints after the start cell; the last one is the destination."""


class Attack(Command, frozen=True, tag="attack"):
    """Attack a target with the weapon in hand (or a named one)."""

    actor: Text
    """Attacker."""
    target: Text
    """Defender."""
    weapon: Text = ""
    """Weapon key in the ruleset data; empty for the one in hand."""


class Act(Command, frozen=True, tag="act"):
    """Any other action a ruleset offers (ability, skill, dodge …), by name."""

    actor: Text
    """Who acts."""
    action: Text
    """Action key from ``actions_for``."""
    target: Text = ""
    """Target token, if the action has one."""
    detail: Text = ""
    """Free text or an option (the condition of a prepared action)."""
    area: Template | UnsetType = UNSET
    """Where an action with an area template is aimed (a Fireball's blast). Left unset
    (and unwritten, so older files keep their bytes) for an action without one."""


class StartCombat(Command, frozen=True, tag="start_combat"):
    """Begin combat: the ruleset sets up pools, rolls or takes the order."""

    order: Annotated[tuple[Text, ...], LONG] = ()
    """Turn order where the GM sets it; empty to use the ruleset's own."""


class EndTurn(Command, frozen=True, tag="end_turn"):
    """The acting token (or side, or phase) is done."""

    actor: Text = ""
    """Who ends their turn; empty for whoever is acting."""


# GM overrides: logged and undoable like everything else, never judged by the rules.


class FreeMove(Command, frozen=True, tag="free_move"):
    """GM: put a token on a cell without costing or checking movement."""

    override = True
    token: Text
    """Token id."""
    to: Cell
    """Destination cell (top-left of the footprint)."""


class SetHp(Command, frozen=True, tag="set_hp"):
    """GM: set a token's hit points."""

    override = True
    token: Text
    """Token id."""
    hp: Int
    """New hit points."""


class SetValue(Command, frozen=True, tag="set_value"):
    """GM: set a value the ruleset tracks on a token (pool, actions left …)."""

    override = True
    token: Text
    """Token id."""
    key: Text
    """Value name."""
    value: Json
    """New value; null removes it."""


class SetCondition(Command, frozen=True, tag="set_condition"):
    """GM: give a token a condition, or take one away."""

    override = True
    token: Text
    """Token id."""
    condition: Text
    """Condition name (``"prone"``)."""
    on: bool = True
    """True to add it, False to remove it."""


class Reorder(Command, frozen=True, tag="reorder"):
    """GM: change the turn order."""

    override = True
    order: Annotated[tuple[Text, ...], LONG]
    """Token ids (or side names) in their new order."""


class SetMapImage(Command, frozen=True, tag="set_map_image"):
    """GM: choose the map's background image and align it to the grid."""

    override = True
    image: Text | None
    """Image path relative to the encounter's image folder; null removes it."""
    offset: tuple[Float, Float] = (0.0, 0.0)
    """Metres from the map's top-left corner to the image's."""
    scale: Float = 0.02
    """Metres per image pixel."""
    locked: bool | None = None
    """True locks the image's alignment, False unlocks it, null keeps it as it is.

    While the image is locked, a command that keeps it locked may not change
    its offset or scale."""


class AddToken(Command, frozen=True, tag="add_token"):
    """GM: put a new token on the map."""

    override = True
    token: Token
    """The token to add."""


class RemoveToken(Command, frozen=True, tag="remove_token"):
    """GM: take a token off the map."""

    override = True
    token: Text
    """Token id."""


class EditToken(Command, frozen=True, tag="edit_token"):
    """GM: replace a token with this one (name, side, size, stats, HP …; same id)."""

    override = True
    token: Token
    """The token as it should be; its id names the token it replaces."""


class SetWalls(Command, frozen=True, tag="set_walls"):
    """GM: replace every wall and obstacle (drawing, erasing and moving walls)."""

    override = True
    walls: WallList
    """The map's walls and obstacles from now on."""


class SetDiagonal(Command, frozen=True, tag="set_diagonal"):
    """GM: change the encounter's diagonal rule (DESIGN §4)."""

    override = True
    rule: Text
    """``"rectilinear"``, ``"chebyshev"``, ``"alternating"`` or ``"euclidean"``."""


class RenameEncounter(Command, frozen=True, tag="rename_encounter"):
    """GM: give the encounter a new title."""

    override = True
    name: Text
    """The new title."""


class SetParty(Command, frozen=True, tag="set_party"):
    """GM: say which side the players are (the player view shows only their hit points)."""

    override = True
    side: Text
    """A side some token is on."""


class SetHouseRule(Command, frozen=True, tag="set_house_rule"):
    """GM: set one of the ruleset's house rules (``[options.*]``) for this encounter."""

    override = True
    key: Text
    """The option's key (``"surprise_criticals"``)."""
    value: Text
    """One of its values; the default takes the override away."""


class PlaceTemplate(Command, frozen=True, tag="place_template"):
    """GM: leave a template on the map until it is removed (a cloud, a wall of fire)."""

    override = True
    template: Template
    """Its area."""
    label: Text
    """What it is (``"Cloud of fog"``)."""
    id: Text = ""
    """Id to give it; empty for the next free ``t1``, ``t2`` …"""


class RemoveTemplate(Command, frozen=True, tag="remove_template"):
    """GM: take a template off the map."""

    override = True
    id: Text
    """Id of the template."""


class SetDoor(Command, frozen=True, tag="set_door"):
    """GM: open or close a door."""

    override = True
    wall: Int
    """Index of the door among the map's walls (from 0)."""
    open: bool
    """True opens it, False closes it."""


class SetFog(Command, frozen=True, tag="set_fog"):
    """GM: turn fog of war on or off for this encounter."""

    override = True
    enabled: bool
    """True: the player view shows only what the players' side has seen."""


class EditFog(Command, frozen=True, tag="edit_fog"):
    """GM: reveal or hide an area of the map by hand (a rectangle is four corners)."""

    override = True
    points: Annotated[tuple[tuple[Float, Float], ...], LONG]
    """Corners of the area, in metres from the map's top-left corner."""
    reveal: bool = True
    """True reveals the area to the players, False hides it from them."""


class RollDice(Command, frozen=True, tag="roll_dice"):
    """GM: a free roll in dice notation (``2d6+3``, ``4d6kh3``, ``d20 adv``), logged."""

    override = True
    notation: Text
    """The roll as typed."""
    public: bool = True
    """Shown to the players (the player view, the report); False: the GM's eyes only."""


class AdjustHp(Command, frozen=True, tag="adjust_hp"):
    """GM: deal damage to a token (a negative change) or heal it (a positive one)."""

    override = True
    token: Text
    """Token id."""
    change: Int
    """Hit points to add; negative for damage."""


class MoveGroup(Command, frozen=True, tag="move_group"):
    """GM: put several tokens on new cells at once, as one free move."""

    override = True
    moves: tuple[tuple[Text, Cell], ...]
    """(token id, destination cell) for each token of the group."""


class AddTokens(Command, frozen=True, tag="add_tokens"):
    """GM: put several new tokens on the map at once (a paste)."""

    override = True
    tokens: tuple[Token, ...]
    """The new tokens, whole, with ids no token has yet."""


class RemoveTokens(Command, frozen=True, tag="remove_tokens"):
    """GM: take several tokens off the map at once."""

    override = True
    tokens: tuple[Text, ...]
    """Token ids."""


class Rebalance(Command, frozen=True, tag="rebalance"):
    """GM: a balance proposal taken (Build ▸ Balance Encounter, ``tacmap balance``): tokens
    added, taken off and edited at once, undone as one."""

    override = True
    add: tuple[Token, ...] = ()
    """New tokens, whole, with ids no token has yet."""
    remove: tuple[Text, ...] = ()
    """Ids of tokens taken off the map."""
    edit: tuple[Token, ...] = ()
    """Tokens as they should be (their HP); each id names the token it replaces."""


def describe(cmd: Command) -> str:
    """A command as a short readable line.

    >>> describe(Attack("ana", "brak"))
    'attack actor=ana target=brak'
    """
    data = plain(cmd)
    kind = data.pop("type")
    parts = [f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
             for k, v in data.items() if v not in ("", [], None)]
    return " ".join([kind, *parts])
