"""A combatant added mid-combat (Build ▸ Add Combatant) gets turns: the ruleset says where.

action_pool: last in the order, with a pool. speed_rank: with its side; a new
side joins the initiative roll of the next round.
"""

from __future__ import annotations

from pathlib import Path

from tacmap.engine.files import storage
from tacmap.engine.model.commands import AddToken, EndTurn, StartCombat
from tacmap.engine.model.state import Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def demo(registry: Registry, name: str) -> Referee:
    loaded = storage.load(RESOURCES / name, registry)
    return Referee(loaded.state, registry.get(loaded.state.ruleset), loaded.log)


def acting(referee: Referee) -> set[str]:
    order = referee.ruleset.turn_order(referee.state)
    return {r.id for r in order.rows if r.state == "acting"} if order else set()


def test_action_pool_newcomer_is_last_in_the_order_with_a_pool(registry: Registry) -> None:
    referee = demo(registry, "demo.tacmap")
    referee.execute(StartCombat())
    referee.execute(AddToken(Token("kit", "Kit", "heroes", 1, 1, stats={})))
    assert referee.state.schedule.order[-1] == "kit"
    assert referee.state.tokens["kit"].values["pool"] > 0
    seen = set()
    for _ in range(len(referee.state.schedule.order)):
        seen |= acting(referee)
        referee.execute(EndTurn())
    assert "kit" in seen
    referee.undo()  # undo walks back through the end turns …
    while referee.log and "kit" in referee.state.tokens:
        referee.undo()
    assert "kit" not in referee.state.schedule.order  # … and the join with the token


def test_speed_rank_newcomer_on_a_new_side_acts_from_the_next_round(registry: Registry) -> None:
    referee = demo(registry, "speed_rank_demo.tacmap")
    referee.execute(StartCombat())
    referee.execute(AddToken(Token("wolf", "Grey Wolf", "Wolves", 2, 2, stats={})))
    start = referee.state.round
    seen: set[str] = set()
    for _ in range(400):
        if referee.state.round > start + 1:
            break
        seen |= acting(referee)
        referee.execute(EndTurn())
    order = referee.ruleset.turn_order(referee.state)
    assert any(r.id == "Wolves" for r in order.rows)
    assert "wolf" in seen or "Wolves" in seen
