"""What a ruleset's ``tacmap bench`` figures share (DESIGN §7)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from tacmap.engine.model.commands import Command
from tacmap.engine.model.state import MapSpec, Token, Wall
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import BenchFigure, Ruleset


def duel(rules: Ruleset, hero: Token, foe: Token, seed: int = 1,
         size: tuple[int, int] = (12, 8)) -> Referee:
    """A referee on a bare map of ``size`` cells with ``hero`` and ``foe`` on it, combat not
    started: where a ruleset's bench figures time one attack."""
    state = rules.new_encounter("bench", seed=seed)
    state.map = MapSpec(*size)
    state.tokens = {hero.id: hero, foe.id: foe}
    return Referee(state, rules)


def attack_runner(referee: Referee, attack: Command, first_seed: int = 2
                  ) -> Callable[[], object]:
    """A function that executes ``attack`` and takes it back, with a new dice seed each call.

    A new seed each time times hits, misses, kills and reactions alike; the undo
    leaves the next call starting from the same state.
    """
    seeds = itertools.count(first_seed)

    def execute_attack() -> object:
        referee.state.seed = next(seeds)
        events = referee.execute(attack)
        referee.undo()
        return events

    return execute_attack


#: DESIGN §7 budgets (p95, ms) every ruleset's two figures are held to.
ATTACK_BUDGET_MS = 5.0
ODDS_BUDGET_MS = 20.0


def attack_figures(execute_attack: Callable[[], object], attack_odds: Callable[[], object]
                   ) -> list[BenchFigure]:
    """The two figures each ruleset owns: one attack executed, one exact-odds preview."""
    return [("execute one attack, command to events", execute_attack, ATTACK_BUDGET_MS),
            ("exact odds for one attack preview", attack_odds, ODDS_BUDGET_MS)]


def dungeon(rooms: int = 12, room: int = 10) -> tuple[Wall, ...]:
    """A dungeon of ``rooms``×``rooms`` square rooms: each side a wall, a door, a wall.

    Every third door stands open; a pillar stands in every ninth room. 12×12 rooms
    of 10 m make 1,000 wall segments, as the sight figure asks.
    """
    walls: list[Wall] = []
    n = 0
    for i in range(rooms + 1):
        for j in range(rooms):
            for horizontal in (True, False):
                a, b = j * room, (j + 1) * room
                mid0, mid1 = a + room // 2 - 1, a + room // 2 + 1
                line = i * room

                def at(u: float, line: float = line, horizontal: bool = horizontal
                       ) -> tuple[float, float]:
                    return (u, line) if horizontal else (line, u)

                edge = i in (0, rooms)
                walls.append(Wall((at(a), at(mid0))))
                walls.append(Wall((at(mid1), at(b))))
                if edge:
                    walls.append(Wall((at(mid0), at(mid1))))
                else:
                    n += 1
                    walls.append(Wall((at(mid0), at(mid1)), kind="door", open=n % 3 == 0))
    for k in range(rooms * rooms):
        if k % 9 == 4:
            x, y = (k % rooms) * room + 3, (k // rooms) * room + 3
            walls.append(Wall(((x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)), closed=True))
    return tuple(walls)


def sight_segments(walls: tuple[Wall, ...]) -> int:
    """How many wall segments ``walls`` hold (a closed obstacle's edges included)."""
    return sum(len(w.points) - (0 if w.closed else 1) for w in walls)
