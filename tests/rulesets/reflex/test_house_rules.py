"""reflex's house rule rolloff_die, one headless case per value: "If two Characters have
the same RFX, they each roll a D6 (though D20s work better), where the highest resulting
roll gets to declare later for the rest of the combat encounter."."""

from __future__ import annotations

import pytest

from tacmap.engine.model.commands import SetHouseRule, StartCombat
from tacmap.engine.model.events import DiceRolled
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry


@pytest.mark.parametrize(("rule", "sides"), [("", 20), ("d6", 6)])
def test_equal_rfx_roll_off_on_the_house_rules_die(registry: Registry, rule: str,
                                                   sides: int) -> None:
    rules = registry.get("reflex")
    state = rules.new_encounter("tie", seed=1)
    state.map = MapSpec(10, 10)
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 1, 1, hp=10, max_hp=10, stats={"rfx": 3}),
        "bo": Token("bo", "Bo", "foes", 5, 5, hp=10, max_hp=10, stats={"rfx": 3}),
    }
    ref = Referee(state, rules)
    if rule:
        ref.execute(SetHouseRule("rolloff_die", rule))
    events = ref.execute(StartCombat(), FixedDice([2, 5]))  # Bo rolls higher: declares later
    rolls = [e.roll for e in events if isinstance(e, DiceRolled)]
    assert [r.sides for r in rolls] == [sides, sides]
    assert [r.faces for r in rolls] == [(2,), (5,)]
