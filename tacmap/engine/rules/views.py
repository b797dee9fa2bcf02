"""View-models: the plain answers the generic panels draw (DESIGN §3).

A ruleset fills these in; the UI never needs ruleset-specific code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tacmap.engine.model.state import Cell, Template

RowState = Literal["waiting", "declared", "acting", "done", "out"]
#: What an action is aimed at, as the app offers it: nothing, a token, a cell to move
#: to, or a place on the map for its area template (``ActionOption.area``).
Aim = Literal["none", "token", "cell", "area"]


@dataclass(frozen=True)
class OrderRow:
    """One line of the turn order."""

    id: str
    """Token id (or side name for side initiative)."""
    name: str
    """What the panel shows."""
    side: str
    """Side, for colour."""
    key: str
    """The value that orders the row, labelled (``"RFX 5"``, ``"d10: 6"``, ``"#2"``)."""
    state: RowState
    """waiting / declared / acting / done / out (dead or removed)."""
    detail: str = ""
    """Extra text: the declared action, actions left."""


@dataclass(frozen=True)
class TurnOrder:
    """The initiative panel."""

    title: str
    """Heading, e.g. ``"Round 2 — action phase"``."""
    rows: tuple[OrderRow, ...]
    """Rows top to bottom in the order things happen now."""


@dataclass(frozen=True)
class TimelineItem:
    """An action placed on the phase timeline."""

    actor: str
    """Token id."""
    label: str
    """What the action is."""
    start: int
    """Index of the first phase."""
    end: int
    """Index of the last phase (inclusive); > start for actions that span phases."""
    carried: bool = False
    """True when it carried over from the previous round."""
    struck: str = ""
    """Why an earlier action invalidated it; drawn struck out with the reason (``""``: not)."""


@dataclass(frozen=True)
class Timeline:
    """The phase timeline panel."""

    phases: tuple[str, ...]
    """Phase labels in order."""
    current: int | None
    """Index of the phase under way, None before combat."""
    items: tuple[TimelineItem, ...] = ()
    """Actions placed on it."""


@dataclass(frozen=True)
class PoolView:
    """One token's dice pool as the panel draws it."""

    token: str
    """Token id."""
    name: str
    """Token name."""
    faces: tuple[int, ...]
    """Faces left to right (empty until rolled)."""
    wins: tuple[bool, ...]
    """Per face, whether it counts as a win."""
    size: int
    """Dice in the pool."""
    sides: int
    """Die size."""
    refill: int = 0
    """Dice added back at the end of the turn."""
    note: str = ""
    """Anything else worth showing (``"2 actions left"``)."""
    removed: tuple[bool, ...] = ()
    """Per face, whether that die has left the pool this round (drawn struck out)."""
    flipped: tuple[bool, ...] = ()
    """Per face, whether a later advantage or disadvantage turned it (win ↔ fail; ringed)."""
    status: tuple[str, ...] = ()
    """Lines of status drawn under the dice (``"Wounds: broken arm"``, ``"Notches: sword 1"``)."""


@dataclass(frozen=True)
class Spread:
    """A labelled distribution the odds card plots (victory levels, and so on)."""

    label: str
    """What it is (``"VL, wins on 4+"``)."""
    values: tuple[tuple[int, float], ...]
    """(outcome, probability) pairs, lowest outcome first."""


@dataclass(frozen=True)
class Reaction:
    """A reaction that may fire on an action and change how it turns out."""

    text: str
    """Who may react and how (``"Skulk may Parry: +2 AC, counted in the odds"``)."""
    success: float | None = None
    """Chance the action succeeds if the reaction does not fire (None: not known)."""
    drop: float | None = None
    """Chance the target drops if the reaction does not fire (None: not known)."""


@dataclass(frozen=True)
class Odds:
    """Exact chances of an attack before it is made."""

    success: float
    """Chance the attack succeeds."""
    damage: tuple[tuple[int, float], ...] = ()
    """Damage distribution on success: (damage, probability)."""
    drop: float = 0.0
    """Chance the target drops (is taken out) from this attack."""
    chances: tuple[tuple[str, float], ...] = ()
    """More labelled chances the card lists (``("Chance of a critical", 0.08)``)."""
    lines: tuple[str, ...] = ()
    """How the numbers add up, one line each, in small print under the chances."""
    spreads: tuple[Spread, ...] = ()
    """Distributions the card plots side by side, on the axis ``spread_axis`` names."""
    spread_axis: str = ""
    """The outcome the spreads count (``"victory levels"``)."""
    reactions: tuple[Reaction, ...] = ()
    """Reactions that may fire on this action and change its outcome, named on the card."""

    @property
    def mean_damage(self) -> float:
        """Average damage given a success."""
        return sum(d * p for d, p in self.damage)


@dataclass(frozen=True)
class AreaSpec:
    """The template an action is aimed with, fixed by the rules: the GM picks only where."""

    shape: str
    """``"circle"``, ``"cone"``, ``"line"`` or ``"square"``."""
    size: int
    """Radius, length or side, in cells."""
    width: int = 1
    """A line's width in cells."""
    angle: float = 90.0
    """A cone's opening in degrees."""

    def at(self, origin: Cell, toward: Cell | None = None) -> Template:
        """This template with its origin (and direction) on the map."""
        return Template(self.shape, origin, self.size, toward, self.width, self.angle)


@dataclass(frozen=True)
class ActionOption:
    """An action a token can take now, as the app offers it."""

    key: str
    """Command key: ``"move"``, ``"attack"``, ``"end_turn"`` or an ``Act`` action name."""
    label: str
    """Button text."""
    target: Aim = "none"
    """What the action needs to be aimed at."""
    enabled: bool = True
    """Whether it can be taken now."""
    reason: str = ""
    """Why not, when disabled."""
    detail: str = ""
    """Which variant the option means (the spell of a "Cast …", a weapon), for the Act."""
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Choices the GM makes on the odds card before confirming: (label, values) groups.

    The picked values, joined by ``/`` in group order, become the option's ``detail``
    (``"swing/head"``); ``detail`` holds the values picked at first."""
    prompt: str = ""
    """A question the GM answers in words before the action is sent (the condition of
    a held turn, a declared intent); the answer becomes ``detail``, which holds the
    suggested answer. Empty: nothing is asked. With ``choices`` too, ``detail`` is the
    picked values, ``/``, then the words (``tacmap.engine.rules.options.with_words``)."""
    area: AreaSpec | None = None
    """The template the action is aimed with, for ``target`` ``"area"`` (a Fireball's
    blast): the GM places it on the map, and the Act carries it."""
    at: str = ""
    """The token the action is already aimed at (a declared attack's target), for
    ``target`` ``"token"``: the app aims there without asking for a click ("": ask)."""


@dataclass(frozen=True)
class Preview:
    """What a command would do, computed without changing anything."""

    legal: bool
    """Whether it may be executed."""
    reason: str = ""
    """Why not, when illegal."""
    cost: float | None = None
    """Metres a move would cost."""
    budget: float | None = None
    """Metres the mover has left before this move."""
    path: tuple[Cell, ...] = ()
    """Cells a move would pass through."""
    leaves: tuple[tuple[str, int], ...] = ()
    """Enemies whose reach the move leaves, with the path step where it happens."""
    threats: tuple[str, ...] = ()
    """Enemies whose reach the destination is in."""
    odds: Odds | None = None
    """Chances for an attack."""
    notes: tuple[str, ...] = field(default=())
    """Other things the GM should know (``"provokes a Dexterity check"``)."""
    uses: str = ""
    """What a move spends and what is left, in the ruleset's words (``"second move:
    no standard action after this"``); empty where a move spends no action."""


@dataclass(frozen=True)
class Declared:
    """An action announced and not yet resolved, which the map draws as a ghost arrow.

    A ruleset that declares before it resolves (six_phase, reflex) lists these;
    the map draws a dashed arrow from the actor to ``to`` (a move) or to the
    ``target`` token (an attack, a spell …) until the declaration resolves.
    """

    actor: str
    """Token id of who declared it."""
    label: str
    """The declaration in words (``"move to (10,6)"``), for the arrow's tooltip."""
    to: Cell | None = None
    """Where a declared move ends; None for an action aimed at a token or at nothing."""
    target: str = ""
    """Token id the action is aimed at (``""``: none)."""
    public: bool = True
    """Declared openly at the table, so the player view shows it too."""
