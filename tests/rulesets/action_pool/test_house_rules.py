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
