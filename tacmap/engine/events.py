"""What happened, in the past tense. Applying an event is the only way state changes.

Every event carries the values before and after, so ``revert`` undoes it
exactly (python-chess keeps what a move captured for ``pop`` the same way),
and ``text`` is the line the log and ``tacmap play`` print.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from tacmap.engine.codec import Json, record
from tacmap.engine.dice import Roll
from tacmap.engine.state import Cell, Encounter, Token, Wall


class Event:
    """Base of all events; the default changes nothing (a report for the log)."""

    def apply(self, state: Encounter) -> None:
        """Change ``state`` as this event says."""

    def revert(self, state: Encounter) -> None:
        """Undo ``apply`` exactly."""

    def text(self, state: Encounter) -> str:
        """One readable line for the log."""
        return type(self).__name__


def _name(state: Encounter, token_id: str) -> str:
    token = state.tokens.get(token_id)
    return token.name if token else token_id


@record("dice_rolled")
@dataclass(frozen=True)
class DiceRolled(Event):
    """Dice were thrown; the encounter's stream moves on by that many faces."""

    who: str
    """Token id of the roller, or ``""`` for a side or the GM."""
    why: str
    """What the roll is for (``"attack on Brak"``)."""
    roll: Roll
    """The faces, left to right."""

    def apply(self, state: Encounter) -> None:
        state.dice_drawn += len(self.roll.faces)

    def revert(self, state: Encounter) -> None:
        state.dice_drawn -= len(self.roll.faces)

    def text(self, state: Encounter) -> str:
        who = _name(state, self.who) if self.who else "GM"
        return f"{who} rolls {self.roll} for {self.why}"


@record("token_moved")
@dataclass(frozen=True)
class TokenMoved(Event):
    """A token went along a path of cells."""

    token: str
    """Token id."""
    path: tuple[Cell, ...]
    """Cells from start to end, one step apart (just start and end for a free move)."""
    cost: float
    """Metres charged under the encounter's rules (0 for a GM's free move)."""

    def apply(self, state: Encounter) -> None:
        t = state.tokens[self.token]
        t.x, t.y = self.path[-1]

    def revert(self, state: Encounter) -> None:
        t = state.tokens[self.token]
        t.x, t.y = self.path[0]

    def text(self, state: Encounter) -> str:
        (x0, y0), (x1, y1) = self.path[0], self.path[-1]
        return f"{_name(state, self.token)} moves ({x0},{y0}) → ({x1},{y1}), {self.cost:g} m"


@record("left_reach")
@dataclass(frozen=True)
class LeftReach(Event):
    """A move left an enemy's melee reach at a step of its path (a report)."""

    mover: str
    """Token that moved."""
    enemy: str
    """Token whose reach was left."""
    step: int
    """Index in the path of the first cell outside the reach."""

    def text(self, state: Encounter) -> str:
        return f"{_name(state, self.mover)} leaves the reach of {_name(state, self.enemy)}"


@record("hp_changed")
@dataclass(frozen=True)
class HpChanged(Event):
    """Hit points changed by damage, healing or the GM."""

    token: str
    """Token id."""
    old: int
    """Hit points before."""
    new: int
    """Hit points after."""
    why: str = ""
    """Cause (``"damage"``, ``"GM"``)."""

    def apply(self, state: Encounter) -> None:
        state.tokens[self.token].hp = self.new

    def revert(self, state: Encounter) -> None:
        state.tokens[self.token].hp = self.old

    def text(self, state: Encounter) -> str:
        delta = self.new - self.old
        what = f"takes {-delta} damage" if delta < 0 else f"gains {delta} HP"
        why = f" ({self.why})" if self.why else ""
        return f"{_name(state, self.token)} {what}{why}: {self.old} → {self.new} HP"


@record("value_changed")
@dataclass(frozen=True)
class ValueChanged(Event):
    """A value the ruleset tracks on a token changed (pool, actions left …)."""

    token: str
    """Token id."""
    key: str
    """Name of the value."""
    old: Json
    """Value before (None: not set)."""
    new: Json
    """Value after (None: removed)."""
    note: str = ""
    """Readable reason for the log."""

    def apply(self, state: Encounter) -> None:
        _set(state.tokens[self.token].values, self.key, self.new)

    def revert(self, state: Encounter) -> None:
        _set(state.tokens[self.token].values, self.key, self.old)

    def text(self, state: Encounter) -> str:
        note = f" ({self.note})" if self.note else ""
        return f"{_name(state, self.token)} {self.key}: {_show(self.old)} → {_show(self.new)}{note}"


@record("data_changed")
@dataclass(frozen=True)
class DataChanged(Event):
    """An encounter-wide value the ruleset tracks changed."""

    key: str
    """Name of the value."""
    old: Json
    """Value before (None: not set)."""
    new: Json
    """Value after (None: removed)."""

    def apply(self, state: Encounter) -> None:
        _set(state.data, self.key, self.new)

    def revert(self, state: Encounter) -> None:
        _set(state.data, self.key, self.old)

    def text(self, state: Encounter) -> str:
        return f"{self.key}: {_show(self.old)} → {_show(self.new)}"


@record("condition_changed")
@dataclass(frozen=True)
class ConditionChanged(Event):
    """A condition was gained or lost."""

    token: str
    """Token id."""
    condition: str
    """Condition name (``"dead"``, ``"prone"``)."""
    gained: bool
    """True when gained, False when lost."""
    index: int = -1
    """Where a lost condition stood among the token's (so undo puts it back there)."""

    def apply(self, state: Encounter) -> None:
        self._set(state, self.gained)

    def revert(self, state: Encounter) -> None:
        self._set(state, not self.gained, self.index)

    def _set(self, state: Encounter, on: bool, at: int = -1) -> None:
        t = state.tokens[self.token]
        rest = tuple(c for c in t.conditions if c != self.condition)
        if not on:
            t.conditions = rest
        elif 0 <= at <= len(rest):
            t.conditions = (*rest[:at], self.condition, *rest[at:])
        else:
            t.conditions = (*rest, self.condition)

    def text(self, state: Encounter) -> str:
        verb = "is now" if self.gained else "is no longer"
        return f"{_name(state, self.token)} {verb} {self.condition}"


def condition_change(token: Token, condition: str, gained: bool) -> ConditionChanged:
    """The event for ``token`` gaining or losing ``condition``, exact under undo."""
    index = token.conditions.index(condition) if condition in token.conditions else -1
    return ConditionChanged(token.id, condition, gained, -1 if gained else index)


@record("schedule_changed")
@dataclass(frozen=True)
class ScheduleChanged(Event):
    """The round structure moved on: a turn ended, an order was set, a phase began."""

    old: Any
    """Schedule before (a record from ``tacmap.engine.schedule``, or None)."""
    new: Any
    """Schedule after."""
    note: str = ""
    """Readable summary for the log (``"Brak's turn"``)."""

    def apply(self, state: Encounter) -> None:
        state.schedule = self.new

    def revert(self, state: Encounter) -> None:
        state.schedule = self.old

    def text(self, state: Encounter) -> str:
        return self.note or "the round moves on"


@record("map_image_changed")
@dataclass(frozen=True)
class MapImageChanged(Event):
    """The background image, its alignment or its lock changed."""

    old: tuple[str | None, tuple[float, float], float]
    """(image, offset, metres per pixel) before."""
    new: tuple[str | None, tuple[float, float], float]
    """(image, offset, metres per pixel) after."""
    locked: tuple[bool, bool] = (False, False)
    """Whether the alignment was locked (before, after)."""

    def apply(self, state: Encounter) -> None:
        self._set(state, self.new, self.locked[1])

    def revert(self, state: Encounter) -> None:
        self._set(state, self.old, self.locked[0])

    @staticmethod
    def _set(state: Encounter, value: tuple[str | None, tuple[float, float], float],
             locked: bool) -> None:
        state.map.image, state.map.image_offset, state.map.image_scale = value
        state.map.image_locked = locked

    def text(self, state: Encounter) -> str:
        image, (x, y), scale = self.new
        if image is None:
            return "the map image is removed"
        if self.old == self.new and self.locked[0] != self.locked[1]:
            return f"the map image is {'locked' if self.locked[1] else 'unlocked'}"
        lock = ", locked" if self.locked[1] else ""
        return f"map image {image} at ({x:g}, {y:g}) m, {scale:g} m per pixel{lock}"


@record("round_changed")
@dataclass(frozen=True)
class RoundChanged(Event):
    """A new combat round began (or combat started: round 0 → 1)."""

    old: int
    """Round before."""
    new: int
    """Round after."""

    def apply(self, state: Encounter) -> None:
        state.round = self.new

    def revert(self, state: Encounter) -> None:
        state.round = self.old

    def text(self, state: Encounter) -> str:
        return f"round {self.new} begins" if self.new else "combat is reset"


@record("token_added")
@dataclass(frozen=True)
class TokenAdded(Event):
    """A token was put on the map."""

    token: Token
    """The new token, whole."""

    def apply(self, state: Encounter) -> None:
        state.tokens[self.token.id] = copy.deepcopy(self.token)

    def revert(self, state: Encounter) -> None:
        del state.tokens[self.token.id]

    def text(self, state: Encounter) -> str:
        t = self.token
        return f"{t.name} ({t.side}) is placed at ({t.x},{t.y})"


@record("token_removed")
@dataclass(frozen=True)
class TokenRemoved(Event):
    """A token was taken off the map (kept whole so undo puts it back in place)."""

    token: Token
    """The token as it was."""
    index: int
    """Its position in the token order."""

    def apply(self, state: Encounter) -> None:
        del state.tokens[self.token.id]

    def revert(self, state: Encounter) -> None:
        items = list(state.tokens.items())
        items.insert(self.index, (self.token.id, copy.deepcopy(self.token)))
        state.tokens = dict(items)

    def text(self, state: Encounter) -> str:
        return f"{self.token.name} is removed from the map"


@record("token_edited")
@dataclass(frozen=True)
class TokenEdited(Event):
    """The GM changed a token as a whole (kept whole before and after, for undo)."""

    old: Token
    """The token before."""
    new: Token
    """The token after; same id."""

    def apply(self, state: Encounter) -> None:
        # A copy, as for TokenAdded: later events change the state's token in place.
        state.tokens[self.new.id] = copy.deepcopy(self.new)

    def revert(self, state: Encounter) -> None:
        state.tokens[self.old.id] = copy.deepcopy(self.old)

    def text(self, state: Encounter) -> str:
        changes = token_changes(self.old, self.new)
        return f"{self.old.name} is edited: {'; '.join(changes) or 'no change'}"


def token_changes(old: Token, new: Token) -> list[str]:
    """What differs between two versions of a token, as short phrases (``"hp 10 → 7"``)."""
    out = []
    if old.name != new.name:
        out.append(f"name {old.name} → {new.name}")
    if old.side != new.side:
        out.append(f"side {old.side} → {new.side}")
    if old.cell != new.cell:
        out.append(f"at ({old.x},{old.y}) → ({new.x},{new.y})")
    for what in ("size", "hp", "max_hp"):
        a, b = getattr(old, what), getattr(new, what)
        if a != b:
            out.append(f"{what} {a} → {b}")
    for what in ("stats", "values"):
        a, b = getattr(old, what), getattr(new, what)
        for key in dict.fromkeys([*a, *b]):
            if a.get(key) != b.get(key):
                out.append(f"{key} {_show(a.get(key))} → {_show(b.get(key))}")
    if old.conditions != new.conditions:
        out.append(f"conditions {_show(old.conditions)} → {_show(new.conditions)}")
    if old.image != new.image:
        out.append(f"portrait {old.image or '—'} → {new.image or '—'}")
    if old.hidden != new.hidden:
        out.append("hidden from the players" if new.hidden else "shown to the players")
    return out


@record("walls_changed")
@dataclass(frozen=True)
class WallsChanged(Event):
    """The GM drew, erased or moved walls and obstacles."""

    old: tuple[Wall, ...]
    """Every wall before."""
    new: tuple[Wall, ...]
    """Every wall after."""

    def apply(self, state: Encounter) -> None:
        # A new tuple object: movement and the map cache walls by the tuple's identity.
        state.map.walls = self.new

    def revert(self, state: Encounter) -> None:
        state.map.walls = self.old

    def text(self, state: Encounter) -> str:
        left = list(self.old)
        added = 0
        for w in self.new:
            if w in left:
                left.remove(w)
            else:
                added += 1
        parts = [f"{added} drawn" if added else "", f"{len(left)} erased" if left else ""]
        said = ", ".join(p for p in parts if p) or "reordered"
        return f"walls: {said} ({len(self.new)} now)"


@record("diagonal_changed")
@dataclass(frozen=True)
class DiagonalChanged(Event):
    """The encounter's diagonal rule changed."""

    old: str
    """Rule before."""
    new: str
    """Rule after."""

    def apply(self, state: Encounter) -> None:
        state.diagonal = self.new

    def revert(self, state: Encounter) -> None:
        state.diagonal = self.old

    def text(self, state: Encounter) -> str:
        return f"diagonal rule: {self.old} → {self.new}"


@record("encounter_renamed")
@dataclass(frozen=True)
class EncounterRenamed(Event):
    """The encounter got a new title."""

    old: str
    """Title before."""
    new: str
    """Title after."""

    def apply(self, state: Encounter) -> None:
        state.name = self.new

    def revert(self, state: Encounter) -> None:
        state.name = self.old

    def text(self, state: Encounter) -> str:
        return f"the encounter is renamed {self.new!r} (was {self.old!r})"


@record("party_changed")
@dataclass(frozen=True)
class PartyChanged(Event):
    """The players' side changed."""

    old: str
    """Side before ("": the first token's)."""
    new: str
    """Side after."""

    def apply(self, state: Encounter) -> None:
        state.party = self.new

    def revert(self, state: Encounter) -> None:
        state.party = self.old

    def text(self, state: Encounter) -> str:
        return f"the players are now the {self.new} side"


@record("said")
@dataclass(frozen=True)
class Said(Event):
    """A line for the log: an outcome the rules decided (``"the attack misses"``)."""

    message: str
    """The sentence."""
    who: str = ""
    """Token it is about, if any."""

    def text(self, state: Encounter) -> str:
        return self.message


def _set(values: dict[str, Json], key: str, value: Json) -> None:
    if value is None:
        values.pop(key, None)
    else:
        values[key] = value


def _show(value: Json) -> str:
    if value is None:
        return "—"
    if isinstance(value, tuple):
        return "[" + " ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    return str(value)
