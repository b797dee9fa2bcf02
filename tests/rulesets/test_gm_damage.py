"""GM damage (the token menu's Damage…) drops a token the way each ruleset's own blows do.

action_pool and reflex: dead at 0 and out of the order (reflex: out of the RFX
order at once); speed_rank: dead at 0, a sleeper woken by the hurt; six_phase:
0 HP gives a Wound, a blow of the whole maximum kills; opposed: falling at 0.
Undo takes the drop back with the damage.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tacmap.engine.files import storage
from tacmap.engine.model.commands import AdjustHp, SetCondition, SetHp, StartCombat
from tacmap.engine.play.narrate import sentence
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.ruleset import Registry

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def started(registry: Registry, name: str) -> Referee:
    loaded = storage.load(RESOURCES / name, registry)
    referee = Referee(loaded.state, registry.get(loaded.state.ruleset), loaded.log)
    referee.execute(StartCombat())
    return referee


def row_state(referee: Referee, token_id: str) -> str:
    order = referee.ruleset.turn_order(referee.state)
    assert order is not None
    return next(r.state for r in order.rows if r.id == token_id)


@pytest.mark.parametrize(("demo", "token", "condition", "row"), [
    ("demo.tacmap", "mott", "dead", "out"),
    ("reflex_demo.tacmap", "kestrel", "dead", "out"),
    ("six_phase_demo.tacmap", "snik", "dead", "out"),
    ("speed_rank_demo.tacmap", "pip", "dead", "out"),
    ("opposed_demo.tacmap", "lio", "falling", "acting"),
])
def test_gm_damage_to_zero_drops_the_token_the_rulesets_way_and_undo_stands_it_up(
        registry: Registry, demo: str, token: str, condition: str, row: str) -> None:
    referee = started(registry, demo)
    before = row_state(referee, token)
    hp = referee.state.tokens[token].hp
    referee.execute(AdjustHp(token, -hp))
    entry = referee.log[-1]
    assert sentence(referee.state, entry.command, entry.events).startswith(
        f"GM deals {hp} damage to ")
    assert condition in referee.state.tokens[token].conditions
    assert row_state(referee, token) == row
    referee.undo()
    assert referee.state.tokens[token].conditions == ()
    assert referee.state.tokens[token].hp == hp
    assert row_state(referee, token) == before


def test_reflex_gm_damage_takes_the_token_out_of_the_rfx_order(registry: Registry) -> None:
    referee = started(registry, "reflex_demo.tacmap")
    referee.execute(AdjustHp("kestrel", -20))
    assert "kestrel" not in (w for w, _ in referee.state.schedule.order.keys)
    assert any("drops at -6 HP and is out of the fight" in e.text(referee.state)
               for e in referee.log[-1].events)


def test_six_phase_gm_damage_short_of_the_maximum_gives_a_wound_not_death(
        registry: Registry) -> None:
    referee = started(registry, "six_phase_demo.tacmap")
    referee.execute(AdjustHp("regdar", -17))
    referee.execute(AdjustHp("regdar", -3))  # 3 → 0: three damage, far from the maximum 20
    regdar = referee.state.tokens["regdar"]
    assert regdar.alive and len(regdar.values["wounds"]) == 1
    referee.undo()
    assert "wounds" not in referee.state.tokens["regdar"].values


def test_speed_rank_gm_damage_wakes_a_sleeper(registry: Registry) -> None:
    referee = started(registry, "speed_rank_demo.tacmap")
    referee.execute(SetCondition("pip", "asleep"))
    referee.execute(AdjustHp("pip", -2))
    assert "asleep" not in referee.state.tokens["pip"].conditions
    referee.execute(AdjustHp("pip", 1))  # healing wakes nobody and kills nobody
    assert referee.state.tokens["pip"].alive


def test_set_hp_to_zero_drops_a_token_as_gm_damage_does(registry: Registry) -> None:
    referee = started(registry, "demo.tacmap")
    referee.execute(SetHp("mott", 0))
    assert not referee.state.tokens["mott"].alive
    assert row_state(referee, "mott") == "out"
