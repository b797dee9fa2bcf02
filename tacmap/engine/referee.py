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
from dataclasses import dataclass
from typing import Literal

from tacmap.engine.codec import record
from tacmap.engine.commands import (
    AddToken,
    Command,
    FreeMove,
    RemoveToken,
    SetCondition,
    SetHp,
    SetMapImage,
    SetValue,
)
from tacmap.engine.dice import DiceSource, SeededDice
from tacmap.engine.errors import RuleError
from tacmap.engine.events import (
    ConditionChanged,
    Event,
    HpChanged,
    MapImageChanged,
    TokenAdded,
    TokenMoved,
    TokenRemoved,
    ValueChanged,
)
from tacmap.engine.ruleset import Resolution, Ruleset
from tacmap.engine.state import Encounter, check_image_path
from tacmap.engine.views import Preview

Change = Literal["execute", "undo", "redo", "reset"]


@record("entry")
@dataclass(frozen=True)
class Entry:
    """One line of the log: what was asked and what happened."""

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
        source = dice if dice is not None else SeededDice(self.state.seed, self.state.dice_drawn)
        ctx = Resolution(self.state, source)
        try:
            if cmd.override:
                resolve_override(ctx, cmd, self.ruleset)
            else:
                self.ruleset.resolve(ctx, cmd)
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
        entry = self.log.pop()
        for event in reversed(entry.events):
            event.revert(self.state)
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
    if isinstance(cmd, FreeMove):
        token = state.token(cmd.token)
        x, y = cmd.to
        if not (0 <= x <= state.map.width - token.size and 0 <= y <= state.map.height - token.size):
            raise RuleError(f"({x},{y}) is off the map")
        ctx.emit(TokenMoved(token.id, (token.cell, cmd.to), 0.0))
    elif isinstance(cmd, SetHp):
        token = state.token(cmd.token)
        ctx.emit(HpChanged(token.id, token.hp, cmd.hp, "GM"))
    elif isinstance(cmd, SetValue):
        token = state.token(cmd.token)
        ctx.emit(ValueChanged(token.id, cmd.key, token.values.get(cmd.key), cmd.value, "GM"))
    elif isinstance(cmd, SetCondition):
        token = state.token(cmd.token)
        has = cmd.condition in token.conditions
        if not cmd.condition.strip():
            raise RuleError("a condition needs a name")
        if has == cmd.on:
            raise RuleError(f"{token.name} {'is already' if has else 'is not'} {cmd.condition}")
        ctx.emit(ConditionChanged(token.id, cmd.condition, cmd.on))
    elif isinstance(cmd, SetMapImage):
        if cmd.image is not None:
            try:
                check_image_path(cmd.image, "image")
            except ValueError as err:
                raise RuleError(str(err)) from None
        if not 0 < cmd.scale <= 1000:
            raise RuleError(f"{cmd.scale:g} m per pixel is not a usable scale")
        m = state.map
        ctx.emit(MapImageChanged((m.image, m.image_offset, m.image_scale),
                                 (cmd.image, cmd.offset, cmd.scale)))
    elif isinstance(cmd, AddToken):
        if cmd.token.id in state.tokens:
            raise RuleError(f"there is already a token {cmd.token.id!r}")
        ruleset.check_token(cmd.token)
        ctx.emit(TokenAdded(copy.deepcopy(cmd.token)))
    elif isinstance(cmd, RemoveToken):
        token = state.token(cmd.token)
        index = list(state.tokens).index(token.id)
        ctx.emit(TokenRemoved(copy.deepcopy(token), index))
    else:
        # Reorder and any ruleset-specific override go to the rules, which own the schedule.
        ruleset.resolve(ctx, cmd)
