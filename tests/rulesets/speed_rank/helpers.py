"""Builders shared by the Speed Rank tests: a small fight, dice that must all be used."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tacmap.engine.model.commands import Command, EndTurn, StartCombat
from tacmap.engine.model.events import Event
from tacmap.engine.model.state import Encounter, MapSpec, Token, Wall
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry

#: Two sides that tie on 4 and re-roll 2 against 1: Red first, and one Combat Event is due.
TIE = (4, 4, 2, 1)


def fighters() -> list[Token]:
    """Ana (Red, armoured) toe to toe with Bo (Blue); Cy (Blue) stands far off."""
    return [
        Token("ana", "Ana", "Red", 5, 5, hp=20, max_hp=20, stats={
            "weapon": "longsword", "to_hit": 3, "ac": 15, "save": 2, "helmet": True,
            "shield": True, "armour": True, "items": ("rope",)}),
        Token("bo", "Bo", "Blue", 6, 5, hp=20, max_hp=20, stats={
            "weapon": "mace", "ac": 13, "shield": True}),
        Token("cy", "Cy", "Blue", 15, 9, hp=12, max_hp=12),
    ]


def rules_of(registry: Registry) -> Any:
    """The Speed Rank ruleset, typed loosely: its class is loaded from rules.py at run time."""
    return registry.get("speed_rank")


def referee(registry: Registry, tokens: Iterable[Token], walls: Sequence[Wall] = (),
            size: tuple[int, int] = (20, 12)) -> Referee:
    """A referee on a fresh Speed Rank encounter with these tokens."""
    rules = registry.get("speed_rank")
    state: Encounter = rules.new_encounter("test", seed=5)
    state.map = MapSpec(size[0], size[1], walls=tuple(walls))
    for t in tokens:
        rules.check_token(t)
        state.tokens[t.id] = t
    return Referee(state, rules)


def run(ref: Referee, cmd: Command, faces: Sequence[int] = ()) -> list[str]:
    """Execute ``cmd`` with exactly ``faces`` and return the log lines."""
    dice = FixedDice(faces)
    events = ref.execute(cmd, dice)
    assert dice.used == len(dice.faces), f"{len(dice.faces) - dice.used} faces left over"
    return lines(ref, events)


def lines(ref: Referee, events: Iterable[Event]) -> list[str]:
    """Readable lines for ``events`` (against the state after them)."""
    return [e.text(ref.state) for e in events]


def start_with_event(registry: Registry, faces: Sequence[int],
                     tokens: Iterable[Token] | None = None,
                     walls: Sequence[Wall] = ()) -> tuple[Referee, list[str]]:
    """Start combat on a tie, so one Combat Event is rolled with ``faces``."""
    ref = referee(registry, fighters() if tokens is None else tokens, walls)
    return ref, run(ref, StartCombat(), (*TIE, *faces))


def next_round(ref: Referee, faces: Sequence[int]) -> list[str]:
    """Pass every turn until the next round begins, which throws exactly ``faces``."""
    dice = FixedDice(faces)
    start = ref.state.round
    out: list[str] = []
    while ref.state.round == start:
        out = lines(ref, ref.execute(EndTurn(), dice))
    assert dice.used == len(dice.faces), f"{len(dice.faces) - dice.used} faces left over"
    return out


def to_phase(ref: Referee, phase: str, side: str) -> None:
    """Pass turns (no dice) until it is ``side``'s turn in ``phase``."""
    for _ in range(100):
        rnd = ref.state.schedule
        if rnd.phase == phase and rnd.current_side == side:
            return
        ref.execute(EndTurn(), FixedDice([]))
    raise AssertionError(f"never reached {side} in phase {phase}")
