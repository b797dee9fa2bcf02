"""action_pool's house rule movement, one headless case per value: "In normal
circumstances, a character can move 10 m per turn. [...] Normally a character can move
10 m per action (20 m per turn)"."""

from __future__ import annotations

import pytest

from tacmap.engine.model.commands import EndTurn, Move, SetHouseRule
from tacmap.engine.model.errors import RuleError

from .conftest import ANA, BRAK, Build, token


def test_movement_per_action_goes_20_m_with_two_actions(fight: Build) -> None:
    referee = fight(token("ana", "party", 0, 0, **ANA), token("brak", "foes", 19, 7, **BRAK),
                    size=(20, 8))
    referee.execute(Move("ana", ((14, 0),)))  # 14 m: two move actions
    assert referee.state.tokens["ana"].cell == (14, 0)
    assert referee.state.schedule.actions_left == 0  # type: ignore[union-attr]


def test_movement_per_turn_is_one_move_of_10_m_a_turn(fight: Build) -> None:
    referee = fight(token("ana", "party", 0, 0, **ANA), token("brak", "foes", 19, 7, **BRAK),
                    size=(20, 8))
    referee.execute(SetHouseRule("movement", "per_turn"))
    with pytest.raises(RuleError, match="can move 10 m"):
        referee.execute(Move("ana", ((14, 0),)))
    referee.execute(Move("ana", ((4, 0),)))  # one action, and the turn's move is made
    assert referee.state.schedule.actions_left == 1  # type: ignore[union-attr]
    with pytest.raises(RuleError):
        referee.execute(Move("ana", ((5, 0),)))
    referee.execute(EndTurn("ana"))
    referee.execute(EndTurn("brak"))
    referee.execute(Move("ana", ((8, 0),)))  # a new turn, a new move
    assert referee.state.tokens["ana"].cell == (8, 0)


def test_the_move_button_says_a_turn_and_greys_once_the_move_is_made(fight: Build) -> None:
    """Under movement = "per_turn" the Actions panel said "Move (10 m an action)" and kept
    the button on after the turn's move, which the drag then refused."""
    referee = fight(token("ana", "party", 0, 0, **ANA), token("brak", "foes", 19, 7, **BRAK),
                    size=(20, 8))

    def move_option() -> tuple[str, bool, str]:
        move = next(o for o in referee.ruleset.actions_for(referee.state, "ana")
                    if o.key == "move")
        return move.label, move.enabled, move.reason

    assert move_option() == ("Move (10 m an action)", True, "")
    referee.execute(SetHouseRule("movement", "per_turn"))
    assert move_option() == ("Move (10 m a turn)", True, "")
    referee.execute(Move("ana", ((4, 0),)))
    assert move_option() == ("Move (10 m a turn)", False,
                             "Ana has moved this turn (house rule: one move a turn)")
