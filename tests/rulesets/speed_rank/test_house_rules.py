"""speed_rank's house rule move_only_phase, one headless case per value.

"In each phase, the side with the highest Initiative goes first, followed by the lower
Initiatives until each side that can act in a phase has acted." "A character may
accomplish any number of actions in a round, providing they have the actions to spare"."""

from __future__ import annotations

from tacmap.engine.model.commands import Attack, EndTurn, Move, SetHouseRule, StartCombat
from tacmap.engine.rules.ruleset import Registry
from tests.rulesets.speed_rank.helpers import referee, run
from tests.rulesets.speed_rank.test_skipping import duel, turns


def test_move_only_phase_holds_a_phase_for_the_move_left(registry: Registry) -> None:
    # The text: Ana, her standard action spent, still has a move to spare, so Red is not
    # skipped in phase 1 and she steps away (with idle_phase "hold": under "pass", the
    # default, a move to spare holds only its first phase).
    ref = referee(registry, duel())
    ref.execute(SetHouseRule("idle_phase", "hold"))
    run(ref, StartCombat(), [6, 3])  # Red first
    run(ref, Attack("ana", "bo"), [1])
    run(ref, EndTurn())
    run(ref, Attack("bo", "ana"), [1])
    run(ref, EndTurn())
    assert turns(ref) == ("1", "Red")
    run(ref, Move("ana", ((4, 5),)))
    assert ref.state.tokens["ana"].cell == (4, 5)


def test_move_only_phase_skip_passes_the_side_over(registry: Registry) -> None:
    # Encounters saved before house rules: a lone move action holds no phase.
    ref = referee(registry, duel())
    ref.execute(SetHouseRule("move_only_phase", "skip"))
    run(ref, StartCombat(), [6, 3])
    run(ref, Attack("ana", "bo"), [1])
    run(ref, EndTurn())
    run(ref, Attack("bo", "ana"), [1])
    run(ref, EndTurn())
    assert turns(ref) == ("3", "Blue")
