"""What a move spends, as the drag label says it: "Each character can take two actions on
their turn", "a character can move 10 m per action (20 m per turn)"."""

from __future__ import annotations

from tacmap.engine.model.commands import Move

from .conftest import ANA, BRAK, Build, token


def test_the_drag_preview_says_how_many_actions_a_move_takes(fight: Build) -> None:
    referee = fight(token("ana", "party", 0, 0, **ANA), token("brak", "foes", 11, 7, **BRAK),
                    size=(20, 8))
    # The order is the one given: Ana first, two actions.
    short = referee.preview(Move("ana", ((4, 0),)))
    assert short.uses == "one action (10 m a move action): 1 action left (an attack is one)"
    long = referee.preview(Move("ana", ((14, 0),)))
    assert long.uses == "2 actions (10 m a move action): no action left this turn"
    referee.execute(Move("ana", ((4, 0),)))
    assert referee.preview(Move("ana", ((5, 0),))).uses == \
        "one action (10 m a move action): no action left this turn"
