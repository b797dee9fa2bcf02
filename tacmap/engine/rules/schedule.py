"""Round structures the rulesets compose: who is due, in which phase, in what order.

Each structure is a frozen record and a small state machine. A transition
returns a new instance and never changes the old one; an illegal transition
raises ``RuleError`` with a sentence the GM can read. A transition that needs
dice takes a ``DiceSource`` and returns ``(new_state, rolls)``, where ``rolls``
holds ``(who, why, Roll)`` triples in the order thrown so the caller can log
each one (``who`` is a token id, or ``""`` for a side).

* ``OrderedTurns``: the GM sets the order and everyone gets N actions a turn.
  Serves ``action_pool`` (004: "Each character can take two actions on their
  turn", the GR sets the order) and ``opposed`` (003: "Turn order is
  determined by the Storyteller").
* ``DeclareThenAct``: ``reflex`` (000). Declarations go from the lowest RFX
  up and actions from the highest down. Ties roll off once for the whole
  encounter.
* ``SideInitiative``: ``speed_rank`` (001). Every side rolls 1d10 each round
  and the highest goes first. Tied sides re-roll, and each forced re-roll
  means one Combat Event. A 1 delays a side's actions one phase; a 10 moves
  them up one.
* ``PhaseTimeline``: ``speed_rank`` (001). Phases run S, -3 … 5, F. Base and
  weapon speed set the earliest phase. Actions can span phases and run into
  the next round.
* ``FixedPhases``: ``six_phase`` (002). A round has fixed phases. In each,
  everyone declares, rolls a d20 and resolves from highest to lowest.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Literal

from msgspec.structs import replace

from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.records import LONG, Int, Record, Text
from tacmap.engine.rules.dice import DiceSource, Roll

#: One logged throw: token id (or ``""`` for a side), what it was for, the faces.
LoggedRoll = tuple[str, str, Roll]

#: The six phases of the ``six_phase`` ruleset (seed 002), in order.
SIX_PHASES: tuple[str, ...] = (
    "Declare spells",
    "Monster morale",
    "Movement",
    "Ranged attacks",
    "Spells",
    "Melee and miscellaneous",
)

#: Speed ranks of the ``speed_rank`` ruleset (seed 001), earliest first.
SPEED_PHASES: tuple[str, ...] = ("S", "-3", "-2", "-1", "0", "1", "2", "3", "4", "5", "F")

#: The seed's name for each speed rank.
PHASE_NAMES: tuple[tuple[str, str], ...] = (
    ("S", "Starting Phase"),
    ("-3", "Lightning Fast"),
    ("-2", "Extremely Fast"),
    ("-1", "Very Fast"),
    ("0", "Fast"),
    ("1", "Average"),
    ("2", "Slow"),
    ("3", "Very Slow"),
    ("4", "Extremely Slow"),
    ("5", "Glacially Slow"),
    ("F", "Final Phase"),
)

#: Longest action the timeline accepts, in phases (about nine rounds).
MAX_SPAN = 100

_FAST = SPEED_PHASES.index("0")
_FIRST_ACTION = SPEED_PHASES.index("-3")
_FINAL = len(SPEED_PHASES) - 1


class Schedule(Record, frozen=True):
    """Base of the round structures: ``Encounter.schedule`` holds one.

    A ruleset with a round of its own subclasses it with a tag
    (``class Round(Schedule, frozen=True, tag="speed_rank_round")``).
    """


def _unique(ids: Iterable[str], what: str) -> tuple[str, ...]:
    out = tuple(ids)
    seen: set[str] = set()
    for i in out:
        if not i:
            raise RuleError(f"{what} has a combatant with an empty id.")
        if i in seen:
            raise RuleError(f"{what} names {i} twice.")
        seen.add(i)
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _roll_off(
    pools: Sequence[tuple[str, ...]],
    known: Mapping[str, tuple[int, ...]],
    dice: DiceSource,
    sides: int,
    label: Callable[[str, int], tuple[str, str]],
) -> tuple[dict[str, tuple[int, ...]], tuple[LoggedRoll, ...], int]:
    """Roll until everyone in each pool has a different sequence of faces.

    Every member of a pool throws once (a lone member too), then the tied
    ones throw again.

    Each member's faces form a sequence, and sequences compare
    lexicographically, so a re-roll only ranks members who are still tied.
    Members that already have a face at the depth being settled keep it (this
    is how a newcomer joins an earlier roll-off). Returns the sequences, the
    rolls in the order thrown and how many forced re-rolls took place. A
    forced re-roll is one tied group throwing again, however many dice that
    takes.
    """
    seqs = {m: tuple(known.get(m, ())) for pool in pools for m in pool}
    rolls: list[LoggedRoll] = []
    rerolls = 0
    queue = deque((pool, 0) for pool in pools if pool)
    while queue:
        members, depth = queue.popleft()
        lacking = [m for m in members if len(seqs[m]) <= depth]
        if lacking and depth > 0:
            rerolls += 1
        for m in lacking:
            who, why = label(m, depth)
            roll = dice.roll(1, sides, why)
            seqs[m] = (*seqs[m], roll.faces[0])
            rolls.append((who, why, roll))
        buckets: dict[int, list[str]] = {}
        for m in members:
            buckets.setdefault(seqs[m][depth], []).append(m)
        queue.extend((tuple(b), depth + 1) for b in buckets.values() if len(b) > 1)
    return seqs, tuple(rolls), rerolls


# --------------------------------------------------------------------------- ordered turns


class OrderedTurns(Schedule, frozen=True, tag="ordered_turns"):
    """The GM sets the order, and each combatant's turn has a number of actions.

    Seed 004 (``action_pool``): "GR ... determine the order in which characters
    can act" and "Each character can take two actions on their turn". Seed 003
    (``opposed``): "Once each character in the combat initiative order has
    completed their turn, this completes one round of combat".
    """

    order: Annotated[tuple[Text, ...], LONG]
    """Token ids in turn order."""
    index: Int = 0
    """Position in ``order`` of the combatant whose turn it is."""
    round: Int = 1
    """Combat round, starting at 1."""
    actions_per_turn: Int = 2
    """Actions each combatant gets at the start of their turn."""
    actions_left: Int = 2
    """Actions the current combatant has not spent yet."""

    def __post_init__(self) -> None:
        _unique(self.order, "The turn order")
        if not 0 <= self.index < max(len(self.order), 1):
            raise RuleError(f"Turn position {self.index} is outside the turn order.")
        if self.round < 1:
            raise RuleError(f"Round {self.round} is not a combat round; rounds start at 1.")
        if self.actions_per_turn < 0 or self.actions_left < 0:
            raise RuleError("A turn cannot have a negative number of actions.")

    @classmethod
    def start(cls, order: Sequence[str], actions: int = 2) -> OrderedTurns:
        """Round 1, the first in ``order`` to act, with ``actions`` actions a turn."""
        ids = _unique(order, "The turn order")
        if not ids:
            raise RuleError("The turn order is empty: add at least one combatant.")
        if actions < 1:
            raise RuleError(f"A turn needs at least one action, not {actions}.")
        return cls(ids, 0, 1, actions, actions)

    @property
    def current(self) -> str | None:
        """Whose turn it is, or None when the order is empty."""
        return self.order[self.index] if self.order else None

    def _now(self) -> str:
        if not self.order:
            raise RuleError("Nobody is taking a turn: the turn order is empty.")
        return self.order[self.index]

    def spend(self, n: int = 1, who: str | None = None) -> OrderedTurns:
        """The current combatant uses ``n`` actions; ``who``, if given, must be them."""
        cur = self._now()
        if who is not None and who != cur:
            raise RuleError(f"It is {cur}'s turn, not {who}'s.")
        if n < 1:
            raise RuleError(f"An action costs at least one action, not {n}.")
        if self.actions_left == 0:
            raise RuleError(f"{cur} has no actions left this turn.")
        if self.actions_left < n:
            left = _plural(self.actions_left, "action")
            raise RuleError(f"{cur} has only {left} left this turn, not {n}.")
        return replace(self, actions_left=self.actions_left - n)

    def end_turn(self) -> OrderedTurns:
        """The next combatant's turn, with fresh actions; after the last, the next round."""
        self._now()
        if self.index + 1 < len(self.order):
            return replace(self, index=self.index + 1, actions_left=self.actions_per_turn)
        return replace(self, index=0, round=self.round + 1, actions_left=self.actions_per_turn)

    def reorder(self, order: Sequence[str]) -> OrderedTurns:
        """The same combatants in a new order; whoever is acting keeps their turn."""
        new = _unique(order, "The new turn order")
        missing = [i for i in self.order if i not in new]
        unknown = [i for i in new if i not in self.order]
        if missing or unknown:
            parts = []
            if missing:
                parts.append(f"it leaves out {', '.join(missing)}")
            if unknown:
                parts.append(f"{', '.join(unknown)} are not in the turn order")
            raise RuleError(f"The new order must list the same combatants: {'; '.join(parts)}.")
        cur = self.current
        return replace(self, order=new, index=new.index(cur) if cur is not None else 0)

    def remove(self, who: str) -> OrderedTurns:
        """``who`` leaves the order; if it was their turn, the next combatant's turn begins.

        Removing the last combatant in the order while it is their turn starts
        the next round, just as ending their turn would.
        """
        if who not in self.order:
            raise RuleError(f"{who} is not in the turn order.")
        at = self.order.index(who)
        new = tuple(i for i in self.order if i != who)
        fresh = self.actions_per_turn
        if not new:
            return replace(self, order=(), index=0, actions_left=fresh)
        if at < self.index:
            return replace(self, order=new, index=self.index - 1)
        if at > self.index:
            return replace(self, order=new)
        if self.index < len(new):
            return replace(self, order=new, actions_left=fresh)
        return replace(self, order=new, index=0, round=self.round + 1, actions_left=fresh)

    def add(self, who: str, at: int | None = None) -> OrderedTurns:
        """``who`` joins at position ``at`` (default: last); whoever is acting keeps their turn.

        A combatant inserted before the current one first acts next round.
        """
        _unique((*self.order, who), "The turn order")
        pos = len(self.order) if at is None else at
        if not 0 <= pos <= len(self.order):
            raise RuleError(f"Position {pos} is outside the turn order (0 to {len(self.order)}).")
        new = (*self.order[:pos], who, *self.order[pos:])
        if not self.order:
            return replace(self, order=new, index=0, actions_left=self.actions_per_turn)
        return replace(self, order=new, index=self.index + (1 if pos <= self.index else 0))


# --------------------------------------------------------------------------- declare then act


#: ``DeclareThenAct.declare_order`` by (keys, roll-offs): a pure function of the two.
_DECLARE_ORDERS: dict[tuple[object, ...], tuple[str, ...]] = {}


class DeclareThenAct(Schedule, frozen=True, tag="declare_then_act"):
    """Seed 000 (``reflex``): declare from the lowest RFX up, then act from the highest down.

    When several combatants share an RFX, each rolls a die once for the whole
    encounter. Those still tied roll again, among themselves only. The highest
    roll declares later and acts earlier, and the faces are stored here so
    later rounds reuse them. A combatant added during the declaration phase
    declares when they are next due. One added during the action phase has
    not declared, so they wait for the next round.
    """

    keys: Annotated[tuple[tuple[Text, Int], ...], LONG]
    """Each combatant's token id and Reflex (RFX), in the order they joined."""
    rolloffs: Annotated[tuple[tuple[Text, Annotated[tuple[Int, ...], LONG]], ...], LONG] = ()
    """Roll-off faces of combatants who share an RFX, first roll first; kept all encounter."""
    phase: Literal["declare", "act"] = "declare"
    """``"declare"`` (lowest RFX first) or ``"act"`` (highest RFX first)."""
    round: Int = 1
    """Combat round, starting at 1."""
    declared: Annotated[tuple[tuple[Text, Text], ...], LONG] = ()
    """Locked declarations this round: token id and the action in the player's words."""
    acted: Annotated[tuple[Text, ...], LONG] = ()
    """Token ids that have acted this round, in the order they acted."""
    die: Int = 20
    """Sides of the roll-off die (the seed says a d6 works and a d20 works better)."""

    def __post_init__(self) -> None:
        ids = _unique((w for w, _ in self.keys), "The RFX order")
        if self.phase not in ("declare", "act"):
            raise RuleError(f"Unknown phase {self.phase!r}; it is 'declare' or 'act'.")
        if self.round < 1:
            raise RuleError(f"Round {self.round} is not a combat round; rounds start at 1.")
        if self.die < 2:
            raise RuleError(f"A roll-off die needs at least two sides, not {self.die}.")
        said = _unique((w for w, _ in self.declared), "The declarations")
        for w in (*said, *_unique(self.acted, "The list of who acted")):
            if w not in ids:
                raise RuleError(f"{w} is not in the RFX order.")
        for w in self.acted:
            if w not in said:
                raise RuleError(f"{w} acted without declaring an action.")

    @classmethod
    def start(
        cls, keys: Sequence[tuple[str, int]], dice: DiceSource, die: int = 20
    ) -> tuple[DeclareThenAct, tuple[LoggedRoll, ...]]:
        """Round 1 in the declaration phase, after rolling off every RFX tie."""
        pairs = tuple((str(w), int(k)) for w, k in keys)
        if not pairs:
            raise RuleError("Nobody is in the RFX order: add at least one combatant.")
        return cls(keys=pairs, die=die)._settle(dice)

    def _settle(self, dice: DiceSource) -> tuple[DeclareThenAct, tuple[LoggedRoll, ...]]:
        groups: dict[int, list[str]] = {}
        for w, k in self.keys:
            groups.setdefault(k, []).append(w)
        known = dict(self.rolloffs)

        def label(who: str, depth: int) -> tuple[str, str]:
            return who, "RFX tie roll-off" if depth == 0 else "RFX tie roll-off, re-roll"

        pools = [tuple(g) for g in groups.values() if len(g) > 1]
        seqs, rolls, _ = _roll_off(pools, known, dice, self.die, label)
        merged = {**known, **seqs}
        rolloffs = tuple((w, merged[w]) for w, _ in self.keys if merged.get(w))
        return replace(self, rolloffs=rolloffs), rolls

    @property
    def declare_order(self) -> tuple[str, ...]:
        """Token ids from the first to declare (lowest RFX, lowest roll-off) to the last."""
        key = (self.keys, self.rolloffs)
        found = _DECLARE_ORDERS.get(key)
        if found is None:
            # The turn order asks it for every token at every step; it changes once a round.
            seqs = dict(self.rolloffs)
            ranked = sorted(self.keys, key=lambda p: (p[1], seqs.get(p[0], ())))
            if len(_DECLARE_ORDERS) >= 1024:
                _DECLARE_ORDERS.clear()
            found = _DECLARE_ORDERS[key] = tuple(w for w, _ in ranked)
        return found

    @property
    def act_order(self) -> tuple[str, ...]:
        """Token ids from the first to act (highest RFX) to the last: declaration reversed."""
        return self.declare_order[::-1]

    def action_of(self, who: str) -> str | None:
        """What ``who`` declared this round, if they have."""
        return dict(self.declared).get(who)

    @property
    def current(self) -> str | None:
        """Who must declare (or act) now; None once everyone who declared has acted."""
        said = dict(self.declared)
        if self.phase == "declare":
            return next((w for w in self.declare_order if w not in said), None)
        return next((w for w in self.act_order if w in said and w not in self.acted), None)

    @property
    def round_over(self) -> bool:
        """True when the action phase has nobody left to act."""
        return self.phase == "act" and self.current is None

    def _known(self, who: str) -> None:
        if who not in (w for w, _ in self.keys):
            raise RuleError(f"{who} is not in the RFX order.")

    def declare(self, who: str, action: str) -> DeclareThenAct:
        """``who`` declares ``action``; it is locked for the round. Lowest RFX goes first."""
        self._known(who)
        said = self.action_of(who)
        if said is not None:
            raise RuleError(
                f"{who} has already declared {said!r}; a declared action is locked for the round."
            )
        if self.phase != "declare":
            raise RuleError(f"The declaration phase is over; {who} waits for the next round.")
        if not action.strip():
            raise RuleError(f"Say what {who} is doing: the declared action is empty.")
        cur = self.current
        if who != cur:
            raise RuleError(
                f"It is {cur}'s turn to declare, not {who}'s (lowest RFX declares first)."
            )
        declared = (*self.declared, (who, action.strip()))
        done = len(declared) == len(self.keys)
        return replace(self, declared=declared, phase="act" if done else "declare")

    def act(self, who: str) -> DeclareThenAct:
        """``who`` carries out their declared action. Highest RFX goes first."""
        self._known(who)
        if self.phase == "declare":
            raise RuleError(f"{who} cannot act yet: {self.current} has not declared.")
        if who in self.acted:
            raise RuleError(f"{who} has already acted this round.")
        if self.action_of(who) is None:
            raise RuleError(f"{who} declared nothing this round and cannot act until the next.")
        cur = self.current
        if who != cur:
            raise RuleError(f"It is {cur}'s turn to act, not {who}'s (highest RFX acts first).")
        return replace(self, acted=(*self.acted, who))

    def new_round(self, force: bool = False) -> DeclareThenAct:
        """The next round's declaration phase; ``force`` (a GM override) skips who has not acted.

        The roll-off results carry over: nobody rolls again.
        """
        if not force and not self.round_over:
            verb = "declared" if self.phase == "declare" else "acted"
            raise RuleError(f"The round is not over: {self.current} has not {verb} yet.")
        return replace(self, phase="declare", round=self.round + 1, declared=(), acted=())

    def add(
        self, who: str, rfx: int, dice: DiceSource
    ) -> tuple[DeclareThenAct, tuple[LoggedRoll, ...]]:
        """``who`` joins with ``rfx``, rolling off against anyone with the same RFX.

        Earlier roll-off faces are kept. Only the newcomer, and anyone they
        tie with at some depth, rolls.
        """
        _unique((*(w for w, _ in self.keys), who), "The RFX order")
        return replace(self, keys=(*self.keys, (who, rfx)))._settle(dice)

    def remove(self, who: str) -> DeclareThenAct:
        """``who`` leaves combat; if everyone left has declared, the action phase begins."""
        self._known(who)
        keys = tuple(p for p in self.keys if p[0] != who)
        declared = tuple(p for p in self.declared if p[0] != who)
        phase = self.phase
        if phase == "declare" and keys and len(declared) == len(keys):
            phase = "act"
        return replace(
            self,
            keys=keys,
            rolloffs=tuple(p for p in self.rolloffs if p[0] != who),
            declared=declared,
            acted=tuple(w for w in self.acted if w != who),
            phase=phase,
        )


# --------------------------------------------------------------------------- side initiative


class SideRoll(Record, frozen=True, tag="initiative_side"):
    """One side's initiative this round."""

    side: Text
    """Side name."""
    roll: Int
    """The side's 1d10 initiative roll."""
    tiebreak: Annotated[tuple[Int, ...], LONG] = ()
    """Re-rolls forced by ties, in order; they rank this side only among those it tied."""
    shift: Int = 0
    """Phase shift of all its actions: +1 after a 1 (delayed), -1 after a 10 (moved up)."""


class SideInitiative(Schedule, frozen=True, tag="side_initiative"):
    """Seed 001 (``speed_rank``): each side rolls 1d10 every round and the highest goes first.

    When sides tie, only the tied sides re-roll, and the re-roll ranks them
    among themselves. Their place against the other sides, and their phase
    shift, come from the first roll. Each time a tied group re-rolls, that
    counts as one forced re-roll and means one Combat Event (a d20 on the
    table), however many sides are in the group. ``combat_events_due`` says
    how many events this round owes.
    """

    sides: Annotated[tuple[SideRoll, ...], LONG]
    """Every side's roll, first to act first."""
    round: Int = 1
    """Combat round, starting at 1."""
    rerolls: Int = 0
    """Re-rolls forced by ties this round; each is one Combat Event."""
    die: Int = 10
    """Sides of the initiative die; its highest face moves a side up, a 1 delays it."""

    def __post_init__(self) -> None:
        _unique((s.side for s in self.sides), "The initiative order")
        if self.round < 1:
            raise RuleError(f"Round {self.round} is not a combat round; rounds start at 1.")
        if self.die < 2 or self.rerolls < 0:
            raise RuleError("The initiative die needs two sides and re-rolls cannot be negative.")

    @classmethod
    def start(
        cls, sides: Sequence[str], dice: DiceSource, die: int = 10, round: int = 1
    ) -> tuple[SideInitiative, tuple[LoggedRoll, ...]]:
        """Every side rolls, ties re-roll until settled; returns the order and the rolls."""
        names = _unique(sides, "The list of sides")
        if not names:
            raise RuleError("Initiative needs at least one side.")

        def label(side: str, depth: int) -> tuple[str, str]:
            return "", f"initiative for {side}" if depth == 0 else f"initiative re-roll for {side}"

        seqs, rolls, rerolls = _roll_off([names], {}, dice, die, label)
        ranked = sorted(names, key=lambda s: seqs[s], reverse=True)
        table = tuple(
            SideRoll(s, seqs[s][0], seqs[s][1:], cls._shift(seqs[s][0], die)) for s in ranked
        )
        return cls(table, round, rerolls, die), rolls

    @staticmethod
    def _shift(roll: int, die: int) -> int:
        if roll == 1:
            return 1
        return -1 if roll == die else 0

    def next_round(self, dice: DiceSource) -> tuple[SideInitiative, tuple[LoggedRoll, ...]]:
        """Round + 1: every side rolls again (the seed: "At the start of each combat round")."""
        return SideInitiative.start(self.order, dice, self.die, self.round + 1)

    @property
    def order(self) -> tuple[str, ...]:
        """Side names, first to act first."""
        return tuple(s.side for s in self.sides)

    @property
    def combat_events_due(self) -> int:
        """How many d20 Combat Events the tie re-rolls of this round call for."""
        return self.rerolls

    def of(self, side: str) -> SideRoll:
        """The roll of ``side``."""
        for s in self.sides:
            if s.side == side:
                return s
        raise RuleError(f"{side} is not a side in this round's initiative.")

    def shift(self, side: str) -> int:
        """Phase shift for ``side``: +1 delayed (rolled 1), -1 moved up (rolled 10), else 0."""
        return self.of(side).shift


# --------------------------------------------------------------------------- phase timeline


_PHASE_AT: dict[str | int, int] = {
    **{p: i for i, p in enumerate(SPEED_PHASES)},
    **{int(p): i for i, p in enumerate(SPEED_PHASES) if p not in ("S", "F")}}


def phase_index(phase: str | int) -> int:
    """Position of a speed-rank phase (``"S"``, ``-3`` … ``5``, ``"F"``) in ``SPEED_PHASES``."""
    if phase.__class__ is not bool:
        # The turn order asks this hundreds of times a step: a dict answers the usual case.
        at = _PHASE_AT.get(phase)
        if at is not None:
            return at
    if isinstance(phase, bool):
        raise RuleError(f"There is no phase {phase!r}; phases are S, -3 to 5, and F.")
    label = str(phase).strip().upper()
    if label not in SPEED_PHASES:
        raise RuleError(f"There is no phase {phase!r}; phases are S, -3 to 5, and F.")
    return SPEED_PHASES.index(label)


def speed_rank(base: int, modifier: int) -> int:
    """Apply a speed modifier, which is "taken away from the Speed Rank" (seed 001).

    >>> speed_rank(0, +1)   # Human (Fast) with Dexterity 18: Very Fast
    -1
    """
    return base - modifier


def earliest(base_speed: int, weapon_speed: int | None = None, shift: int = 0) -> str:
    """The earliest phase an action (not a spell) may start, as a phase label.

    Ranks are numbers, where a lower rank is faster. A weapon attack takes
    the slower of base and weapon speed: "If a Weapon's Speed is faster than
    the Base Speed of the character wielding it, it instead uses the Base
    Speed". A rank faster than -3 counts as -3; a rank past 5 is F, the Final
    Phase (issue 26: "nor attack with weapons before their Weapon Speed"). The
    side's initiative ``shift`` then moves that many phases, within -3 to F.

    >>> earliest(2, weapon_speed=6)   # Dexterity 1 human with a crossbow (4 + 2)
    'F'
    """
    rank = base_speed if weapon_speed is None else max(base_speed, weapon_speed)
    index = min(max(rank, -3), _FINAL - _FAST) + _FAST + shift
    return SPEED_PHASES[min(max(index, _FIRST_ACTION), _FINAL)]


class TimedAction(Record, frozen=True, tag="timed_action"):
    """One action's stretch of phases within one round."""

    actor: Text
    """Token id of who acts."""
    label: Text
    """What the action is (``"Sprint"``, ``"Fireball"``); unique per actor on the timeline."""
    round: Int
    """Round this stretch belongs to."""
    start: Text
    """First phase it occupies this round."""
    end: Text
    """Last phase it occupies this round (the same as ``start`` for a one-phase action)."""
    spell: bool = False
    """Spell casting (may start before base speed; carries over to phase 0)."""
    continued: bool = False
    """It crossed in from an earlier round and must be sustained ("or else cancel")."""

    def __post_init__(self) -> None:
        if phase_index(self.start) > phase_index(self.end):
            raise RuleError(f"{self.label} ends ({self.end}) before it starts ({self.start}).")
        if self.round < 1:
            raise RuleError(f"Round {self.round} is not a combat round; rounds start at 1.")

    def covers(self, phase: str | int) -> bool:
        """True if the action is under way in ``phase``."""
        return phase_index(self.start) <= phase_index(phase) <= phase_index(self.end)


class PhaseTimeline(Schedule, frozen=True, tag="phase_timeline"):
    """Seed 001 (``speed_rank``): the phases of a round, and actions placed across them.

    An action that runs past F is cut at F, and the rest continues in the
    next round. It picks up at phase 0 (Fast), or at the actor's base speed
    when that is faster and the action is not a spell. This repeats for
    actions longer than a round. The carried part is fixed when the action
    is placed, so next round's initiative shift does not move it.
    """

    round: Int = 1
    """Combat round, starting at 1."""
    current: Text = "S"
    """The phase being played."""
    actions: Annotated[tuple[TimedAction, ...], LONG] = ()
    """Placed actions of this round and the parts carried into later rounds."""

    def __post_init__(self) -> None:
        phase_index(self.current)
        if self.round < 1:
            raise RuleError(f"Round {self.round} is not a combat round; rounds start at 1.")

    def place(
        self,
        actor: str,
        label: str,
        start: str | int,
        span: int = 1,
        *,
        spell: bool = False,
        base_speed: int = 0,
        weapon_speed: int | None = None,
        shift: int = 0,
    ) -> PhaseTimeline:
        """Put an action of ``span`` phases at ``start``, carrying past F into later rounds.

        Base speed is the actor's speed rank with modifiers already applied
        (see ``speed_rank``). ``weapon_speed`` applies to weapon attacks, and
        ``shift`` comes from the side's initiative. A spell may start as early
        as S, but it cannot finish before phase 0 moved by ``shift`` ("no
        spell can be finished casting before the Fast Phase").
        """
        if not actor or not label.strip():
            raise RuleError("An action on the timeline needs an actor and a name.")
        if not 1 <= span <= MAX_SPAN:
            raise RuleError(f"An action spans 1 to {MAX_SPAN} phases, not {span}.")
        first = phase_index(start)
        if first < phase_index(self.current):
            raise RuleError(
                f"Phase {SPEED_PHASES[first]} has already passed this round "
                f"(the round is at phase {self.current})."
            )
        if spell:
            finish = SPEED_PHASES[min(max(_FAST + shift, _FIRST_ACTION), _FINAL)]
            if first + span - 1 < phase_index(finish):
                raise RuleError(
                    f"{actor}'s spell {label} would finish before phase {finish}; "
                    f"no spell can finish casting before the Fast phase."
                )
        else:
            allowed = earliest(base_speed, weapon_speed, shift)
            if first < phase_index(allowed):
                why = f"base speed {base_speed}"
                if weapon_speed is not None:
                    why += f", weapon speed {weapon_speed}"
                if shift:
                    why += f", initiative shift {shift:+d}"
                raise RuleError(f"{actor} cannot {label} before phase {allowed} ({why}).")
        if any(a.actor == actor and a.label == label for a in self.actions):
            raise RuleError(f"{actor} already has {label} on the timeline.")
        base = min(max(base_speed + _FAST, _FIRST_ACTION), _FINAL)
        carry = base if not spell and base < _FAST else _FAST
        pieces: list[TimedAction] = []
        rnd, left, continued = self.round, span, False
        while left > 0:
            end = min(first + left - 1, _FINAL)
            pieces.append(
                TimedAction(
                    actor, label, rnd, SPEED_PHASES[first], SPEED_PHASES[end], spell, continued
                )
            )
            left -= end - first + 1
            rnd, first, continued = rnd + 1, carry, True
        return replace(self, actions=(*self.actions, *pieces))

    def cancel(self, actor: str, label: str) -> PhaseTimeline:
        """Drop every stretch of ``actor``'s ``label``: an action not sustained is cancelled."""
        keep = tuple(a for a in self.actions if (a.actor, a.label) != (actor, label))
        if len(keep) == len(self.actions):
            raise RuleError(f"{actor} has no action {label!r} on the timeline.")
        return replace(self, actions=keep)

    def advance(self) -> PhaseTimeline:
        """The next phase; after F, phase S of the next round, with the carried actions."""
        at = phase_index(self.current)
        if at < _FINAL:
            return replace(self, current=SPEED_PHASES[at + 1])
        rnd = self.round + 1
        return PhaseTimeline(rnd, "S", tuple(a for a in self.actions if a.round >= rnd))

    def _now(self) -> tuple[TimedAction, ...]:
        return tuple(a for a in self.actions if a.round == self.round)

    def actions_at(self, phase: str | int) -> tuple[TimedAction, ...]:
        """This round's actions starting in ``phase``; a carried part starts at its carry phase."""
        at = phase_index(phase)
        return tuple(a for a in self._now() if phase_index(a.start) == at)

    def spanning(self, phase: str | int) -> tuple[TimedAction, ...]:
        """This round's actions under way in ``phase``: started there or earlier, not ended."""
        if not self.actions:
            return ()  # the usual case, asked for every combatant at every turn
        at = phase_index(phase)  # once, not once an action
        now = self.round
        return tuple(a for a in self.actions
                     if a.round == now and phase_index(a.start) <= at <= phase_index(a.end))

    def ending_at(self, phase: str | int) -> tuple[TimedAction, ...]:
        """This round's actions whose last phase this round is ``phase``."""
        at = phase_index(phase)
        return tuple(a for a in self._now() if phase_index(a.end) == at)


# --------------------------------------------------------------------------- fixed phases


class PhaseAction(Record, frozen=True, tag="phase_action"):
    """One declared action inside a fixed phase."""

    who: Text
    """Token id of who acts."""
    action: Text
    """The declared action, in the player's words."""
    faces: Annotated[tuple[Int, ...], LONG] = ()
    """d20s rolled: the first sets the order; the last is the one used when resolving."""
    resolved: bool = False
    """True once the action has been resolved."""
    struck: Text = ""
    """Why an earlier result invalidated it (``""``: it was not invalidated)."""

    @property
    def roll(self) -> int | None:
        """The d20 that placed this action in the order, once rolled."""
        return self.faces[0] if self.faces else None

    @property
    def result(self) -> int | None:
        """The d20 the action uses: the second one if advantage or disadvantage applied."""
        return self.faces[-1] if self.faces else None


class FixedPhases(Schedule, frozen=True, tag="fixed_phases"):
    """Seed 002 (``six_phase``): fixed phases per round; declare, roll a d20 each, resolve.

    Rolls are resolved from highest to lowest. Equal rolls keep declaration
    order: whoever declared first resolves first, and nobody rolls again. A
    combatant who gains advantage or disadvantage from an earlier result
    throws a second d20 when it is their turn to resolve (``reroll``). That
    roll replaces their result but not their place in the order.
    """

    phases: Annotated[tuple[Text, ...], LONG]
    """Names of the phases, in order."""
    index: Int = 0
    """Position of the current phase in ``phases``."""
    round: Int = 1
    """Combat round, starting at 1."""
    step: Literal["declare", "resolve"] = "declare"
    """``"declare"`` while actions are being declared; ``"resolve"`` once the d20s are rolled."""
    entries: Annotated[tuple[PhaseAction, ...], LONG] = ()
    """This phase's actions: in declaration order, then in resolution order after rolling."""
    die: Int = 20
    """Sides of the die each action rolls."""

    def __post_init__(self) -> None:
        if not self.phases:
            raise RuleError("A round needs at least one phase.")
        if not 0 <= self.index < len(self.phases):
            raise RuleError(f"Phase position {self.index} is outside the round's phases.")
        if self.round < 1:
            raise RuleError(f"Round {self.round} is not a combat round; rounds start at 1.")
        if self.step not in ("declare", "resolve"):
            raise RuleError(f"Unknown step {self.step!r}; it is 'declare' or 'resolve'.")
        _unique((e.who for e in self.entries), "This phase's declarations")
        if self.step == "resolve" and any(not e.faces for e in self.entries):
            raise RuleError("Every declared action needs its d20 before resolving.")

    @classmethod
    def start(cls, phases: Sequence[str] = SIX_PHASES, die: int = 20) -> FixedPhases:
        """Round 1, first phase, waiting for declarations."""
        names = tuple(phases)
        if not names or any(not p.strip() for p in names):
            raise RuleError("A round needs at least one phase, and every phase needs a name.")
        return cls(names, die=die)

    @property
    def phase(self) -> str:
        """Name of the current phase."""
        return self.phases[self.index]

    @property
    def order(self) -> tuple[str, ...]:
        """Token ids in resolution order (declaration order before the roll)."""
        return tuple(e.who for e in self.entries)

    @property
    def current(self) -> str | None:
        """Whose action resolves next; None while declaring or when all are resolved."""
        if self.step != "resolve":
            return None
        return next((e.who for e in self.entries if not e.resolved), None)

    def entry(self, who: str) -> PhaseAction:
        """The action ``who`` declared in this phase."""
        for e in self.entries:
            if e.who == who:
                return e
        raise RuleError(f"{who} has declared nothing in the {self.phase} phase.")

    def declare(self, who: str, action: str) -> FixedPhases:
        """``who`` declares ``action`` for this phase; it cannot be redeclared."""
        if not who or not action.strip():
            raise RuleError("A declaration needs a combatant and an action.")
        if any(e.who == who for e in self.entries):
            raise RuleError(
                f"{who} has already declared {self.entry(who).action!r}; "
                "it is not possible to redeclare actions."
            )
        if self.step != "declare":
            raise RuleError(
                f"The dice are rolled in the {self.phase} phase; declarations are over."
            )
        return replace(self, entries=(*self.entries, PhaseAction(who, action.strip())))

    def roll(self, dice: DiceSource) -> tuple[FixedPhases, tuple[LoggedRoll, ...]]:
        """Everyone who declared rolls a d20; sort highest first, ties in declaration order."""
        if self.step != "declare":
            raise RuleError(f"The d20s for the {self.phase} phase are already rolled.")
        rolls: list[LoggedRoll] = []
        rolled: list[PhaseAction] = []
        for e in self.entries:
            why = f"{self.phase}: {e.action}"
            r = dice.roll(1, self.die, why)
            rolls.append((e.who, why, r))
            rolled.append(replace(e, faces=r.faces))
        rolled.sort(key=lambda e: -e.faces[0])  # stable: ties keep declaration order
        return replace(self, step="resolve", entries=tuple(rolled)), tuple(rolls)

    def reroll(self, who: str, dice: DiceSource) -> tuple[FixedPhases, tuple[LoggedRoll, ...]]:
        """Advantage or disadvantage: the combatant now resolving rolls a second d20 and uses it."""
        cur = self.current
        if cur is None:
            raise RuleError(f"Nobody is resolving an action in the {self.phase} phase.")
        if who != cur:
            raise RuleError(
                f"{who} rolls a second d20 only when their action resolves; it is {cur}'s."
            )
        e = self.entry(who)
        if len(e.faces) > 1:
            raise RuleError(f"{who} has already rolled a second d20 for this action.")
        why = f"{self.phase}: {e.action} (second d20)"
        r = dice.roll(1, self.die, why)
        new = replace(e, faces=(*e.faces, *r.faces))
        entries = tuple(new if x.who == who else x for x in self.entries)
        return replace(self, entries=entries), ((who, why, r),)

    def resolve_next(self) -> FixedPhases:
        """Mark the current action resolved; the next highest roll becomes current."""
        if self.step != "resolve":
            raise RuleError(f"Roll the d20s for the {self.phase} phase before resolving.")
        cur = self.current
        if cur is None:
            raise RuleError(f"Every action in the {self.phase} phase is resolved.")
        entries = tuple(replace(e, resolved=True) if e.who == cur else e for e in self.entries)
        return replace(self, entries=entries)

    def strike(self, reason: str) -> FixedPhases:
        """An earlier result invalidated the current action: done, struck out for ``reason``."""
        if self.step != "resolve":
            raise RuleError(f"Roll the d20s for the {self.phase} phase before resolving.")
        cur = self.current
        if cur is None:
            raise RuleError(f"Every action in the {self.phase} phase is resolved.")
        if not reason.strip():
            raise RuleError("An invalidated action needs the reason it no longer happens.")
        entries = tuple(replace(e, resolved=True, struck=reason.strip()) if e.who == cur else e
                        for e in self.entries)
        return replace(self, entries=entries)

    def next_phase(self, force: bool = False) -> FixedPhases:
        """The next phase (after the last: round + 1, first phase); ``force`` skips the rest."""
        if not force:
            if self.step == "declare" and self.entries:
                raise RuleError(f"Roll the d20s for the {self.phase} phase first.")
            if self.current is not None:
                raise RuleError(f"{self.current}'s action in the {self.phase} phase is unresolved.")
        if self.index + 1 < len(self.phases):
            return replace(self, index=self.index + 1, step="declare", entries=())
        return replace(self, index=0, round=self.round + 1, step="declare", entries=())
