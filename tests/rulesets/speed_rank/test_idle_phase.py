"""speed_rank's house rule idle_phase (issue 36): a side whose every combatant can only
wait passes the phase by itself, named in the log.

"In each phase, the side with the highest Initiative goes first, followed by the lower
Initiatives until each side that can act in a phase has acted."
"""

from __future__ import annotations

from tacmap.engine.model.commands import EndTurn, Move, SetHouseRule, StartCombat
from tacmap.engine.model.errors import RuleError
from tacmap.engine.model.state import Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry
from tests.rulesets.speed_rank.helpers import referee, run
from tests.rulesets.speed_rank.test_skipping import turns


def apart() -> list[Token]:
    """Two longswords (speed 0) 13 cells apart: a move of 6 cells does not bring either
    into reach of the other."""
    return [
        Token("ana", "Ana", "Red", 2, 5, hp=20, max_hp=20, stats={"weapon": "longsword"}),
        Token("bo", "Bo", "Blue", 15, 5, hp=20, max_hp=20, stats={"weapon": "longsword"}),
    ]


def close_in(ref: Referee) -> tuple[int, list[str]]:
    """Round 1 as a GM plays it: each side's combatant steps towards the other in its
    first turn; End turn pressed for whatever turn comes up until round 2. Returns the
    presses and the log."""
    out = run(ref, StartCombat(), [6, 3])  # Red first
    run(ref, Move("ana", ((7, 5),)))
    presses = 0
    while ref.state.round == 1:
        if turns(ref)[1] == "Blue" and ref.state.tokens["bo"].x == 15:
            run(ref, Move("bo", ((10, 5),)))
        out += end_turn(ref)
        presses += 1
    return presses, out


def end_turn(ref: Referee) -> list[str]:
    """End turn; when it ends the round, with the next round's initiative dice."""
    try:
        return run(ref, EndTurn())
    except RuleError:  # refused, nothing changed: the round ended and rolls initiative
        return run(ref, EndTurn(), [5, 4])


def test_a_round_closing_in_takes_a_press_per_combatant_who_acts(registry: Registry) -> None:
    # Ana and Bo each move once; neither can strike the other this round, so after
    # their moves every phase passes by itself: two presses for two combatants who act.
    presses, out = close_in(referee(registry, apart()))
    assert presses == 2
    assert "phases 1, 2, 3, 4, 5, F pass; round 1 ends" in out


def test_hold_asks_for_a_press_in_every_phase_a_weapon_may_strike(registry: Registry) -> None:
    # The GM setting off (and encounters saved before version 1.1): each side holds every
    # phase from its weapon's strike on, target or none, and the GM ends each by hand.
    ref = referee(registry, apart())
    ref.execute(SetHouseRule("idle_phase", "hold"))
    presses, _out = close_in(ref)
    assert presses > 8


def test_a_step_and_a_strike_hold_the_phase(registry: Registry) -> None:
    # Bo four cells off: a move of 6 brings him into Ana's reach, so Red's phase 1 is
    # not passed over (her first phase, 0, spent waiting).
    tokens = apart()
    tokens[1] = Token("bo", "Bo", "Blue", 7, 5, hp=20, max_hp=20,
                      stats={"weapon": "longsword"})
    ref = referee(registry, tokens)
    run(ref, StartCombat(), [6, 3])
    assert turns(ref) == ("0", "Red")
    run(ref, EndTurn())  # Red waits in phase 0
    assert turns(ref) == ("0", "Blue")
    run(ref, EndTurn())
    assert turns(ref) == ("1", "Red")


def test_nothing_in_reach_after_a_move_passes_the_phase(registry: Registry) -> None:
    # Bo far off: after Red's first phase nothing Ana's longsword could reach, even
    # after a move, so phase 1 passes Red by, named in the log.
    ref = referee(registry, apart())
    run(ref, StartCombat(), [6, 3])
    run(ref, EndTurn())  # Red, phase 0
    out = end_turn(ref)  # Blue, phase 0: nobody can strike anybody until round 2
    assert ref.state.round == 2
    assert "phases 1, 2, 3, 4, 5, F pass; round 1 ends" in out
