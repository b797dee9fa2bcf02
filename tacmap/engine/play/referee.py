"""The one door: every command is judged here, and only events change the state.

>>> ref = Referee(state, ruleset)                    # doctest: +SKIP
>>> ref.preview(Move("ana", ((3, 4),))).cost         # doctest: +SKIP
7.0
>>> ref.execute(Move("ana", ((3, 4),)))              # doctest: +SKIP
(TokenMoved(token='ana', ...),)

Undo reverts the last entry's events; redo re-applies the recorded events
(dice never re-roll). ``replay`` applies a whole log to a starting state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

import msgspec

from tacmap.engine.model import records
from tacmap.engine.model.commands import (
    AddToken,
    AddTokens,
    Command,
    EditFog,
    EditToken,
    FreeMove,
    PlaceTemplate,
    Rebalance,
    RemoveTemplate,
    RemoveToken,
    RemoveTokens,
    RenameEncounter,
    SetCondition,
    SetDiagonal,
    SetDoor,
    SetFog,
    SetHouseRule,
    SetHp,
    SetMapImage,
    SetParty,
    SetValue,
    SetWalls,
)
from tacmap.engine.model.errors import InputError, RuleError
from tacmap.engine.model.events import (
    DataChanged,
    DiagonalChanged,
    DoorChanged,
    EncounterRenamed,
    Event,
    Explored,
    FogEdited,
    FogSwitched,
    HouseRuleChanged,
    HpChanged,
    MapImageChanged,
    PartyChanged,
    ScheduleChanged,
    TokenAdded,
    TokenEdited,
    TokenMoved,
    TokenRemoved,
    ValueChanged,
    WallsChanged,
    condition_change,
)
from tacmap.engine.model.records import freeze
from tacmap.engine.model.state import (
    DIAGONAL_RULES,
    MAX_TOKENS,
    Encounter,
    Token,
    check_image_path,
    too_many_items,
)
from tacmap.engine.play.gm import add_tokens, resolve_gm_tool
from tacmap.engine.rules.dice import DiceSource, SeededDice
from tacmap.engine.rules.house_rules import check_value
from tacmap.engine.rules.ruleset import Resolution, Ruleset
from tacmap.engine.rules.views import Preview
from tacmap.engine.space import vision
from tacmap.engine.space.geometry import wall_problem
from tacmap.engine.space.templates import placement, removal

Change = Literal["execute", "undo", "redo", "reset"]

#: Longest encounter title the GM may give.
MAX_NAME = 200
#: Longest log a file may hold (docs/manual/files.md): a long campaign night is a few
#: thousand entries; a million would take a gigabyte to open.
MAX_LOG = 100_000


class Entry(msgspec.Struct, frozen=True):
    """One line of the log: what was asked and what happened.

    Written untagged, ``{"command": …, "events": […]}``; ``tacmap.engine.files.storage``
    reads it back.
    """

    command: Command
    """The command as given."""
    events: tuple[Event, ...]
    """Its events, in the order they were applied."""


Listener = Callable[[Change, Entry | None], None]


class Referee:
    """Judges commands for one encounter under one ruleset and keeps the log."""

    def __init__(self, state: Encounter, ruleset: Ruleset, log: Iterable[Entry] = ()) -> None:
        if state.ruleset != ruleset.id:
            raise RuleError(f"this encounter uses ruleset {state.ruleset!r}, not {ruleset.id!r}")
        self.state = state
        self.ruleset = ruleset
        self.log: list[Entry] = list(log)
        self.redo_stack: list[Entry] = []
        self.listeners: list[Listener] = []
        #: Counts changes, so views and caches know when to refresh.
        self.version = 0

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(change, entry)`` after every execute, undo and redo."""
        self.listeners.append(listener)

    def _tell(self, change: Change, entry: Entry | None) -> None:
        self.version += 1
        for listener in list(self.listeners):
            listener(change, entry)

    def preview(self, cmd: Command) -> Preview:
        """What ``cmd`` would do; never changes anything."""
        try:
            if cmd.override:
                trial = Resolution(copy.deepcopy(self.state), SeededDice(0))
                resolve_override(trial, cmd, self.ruleset)
                return Preview(True)
            return self.ruleset.preview(self.state, cmd, self.version)
        except RuleError as err:
            return Preview(False, str(err))

    def execute(self, cmd: Command, dice: DiceSource | None = None) -> tuple[Event, ...]:
        """Judge and apply ``cmd``; raise RuleError (nothing changed) if illegal."""
        if len(self.log) >= MAX_LOG:
            raise RuleError(f"the log is full ({MAX_LOG:,} entries, the most a file holds): "
                            "undo and redo still work, but nothing new can be added")
        source = dice if dice is not None else SeededDice(self.state.seed, self.state.dice_drawn)
        ctx = Resolution(self.state, source)
        try:
            if cmd.override:
                resolve_override(ctx, cmd, self.ruleset)
            else:
                self.ruleset.resolve(ctx, cmd)
            if self.state.fog.enabled:
                # What the command showed the table is explored in the same entry:
                # undoing the command un-explores it, replaying it explores it again.
                explored = vision.explored_event(self.state,
                                                 self.ruleset.space.walls(self.state),
                                                 self.ruleset.out_of_fight)
                if explored is not None:
                    ctx.emit(explored)
            # The rules' own round records and fog reveals are built from bounded parts and
            # are the costly ones to write (a forecast executes thousands of commands): the
            # rest, and everything a GM command does, is written and read back.
            unsaved = unwritable(ctx.events if cmd.override else
                                 [e for e in ctx.events if not isinstance(e, BUILT)])
            if unsaved:
                raise RuleError(unsaved)
            # The GM's edits may add free-form values; the rules' own stay within bounds
            # (and an attack does not pay for counting them).
            crowded = too_many_items(self.state) if cmd.override and _adds_values(
                ctx.events) else ""
            if crowded:
                raise RuleError(f"the encounter would be too big: {crowded}")
        except BaseException:
            ctx.rollback()
            raise
        entry = Entry(cmd, tuple(ctx.events))
        self.log.append(entry)
        self.redo_stack.clear()
        self._tell("execute", entry)
        return entry.events

    def undo(self) -> Entry | None:
        """Take back the last entry; None when there is nothing to undo."""
        if not self.log:
            return None
        entry = self.log[-1]
        undone: list[Event] = []
        try:
            for event in reversed(entry.events):
                event.revert(self.state)
                undone.append(event)
        except (KeyError, ValueError, IndexError, TypeError) as err:
            # A log that does not fit the map (a hand-edited file): put back what was
            # taken back, keep the entry, and say so in one sentence.
            for event in reversed(undone):
                event.apply(self.state)
            raise RuleError(f"cannot undo {type(entry.command).__name__}: the log does not "
                            f"match the map ({err})") from None
        self.log.pop()
        self.redo_stack.append(entry)
        self._tell("undo", entry)
        return entry

    def redo(self) -> Entry | None:
        """Re-apply the last undone entry's recorded events; None when there is none."""
        if not self.redo_stack:
            return None
        entry = self.redo_stack.pop()
        for event in entry.events:
            event.apply(self.state)
        self.log.append(entry)
        self._tell("redo", entry)
        return entry

    def initial_state(self) -> Encounter:
        """The state before the first entry of the log (the live state is untouched)."""
        state = copy.deepcopy(self.state)
        for entry in reversed(self.log):
            for event in reversed(entry.events):
                event.revert(state)
        return state


def _adds_values(events: Sequence[Event]) -> bool:
    return any(isinstance(e, ValueChanged | DataChanged | TokenAdded | TokenEdited)
               for e in events)


#: Events the rules build from bounded parts: not written and read back after a rules
#: command (they are after a GM's).
BUILT = (ScheduleChanged, Explored)


def unwritable(events: Sequence[Event]) -> str:
    """Why a file could not hold what ``events`` leave (a number past the limits, a list
    too long …), as one sentence; "" when it can.

    Each event is written and read back as a file reads it: a command whose result
    ``tacmap check`` would refuse is refused instead, so a save never writes a file
    that will not open (a GM's -1,000,000,000 HP then 5 more damage).
    """
    for event in events:
        try:
            records.decode(records.encode(event), Event)
        except InputError as err:
            return f"the result could not be saved: {records.name_of(event)}.{err}"
        except (UnicodeEncodeError, msgspec.EncodeError, ValueError, TypeError,
                OverflowError, RecursionError) as err:
            return f"the result could not be saved: {records.name_of(event)}: {err}"
    return ""


def _house_rule(state: Encounter, cmd: SetHouseRule, ruleset: Ruleset) -> HouseRuleChanged:
    options = ruleset.manifest.options
    try:
        check_value(options, cmd.key, cmd.value)
    except InputError as err:
        raise RuleError(str(err)) from None
    old = state.house_rules.get(cmd.key, "")
    new = "" if cmd.value == options[cmd.key].default else cmd.value
    if new == old:
        raise RuleError(f"house rule {cmd.key} is already {cmd.value}")
    return HouseRuleChanged(cmd.key, old, new)


def replay(state: Encounter, log: Sequence[Entry]) -> Encounter:
    """A copy of ``state`` with every recorded event of ``log`` applied in order."""
    out = copy.deepcopy(state)
    for entry in log:
        for event in entry.events:
            event.apply(out)
    return out


def rejudge(state: Encounter, ruleset: Ruleset, commands: Iterable[Command]) -> Referee:
    """Run ``commands`` afresh from a copy of ``state`` with its own dice stream."""
    referee = Referee(copy.deepcopy(state), ruleset)
    for cmd in commands:
        referee.execute(cmd)
    return referee


def resolve_override(ctx: Resolution, cmd: Command, ruleset: Ruleset) -> None:
    """GM overrides: applied as asked, checked only for sense, never for the rules."""
    state = ctx.state
    try:
        records.encode(cmd)  # the text a GM types must be text a file can hold
    except UnicodeEncodeError as err:
        raise RuleError(records.unicode_problem(err)) from None
    if resolve_gm_tool(ctx, cmd, ruleset):
        return
    if isinstance(cmd, AddTokens):
        add_tokens(ctx, cmd, [_checked_token(state, t, ruleset) for t in cmd.tokens])
        for token in cmd.tokens:
            ruleset.joined(ctx, state.tokens[token.id])
    elif isinstance(cmd, Rebalance):
        if not (cmd.add or cmd.remove or cmd.edit):
            raise RuleError("a balance proposal that changes nothing")
        if cmd.remove:
            resolve_gm_tool(ctx, RemoveTokens(cmd.remove), ruleset)
        for token in cmd.edit:
            old = state.token(token.id)
            ctx.emit(TokenEdited(copy.deepcopy(old), _checked_token(state, token, ruleset)))
        if cmd.add:
            add_tokens(ctx, AddTokens(cmd.add), [_checked_token(state, t, ruleset)
                                                 for t in cmd.add])
            for token in cmd.add:
                ruleset.joined(ctx, state.tokens[token.id])
    elif isinstance(cmd, FreeMove):
        token = state.token(cmd.token)
        x, y = cmd.to
        if not (0 <= x <= state.map.width - token.size and 0 <= y <= state.map.height - token.size):
            raise RuleError(f"({x},{y}) is off the map")
        ctx.emit(TokenMoved(token.id, (token.cell, cmd.to), 0.0))
    elif isinstance(cmd, SetHp):
        token = state.token(cmd.token)
        ctx.emit(HpChanged(token.id, token.hp, cmd.hp, "GM"))
        ruleset.hp_set(ctx, state.tokens[token.id])
    elif isinstance(cmd, SetValue):
        token = state.token(cmd.token)
        try:  # as a script line is read: numbers in range, not nested too deeply
            value = freeze(cmd.value, "value")
        except InputError as err:
            raise RuleError(str(err)) from None
        unfit = ruleset.value_problem(cmd.key, value)
        if unfit:
            raise RuleError(f"{token.name}: {unfit}")
        ctx.emit(ValueChanged(token.id, cmd.key, token.values.get(cmd.key), value, "GM"))
    elif isinstance(cmd, SetCondition):
        token = state.token(cmd.token)
        has = cmd.condition in token.conditions
        if not cmd.condition.strip():
            raise RuleError("a condition needs a name")
        if has == cmd.on:
            raise RuleError(f"{token.name} {'is already' if has else 'is not'} {cmd.condition}")
        ctx.emit(condition_change(token, cmd.condition, cmd.on))
    elif isinstance(cmd, SetMapImage):
        _set_map_image(ctx, cmd)
    elif isinstance(cmd, AddToken):
        if cmd.token.id in state.tokens:
            raise RuleError(f"there is already a token {cmd.token.id!r}")
        if len(state.tokens) >= MAX_TOKENS:
            raise RuleError(f"the map already holds {MAX_TOKENS:,} tokens, the most an "
                            "encounter may hold")
        ctx.emit(TokenAdded(_checked_token(state, cmd.token, ruleset)))
        ruleset.joined(ctx, state.tokens[cmd.token.id])
    elif isinstance(cmd, EditToken):
        old = state.token(cmd.token.id)
        new = _checked_token(state, cmd.token, ruleset)
        if new == old:
            raise RuleError(f"{old.name} is already like that: nothing to change")
        ctx.emit(TokenEdited(copy.deepcopy(old), new))
    elif isinstance(cmd, SetWalls):
        for i, wall in enumerate(cmd.walls):
            problem = wall_problem(wall, state.map.width, state.map.height)
            if problem:
                raise RuleError(f"wall {i + 1}: {problem}")
        problem = vision.walls_problem(cmd.walls)
        if problem:
            raise RuleError(problem)
        if cmd.walls == state.map.walls:
            raise RuleError("the walls are already like that: nothing to change")
        ctx.emit(WallsChanged(state.map.walls, tuple(cmd.walls)))
    elif isinstance(cmd, SetDiagonal):
        if cmd.rule not in DIAGONAL_RULES:
            raise RuleError(f"there is no diagonal rule {cmd.rule!r} "
                            f"(there are {', '.join(DIAGONAL_RULES)})")
        if cmd.rule == state.diagonal:
            raise RuleError(f"the diagonal rule is already {cmd.rule}")
        ctx.emit(DiagonalChanged(state.diagonal, cmd.rule))
    elif isinstance(cmd, RenameEncounter):
        name = cmd.name.strip()
        if not name:
            raise RuleError("an encounter needs a name")
        if len(name) > MAX_NAME:
            raise RuleError(f"a name of {len(name)} characters is too long "
                            f"(at most {MAX_NAME})")
        if name == state.name:
            raise RuleError(f"the encounter is already called {name!r}")
        ctx.emit(EncounterRenamed(state.name, name))
    elif isinstance(cmd, SetParty):
        sides = {t.side for t in state.tokens.values()}
        if cmd.side not in sides:
            raise RuleError(f"no token is on the side {cmd.side!r}")
        if cmd.side == state.party:
            raise RuleError(f"the players are already the {cmd.side} side")
        ctx.emit(PartyChanged(state.party, cmd.side))
    elif isinstance(cmd, SetHouseRule):
        ctx.emit(_house_rule(state, cmd, ruleset))
    elif isinstance(cmd, PlaceTemplate):
        ctx.emit(placement(state, cmd.template, cmd.label, cmd.id, ruleset.space.walls(state)))
    elif isinstance(cmd, RemoveTemplate):
        ctx.emit(removal(state, cmd.id))
    elif isinstance(cmd, SetDoor):
        walls = state.map.walls
        if not 0 <= cmd.wall < len(walls) or walls[cmd.wall].kind != "door":
            raise RuleError(f"wall {cmd.wall + 1} is not a door" if 0 <= cmd.wall < len(walls)
                            else f"there is no wall {cmd.wall + 1}")
        if walls[cmd.wall].open == cmd.open:
            raise RuleError(f"the door is already {'open' if cmd.open else 'closed'}")
        ctx.emit(DoorChanged(cmd.wall, walls[cmd.wall].open, cmd.open))
    elif isinstance(cmd, SetFog):
        if cmd.enabled == state.fog.enabled:
            raise RuleError(f"fog of war is already {'on' if cmd.enabled else 'off'}")
        ctx.emit(FogSwitched(state.fog.enabled, cmd.enabled))
    elif isinstance(cmd, EditFog):
        _edit_fog(ctx, cmd)
    elif isinstance(cmd, RemoveToken):
        token = state.token(cmd.token)
        index = list(state.tokens).index(token.id)
        ctx.emit(TokenRemoved(copy.deepcopy(token), index))
        ruleset.left(ctx, token)
    else:
        # Reorder and any ruleset-specific override go to the rules, which own the schedule.
        ruleset.resolve(ctx, cmd)


def _edit_fog(ctx: Resolution, cmd: EditFog) -> None:
    """Reveal: shown whatever the party sees. Hide: never shown, and forgotten."""
    state = ctx.state
    fog = state.fog
    try:
        area = vision.edit_polygon(cmd.points, state.map.width, state.map.height)
    except ValueError as err:
        raise RuleError(str(err)) from None
    revealed, hidden = vision.area_shape(fog.revealed), vision.area_shape(fog.hidden)
    if cmd.reveal:
        new = vision.with_fog(fog, revealed=vision.to_area(revealed.union(area)),
                              hidden=vision.to_area(hidden.difference(area)))
    else:
        explored = vision.area_shape(fog.explored)
        new = vision.with_fog(fog, hidden=vision.to_area(hidden.union(area)),
                              revealed=vision.to_area(revealed.difference(area)),
                              explored=vision.to_area(explored.difference(area)))
    if new == fog:
        raise RuleError(f"that area is already {'revealed' if cmd.reveal else 'hidden'}")
    ctx.emit(FogEdited(fog, new, cmd.reveal))


def _set_map_image(ctx: Resolution, cmd: SetMapImage) -> None:
    if cmd.image is not None:
        try:
            check_image_path(cmd.image, "image")
        except ValueError as err:
            raise RuleError(str(err)) from None
    if not 0 < cmd.scale <= 1000:
        raise RuleError(f"{cmd.scale:g} m per pixel is not a usable scale")
    m = ctx.state.map
    if cmd.image is None and cmd.locked:
        raise RuleError("there is no map image to lock")
    # A lock means nothing without an image; removing the image drops it.
    locked = False if cmd.image is None else \
        m.image_locked if cmd.locked is None else cmd.locked
    if m.image_locked and locked and (cmd.offset, cmd.scale) != (m.image_offset, m.image_scale):
        raise RuleError("the map image is locked: unlock it to move or scale it")
    ctx.emit(MapImageChanged((m.image, m.image_offset, m.image_scale),
                             (cmd.image, cmd.offset, cmd.scale), (m.image_locked, locked)))


def _checked_token(state: Encounter, token: Token, ruleset: Ruleset) -> Token:
    """A copy of ``token`` fit to put on the map, or RuleError with the reason.

    Lists in the stat block become tuples (as a saved file reads back), so the
    live state equals the state after save and load.
    """
    if not token.name.strip():
        raise RuleError(f"token {token.id!r} needs a name")
    x, y = token.cell
    if not (0 <= x <= state.map.width - token.size and 0 <= y <= state.map.height - token.size):
        raise RuleError(f"{token.name} at ({x},{y}) would stick out of the "
                        f"{state.map.width}×{state.map.height} m map")
    try:
        if token.image is not None:
            check_image_path(token.image, f"{token.name}'s portrait")
        clean = copy.deepcopy(token)
        clean.stats = freeze(token.stats, "stats")
        clean.values = freeze(token.values, "values")
        ruleset.check_token(clean)
    except InputError as err:
        raise RuleError(str(err)) from None
    return clean
