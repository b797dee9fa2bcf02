"""What happened, in the past tense. Applying an event is the only way state changes.

Every event carries the values before and after, so ``revert`` undoes it
exactly (python-chess keeps what a move captured for ``pop`` the same way),
and ``text`` is the line the log and ``tacmap play`` print.
"""

from __future__ import annotations

import copy
from typing import Annotated, Generic, TypeVar

import msgspec

from tacmap.engine.model.records import LONG, Float, Int, Json, Record, Text
from tacmap.engine.model.state import Area, Cell, Encounter, Fog, Placed, Token, Wall
from tacmap.engine.model.units import units_of
from tacmap.engine.rules.dice import Roll
from tacmap.engine.rules.schedule import Schedule

S = TypeVar("S", bound=Schedule)


class Event(Record, frozen=True):
    """Base of all events; the default changes nothing (a report for the log).

    Rulesets add their own by subclassing it with a tag
    (``class Fumbled(Event, frozen=True, tag="fumbled")``).
    """

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` is one this event can start from (its ``old`` value is there).

        ``tacmap check`` asks before replaying each event: a log whose entries were
        copied twice reverts and replays to the saved map, but starts from a wrong value.
        """
        return True

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


class DiceRolled(Event, frozen=True, tag="dice_rolled"):
    """Dice were thrown; the encounter's stream moves on by that many faces."""

    who: Text
    """Token id of the roller, or ``""`` for a side or the GM."""
    why: Text
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


class TokenMoved(Event, frozen=True, tag="token_moved"):
    """A token went along a path of cells."""

    token: Text
    """Token id."""
    path: Annotated[tuple[Cell, ...], LONG]
    """Cells from start to end, one step apart (just start and end for a free move)."""
    cost: Float
    """Metres charged under the encounter's rules (0 for a GM's free move)."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return self.token in state.tokens and state.tokens[self.token].cell == tuple(self.path[0])

    def apply(self, state: Encounter) -> None:
        t = state.tokens[self.token]
        t.x, t.y = self.path[-1]

    def revert(self, state: Encounter) -> None:
        t = state.tokens[self.token]
        t.x, t.y = self.path[0]

    def text(self, state: Encounter) -> str:
        (x0, y0), (x1, y1) = self.path[0], self.path[-1]
        moved = f"{_name(state, self.token)} moves ({x0},{y0}) → ({x1},{y1})"
        # A push or a GM's free move spends no movement: "0 ft" after "1 square (5 ft)"
        # read as if the token had not moved.
        return f"{moved}, {units_of(state.ruleset).of(self.cost)}" if self.cost else moved


class LeftReach(Event, frozen=True, tag="left_reach"):
    """A move left an enemy's melee reach at a step of its path (a report)."""

    mover: Text
    """Token that moved."""
    enemy: Text
    """Token whose reach was left."""
    step: Int
    """Index in the path of the first cell outside the reach."""

    def text(self, state: Encounter) -> str:
        return f"{_name(state, self.mover)} leaves the reach of {_name(state, self.enemy)}"


class HpChanged(Event, frozen=True, tag="hp_changed"):
    """Hit points changed by damage, healing or the GM."""

    token: Text
    """Token id."""
    old: Int
    """Hit points before."""
    new: Int
    """Hit points after."""
    why: Text = ""
    """Cause (``"damage"``, ``"GM"``)."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return self.token in state.tokens and state.tokens[self.token].hp == self.old

    def apply(self, state: Encounter) -> None:
        state.tokens[self.token].hp = self.new

    def revert(self, state: Encounter) -> None:
        state.tokens[self.token].hp = self.old

    def text(self, state: Encounter) -> str:
        delta = self.new - self.old
        what = f"takes {-delta} damage" if delta < 0 else f"gains {delta} HP"
        why = f" ({self.why})" if self.why else ""
        return f"{_name(state, self.token)} {what}{why}: {self.old} → {self.new} HP"


class ValueChanged(Event, frozen=True, tag="value_changed"):
    """A value the ruleset tracks on a token changed (pool, actions left …)."""

    token: Text
    """Token id."""
    key: Text
    """Name of the value."""
    old: Json
    """Value before (None: not set)."""
    new: Json
    """Value after (None: removed)."""
    note: Text = ""
    """Readable reason for the log."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        token = state.tokens.get(self.token)
        return token is not None and bool(token.values.get(self.key) == self.old)

    def apply(self, state: Encounter) -> None:
        _set(state.tokens[self.token].values, self.key, self.new)

    def revert(self, state: Encounter) -> None:
        _set(state.tokens[self.token].values, self.key, self.old)

    def text(self, state: Encounter) -> str:
        note = f" ({self.note})" if self.note else ""
        return f"{_name(state, self.token)} {self.key}: {_show(self.old)} → {_show(self.new)}{note}"


class DataChanged(Event, frozen=True, tag="data_changed"):
    """An encounter-wide value the ruleset tracks changed."""

    key: Text
    """Name of the value."""
    old: Json
    """Value before (None: not set)."""
    new: Json
    """Value after (None: removed)."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return bool(state.data.get(self.key) == self.old)

    def apply(self, state: Encounter) -> None:
        _set(state.data, self.key, self.new)

    def revert(self, state: Encounter) -> None:
        _set(state.data, self.key, self.old)

    def text(self, state: Encounter) -> str:
        return f"{self.key}: {_show(self.old)} → {_show(self.new)}"


class ConditionChanged(Event, frozen=True, tag="condition_changed"):
    """A condition was gained or lost."""

    token: Text
    """Token id."""
    condition: Text
    """Condition name (``"dead"``, ``"prone"``)."""
    gained: bool
    """True when gained, False when lost."""
    index: Int = -1
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


class ScheduleChanged(Event, Generic[S], frozen=True, tag="schedule_changed"):
    """The round structure moved on: a turn ended, an order was set, a phase began.

    Generic in the schedule type so that reading a log can name every schedule
    type the rulesets defined (see ``tacmap.engine.model.records``).
    """

    old: S | None
    """Schedule before (a record from ``tacmap.engine.rules.schedule``, or None)."""
    new: S | None
    """Schedule after."""
    note: Text = ""
    """Readable summary for the log (``"Brak's turn"``)."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.schedule == self.old

    def apply(self, state: Encounter) -> None:
        state.schedule = self.new

    def revert(self, state: Encounter) -> None:
        state.schedule = self.old

    def text(self, state: Encounter) -> str:
        return self.note or "the round moves on"


class MapImageChanged(Event, frozen=True, tag="map_image_changed"):
    """The background image, its alignment or its lock changed."""

    old: tuple[Text | None, tuple[Float, Float], Float]
    """(image, offset, metres per pixel) before."""
    new: tuple[Text | None, tuple[Float, Float], Float]
    """(image, offset, metres per pixel) after."""
    locked: tuple[bool, bool] = (False, False)
    """Whether the alignment was locked (before, after)."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        m = state.map
        return (m.image, tuple(m.image_offset), m.image_scale, m.image_locked) == \
            (self.old[0], tuple(self.old[1]), self.old[2], self.locked[0])

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


class RoundChanged(Event, frozen=True, tag="round_changed"):
    """A new combat round began (or combat started: round 0 → 1)."""

    old: Int
    """Round before."""
    new: Int
    """Round after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.round == self.old

    def apply(self, state: Encounter) -> None:
        state.round = self.new

    def revert(self, state: Encounter) -> None:
        state.round = self.old

    def text(self, state: Encounter) -> str:
        return f"round {self.new} begins" if self.new else "combat is reset"


class TokenAdded(Event, frozen=True, tag="token_added"):
    """A token was put on the map."""

    token: Token
    """The new token, whole."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return self.token.id not in state.tokens

    def apply(self, state: Encounter) -> None:
        state.tokens[self.token.id] = copy.deepcopy(self.token)

    def revert(self, state: Encounter) -> None:
        del state.tokens[self.token.id]

    def text(self, state: Encounter) -> str:
        t = self.token
        return f"{t.name} ({t.side}) is placed at ({t.x},{t.y})"


class TokenRemoved(Event, frozen=True, tag="token_removed"):
    """A token was taken off the map (kept whole so undo puts it back in place)."""

    token: Token
    """The token as it was."""
    index: Int
    """Its position in the token order."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.tokens.get(self.token.id) == self.token

    def apply(self, state: Encounter) -> None:
        del state.tokens[self.token.id]

    def revert(self, state: Encounter) -> None:
        items = list(state.tokens.items())
        items.insert(self.index, (self.token.id, copy.deepcopy(self.token)))
        state.tokens = dict(items)

    def text(self, state: Encounter) -> str:
        return f"{self.token.name} is removed from the map"


class TokenEdited(Event, frozen=True, tag="token_edited"):
    """The GM changed a token as a whole (kept whole before and after, for undo)."""

    old: Token
    """The token before."""
    new: Token
    """The token after; same id."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.tokens.get(self.old.id) == self.old

    def apply(self, state: Encounter) -> None:
        # A copy, as for TokenAdded: later events change the state's token in place.
        state.tokens[self.new.id] = copy.deepcopy(self.new)

    def revert(self, state: Encounter) -> None:
        state.tokens[self.old.id] = copy.deepcopy(self.old)

    def text(self, state: Encounter) -> str:
        changes = token_changes(self.old, self.new)
        return f"{self.old.name} is edited: {'; '.join(changes) or 'no change'}"


def public_changes(old: Token, new: Token) -> list[str]:
    """What anyone at the table may read of a token's change: its name, side, place, size."""
    out = []
    if old.name != new.name:
        out.append(f"name {old.name} → {new.name}")
    if old.side != new.side:
        out.append(f"side {old.side} → {new.side}")
    if old.cell != new.cell:
        out.append(f"at ({old.x},{old.y}) → ({new.x},{new.y})")
    if old.size != new.size:
        out.append(f"size {old.size} → {new.size}")
    return out


def token_changes(old: Token, new: Token) -> list[str]:
    """What differs between two versions of a token, as short phrases (``"hp 10 → 7"``)."""
    out = public_changes(old, new)
    for what in ("hp", "max_hp"):
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


class WallsChanged(Event, frozen=True, tag="walls_changed"):
    """The GM drew, erased or moved walls and obstacles."""

    old: Annotated[tuple[Wall, ...], LONG]
    """Every wall before."""
    new: Annotated[tuple[Wall, ...], LONG]
    """Every wall after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return tuple(state.map.walls) == tuple(self.old)

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


class DoorChanged(Event, frozen=True, tag="door_changed"):
    """A door was opened or closed."""

    wall: Int
    """Index of the door among the map's walls."""
    old: bool
    """Open before."""
    new: bool
    """Open after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return 0 <= self.wall < len(state.map.walls) and state.map.walls[self.wall].open == self.old

    def apply(self, state: Encounter) -> None:
        self._set(state, self.new)

    def revert(self, state: Encounter) -> None:
        self._set(state, self.old)

    def _set(self, state: Encounter, value: bool) -> None:
        walls = state.map.walls
        door = walls[self.wall]
        if door.kind != "door":
            raise ValueError(f"wall {self.wall + 1} is not a door")
        # A new tuple: movement and sight cache walls by the tuple's identity.
        state.map.walls = (*walls[:self.wall], msgspec.structs.replace(door, open=value),
                           *walls[self.wall + 1:])

    def text(self, state: Encounter) -> str:
        return f"{door_name(state, self.wall).capitalize()} {'opens' if self.new else 'closes'}"


def door_name(state: Encounter, index: int) -> str:
    """``"the north door (12, 4)"``: where a door is, as the table would say it."""
    walls = state.map.walls
    if not 0 <= index < len(walls):
        return f"door {index + 1}"
    xs = [p[0] for p in walls[index].points]
    ys = [p[1] for p in walls[index].points]
    x, y = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    dx, dy = x - state.map.width / 2, y - state.map.height / 2
    words = []
    if abs(dy) > state.map.height / 6:
        words.append("north" if dy < 0 else "south")
    if abs(dx) > state.map.width / 6:
        words.append("west" if dx < 0 else "east")
    where = "-".join(words) + " " if words else ""
    return f"the {where}door at ({x:g}, {y:g})"


class FogSwitched(Event, frozen=True, tag="fog_switched"):
    """Fog of war was turned on or off for the encounter."""

    old: bool
    """On before."""
    new: bool
    """On after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.fog.enabled == self.old

    def apply(self, state: Encounter) -> None:
        state.fog = msgspec.structs.replace(state.fog, enabled=self.new)

    def revert(self, state: Encounter) -> None:
        state.fog = msgspec.structs.replace(state.fog, enabled=self.old)

    def text(self, state: Encounter) -> str:
        return f"fog of war is {'on' if self.new else 'off'}"


class FogEdited(Event, frozen=True, tag="fog_edited"):
    """The GM revealed or hid an area by hand (the fog kept whole before and after)."""

    old: Fog
    """Fog before."""
    new: Fog
    """Fog after."""
    reveal: bool
    """True for a reveal, False for a hide."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.fog == self.old

    def apply(self, state: Encounter) -> None:
        state.fog = self.new

    def revert(self, state: Encounter) -> None:
        state.fog = self.old

    def text(self, state: Encounter) -> str:
        return f"the GM {'reveals' if self.reveal else 'hides'} an area of the map"


class Explored(Event, frozen=True, tag="explored"):
    """The players' side was shown more of the map: the explored area grew."""

    old: Area
    """Explored area before."""
    new: Area
    """Explored area after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.fog.explored == self.old

    def apply(self, state: Encounter) -> None:
        state.fog = msgspec.structs.replace(state.fog, explored=self.new)

    def revert(self, state: Encounter) -> None:
        state.fog = msgspec.structs.replace(state.fog, explored=self.old)

    def text(self, state: Encounter) -> str:
        return "the players see more of the map"


class DiagonalChanged(Event, frozen=True, tag="diagonal_changed"):
    """The encounter's diagonal rule changed."""

    old: Text
    """Rule before."""
    new: Text
    """Rule after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.diagonal == self.old

    def apply(self, state: Encounter) -> None:
        state.diagonal = self.new

    def revert(self, state: Encounter) -> None:
        state.diagonal = self.old

    def text(self, state: Encounter) -> str:
        return f"diagonal rule: {self.old} → {self.new}"


class EncounterRenamed(Event, frozen=True, tag="encounter_renamed"):
    """The encounter got a new title."""

    old: Text
    """Title before."""
    new: Text
    """Title after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.name == self.old

    def apply(self, state: Encounter) -> None:
        state.name = self.new

    def revert(self, state: Encounter) -> None:
        state.name = self.old

    def text(self, state: Encounter) -> str:
        return f"the encounter is renamed {self.new!r} (was {self.old!r})"


class HouseRuleChanged(Event, frozen=True, tag="house_rule_changed"):
    """A house rule of the encounter changed (an empty value: the ruleset's default)."""

    key: Text
    """The option's key."""
    old: Text
    """The override before ("": none, the default was in force)."""
    new: Text
    """The override after ("": none, the default is in force)."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.house_rules.get(self.key, "") == self.old

    def apply(self, state: Encounter) -> None:
        _set_rule(state, self.key, self.new)

    def revert(self, state: Encounter) -> None:
        _set_rule(state, self.key, self.old)

    def text(self, state: Encounter) -> str:
        return f"house rule {self.key}: {self.new or 'the default'}"


def _set_rule(state: Encounter, key: str, value: str) -> None:
    if value:
        state.house_rules[key] = value
    else:
        state.house_rules.pop(key, None)


class PartyChanged(Event, frozen=True, tag="party_changed"):
    """The players' side changed."""

    old: Text
    """Side before ("": the first token's)."""
    new: Text
    """Side after."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return state.party == self.old

    def apply(self, state: Encounter) -> None:
        state.party = self.new

    def revert(self, state: Encounter) -> None:
        state.party = self.old

    def text(self, state: Encounter) -> str:
        return f"the players are now the {self.new} side"


class TemplatePlaced(Event, frozen=True, tag="template_placed"):
    """A template was left on the map (a cloud, a spell about to land)."""

    placed: Placed
    """The template with its id and label."""
    covers: Annotated[tuple[Text, ...], LONG] = ()
    """Ids of the tokens inside it when it was placed, in token order (for the log)."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return all(p.id != self.placed.id for p in state.templates)

    def apply(self, state: Encounter) -> None:
        state.templates = (*state.templates, self.placed)

    def revert(self, state: Encounter) -> None:
        ids = [p.id for p in state.templates]
        i = len(ids) - 1 - ids[::-1].index(self.placed.id)
        state.templates = (*state.templates[:i], *state.templates[i + 1:])

    def text(self, state: Encounter) -> str:
        who = ", ".join(_name(state, t) for t in self.covers) or "nobody"
        return f"{self.placed.label} placed: covers {who}"


class TemplateRemoved(Event, frozen=True, tag="template_removed"):
    """A template was taken off the map (kept whole so undo puts it back in place)."""

    placed: Placed
    """The template as it was."""
    index: Int
    """Its position among the encounter's templates."""

    def matches(self, state: Encounter) -> bool:
        """Whether ``state`` holds the value this event starts from."""
        return any(p == self.placed for p in state.templates)

    def apply(self, state: Encounter) -> None:
        ids = [p.id for p in state.templates]
        i = ids.index(self.placed.id)
        state.templates = (*state.templates[:i], *state.templates[i + 1:])

    def revert(self, state: Encounter) -> None:
        t = state.templates
        if not 0 <= self.index <= len(t):
            raise IndexError(f"template position {self.index} is past the end")
        state.templates = (*t[:self.index], self.placed, *t[self.index:])

    def text(self, state: Encounter) -> str:
        return f"{self.placed.label} is taken off the map"


class Said(Event, frozen=True, tag="said"):
    """A line for the log: an outcome the rules decided (``"the attack misses"``)."""

    message: Text
    """The sentence."""
    who: Text = ""
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
    if isinstance(value, tuple | list):  # a ruleset may emit a list before it is saved
        return "[" + " ".join(_show(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    return str(value)


class GmRolled(Event, frozen=True, tag="gm_rolled"):
    """The GM rolled dice by notation; the encounter's stream moves on by every die thrown."""

    notation: Text
    """The roll as read (``2d20kh1+5``)."""
    rolls: tuple[Roll, ...]
    """One roll per group of dice, faces as they fell."""
    total: Int
    """The result."""
    shown: Text
    """The roll written out, dropped dice in brackets (``2d20kh1 [(3) 17] + 5 = 22``)."""
    public: bool = True
    """Shown to the players; False: the GM's eyes only."""

    def apply(self, state: Encounter) -> None:
        state.dice_drawn += sum(len(r.faces) for r in self.rolls)

    def revert(self, state: Encounter) -> None:
        state.dice_drawn -= sum(len(r.faces) for r in self.rolls)

    def text(self, state: Encounter) -> str:
        secret = "" if self.public else " (GM only)"
        return f"GM rolls {self.shown}{secret}"
