"""What a ruleset's ``tacmap bench`` figures share (DESIGN §7)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from tacmap.engine.commands import Command
from tacmap.engine.referee import Referee
from tacmap.engine.ruleset import BenchFigure


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
