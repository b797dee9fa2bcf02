"""What a ruleset's ``tacmap bench`` figures share (DESIGN §7)."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from tacmap.engine.commands import Command
from tacmap.engine.referee import Referee


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
