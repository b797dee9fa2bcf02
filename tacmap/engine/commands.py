"""What the user asks for, in the imperative. A command changes nothing by itself.

Commands are frozen records written as one JSON object a line in play scripts
and in the log: ``{"type": "move", "actor": "ana", "path": [[3, 4]]}``.
Rulesets add their own with ``@record`` (``Prepare``, ``Declare`` …).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from tacmap.engine.codec import Json, encode, record
from tacmap.engine.state import Cell, Token, Wall


class Command:
    """Base of all commands."""

    #: True for GM overrides, which the referee applies without asking the rules.
    override = False


@record("move")
@dataclass(frozen=True)
class Move(Command):
    """Move a token through waypoints under the encounter's movement rules."""

    actor: str
    """Token that moves."""
    path: tuple[Cell, ...]
    """Waypoints after the start cell; the last one is the destination."""


@record("attack")
@dataclass(frozen=True)
class Attack(Command):
    """Attack a target with the weapon in hand (or a named one)."""

    actor: str
    """Attacker."""
    target: str
    """Defender."""
    weapon: str = ""
    """Weapon key in the ruleset data; empty for the one in hand."""


@record("act")
@dataclass(frozen=True)
class Act(Command):
    """Any other action a ruleset offers (ability, skill, dodge …), by name."""

    actor: str
    """Who acts."""
    action: str
    """Action key from ``actions_for``."""
    target: str = ""
    """Target token, if the action has one."""
    detail: str = ""
    """Free text or an option (the condition of a prepared action)."""


@record("start_combat")
@dataclass(frozen=True)
class StartCombat(Command):
    """Begin combat: the ruleset sets up pools, rolls or takes the order."""

    order: tuple[str, ...] = ()
    """Turn order where the GM sets it; empty to use the ruleset's own."""


@record("end_turn")
@dataclass(frozen=True)
class EndTurn(Command):
    """The acting token (or side, or phase) is done."""

    actor: str = ""
    """Who ends their turn; empty for whoever is acting."""


# GM overrides: logged and undoable like everything else, never judged by the rules.


@record("free_move")
@dataclass(frozen=True)
class FreeMove(Command):
    """GM: put a token on a cell without costing or checking movement."""

    override = True
    token: str
    """Token id."""
    to: Cell
    """Destination cell (top-left of the footprint)."""


@record("set_hp")
@dataclass(frozen=True)
class SetHp(Command):
    """GM: set a token's hit points."""

    override = True
    token: str
    """Token id."""
    hp: int
    """New hit points."""


@record("set_value")
@dataclass(frozen=True)
class SetValue(Command):
    """GM: set a value the ruleset tracks on a token (pool, actions left …)."""

    override = True
    token: str
    """Token id."""
    key: str
    """Value name."""
    value: Json
    """New value; null removes it."""


@record("set_condition")
@dataclass(frozen=True)
class SetCondition(Command):
    """GM: give a token a condition, or take one away."""

    override = True
    token: str
    """Token id."""
    condition: str
    """Condition name (``"prone"``)."""
    on: bool = True
    """True to add it, False to remove it."""


@record("reorder")
@dataclass(frozen=True)
class Reorder(Command):
    """GM: change the turn order."""

    override = True
    order: tuple[str, ...]
    """Token ids (or side names) in their new order."""


@record("set_map_image")
@dataclass(frozen=True)
class SetMapImage(Command):
    """GM: choose the map's background image and align it to the grid."""

    override = True
    image: str | None
    """Image path relative to the encounter's image folder; null removes it."""
    offset: tuple[float, float] = (0.0, 0.0)
    """Metres from the map's top-left corner to the image's."""
    scale: float = 0.02
    """Metres per image pixel."""
    locked: bool | None = None
    """True locks the image's alignment, False unlocks it, null keeps it as it is.

    While the image is locked, a command that keeps it locked may not change
    its offset or scale."""


@record("add_token")
@dataclass(frozen=True)
class AddToken(Command):
    """GM: put a new token on the map."""

    override = True
    token: Token
    """The token to add."""


@record("remove_token")
@dataclass(frozen=True)
class RemoveToken(Command):
    """GM: take a token off the map."""

    override = True
    token: str
    """Token id."""


@record("edit_token")
@dataclass(frozen=True)
class EditToken(Command):
    """GM: replace a token with this one (name, side, size, stats, HP …; same id)."""

    override = True
    token: Token
    """The token as it should be; its id names the token it replaces."""


@record("set_walls")
@dataclass(frozen=True)
class SetWalls(Command):
    """GM: replace every wall and obstacle (drawing, erasing and moving walls)."""

    override = True
    walls: tuple[Wall, ...]
    """The map's walls and obstacles from now on."""


@record("set_diagonal")
@dataclass(frozen=True)
class SetDiagonal(Command):
    """GM: change the encounter's diagonal rule (DESIGN §4)."""

    override = True
    rule: str
    """``"rectilinear"``, ``"chebyshev"``, ``"alternating"`` or ``"euclidean"``."""


@record("rename_encounter")
@dataclass(frozen=True)
class RenameEncounter(Command):
    """GM: give the encounter a new title."""

    override = True
    name: str
    """The new title."""


@record("set_party")
@dataclass(frozen=True)
class SetParty(Command):
    """GM: say which side the players are (the player view shows only their hit points)."""

    override = True
    side: str
    """A side some token is on."""


def describe(cmd: Command) -> str:
    """A command as a short readable line.

    >>> describe(Attack("ana", "brak"))
    'attack actor=ana target=brak'
    """
    data = encode(cmd)
    kind = data.pop("type")
    parts = [f"{k}={v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
             for k, v in data.items() if v not in ("", [], None)]
    return " ".join([kind, *parts])
