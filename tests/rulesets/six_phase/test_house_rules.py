"""six_phase's house rule self_hit_floor, one headless case per value: "Failure means you
get hit, damage equals 10 minus your result." (Grapple and Shove)."""

from __future__ import annotations

import pytest

from tacmap.engine.model.commands import Act, EndTurn, SetHouseRule, StartCombat
from tacmap.engine.model.events import Said
from tacmap.engine.model.state import MapSpec, Token
from tacmap.engine.play.referee import Referee
from tacmap.engine.rules.dice import FixedDice
from tacmap.engine.rules.ruleset import Registry


@pytest.mark.parametrize(("rule", "hp", "line"), [
    ("", 20, "Ana's shove fails (12): 10 minus 12 is no damage, Ana comes to no harm"),
    ("minimum", 19, "Ana's shove fails (12): 10 minus 12 is raised to the minimum, Ana is hit "
                    "for 1"),
])
def test_a_failed_shove_of_12_hurts_by_the_house_rule(registry: Registry, rule: str, hp: int,
                                                      line: str) -> None:
    rules = registry.get("six_phase")
    state = rules.new_encounter("self hit", seed=1)
    state.map = MapSpec(16, 10)
    state.tokens = {
        "ana": Token("ana", "Ana", "party", 4, 4, hp=20, max_hp=20, stats={"str": 10}),
        "brak": Token("brak", "Brak", "foes", 5, 4, hp=20, max_hp=20,
                      stats={"kind": "monster", "hd": 2, "dex_mod": 4}),
    }
    ref = Referee(state, rules)
    if rule:
        ref.execute(SetHouseRule("self_hit_floor", rule))
    ref.execute(StartCombat())
    ref.execute(EndTurn("ana"))
    ref.execute(EndTurn("brak"))
    ref.execute(EndTurn("brak"))
    # Needs Strength 10 + Brak's Defense 4 = 14; the d20 shows 12.
    events = ref.execute(Act("ana", "shove", "brak", "prone"), FixedDice([12]))
    assert line in [e.message for e in events if isinstance(e, Said)]
    assert ref.state.tokens["ana"].hp == hp
